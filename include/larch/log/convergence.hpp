// Loggers: objects a solver notifies while it generates and solves. Convergence records iterations, the
// residual norm history, the stop reason and the time of each phase (generate vs solve).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/types.hpp"
#include "larch/stop/criterion.hpp"

namespace larch {
namespace log {

/// What a preconditioner reports about its generation (see preconditioner::BlockJacobi).
struct PreconditionerReport {
    std::string type;
    size_type num_blocks = 0;
    /// Blocks found singular or numerically singular and applied as scalar Jacobi (the fallback).
    size_type num_fallback_blocks = 0;
    /// Singular blocks split in halves before the fallback.
    size_type num_split_blocks = 0;
    /// Rows whose diagonal entry is zero or missing (scalar Jacobi leaves them unscaled).
    size_type num_zero_diagonal_rows = 0;
};

/// One line on what the preconditioner fell back on ("<type>: 1 of 3 blocks singular, ..."), or an empty string
/// when it met no singular block and no zero diagonal entry.
std::string describe_fallbacks(const PreconditionerReport& report);

/// Implemented by preconditioners that report on their generation to a solver's loggers.
class ReportsToLoggers {
public:
    virtual ~ReportsToLoggers() = default;
    virtual PreconditionerReport get_logger_report() const = 0;
};

/**
 * Receives events from a solver. Attach one with a solver factory's `with_logger(...)` or with
 * `solver->add_logger(...)`. Every hook does nothing by default; the calls come from the host thread that
 * runs the solver, in order.
 */
class Logger {
public:
    virtual ~Logger() = default;

    /// The solver was generated in `seconds` (preconditioner generation included). A logger added after
    /// generation receives this at once.
    virtual void on_generate(double seconds) { (void)seconds; }
    /// The solver's preconditioner was generated and reports `report` (block-Jacobi does; sent after
    /// on_generate, and at once to a logger added later).
    virtual void on_preconditioner(const PreconditionerReport& report) { (void)report; }
    /// An apply on `num_columns` right-hand sides begins.
    virtual void on_apply_begin(size_type num_columns) { (void)num_columns; }
    /// Iteration `iteration` (1-based, counted across restarts) of column `column` ended with the solver's
    /// own (recursive) residual norm `residual_norm`.
    virtual void on_iteration(size_type column, size_type iteration, double residual_norm)
    {
        (void)column, (void)iteration, (void)residual_norm;
    }
    /// Column `column` stopped with `status` (true residual) after `seconds`.
    virtual void on_column_end(size_type column, const stop::Status& status, double seconds)
    {
        (void)column, (void)status, (void)seconds;
    }
    /// The apply ended after `seconds` (the executor synchronized).
    virtual void on_apply_end(double seconds) { (void)seconds; }
};

/**
 * Records the convergence of the last apply: per column the residual norm history (the solver's own
 * estimate, one entry per iteration, the initial residual first), the iterations and the final status with
 * the true residual; and the generate and solve times in seconds. Cost: one host vector entry per
 * iteration; set `record_history = false` to keep only counts and times.
 */
class Convergence : public Logger {
public:
    /// A new logger (shared, so the caller can keep reading it after attaching it).
    static std::shared_ptr<Convergence> create(bool record_history = true)
    {
        return std::shared_ptr<Convergence>(new Convergence(record_history));
    }

    void on_generate(double seconds) override { generate_time_ = seconds; }
    void on_preconditioner(const PreconditionerReport& report) override { preconditioner_report_ = report; }
    void on_apply_begin(size_type num_columns) override;
    void on_iteration(size_type column, size_type iteration, double residual_norm) override;
    void on_column_end(size_type column, const stop::Status& status, double seconds) override;
    void on_apply_end(double seconds) override { solve_time_ = seconds; }

    size_type get_num_columns() const noexcept { return statuses_.size(); }
    /// Iterations of `column` in the last apply.
    size_type get_num_iterations(size_type column = 0) const { return checked(column).iterations; }
    /// The residual norm history of `column`: initial residual, then one entry per iteration.
    const std::vector<double>& get_residual_norms(size_type column = 0) const;
    stop::Reason get_stop_reason(size_type column = 0) const { return checked(column).reason; }
    /// The full status of `column` (message, true residual, restarts).
    const stop::Status& get_status(size_type column = 0) const { return checked(column); }
    /// Seconds spent solving `column`.
    double get_column_time(size_type column = 0) const;
    double get_generate_time() const noexcept { return generate_time_; }
    /// The preconditioner's report (an empty type if the solver's preconditioner sends none).
    const PreconditionerReport& get_preconditioner_report() const noexcept { return preconditioner_report_; }
    /// Seconds of the last apply (all columns).
    double get_solve_time() const noexcept { return solve_time_; }

private:
    explicit Convergence(bool record_history) : record_history_{record_history} {}
    const stop::Status& checked(size_type column) const;

    bool record_history_;
    double generate_time_ = 0;
    double solve_time_ = 0;
    PreconditionerReport preconditioner_report_;
    std::vector<stop::Status> statuses_;
    std::vector<std::vector<double>> histories_;
    std::vector<double> column_times_;
};

}  // namespace log
}  // namespace larch
