// How core declares a kernel once for every backend and hands it to an executor.
//
// Every backend implements its kernels in namespace larch::kernels::<backend>, where the alias
// `DefaultExecutor` names the backend's executor type. LARCH_DECLARE_KERNEL writes one declaration into all
// four namespaces; LARCH_RUN_KERNEL builds an Operation whose overload for each executor type calls the
// kernel of that backend. A backend that is not part of the build is never referenced: its overload
// throws BackendNotBuilt naming the backend and the kernel (such an executor cannot be created, so
// this is a guard, not a path users reach).
#pragma once

#include <utility>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/config.hpp"

namespace larch {
namespace kernels {
namespace reference {
using DefaultExecutor = ReferenceExecutor;
}
namespace omp {
using DefaultExecutor = OmpExecutor;
}
namespace cuda {
using DefaultExecutor = CudaExecutor;
}
namespace hip {
using DefaultExecutor = HipExecutor;
}
}  // namespace kernels

namespace detail {

template <typename RefFn, typename OmpFn, typename CudaFn, typename HipFn>
class KernelOperation final : public Operation {
public:
    KernelOperation(const char* name, RefFn ref, OmpFn omp, CudaFn cuda, HipFn hip)
        : name_{name}, ref_{std::move(ref)}, omp_{std::move(omp)}, cuda_{std::move(cuda)},
          hip_{std::move(hip)}
    {}
    const char* get_name() const override { return name_; }
    void run(const ReferenceExecutor& exec) const override { ref_(exec); }
    void run(const OmpExecutor& exec) const override { omp_(exec); }
    void run(const CudaExecutor& exec) const override { cuda_(exec); }
    void run(const HipExecutor& exec) const override { hip_(exec); }

private:
    const char* name_;
    RefFn ref_;
    OmpFn omp_;
    CudaFn cuda_;
    HipFn hip_;
};

template <typename... Fns>
KernelOperation<Fns...> make_operation(const char* name, Fns... fns)
{
    return KernelOperation<Fns...>{name, std::move(fns)...};
}

}  // namespace detail
}  // namespace larch

/// Declares a kernel in the namespace of every backend (write it inside namespace larch::kernels).
#define LARCH_DECLARE_KERNEL(...)  \
    namespace reference {          \
    __VA_ARGS__;                   \
    }                              \
    namespace omp {                \
    __VA_ARGS__;                   \
    }                              \
    namespace cuda {               \
    __VA_ARGS__;                   \
    }                              \
    namespace hip {                \
    __VA_ARGS__;                   \
    }

/// Runs kernel `name` (e.g. csr::spmv, declared with LARCH_DECLARE_KERNEL) with the given arguments on
/// `exec`; the executor is passed to the kernel as its first argument.
#define LARCH_RUN_KERNEL(exec, name, ...)                                                            \
    (exec)->run(::larch::detail::make_operation(                                                   \
        #name,                                                                                     \
        [&](const ::larch::ReferenceExecutor& e_) {                                                \
            ::larch::kernels::reference::name(e_, __VA_ARGS__);                                   \
        },                                                                                         \
        [&](const ::larch::OmpExecutor& e_) { ::larch::kernels::omp::name(e_, __VA_ARGS__); },   \
        [&](const ::larch::CudaExecutor& e_) {                                                     \
            if constexpr (::larch::config::have_cuda) {                                            \
                ::larch::kernels::cuda::name(e_, __VA_ARGS__);                                     \
            } else {                                                                               \
                LARCH_THROW(::larch::BackendNotBuilt,                                              \
                            "kernel " #name ": the CUDA backend is not part of this build");       \
            }                                                                                      \
        },                                                                                         \
        [&](const ::larch::HipExecutor& e_) {                                                      \
            if constexpr (::larch::config::have_hip) {                                             \
                ::larch::kernels::hip::name(e_, __VA_ARGS__);                                      \
            } else {                                                                               \
                LARCH_THROW(::larch::BackendNotBuilt,                                              \
                            "kernel " #name ": the HIP backend is not part of this build");        \
            }                                                                                      \
        }))
