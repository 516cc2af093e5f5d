// batch::Bicgstab: the per-item BiCGSTAB of the batched solve kernels behind the common BatchIterativeSolver.
#include "larch/batch/solver/bicgstab.hpp"

#include "core/base/number_text.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

namespace {

double checked_kappa(double kappa)
{
    LARCH_ENSURE(kappa >= 0 && kappa <= 1, BadInput,
                 "batch::Bicgstab::generate: kappa must be in [0, 1], got " +
                     ::larch::detail::number_text(kappa));
    return kappa;
}

}  // namespace

template <typename T>
Bicgstab<T>::Bicgstab(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const BatchLinOp<T>> system_matrix)
    : BatchIterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, KrylovMethod::bicgstab,
                              0, checked_kappa(parameters.kappa),
                              std::string{"batch::Bicgstab<"} + type_name<T>() + ">"),
      parameters_{parameters}
{}

#define LARCH_INSTANTIATE_BATCH_BICGSTAB(T) template class Bicgstab<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_BICGSTAB);

}  // namespace batch
}  // namespace larch
