// batch::Gmres: the per-item restarted GMRES of the batched solve kernels behind BatchIterativeSolver.
#include "larch/batch/solver/gmres.hpp"

#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

namespace {

size_type checked_krylov_dim(size_type dim)
{
    LARCH_ENSURE(dim >= 1 && dim <= 1000, BadInput,
                 "batch::Gmres::generate: krylov_dim is " + std::to_string(dim) + " (expected 1..1000)");
    return dim;
}

}  // namespace

template <typename T>
Gmres<T>::Gmres(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                std::shared_ptr<const BatchLinOp<T>> system_matrix)
    : BatchIterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, KrylovMethod::gmres,
                              checked_krylov_dim(parameters.krylov_dim), 0.0,
                              std::string{"batch::Gmres<"} + type_name<T>() + ">"),
      parameters_{parameters}
{}

#define LARCH_INSTANTIATE_BATCH_GMRES(T) template class Gmres<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_GMRES);

}  // namespace batch
}  // namespace larch
