// batch::Gmres<T>: restarted GMRES for every item of a batch of general systems, each item converging on
// its own.
#pragma once

#include <memory>

#include "larch/batch/solver/batch_iterative_solver.hpp"

namespace larch {
namespace batch {

/**
 * Restarted GMRES(m) (Saad and Schultz 1986) per item with right preconditioning (so the residual it
 * monitors is the unpreconditioned one), modified Gram-Schmidt and Givens rotations. Per item and
 * iteration j of a cycle: one SpMV, one preconditioner apply, j + 2 dot products; at the end of every
 * cycle x is updated and the next cycle starts from the true residual. Workspace per item: m + 4 vectors
 * and (m + 1)(m + 3) scalars, so a large m moves big items from shared memory to the global workspace on
 * CUDA/HIP. A singular Hessenberg matrix (e.g. A_i = 0) is a breakdown. The behaviour common to the
 * batched solvers (criteria, statuses, backends) is described at BatchIterativeSolver.
 *
 *     auto solver = batch::Gmres<double>::build().with_krylov_dim(20).with_tolerance(1e-10)
 *                       .on(exec)->generate(A);
 */
template <typename T>
class Gmres : public BatchIterativeSolver<T> {
public:
    struct parameters_type;
    using Factory = BatchSolverFactory<Gmres, parameters_type>;
    struct parameters_type : batch_solver_parameters<parameters_type, Factory> {
        /// The restart length m (1..1000); an item of fewer rows restarts after as many steps as it has rows,
        /// the most its Krylov space can grow.
        size_type krylov_dim = 30;
        parameters_type& with_krylov_dim(size_type dim)
        {
            krylov_dim = dim;
            return *this;
        }
    };

    static parameters_type build() { return {}; }
    const parameters_type& get_parameters() const noexcept { return parameters_; }

private:
    friend Factory;
    /// Also BadInput for a krylov_dim outside 1..1000.
    Gmres(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const BatchLinOp<T>> system_matrix);

    parameters_type parameters_;
};

}  // namespace batch
}  // namespace larch
