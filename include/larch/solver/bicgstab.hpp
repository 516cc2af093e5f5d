// solver::Bicgstab<T>: van der Vorst's BiCGSTAB for general (unsymmetric) systems, right-preconditioned.
#pragma once

#include <memory>
#include <string>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * BiCGSTAB with right preconditioning (van der Vorst 1992; the shadow residual is the initial residual).
 * Per iteration: two applies of A and of the preconditioner, 5 reductions, 4 vector update passes (the
 * direction p = (r - omega beta v) + beta p and the solution x = (alpha p_hat + omega s_hat) + x each fused into
 * one Dense::combine pass); an iteration that converges at its half step counts as one. The updates are
 * evaluated in the order PETSc's right-preconditioned bcgs uses, and with scalar Jacobi the reference
 * executor's iterates agree with it bit for bit where PETSc sums each row in column order
 * (benchmark/results/bicgstab_petsc_cpu.md). Breakdowns (rho = r_hat^T r = 0, r_hat^T v = 0,
 * t = 0, omega = 0) stop the loop and the driver restarts from the true residual with a new shadow residual.
 */
template <typename T>
class Bicgstab : public IterativeSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {};
    class Factory : public EnableFactory<Bicgstab, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Bicgstab, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (unbounded criteria, null operands), DimensionMismatch (non-square A).
    static std::unique_ptr<Bicgstab> create(std::shared_ptr<const Executor> exec,
                                            const parameters_type& parameters,
                                            std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Bicgstab(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
             std::shared_ptr<const LinOp> system_matrix);

    IterationOutcome iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                             double residual_norm, IterationMonitor& monitor) const override;

private:
    parameters_type parameters_;
};

}  // namespace solver
}  // namespace larch
