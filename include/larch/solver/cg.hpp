// solver::Cg<T>: the preconditioned conjugate gradient method for symmetric positive definite systems.
#pragma once

#include <memory>
#include <string>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * Preconditioned conjugate gradients (Hestenes-Stiefel) for symmetric positive definite A and M.
 * Per iteration: one apply of A, one of the preconditioner, two dot products (p^T A p, r^T M^{-1} r) and
 * two fused kernels: x += alpha p, r -= alpha q with ||r|| in one pass, then p = z + beta p. A diagonal
 * scaling M^{-1} = D^{-1} (scalar Jacobi, preconditioner::DiagonalScaling) runs inside those two kernels
 * instead: the first also forms the next r^T D^{-1} r, the second p = D^{-1} r + beta p.
 * The scalars (rho, alpha, beta) stay on the executor: the kernels read them from there, so an iteration
 * never waits for the host. The host reads the scalars and the residual norms once every
 * `check_interval` iterations (one synchronization) and passes the norms to the monitor in order. A
 * column that meets the threshold, or breaks down, freezes itself on the executor in that very step, so
 * x, the iteration count and the status are those of the stopping iteration whatever the interval; only
 * stops decided on the host (divergence, stagnation, time limit) may let x run on by at most
 * check_interval - 1 further iterations (the count reported is the stopping one). The iteration limit is
 * never overshot (the last interval is shortened). The residual norm is the plain sqrt(r^T r) (summed in
 * the update's pass, not scaled as Dense::compute_norm2), so a residual beyond ~1e154 (double) or ~1e19
 * (float) reads as infinite and stops as non_finite.
 * Breakdowns: r^T M^{-1} r = 0 (a singular preconditioner, or a residual below ~1e-154 in double, whose
 * squares underflow: a tolerance of 0 ends there) or p^T A p = 0 (A not definite) stop the loop and the
 * driver restarts from the true residual (see IterativeSolver).
 * Several right-hand sides iterate together: one apply of A and of the preconditioner on the n x k block
 * per iteration, each column with its own scalars, monitor and restarts; a stopped column is frozen, so each
 * ends with the x, iteration count and status of solving it alone (when A, M and the kernels treat columns
 * independently, as larch's do on reference and omp). Loggers see the columns' iterations interleaved and
 * every column's on_column_end at the end of the apply.
 *
 *     auto cg = solver::Cg<double>::build()
 *                   .with_criteria(stop::max_iterations(1000), stop::relative_residual(1e-9))
 *                   .on(exec)->generate(A);
 */
template <typename T>
class Cg : public ColumnsTogetherSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {
        /// k, the iterations between two reads of the residual norms by the host (>= 1). One read costs a
        /// synchronization with the executor (about 10 us on a GPU, a few launches' worth), so k = 8 makes
        /// it cheap beside the iterations' launches; larger k only saves more when an iteration is
        /// shorter than a read.
        size_type check_interval = 8;

        parameters_type& with_check_interval(size_type value)
        {
            check_interval = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<Cg, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Cg, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (check_interval 0, unbounded criteria, null operands), DimensionMismatch (non-square A).
    static std::unique_ptr<Cg> create(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                                      std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
       std::shared_ptr<const LinOp> system_matrix);

    /// All columns of x at once: one product with the n x k block per iteration, each column with its own
    /// scalars on the executor.
    std::vector<IterationOutcome> iterate_columns(const matrix::Dense<T>& b, matrix::Dense<T>& x,
                                                  matrix::Dense<T>& r,
                                                  const std::vector<IterationMonitor*>& monitors) const override;

private:
    parameters_type parameters_;
};

}  // namespace solver
}  // namespace larch
