// batch::Cg: the per-item CG of the batched solve kernels behind the common BatchIterativeSolver.
#include "larch/batch/solver/cg.hpp"

#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

template <typename T>
Cg<T>::Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const BatchLinOp<T>> system_matrix)
    : BatchIterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, KrylovMethod::cg,
                              0, 0.0, std::string{"batch::Cg<"} + type_name<T>() + ">"),
      parameters_{parameters}
{}

#define LARCH_INSTANTIATE_BATCH_CG(T) template class Cg<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_CG);

}  // namespace batch
}  // namespace larch
