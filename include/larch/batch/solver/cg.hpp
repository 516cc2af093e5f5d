// batch::Cg<T>: preconditioned conjugate gradients for every item of a batch of symmetric positive definite
// systems, each item converging on its own.
#pragma once

#include <memory>

#include "larch/batch/solver/batch_iterative_solver.hpp"

namespace larch {
namespace batch {

/**
 * Preconditioned CG (Hestenes-Stiefel) per item, for symmetric positive definite A_i (and M_i). Per item
 * and iteration: one SpMV, one preconditioner apply, 3 dot products and 3 vector updates. Breakdowns
 * (r^T M^{-1} r = 0 or p^T A p = 0) restart the item from its true residual. The behaviour common to the
 * batched solvers (criteria, statuses, backends) is described at BatchIterativeSolver.
 *
 *     auto solver = batch::Cg<double>::build()
 *                       .with_max_iterations(500)
 *                       .with_tolerance(1e-10)
 *                       .with_preconditioner(batch::ItemPreconditioner::jacobi)
 *                       .on(exec)
 *                       ->generate(A);          // A: a shared batch::Csr/Coo/Ell
 *     solver->apply(*b, *x);
 *     auto result = solver->get_result();      // result.get_status(i), get_iterations(i), ...
 */
template <typename T>
class Cg : public BatchIterativeSolver<T> {
public:
    struct parameters_type;
    using Factory = BatchSolverFactory<Cg, parameters_type>;
    struct parameters_type : batch_solver_parameters<parameters_type, Factory> {};

    static parameters_type build() { return {}; }
    const parameters_type& get_parameters() const noexcept { return parameters_; }

private:
    friend Factory;
    Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
       std::shared_ptr<const BatchLinOp<T>> system_matrix);

    parameters_type parameters_;
};

}  // namespace batch
}  // namespace larch
