// OpenMP IDR kernels: the scalar phases of each column in turn, as the reference does (O(s^2) work per column,
// at most 32 columns: a parallel region would cost more than it saves), and the update of the running columns
// of x in parallel over rows.
#include "core/solver/idr_kernels.hpp"

#include "core/solver/idr_step_rules.hpp"
#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
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
    const auto alpha_values = alphas.get_const_data();
    components::for_each_row(static_cast<std::ptrdiff_t>(x.get_size().rows), [&](std::ptrdiff_t row) {
        auto x_row = x.get_values() + row * x.get_stride();
        const auto b_row = b.get_const_values() + row * b.get_stride();
        for (size_type col = 0; col < cols; ++col) {
            if (stopped[col] == idr_state::running) {
                x_row[col] = x_row[col] + alpha_values[col] * b_row[col];
            }
        }
    });
}

LARCH_INSTANTIATE_IDR_KERNELS();

}  // namespace idr
}  // namespace omp
}  // namespace kernels
}  // namespace larch
