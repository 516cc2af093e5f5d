# Included from the top-level CMakeLists (custom-command outputs are visible only to targets of the same
# directory). The HIP backend: the device sources under cuda/ compiled by Debian's hipcc for AMD targets
# (compile-checked only here: no AMD GPU is available). Per-file hipcc calls avoid CMake 3.25's
# enable_language(HIP) workarounds on Debian (see the project notes). The calls go through the C++ compiler
# launcher (ccache) when there is one, so the static library's second build reuses them.
find_library(LARCH_AMDHIP64 amdhip64 REQUIRED)
set(hip_arch_flags)
foreach(arch IN LISTS LARCH_HIP_ARCHITECTURES)
    list(APPEND hip_arch_flags --offload-arch=${arch})
endforeach()
set(hip_objects)
foreach(source IN LISTS larch_device_sources)
    if(source MATCHES "_(cublas|cusparse)\\.cu$")
        continue()
    endif()
    file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${source})
    string(REGEX REPLACE "\\.cu$" ".hip.o" object ${relative})
    set(object ${PROJECT_BINARY_DIR}/hip/${object})
    get_filename_component(object_dir ${object} DIRECTORY)
    add_custom_command(OUTPUT ${object}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${object_dir}
        COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} ${LARCH_HIPCC} -std=c++17 -O3 -fPIC -x hip ${hip_arch_flags}
                -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include
                -fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=
                -c ${source} -o ${object}
        DEPENDS ${source}
        IMPLICIT_DEPENDS CXX ${source}
        COMMENT "hipcc ${relative}"
        VERBATIM)
    list(APPEND hip_objects ${object})
endforeach()
target_sources(larch PRIVATE ${hip_objects})
set_source_files_properties(${hip_objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
# Private, and by name (a static larch makes its users link it): no absolute path of this machine ends up
# in larchTargets.cmake; the folder is a link directory of this build only.
get_filename_component(larch_amdhip64_dir ${LARCH_AMDHIP64} DIRECTORY)
target_link_directories(larch PRIVATE ${larch_amdhip64_dir})
target_link_libraries(larch PRIVATE amdhip64)
