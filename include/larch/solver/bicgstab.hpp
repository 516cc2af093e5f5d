// solver::Bicgstab<T>: van der Vorst's BiCGSTAB for general (unsymmetric) systems, right-preconditioned.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * BiCGSTAB with right preconditioning (van der Vorst 1992; the shadow residual is the initial residual).
 * Per iteration: two applies of A and of the preconditioner, 4 dot products (r_hat^T r, r_hat^T v, t^T t,
 * t^T s) and three fused kernels: the direction p = (r - omega beta v) + beta p; s = r - alpha v with ||s||
 * in one pass, after r_hat^T v; x = (alpha p_hat + omega s_hat) + x and r = s - omega t with ||r|| and the
 * next r_hat^T r in one pass, after t^T t and t^T s (a separate r_hat^T r only at the start of each
 * check_interval block). On GPUs the last two kernels form their dot products in the same launch for
 * columns of at most 4,096 rows (one block per column), where an iteration is launch-bound. Scalar Jacobi runs inside
 * the direction and half steps (p_hat = D^{-1} p, s_hat = D^{-1} s). An
 * iteration whose ||s|| meets the threshold ends at its half step (x += alpha p_hat) and counts as one.
 * The updates are evaluated in the order PETSc's right-preconditioned bcgs uses, and with kappa = 0 and
 * scalar Jacobi the reference executor's iterates agree with it bit for bit where PETSc sums each row in column order
 * (benchmark/results/bicgstab_petsc_cpu.md).
 * The scalars (rho, alpha, omega, ...) stay on the executor: the kernels read them from there, so an
 * iteration never waits for the host. The host reads them and the residual norms once every
 * `check_interval` iterations (one synchronization) and passes the norms to the monitor in order. A
 * column that meets the threshold (at its half or full step) or breaks down freezes itself on the
 * executor in that very step, so x, the iteration count and the status are those of the stopping
 * iteration whatever the interval; only stops decided on the host (divergence, stagnation, time limit)
 * may let x run on by at most check_interval - 1 further iterations (the count reported is the stopping
 * one), and a residual above a divergence bound pauses the column until the host has seen it. The
 * iteration limit is never overshot. The norms are the plain sqrt(r^T r) of the update's pass, so a
 * residual beyond ~1e154 (double) or ~1e19 (float) reads as infinite and stops as non_finite.
 * omega minimizes ||s - omega t|| and is enlarged to kappa / |cos(t, s)| times that where |cos(t, s)| is
 * below `kappa` (default 0.7; "maintaining the convergence", Sleijpen and van der Vorst 1995, as Idr's
 * omega): a small omega leaves the next BiCG coefficients inaccurate, which shows as breakdowns and
 * divergence on hard nonsymmetric systems. On the 51 shared matrices with block-Jacobi(32) the safeguard
 * solves e05r0500 as well (42 against 41) at 4% more iterations in the geometric mean over those both
 * solve (benchmark/results/README.md); kappa = 0 gives van der Vorst's BiCGSTAB.
 * Breakdowns (rho = r_hat^T r = 0, r_hat^T v = 0, t = 0, omega = 0) stop the column and the driver
 * restarts it from the true residual with a new shadow residual; a NaN or Inf in them stops it as
 * non_finite.
 * Several right-hand sides iterate together: one apply of A and of the preconditioner on the n x k block
 * per half step, each column with its own scalars, monitor and restarts; a stopped column is frozen, so
 * each ends with the x, iteration count and status of solving it alone (when A, M and the kernels treat
 * columns independently, as larch's do on reference and omp).
 */
template <typename T>
class Bicgstab : public ColumnsTogetherSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {
        /// k, the iterations between two reads of the residual norms by the host (>= 1): one read is a
        /// synchronization with the executor (about 10 us on a GPU), see Cg's check_interval.
        size_type check_interval = 8;
        /// Threshold of the omega safeguard in [0, 1]; 0 turns it off (plain BiCGSTAB, as PETSc's bcgs).
        double kappa = 0.7;

        parameters_type& with_check_interval(size_type value)
        {
            check_interval = value;
            return *this;
        }
        parameters_type& with_kappa(double value)
        {
            kappa = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<Bicgstab, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Bicgstab, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (check_interval 0, unbounded criteria, null operands), DimensionMismatch (non-square A).
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

    /// All columns of x at once: one product with the n x k block per half step, each column with its own
    /// scalars on the executor.
    std::vector<IterationOutcome> iterate_columns(const matrix::Dense<T>& b, matrix::Dense<T>& x,
                                                  matrix::Dense<T>& r,
                                                  const std::vector<IterationMonitor*>& monitors) const override;

private:
    parameters_type parameters_;
};

}  // namespace solver
}  // namespace larch
