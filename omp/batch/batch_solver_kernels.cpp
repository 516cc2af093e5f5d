// OpenMP kernels of the batched Krylov solvers: the per-item algorithm of
// core/batch/solver/krylov_item_algorithms.hpp for items in parallel. Dynamic scheduling: items differ in
// size and, above all, in their iteration counts (one may stop after 3 iterations, its neighbour after
// 300), so static chunks would leave threads idle behind the slowest item of their chunk.
#include "core/batch/batch_solver_kernels.hpp"

#include <cstdint>

#include "core/batch/solver/host_item_solver.hpp"
#include "core/batch/solver/right_hand_side_scaling.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace batch_solver {

template <typename T, typename Matrix>
void solve(const DefaultExecutor&, const Matrix& a, const batch::SolveSettings& settings,
           const batch::Vector<T>& b, batch::Vector<T>& x, const batch::SolveOutputs<T>& outputs)
{
    batch::item::with_method(settings.method, [&](auto method) {
        using Method = decltype(method);
        const auto num_items = static_cast<std::int64_t>(a.get_num_items());
#pragma omp parallel for schedule(dynamic, 4)
        for (std::int64_t item = 0; item < num_items; ++item) {
            batch::item::solve_on_host<Method>(a, static_cast<size_type>(item), settings, b, x,
                                               outputs);
        }
    });
}

template <typename T>
void right_hand_side_scales(const DefaultExecutor&, const batch::Vector<T>& b, T* scales)
{
    const auto* offsets = b.get_layout().get_const_offsets();
    const auto* values = b.get_const_values();
    const auto num_items = static_cast<std::int64_t>(b.get_num_items());
#pragma omp parallel for schedule(static)
    for (std::int64_t item = 0; item < num_items; ++item) {
        scales[item] = detail::right_hand_side_scale(
            batch::item::largest_magnitude(values, offsets[item], offsets[item + 1]));
    }
}

template <typename T>
void multiply_items(const DefaultExecutor&, const T* factors, batch::Vector<T>& v)
{
    const auto* offsets = v.get_layout().get_const_offsets();
    auto* values = v.get_values();
    const auto num_items = static_cast<std::int64_t>(v.get_num_items());
#pragma omp parallel for schedule(static)
    for (std::int64_t item = 0; item < num_items; ++item) {
        for (auto k = offsets[item]; k < offsets[item + 1]; ++k) {
            values[k] *= factors[item];
        }
    }
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_KERNELS);
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_SCALING_KERNELS);

}  // namespace batch_solver
}  // namespace omp
}  // namespace kernels
}  // namespace larch
