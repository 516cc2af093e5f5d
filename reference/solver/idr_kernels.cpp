// Reference IDR kernels: the scalar phases of each column in turn, and the update of the running columns of x.
#include "core/solver/idr_kernels.hpp"

#include "core/solver/idr_step_rules.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace idr {

template <typename T>
void step(const DefaultExecutor&, const IdrLayout& layout, IdrPhase phase, size_type k, size_type index,
          size_type slot, double kappa, const array<T>& products, array<double>& system, array<double>& state,
          array<T>& updates)
{
    idr_rules::step_every_column(layout, phase, k, index, slot, kappa, products, system, state, updates);
}

template <typename T>
void add_scaled_running(const DefaultExecutor&, const array<T>& alphas, const array<double>& state,
                        const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    const auto cols = x.get_size().cols;
    const auto stopped = state.get_const_data() + idr_state::stopped * cols;
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < cols; ++col) {
            if (stopped[col] == idr_state::running) {
                x.get_values()[row * x.get_stride() + col] +=
                    alphas.get_const_data()[col] * b.get_const_values()[row * b.get_stride() + col];
            }
        }
    }
}

LARCH_INSTANTIATE_IDR_KERNELS();

}  // namespace idr
}  // namespace reference
}  // namespace kernels
}  // namespace larch
