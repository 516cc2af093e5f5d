// CUDA IDR kernels: the scalar phases of every column in one small launch, one thread per column (at most 32
// columns, O(s^2) work each), so that the shadow systems stay on the device; the update of the running
// columns of x one thread per entry.
#include "core/solver/idr_kernels.hpp"

#include <cstdint>

#include "core/solver/idr_step_rules.hpp"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace idr {
namespace {

// one block, one thread per column
template <typename T>
__global__ void step_kernel(IdrLayout layout, IdrPhase phase, size_type k, size_type index, size_type slot,
                            double kappa, const T* products, double* system, double* state, T* updates)
{
    const size_type col = threadIdx.x;
    if (col < layout.cols) {
        idr_rules::step(layout, phase, k, index, slot, kappa, col, products, system, state, updates);
    }
}

template <typename T>
struct AddScaledRunning {
    const T* alphas;
    const double* stopped;
    const T* b;
    std::int64_t b_stride;
    T* x;
    std::int64_t x_stride;
    std::int64_t cols;
    __device__ void operator()(std::int64_t i) const
    {
        const auto [row, col] = entry_position(i, cols);
        if (stopped[col] == idr_state::running) {
            x[row * x_stride + col] += alphas[col] * b[row * b_stride + col];
        }
    }
};

}  // namespace

template <typename T>
void step(const DefaultExecutor&, const IdrLayout& layout, IdrPhase phase, size_type k, size_type index,
          size_type slot, double kappa, const array<T>& products, array<double>& system, array<double>& state,
          array<T>& updates)
{
    if (layout.cols == 0) {
        return;
    }
    step_kernel<<<1, static_cast<unsigned>(layout.cols)>>>(layout, phase, k, index, slot, kappa,
                                                           products.get_const_data(), system.get_data(),
                                                           state.get_data(), updates.get_data());
    LARCH_LAUNCH_CHECK("idr::step");
}

template <typename T>
void add_scaled_running(const DefaultExecutor& exec, const array<T>& alphas, const array<double>& state,
                        const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    const auto size = x.get_size();
    launch_for_each(exec, static_cast<std::int64_t>(size.rows * size.cols),
                    AddScaledRunning<T>{alphas.get_const_data(), state.get_const_data() + idr_state::stopped * size.cols,
                                        b.get_const_values(), static_cast<std::int64_t>(b.get_stride()),
                                        x.get_values(), static_cast<std::int64_t>(x.get_stride()),
                                        static_cast<std::int64_t>(size.cols)},
                    "launch of idr::add_scaled_running");
}

LARCH_INSTANTIATE_IDR_KERNELS();

}  // namespace idr
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
