# Runs benchmark/checks/batch_solver_bytes.json and checks each case's "bytes" against the byte model of
# benchmark/operations/batch_solver.cpp, counted here by hand. The item: the 3-point stencil of 16 rows,
# 46 stored entries (368 bytes of double values), 46 column indices and 17 row pointers (252 bytes); with
# one item in the batch its pattern counts whole. Per CG iteration, one SpMV:
# - Jacobi and no preconditioner: the matrix only, 620 bytes (the vectors live in the workspace of a host
#   executor, which the model does not count; the Jacobi scales neither);
# - block-Jacobi with blocks of 4: also the 4 diagonal blocks' 64 values (512 bytes) and 16 bytes of
#   indices per row (256), 1,388 bytes.
# Usage: cmake -DBENCHMARK=<larch_benchmark> -DCONFIG=<json> -DOUTPUT=<results json> -P batch_solver_bytes.cmake
execute_process(COMMAND ${BENCHMARK} ${CONFIG} --output ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "larch_benchmark ${CONFIG} exited with ${status}")
endif()
file(READ ${OUTPUT} results)
set(expected_per_iteration 620 620 1388)
foreach(case RANGE 2)
    list(GET expected_per_iteration ${case} per_iteration)
    string(JSON label GET "${results}" cases ${case} label)
    string(JSON bytes GET "${results}" cases ${case} bytes)
    string(JSON iterations GET "${results}" cases ${case} mean_iterations)
    if(NOT iterations MATCHES "^([1-9][0-9]*)(\\.0)?$")
        message(FATAL_ERROR "${label}: mean_iterations ${iterations} is not a positive whole number")
    endif()
    set(whole_iterations ${CMAKE_MATCH_1})
    math(EXPR expected "${whole_iterations} * ${per_iteration}")
    if(NOT bytes MATCHES "^${expected}(\\.0)?$")
        message(FATAL_ERROR "${label}: ${bytes} bytes, expected ${whole_iterations} iterations x ${per_iteration} = ${expected}")
    endif()
    message(STATUS "${label}: ${bytes} bytes (${whole_iterations} iterations x ${per_iteration})")
endforeach()
