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
    for (size_type col = 0; col < layout.cols; ++col) {
        gmres_rules::givens_step(layout, step, slot, col, reductions.get_const_data(), problem.get_data(),
                                 state.get_data(), factors.get_data());
    }
}

LARCH_INSTANTIATE_GMRES_KERNELS();

}  // namespace gmres
}  // namespace reference
}  // namespace kernels
}  // namespace larch
