// CUDA GMRES kernels: the Givens step of every column in one small launch, one thread per column (at most
// 32 columns, O(j) work each), so that the step's least-squares update stays on the device.
#include "core/solver/gmres_kernels.hpp"

#include "core/solver/gmres_step_rules.hpp"
#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace gmres {
namespace {

// one block, one thread per column
template <typename T>
__global__ void givens_step_kernel(GmresLayout layout, size_type step, size_type slot, const T* reductions,
                                   double* problem, double* state, T* factors)
{
    const size_type col = threadIdx.x;
    if (col < layout.cols) {
        gmres_rules::givens_step(layout, step, slot, col, reductions, problem, state, factors);
    }
}

}  // namespace

template <typename T>
void givens_step(const DefaultExecutor&, const GmresLayout& layout, size_type step, size_type slot,
                 const array<T>& reductions, array<double>& problem, array<double>& state, array<T>& factors)
{
    if (layout.cols == 0) {
        return;
    }
    givens_step_kernel<<<1, static_cast<unsigned>(layout.cols)>>>(layout, step, slot, reductions.get_const_data(),
                                                                  problem.get_data(), state.get_data(),
                                                                  factors.get_data());
    LARCH_LAUNCH_CHECK("gmres::givens_step");
}

LARCH_INSTANTIATE_GMRES_KERNELS();

}  // namespace gmres
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
