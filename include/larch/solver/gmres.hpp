// solver::Gmres<T>: restarted GMRES(m) with right preconditioning, so the monitored residual is b - Ax.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * GMRES(m) (Saad and Schultz) with Arnoldi by classical Gram-Schmidt twice (CGS2) and Givens rotations. The
 * columns of b iterate together, up to max_columns_together (32) at a time (more in groups), each with its own
 * Hessenberg matrix, rotations and stop: the Krylov basis is a Dense (m+1) x (n * cols) on the executor whose
 * row j holds basis vector j of every column as an n x cols block, so that A and the preconditioner apply to
 * all columns at once. Per iteration j: one apply of A and of the preconditioner to n x cols, two passes over
 * the j+1 basis vectors (each one projection kernel h = V w and one update kernel w -= V^T h for every
 * column), the norms of w, one small kernel that rotates each column's new Hessenberg column and
 * normalizes w; per cycle one combination x += M^{-1} V y and a true residual. A column that stops (its
 * monitor, a breakdown, NaN) keeps the x it has at the end of that cycle and gets zero basis vectors from
 * then on, so it no longer changes and cannot disturb the others. A zero subdiagonal (lucky breakdown) ends
 * a column's cycle with the exact Krylov solution. Memory: (m + 1) n cols values of basis, about
 * (m^2 / 2 + 3 m) cols doubles of least-squares problems.
 *
 * What runs where: the Arnoldi step, the Hessenberg matrices, the rotations, the rotated right-hand sides g
 * and the residual estimates |g(j+1)| stay on the executor for the whole apply (allocated once per apply);
 * the Givens step kernel also stops a column there that meets the threshold, breaks down or turns NaN, so
 * an iteration never waits for the host. The host reads the estimates every `check_interval` iterations
 * (one synchronization) and passes them to each column's monitor in order; at the end of a cycle it reads g
 * and the used columns of H once, solves the small triangular systems y = H^{-1} g and uploads y; at a
 * restart it reads the residual norms once. Overshoot: a stop the host decides (divergence, stagnation, time
 * limit) may let the executor run up to check_interval - 1 further Arnoldi steps of that column, but x is
 * updated only from the steps its monitor counted, so x, the iteration count and the status are those of the
 * stopping iteration whatever the interval (the extra steps cost time, not accuracy). The iteration limit is
 * never overshot, and a block of steps never crosses the end of a cycle.
 */
template <typename T>
class Gmres : public ColumnsTogetherSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {
        /// m, the Krylov dimension after which the method restarts (>= 1); a restart above the system's
        /// order n runs as n, since the Krylov space cannot grow past it.
        size_type restart = 30;
        /// k, the iterations between two reads of the residual estimates by the host (>= 1; the reads also
        /// happen at the end of every cycle). One read costs a synchronization with the executor (about 10
        /// us on a GPU), so k = 8 makes it cheap beside the iterations' launches; a stop decided on the host
        /// may cost up to k - 1 Arnoldi steps of work that x never sees (see the class documentation).
        size_type check_interval = 8;

        parameters_type& with_restart(size_type value)
        {
            restart = value;
            return *this;
        }
        parameters_type& with_check_interval(size_type value)
        {
            check_interval = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<Gmres, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Gmres, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    /// The most columns of b that iterate together; more are solved in groups of this many.
    static constexpr size_type max_columns_together = 32;

    static parameters_type build() { return {}; }
    /// Throws BadInput (restart 0, check_interval 0, unbounded criteria, null operands), DimensionMismatch
    /// (non-square A).
    static std::unique_ptr<Gmres> create(std::shared_ptr<const Executor> exec,
                                         const parameters_type& parameters,
                                         std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// The restart length it runs: the parameter's, at most the system's order.
    size_type get_krylov_dim() const noexcept { return krylov_dim_; }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Gmres(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const LinOp> system_matrix);

    std::vector<IterationOutcome> iterate_columns(const matrix::Dense<T>& b, matrix::Dense<T>& x,
                                                  matrix::Dense<T>& r,
                                                  const std::vector<IterationMonitor*>& monitors) const override;

    size_type get_max_columns_together() const override;

private:
    parameters_type parameters_;
    size_type krylov_dim_;
};

}  // namespace solver
}  // namespace larch
