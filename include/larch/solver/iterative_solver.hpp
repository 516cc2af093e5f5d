// The common part of larch's Krylov solvers: parameters every solver takes (criteria, preconditioner, loggers,
// residual replacement), the per-column driver that guards against false convergence, and the status it records.
#pragma once

#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "larch/base/enable_factory.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/base/process_group.hpp"
#include "larch/base/types.hpp"
#include "larch/log/convergence.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/stop/criterion.hpp"

namespace larch {
namespace solver {

template <typename T>
class IterativeSolver;
template <typename T>
class Reductions;

/// The parameters every Krylov solver takes (plain data; see solver_parameters for the builder methods).
struct common_parameters {
    /// Combined by "or"; at least max_iterations or time_limit is required so a solve always ends.
    std::vector<stop::Criterion> criteria;
    /// Generated on the system matrix when the solver is generated (on the solver's executor).
    deferred_factory preconditioner;
    /// An already generated preconditioner (M^{-1} applied as a LinOp); excludes `preconditioner`.
    std::shared_ptr<const LinOp> generated_preconditioner;
    std::vector<std::shared_ptr<log::Logger>> loggers;
    /// How often a solve may restart from the true residual b - Ax after the recursive residual met the
    /// tolerance while the true one did not, or after a breakdown.
    size_type max_residual_replacements = 5;
};

/// Builder methods shared by the solvers' parameter types (`Derived` is the concrete parameter type).
template <typename Derived>
struct solver_parameters : common_parameters {
    /// Adds stopping criteria, e.g. with_criteria(stop::max_iterations(1000), stop::relative_residual(1e-9)).
    template <typename... Criteria>
    Derived& with_criteria(const Criteria&... new_criteria)
    {
        (criteria.push_back(new_criteria), ...);
        return self();
    }
    /// A preconditioner factory or parameter set (e.g. preconditioner::BlockJacobi<double>::build()).
    Derived& with_preconditioner(deferred_factory factory)
    {
        preconditioner = std::move(factory);
        return self();
    }
    Derived& with_generated_preconditioner(std::shared_ptr<const LinOp> generated)
    {
        generated_preconditioner = std::move(generated);
        return self();
    }
    Derived& with_logger(std::shared_ptr<log::Logger> logger)
    {
        loggers.push_back(std::move(logger));
        return self();
    }
    Derived& with_max_residual_replacements(size_type count)
    {
        max_residual_replacements = count;
        return self();
    }

private:
    Derived& self() { return static_cast<Derived&>(*this); }
};

/// Base of every solver factory of value type T: `generate` returns the solver's common interface.
template <typename T>
class SolverFactory : public LinOpFactory {
public:
    std::unique_ptr<IterativeSolver<T>> generate(std::shared_ptr<const LinOp> system_matrix) const
    {
        auto product = LinOpFactory::generate(std::move(system_matrix));
        return std::unique_ptr<IterativeSolver<T>>(static_cast<IterativeSolver<T>*>(product.release()));
    }
    template <typename U, typename D>
    std::unique_ptr<IterativeSolver<T>> generate(std::unique_ptr<U, D>&& system_matrix) const
    {
        return generate(std::shared_ptr<const LinOp>(std::move(system_matrix)));
    }
    template <typename U, typename D>
    void generate(const std::unique_ptr<U, D>&) const
    {
        static_assert(detail::dependent_false<U>::value, LARCH_GENERATE_OWNERSHIP_MESSAGE);
    }

protected:
    explicit SolverFactory(std::shared_ptr<const Executor> exec) : LinOpFactory(std::move(exec)) {}
};

/**
 * Counts the iterations of one right-hand side, checks the criteria and notifies the loggers. Algorithms call
 * `check` once per iteration with their own residual norm.
 */
class IterationMonitor {
public:
    /// `report_scale` takes the solve's residual norms to the user's (1 / s for a right-hand side solved
    /// scaled by s, see IterativeSolver) for the loggers; the checks compare the solve's own.
    IterationMonitor(const stop::Criteria& criteria, double threshold, double initial_residual_norm,
                     size_type column, const std::vector<std::shared_ptr<log::Logger>>& loggers,
                     double report_scale);

    /// Counts an iteration ending with residual norm `residual_norm`: Reason::none to go on, otherwise
    /// converged (recursive residual met the threshold), non_finite, divergence, stagnation, max_iterations
    /// or time_limit.
    stop::Reason check(double residual_norm);
    /// Whether `residual_norm` meets the threshold (an exactly zero residual always does).
    bool meets_threshold(double residual_norm) const noexcept;
    /// Whether the iteration or time budget is spent (then no further iteration may start).
    stop::Reason budget_exhausted() const;
    size_type get_iterations() const noexcept { return iterations_; }
    /// How many more iterations the iteration limit allows.
    size_type get_remaining_iterations() const noexcept;
    /// The smallest residual norm above which a divergence criterion counts an iteration (infinity when
    /// there is none): an algorithm that runs ahead of its checks must not pass an iteration above it
    /// unchecked, or a divergence stop would come after later iterations changed x.
    double get_divergence_bound() const noexcept;
    double get_threshold() const noexcept { return threshold_; }

private:
    const stop::Criteria& criteria_;
    double threshold_;
    double initial_residual_norm_;
    size_type column_;
    const std::vector<std::shared_ptr<log::Logger>>& loggers_;
    double report_scale_;
    stop::ProgressTracker progress_;
    std::chrono::steady_clock::time_point start_;
    size_type iterations_ = 0;
};

/// What an algorithm's iteration loop ended with; the driver turns it into the final stop::Status.
struct IterationOutcome {
    stop::Reason reason;
    std::string message;
};

/**
 * A Krylov solver for A x = b as a LinOp: `apply(b, x)` solves with x as the initial guess (Cg, Bicgstab,
 * Gmres and Idr iterate all columns together, each ending as if solved alone); `apply(alpha, b, beta, x)`
 * sets x = alpha A^{-1} b + beta x. Runs on every executor through Dense BLAS-1 and the system matrix's
 * apply; Cg, Bicgstab, Gmres and Idr keep their scalars on the executor and read them once every few
 * iterations.
 *
 * Thread safety: apply may be called from several threads at once on one solver (with distinct x): the
 * solver's own state is read-only after generate, and each apply records its statuses under a lock when it
 * ends. The system matrix, the preconditioner and the loggers are shared by those applies: larch's
 * matrices and preconditioners are safe for that, log::Stream prints whole lines (interleaved), while
 * log::Convergence records one apply at a time (attach it only to a solver used from one thread at once).
 *
 * The system matrix is shared, not copied (unless it lies in memory the solver's executor cannot access,
 * when generate copies it there): values changed in it after generate take effect in the next apply, while
 * the preconditioner stays as generated from the old values. Generate a new solver after changing A.
 *
 * Per column: b = 0 gives x = 0 at once; an initial guess that meets the tolerance returns at once; when
 * the recursive residual meets the tolerance the true residual is recomputed, and if it does not meet it the
 * iteration restarts from it (at most max_residual_replacements times, shared with breakdown restarts; a
 * breakdown before the first iteration from a true residual ends the column at once, since a restart from the
 * same x would repeat it). The status reports the true residual; NaN/Inf stops with Reason::non_finite, never
 * "converged".
 *
 * Right-hand sides of any finite magnitude: a column whose 2-norm lies outside 1e-77..1e77 (double;
 * 2.3e-10..4.3e9 in float), where the methods' sums of squares could underflow or overflow, is solved as
 * A (s x) = s b with s a power of two that brings that norm into [1, 2) (a scaled copy of b; x is scaled in
 * place and back); statuses and loggers see its norms and threshold in its own scale, and Reason::non_finite
 * with an infinite residual where its solution overflows there. Other columns run unscaled. This costs one
 * norm of every column of b per apply. A column of finite entries whose 2-norm exceeds the largest double
 * (float) is solved too, scaled by 2^-1023 (2^-127); its status then reports rhs_norm as inf, the other
 * norms and the threshold as they are.
 *
 * On a system matrix spread over processes (a SplitOperator such as distributed::Matrix) the same algorithms
 * run on every process over its block of rows: apply completes every dot product and norm over the
 * process group (a ReductionScope), so all processes see the same scalars and take the same branches, and a
 * preconditioner factory is generated on the process's local diagonal block. Generation is then collective:
 * a preconditioner that fails on one process (a singular block there) throws on every process.
 */
template <typename T>
class IterativeSolver : public LinOp {
public:
    static_assert(is_instantiated_value_type<T>, LARCH_VALUE_TYPE_MESSAGE);
    using value_type = T;
    using vector_type = matrix::Dense<T>;

    /// The status of each column of the last apply that finished (a copy: applies from other threads may
    /// replace the solver's record meanwhile). Empty before the first apply and after an apply whose b has
    /// 0 columns (there is nothing to solve then, and the apply succeeds).
    std::vector<stop::Status> get_statuses() const;
    /// The status of one column of the last apply that finished. Throws BadInput if there is no such column,
    /// so also after an apply of a b with 0 columns, which records no status (get_statuses() is then empty).
    stop::Status get_status(size_type column = 0) const;
    const std::shared_ptr<const LinOp>& get_system_matrix() const noexcept { return system_matrix_; }
    /// The generated preconditioner, or null without one.
    const std::shared_ptr<const LinOp>& get_preconditioner() const noexcept { return preconditioner_; }
    /**
     * The generated preconditioner as its concrete type, e.g.
     * `solver->get_preconditioner_as<preconditioner::BlockJacobi<double>>()->get_zero_diagonal_rows()`.
     * Throws BadInput when the solver has no preconditioner and NotSupported naming both types when it has
     * one of another type.
     */
    template <typename Preconditioner>
    std::shared_ptr<const Preconditioner> get_preconditioner_as() const
    {
        LARCH_ENSURE(preconditioner_, BadInput, name_ + "::get_preconditioner_as: the solver has no preconditioner");
        auto typed = std::dynamic_pointer_cast<const Preconditioner>(preconditioner_);
        LARCH_ENSURE(typed, NotSupported,
                     name_ + "::get_preconditioner_as: the preconditioner is a " +
                         preconditioner_->get_type_name() + ", not the type asked for");
        return typed;
    }
    const stop::Criteria& get_criteria() const noexcept { return criteria_; }
    /// Seconds generate() took (preconditioner generation included).
    double get_generate_time() const noexcept { return generate_time_; }
    /// Attaches a logger; it receives on_generate with this solver's generate time at once.
    void add_logger(std::shared_ptr<log::Logger> logger);

protected:
    /// Validates the system matrix, the criteria and the preconditioner; generates the preconditioner.
    IterativeSolver(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp> system_matrix,
                    const common_parameters& parameters, const std::string& name);

    /// Records the generate time since `start` and tells the loggers (called at the end of create()).
    void finish_generate(std::chrono::steady_clock::time_point start);
    /// Sends the preconditioner's report to `logger`, if the preconditioner gives one.
    void report_preconditioner(log::Logger& logger) const;

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;
    const ProcessGroup* get_apply_group() const noexcept override { return group_.get(); }
    /// The group this solver's reductions complete over (null on a local system matrix).
    const ProcessGroup* get_reduction_group() const noexcept { return group_.get(); }

    /// Where this process's rows lie among the rows of all processes (on a local system matrix: 0 of its own).
    struct RowsOverProcesses {
        size_type first_row;  ///< this process's first row in the whole vector
        size_type total;      ///< the system's order: the rows of every process
    };
    /// The rows of every process of the reduction group (one allgather; every process must call it).
    RowsOverProcesses rows_over_processes() const;

    /// z = M^{-1} r (a copy without preconditioner).
    void precondition(const vector_type& r, vector_type& z) const;
    /// z = M^{-1} r and dots[j] = r_j^T z_j, completed over a distributed solve's processes: one pass where
    /// the preconditioner offers it (preconditioner::ApplyWithDot), else precondition() and compute_dot.
    void precondition_and_dot(const vector_type& r, vector_type& z, array<T>& dots, array<T>& workspace) const;
    /// The diagonal D^{-1} when the preconditioner is a diagonal scaling on this solver's executor
    /// (preconditioner::DiagonalScaling, e.g. scalar Jacobi), which a solver may fold into its vector updates
    /// instead of calling precondition(); nullptr otherwise. In a distributed solve, nullptr on every
    /// process unless it is a diagonal scaling on all of them (decided once, at generation).
    const array<T>* get_scaling_diagonal() const noexcept { return scaling_diagonal_; }
    /// r = b - A x.
    void compute_residual(const vector_type& b, const vector_type& x, vector_type& r) const;

    /// The driver's record of one right-hand side: its status so far and, while it still iterates, its
    /// monitor (null once the column is finished) and the norm of r = b - A x. Its norms are the solve's
    /// (its status's threshold is the user's from the start); report_scale takes them to the user's (1 / s
    /// for a column solved scaled by s).
    struct ColumnSolve {
        size_type column = 0;
        stop::Status status;
        std::unique_ptr<IterationMonitor> monitor;
        double residual_norm = 0;
        double report_scale = 1;
    };

    /// What the solve knows of each column j of b before it begins: norms[j], the 2-norm of column j of the
    /// b it solves (the scaled one for a column solved scaled), and report_scales[j], which takes column j's
    /// norms to the user's scale (1 / s for a column solved scaled by s).
    struct RightHandSides {
        std::vector<double> norms;
        std::vector<double> report_scales;
    };

    /**
     * Solves the columns of b into x and fills `statuses` (one per column, in the user's scale, see
     * RightHandSides), telling the loggers of each column's end (ColumnsTogetherSolver, with the steps
     * below).
     */
    virtual void solve(const vector_type& b, vector_type& x, std::vector<stop::Status>& statuses,
                       const RightHandSides& rhs) const = 0;
    /// Sets x to 0 in every column where rhs_norms says b = 0, then returns compute_residual_norms.
    std::vector<double> compute_initial_residual_norms(const std::vector<double>& rhs_norms, const vector_type& b,
                                                       vector_type& x, vector_type& r,
                                                       Reductions<T>& reduce) const;
    /// r = b - A x and the 2-norm of each of its columns (one product with all columns, one reduction).
    std::vector<double> compute_residual_norms(const vector_type& b, const vector_type& x, vector_type& r,
                                               Reductions<T>& reduce) const;
    /// Judges column `column` from the norms of its b and of its initial residual:
    /// the result still iterates unless b is zero or non-finite or x already meets the tolerance.
    /// `report_scale` as in ColumnSolve.
    ColumnSolve begin_column(size_type column, double rhs_norm, double residual_norm, double report_scale) const;
    /// Whether `solve` may iterate again (the budget is not spent); finishes it otherwise.
    bool may_iterate(ColumnSolve& solve) const;
    /// Turns the outcome of an iteration and the norm of the true residual after it (compute_residual_norms,
    /// which leaves that residual in r for a restart) into the status, or lets the column restart.
    void end_iterate(ColumnSolve& solve, const IterationOutcome& outcome, double residual_norm) const;
    /// Finishes as non_finite, with an infinite true residual, every column of x (in the solve's scale) whose
    /// solution overflows when taken back to its own: solved scaled down, it met the tolerance there
    /// (b = 7e307 1 for A = tridiag(-1, 2, -1) of order 5, x up to 4.5 b). Costs a copy and a norm of x
    /// where a column was solved scaled down, nothing otherwise.
    void finish_columns_overflowing_in_their_scale(const vector_type& x, std::vector<ColumnSolve>& columns) const;
    /// Takes the column's status to the user's scale and tells the loggers that column `solve.column` ended,
    /// `seconds` after its solve began.
    void report_column_end(ColumnSolve& solve, double seconds) const;

private:
    /// get_scaling_diagonal's answer: one allgather in a distributed solve, so every process takes it in the
    /// constructor.
    const array<T>* find_scaling_diagonal() const;

    std::string name_;
    /// "<name>::apply", built once for the operand checks of every apply.
    std::string apply_context_;
    std::shared_ptr<const LinOp> system_matrix_;
    std::shared_ptr<const LinOp> preconditioner_;
    std::shared_ptr<const ProcessGroup> group_;
    const array<T>* scaling_diagonal_ = nullptr;
    stop::Criteria criteria_;
    size_type max_residual_replacements_;
    std::vector<std::shared_ptr<log::Logger>> loggers_;
    double generate_time_ = 0;
    // Each apply works on its own statuses and stores them here at its end, under the lock: apply may run
    // from several threads at once (with distinct x).
    mutable std::mutex statuses_mutex_;
    mutable std::vector<stop::Status> statuses_;
};

/**
 * An IterativeSolver whose iteration runs on all columns of b at once (Cg, Bicgstab, Gmres, Idr): solve()
 * begins every column, then runs rounds of iterate_columns over the columns that may still iterate, each from
 * its true residual (end_iterate restarts or finishes every column iterated), and reports every column's end.
 * A solver may take at most get_max_columns_together() columns per call: the others wait for the next group.
 */
template <typename T>
class ColumnsTogetherSolver : public IterativeSolver<T> {
protected:
    using vector_type = typename IterativeSolver<T>::vector_type;
    using IterativeSolver<T>::IterativeSolver;

    void solve(const vector_type& b, vector_type& x, std::vector<stop::Status>& statuses,
               const typename IterativeSolver<T>::RightHandSides& rhs) const final;

    /// Iterates every column of x whose monitor is not null from r = b - A x on entry (the others stay as
    /// they are); returns the outcome of each column. b is there for methods that restart from the true
    /// residual (GMRES); the others need only r.
    virtual std::vector<IterationOutcome> iterate_columns(const vector_type& b, vector_type& x,
                                                          vector_type& r,
                                                          const std::vector<IterationMonitor*>& monitors) const = 0;
    /// The most columns one iterate_columns call takes; solve() hands more to it in groups of this many
    /// (every column, by default).
    virtual size_type get_max_columns_together() const { return std::numeric_limits<size_type>::max(); }

private:
    /// iterate_columns on consecutive groups of at most get_max_columns_together() columns.
    std::vector<IterationOutcome> iterate_in_groups(const vector_type& b, vector_type& x, vector_type& r,
                                                    const std::vector<IterationMonitor*>& monitors) const;
};

/**
 * The column norms of one solve, as double, through results and a workspace (a GPU's partial sums) on the
 * executor that every call reuses (enlarged only for a block of more columns), so a solve that keeps one
 * Reductions allocates only in its first call. Each call reads the norms back to the host (one
 * synchronization, the cost that remains: about 10 us on a GPU, which the solvers pay once per restart
 * round, not per iteration).
 */
template <typename T>
class Reductions {
public:
    explicit Reductions(std::shared_ptr<const Executor> exec) : results_{exec}, workspace_{exec} {}

    /// The 2-norm of every column of `a` (one reduction over all of them, one read).
    std::vector<double> column_norms2(const matrix::Dense<T>& a)
    {
        results_.resize_and_reset(a.get_size().cols);
        a.compute_norm2(results_, workspace_);
        const auto values = results_.copy_to_host();
        return {values.begin(), values.end()};
    }

private:
    array<T> results_;
    array<T> workspace_;
};

}  // namespace solver
}  // namespace larch
