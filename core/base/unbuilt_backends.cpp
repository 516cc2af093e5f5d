// Executors of backends that are not part of this build: creating one throws BackendNotBuilt, and
// asking for the number of devices answers 0, so best_available_executor_name() skips them.
#include "larch/base/executor.hpp"
#include "larch/config.hpp"

namespace larch {
#if !LARCH_HAVE_CUDA || !LARCH_HAVE_HIP
namespace {

[[noreturn]] void throw_not_built(const char* backend, const char* what)
{
    LARCH_THROW(BackendNotBuilt, std::string{what} + ": larch was built without the " + backend +
                                     " backend; rebuild with -DLARCH_BUILD_" + backend +
                                     "=ON on a machine that has its compiler, or pick the omp "
                                     "executor");
}

}  // namespace
#endif

// The GPU executor's members are defined once in cuda/base/executor.cu for whichever of the two
// runtimes compiles it; for a runtime that is absent, every member below explains what is missing.
#define LARCH_UNBUILT_EXECUTOR(ExecType, backend)                                                  \
    std::shared_ptr<ExecType> ExecType::create(int) { throw_not_built(backend, #ExecType "::create"); } \
    int ExecType::get_num_devices() { return 0; }                                                  \
    ExecType::ExecType(int device_id, std::shared_ptr<const larch::Executor> host)                 \
        : GpuExecutor(device_id, std::move(host))                                                  \
    {}                                                                                             \
    void ExecType::run(const Operation&) const { throw_not_built(backend, #ExecType "::run"); } \
    void* ExecType::raw_alloc(size_type) const { throw_not_built(backend, #ExecType "::alloc"); } \
    void ExecType::free_bytes(void*) const noexcept {}                                             \
    void* ExecType::alloc_pinned_host(size_type) const                                             \
    {                                                                                              \
        throw_not_built(backend, #ExecType "::alloc_pinned_host");                                 \
    }                                                                                              \
    void ExecType::free_pinned_host(void*) const noexcept {}                                       \
    void ExecType::synchronize() const {}                                                          \
    void ExecType::raw_copy_from_host(const void*, size_type, void*) const                         \
    {                                                                                              \
        throw_not_built(backend, #ExecType "::copy");                                    \
    }                                                                                              \
    void ExecType::raw_copy_to_host(const void*, size_type, void*) const                           \
    {                                                                                              \
        throw_not_built(backend, #ExecType "::copy");                                    \
    }                                                                                              \
    void ExecType::raw_copy_same_backend(const larch::Executor&, const void*, size_type, void*) const \
    {                                                                                              \
        throw_not_built(backend, #ExecType "::copy");                                    \
    }

#if !LARCH_HAVE_CUDA
LARCH_UNBUILT_EXECUTOR(CudaExecutor, "CUDA")
#endif
#if !LARCH_HAVE_HIP
LARCH_UNBUILT_EXECUTOR(HipExecutor, "HIP")
#endif

}  // namespace larch
