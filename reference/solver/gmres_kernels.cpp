// Reference GMRES kernels: the Givens step of each column in turn.
#include "core/solver/gmres_kernels.hpp"

#include "core/solver/gmres_step_rules.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace gmres {

template <typename T>
void givens_step(const DefaultExecutor&, const GmresLayout& layout, size_type step, size_type slot,
                 const array<T>& reductions, array<double>& problem, array<double>& state, array<T>& factors)
{
    gmres_rules::givens_step_every_column(layout, step, slot, reductions, problem, state, factors);
}

LARCH_INSTANTIATE_GMRES_KERNELS();

}  // namespace gmres
}  // namespace reference
}  // namespace kernels
}  // namespace larch
