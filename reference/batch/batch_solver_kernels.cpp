// Reference kernels of the batched Krylov solvers: the items one after the other, each with the per-item
// algorithm of core/batch/solver/krylov_item_algorithms.hpp (the oracle for every other backend).
#include "core/batch/batch_solver_kernels.hpp"

#include "core/batch/solver/host_item_solver.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace batch_solver {

template <typename T, typename Matrix>
void solve(const DefaultExecutor&, const Matrix& a, const batch::SolveSettings& settings,
           const batch::Vector<T>& b, batch::Vector<T>& x, const batch::SolveOutputs<T>& outputs)
{
    batch::item::with_method(settings.method, [&](auto method) {
        using Method = decltype(method);
        for (size_type item = 0; item < a.get_num_items(); ++item) {
            batch::item::solve_on_host<Method>(a, item, settings, b, x, outputs);
        }
    });
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_KERNELS);

}  // namespace batch_solver
}  // namespace reference
}  // namespace kernels
}  // namespace larch
