// batch::Bicgstab<T>: preconditioned BiCGSTAB for every item of a batch of general (nonsymmetric)
// systems, each item converging on its own.
#pragma once

#include <memory>

#include "larch/batch/solver/batch_iterative_solver.hpp"

namespace larch {
namespace batch {

/**
 * Preconditioned BiCGSTAB (van der Vorst 1992) per item, for general square A_i. Per item and iteration:
 * two SpMVs, two preconditioner applies, 5 dot products (and the norms) and 6 vector updates. Breakdowns
 * (rho = 0, r_hat^T v = 0, t^T t = 0 or omega = 0) restart the item from its true residual. omega is
 * safeguarded as in the single-system Bicgstab: where |cos(t, s)| is below `kappa` (default 0.7) it is
 * enlarged to kappa / |cos| times t^T s / t^T t (Sleijpen and van der Vorst 1995); kappa = 0 gives van der
 * Vorst's BiCGSTAB. The behaviour common to the batched solvers (criteria, statuses, backends) is
 * described at BatchIterativeSolver.
 *
 *     auto solver = batch::Bicgstab<double>::build()
 *                       .with_max_iterations(500)
 *                       .with_tolerance(1e-10)
 *                       .with_preconditioner(batch::ItemPreconditioner::jacobi)
 *                       .on(exec)
 *                       ->generate(A);          // A: a shared batch::Csr/Coo/Ell
 *     solver->apply(*b, *x);
 *     auto result = solver->get_result();      // result.get_status(i), get_iterations(i), ...
 */
template <typename T>
class Bicgstab : public BatchIterativeSolver<T> {
public:
    struct parameters_type;
    using Factory = BatchSolverFactory<Bicgstab, parameters_type>;
    struct parameters_type : batch_solver_parameters<parameters_type, Factory> {
        double kappa = 0.7;
        parameters_type& with_kappa(double value)
        {
            kappa = value;
            return *this;
        }
    };

    static parameters_type build() { return {}; }
    const parameters_type& get_parameters() const noexcept { return parameters_; }

private:
    friend Factory;
    /// Also BadInput for a kappa outside [0, 1].
    Bicgstab(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
       std::shared_ptr<const BatchLinOp<T>> system_matrix);

    parameters_type parameters_;
};

}  // namespace batch
}  // namespace larch
