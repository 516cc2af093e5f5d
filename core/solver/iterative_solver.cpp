// The per-column driver shared by all Krylov solvers: validation, zero right-hand side, exact initial guess,
// the true-residual check after recursive convergence (residual replacement), and status/logging.
#include "larch/solver/iterative_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/base/number_text.hpp"
#include "core/base/reduction_completion.hpp"
#include "core/base/right_hand_side_scale.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/exception.hpp"
#include "larch/preconditioner/apply_with_dot.hpp"
#include "larch/preconditioner/diagonal_scaling.hpp"

namespace larch {
namespace solver {

using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// The power of two s of each column of b (core/base/right_hand_side_scale.hpp) from its 2-norm.
template <typename T>
std::vector<T> right_hand_side_scales(const std::vector<T>& norms)
{
    std::vector<T> scales(norms.size());
    std::transform(norms.begin(), norms.end(), scales.begin(),
                   [](T norm) { return detail::right_hand_side_scale(norm); });
    return scales;
}

/// A column of finite entries whose 2-norm exceeds the largest T (b = 1e308 (1, 1, 1) in double) has an
/// infinite norm, as a column holding Inf or NaN does. Its norm is measured again on the column times
/// 2^-shift; where that norm m' is finite the column is finite, and it is solved scaled by s = 2^-e, e the
/// binary exponent of ||b|| = 2^shift m' held to max_exponent - 1 so that 1 / s stays finite. `scales` and
/// `scaled_norms` (s ||b||) of such columns are set; the other columns keep theirs.
template <typename T>
void scale_columns_whose_norm_overflows(const matrix::Dense<T>& b, std::vector<T>& scales,
                                        std::vector<double>& scaled_norms)
{
    using limits = std::numeric_limits<T>;
    constexpr int shift = limits::max_exponent / 2;
    const auto overflows = [&](size_type column) { return !std::isfinite(scaled_norms[column]); };
    std::vector<T> factors(scales.size(), T{1});
    bool any = false;
    for (size_type column = 0; column < scales.size(); ++column) {
        if (overflows(column)) {
            factors[column] = std::ldexp(T{1}, -shift);
            any = true;
        }
    }
    if (!any) {
        return;
    }
    const auto& exec = b.get_executor();
    auto shifted = b.clone_dense(exec);
    shifted->scale(array<T>{exec, factors.begin(), factors.end()});
    const auto shifted_norms = shifted->compute_norm2();
    for (size_type column = 0; column < scales.size(); ++column) {
        if (overflows(column) && std::isfinite(shifted_norms[column])) {
            const int exponent = std::min(shift + std::ilogb(shifted_norms[column]), limits::max_exponent - 1);
            scales[column] = std::ldexp(T{1}, -exponent);
            scaled_norms[column] = std::ldexp(static_cast<double>(shifted_norms[column]), shift - exponent);
        }
    }
}

/// Sets to zero each column of r whose norm is NaN or Inf: such a column iterates no more, and zeros keep the
/// block's products finite there.
template <typename T>
void clear_non_finite_columns(matrix::Dense<T>& r, const std::vector<double>& norms)
{
    for (size_type column = 0; column < norms.size(); ++column) {
        if (!std::isfinite(norms[column])) {
            r.create_column_view(column)->fill(T{});
        }
    }
}

}  // namespace

IterationMonitor::IterationMonitor(const stop::Criteria& criteria, double threshold,
                                   double initial_residual_norm, size_type column,
                                   const std::vector<std::shared_ptr<log::Logger>>& loggers, double report_scale)
    : criteria_{criteria}, threshold_{threshold}, initial_residual_norm_{initial_residual_norm}, column_{column}, loggers_{loggers},
      report_scale_{report_scale}, progress_{criteria, initial_residual_norm}, start_{clock_type::now()}
{}

bool IterationMonitor::meets_threshold(double residual_norm) const noexcept
{
    return residual_norm <= threshold_ || residual_norm == 0;
}

size_type IterationMonitor::get_remaining_iterations() const noexcept
{
    const auto limit = criteria_.get_max_iterations();
    return limit > iterations_ ? limit - iterations_ : 0;
}

double IterationMonitor::get_divergence_bound() const noexcept
{
    auto bound = std::numeric_limits<double>::infinity();
    for (const auto& criterion : criteria_.get_divergence()) {
        bound = std::min(bound, criterion.value * initial_residual_norm_);
    }
    return bound;
}

stop::Reason IterationMonitor::budget_exhausted() const
{
    if (iterations_ >= criteria_.get_max_iterations()) {
        return stop::Reason::max_iterations;
    }
    if (seconds_since(start_) >= criteria_.get_time_limit()) {
        return stop::Reason::time_limit;
    }
    return stop::Reason::none;
}

stop::Reason IterationMonitor::check(double residual_norm)
{
    ++iterations_;
    for (const auto& logger : loggers_) {
        logger->on_iteration(column_, iterations_, residual_norm * report_scale_);
    }
    if (!std::isfinite(residual_norm)) {
        return stop::Reason::non_finite;
    }
    if (meets_threshold(residual_norm)) {
        return stop::Reason::converged;
    }
    const auto progress = progress_.record(residual_norm);
    return progress != stop::Reason::none ? progress : budget_exhausted();
}

template <typename T>
IterativeSolver<T>::IterativeSolver(std::shared_ptr<const Executor> exec,
                                    std::shared_ptr<const LinOp> system_matrix,
                                    const common_parameters& parameters, const std::string& name)
    : LinOp(exec, system_matrix ? system_matrix->get_size() : dim2{}),
      name_{name},
      apply_context_{name + "::apply"},
      system_matrix_{std::move(system_matrix)},
      criteria_{parameters.criteria},
      max_residual_replacements_{parameters.max_residual_replacements},
      loggers_{parameters.loggers}
{
    LARCH_ENSURE(system_matrix_, BadInput, name_ + "::generate: the system matrix is null");
    const auto size = system_matrix_->get_size();
    LARCH_ENSURE(size.rows == size.cols, DimensionMismatch,
                 name_ + "::generate: the system matrix must be square, got " + to_string(size));
    LARCH_ENSURE(criteria_.is_bounded(), BadInput,
                 name_ + "::generate: the criteria (" + criteria_.describe() +
                     ") have no max_iterations or time_limit, so a solve might never end; add "
                     "stop::max_iterations(n)");
    for (const auto& logger : loggers_) {
        LARCH_ENSURE(logger, BadInput, name_ + "::generate: a logger is null");
    }
    if (!exec->memory_accessible(*system_matrix_->get_executor())) {
        system_matrix_ = share(system_matrix_->clone_to(exec));
    }
    // On a matrix spread over processes: reductions over the group, the preconditioner on the local block.
    const auto split = dynamic_cast<const SplitOperator*>(system_matrix_.get());
    if (split) {
        group_ = split->get_process_group();
    }
    LARCH_ENSURE(!(parameters.preconditioner && parameters.generated_preconditioner), BadInput,
                 name_ + "::generate: both a preconditioner factory and a generated preconditioner "
                         "were given; pass only one");
    if (parameters.preconditioner) {
        const auto generate_preconditioner = [&] {
            preconditioner_ = share(
                parameters.preconditioner.on(exec)->generate(split ? split->get_local_block() : system_matrix_));
        };
        // On the local block it may fail on one process only (a singular diagonal block there): every process
        // then throws, rather than the others waiting for it in the first apply. The preconditioner's message
        // names local rows, so the process and where its rows start in the global matrix go before it.
        if (group_) {
            group_->check_on_every_process([&] {
                try {
                    generate_preconditioner();
                } catch (Error& error) {
                    error.add_context("on process " + std::to_string(group_->get_process()) + " of " +
                                      std::to_string(group_->get_num_processes()) +
                                      " (its rows start at global row " +
                                      std::to_string(split->get_local_begin()) + "): ");
                    throw;
                }
            });
        } else {
            generate_preconditioner();
        }
    } else if (parameters.generated_preconditioner) {
        preconditioner_ = parameters.generated_preconditioner;
        LARCH_ENSURE(preconditioner_->get_size() == size, DimensionMismatch,
                     name_ + "::generate: the generated preconditioner is " +
                         to_string(preconditioner_->get_size()) + " but the system matrix is " +
                         to_string(size));
        if (!exec->memory_accessible(*preconditioner_->get_executor())) {
            preconditioner_ = share(preconditioner_->clone_to(exec));
        }
    }
    scaling_diagonal_ = find_scaling_diagonal();
}

template <typename T>
typename IterativeSolver<T>::RowsOverProcesses IterativeSolver<T>::rows_over_processes() const
{
    const auto n = this->get_size().rows;
    if (!group_) {
        return {0, n};
    }
    std::vector<double> rows(static_cast<size_type>(group_->get_num_processes()));
    const auto local_rows = static_cast<double>(n);
    group_->allgather(&local_rows, 1, rows.data());
    RowsOverProcesses result{0, 0};
    for (int p = 0; p < group_->get_num_processes(); ++p) {
        result.first_row += p < group_->get_process() ? static_cast<size_type>(rows[p]) : 0;
        result.total += static_cast<size_type>(rows[p]);
    }
    return result;
}

template <typename T>
void IterativeSolver<T>::finish_generate(clock_type::time_point start)
{
    get_executor()->synchronize();
    generate_time_ = seconds_since(start);
    for (const auto& logger : loggers_) {
        logger->on_generate(generate_time_);
        report_preconditioner(*logger);
    }
}

template <typename T>
void IterativeSolver<T>::report_preconditioner(log::Logger& logger) const
{
    if (const auto reporting = dynamic_cast<const log::ReportsToLoggers*>(preconditioner_.get())) {
        logger.on_preconditioner(reporting->get_logger_report());
    }
}

template <typename T>
void IterativeSolver<T>::add_logger(std::shared_ptr<log::Logger> logger)
{
    LARCH_ENSURE(logger, BadInput, name_ + "::add_logger: the logger is null");
    logger->on_generate(generate_time_);
    report_preconditioner(*logger);
    loggers_.push_back(std::move(logger));
}

template <typename T>
std::vector<stop::Status> IterativeSolver<T>::get_statuses() const
{
    std::lock_guard<std::mutex> guard{statuses_mutex_};
    return statuses_;
}

template <typename T>
stop::Status IterativeSolver<T>::get_status(size_type column) const
{
    std::lock_guard<std::mutex> guard{statuses_mutex_};
    LARCH_ENSURE(column < statuses_.size(), BadInput,
                 name_ + "::get_status: column " + std::to_string(column) + " requested but " +
                     (statuses_.empty() ? std::string{"no status is recorded: no apply has finished, or the last "
                                                      "one had a b with 0 columns (get_statuses() is empty)"}
                                        : "the last apply had " + std::to_string(statuses_.size()) + " column(s)"));
    return statuses_[column];
}

template <typename T>
void IterativeSolver<T>::precondition(const vector_type& r, vector_type& z) const
{
    // The preconditioner works on this process's rows alone (block-Jacobi on the local block).
    ReductionScope local{nullptr};
    if (preconditioner_) {
        preconditioner_->apply(r, z);
    } else {
        z.copy_from(r);
    }
}

template <typename T>
void IterativeSolver<T>::precondition_and_dot(const vector_type& r, vector_type& z, array<T>& dots,
                                              array<T>& workspace) const
{
    const auto* fused = dynamic_cast<const preconditioner::ApplyWithDot<T>*>(preconditioner_.get());
    if (fused == nullptr || !fused->has_apply_with_dot()) {
        precondition(r, z);
        r.compute_dot(z, dots, workspace);
        return;
    }
    // This process's rows, then the sums over the process group, as Dense::compute_dot completes them.
    fused->apply_with_dot(r, z, dots, workspace);
    detail::complete_sums(*this->get_executor(), dots.get_data(), r.get_size().cols);
}

template <typename T>
const array<T>* IterativeSolver<T>::find_scaling_diagonal() const
{
    const auto* scaling = dynamic_cast<const preconditioner::DiagonalScaling<T>*>(preconditioner_.get());
    const auto* diagonal = scaling != nullptr ? scaling->get_scaling_diagonal() : nullptr;
    if (diagonal != nullptr && diagonal->get_executor() != this->get_executor()) {
        diagonal = nullptr;
    }
    if (!group_) {
        return diagonal;
    }
    // Every process folds the scaling or none does: a folded step completes its sums over the group in other
    // messages than a separate preconditioner apply and dot (block Jacobi on a process without rows has no
    // blocks, so it is a diagonal scaling there and not on the other processes).
    const double local = diagonal != nullptr ? 1.0 : 0.0;
    std::vector<double> all(static_cast<size_type>(group_->get_num_processes()));
    group_->allgather(&local, 1, all.data());
    return std::all_of(all.begin(), all.end(), [](double has) { return has == 1.0; }) ? diagonal : nullptr;
}

template <typename T>
void IterativeSolver<T>::compute_residual(const vector_type& b, const vector_type& x, vector_type& r) const
{
    r.copy_from(b);
    system_matrix_->apply(-1.0, x, 1.0, r);
}

template <typename T>
void IterativeSolver<T>::apply_impl(const LinOp& b, LinOp& x) const
{
    const auto& dense_b = as<const vector_type>(b, apply_context_.c_str());
    auto& dense_x = as<vector_type>(x, apply_context_.c_str());
    // Without a group too: a solver on a local matrix inside a distributed solve reduces locally.
    ReductionScope reductions{group_.get()};
    const auto num_columns = dense_b.get_size().cols;
    const auto start = clock_type::now();
    for (const auto& logger : loggers_) {
        logger->on_apply_begin(num_columns);
    }
    std::vector<stop::Status> statuses(num_columns);
    // A column too small or too large for the methods' plain sums of squares is solved as A (s x) = s b,
    // s a power of two (core/base/right_hand_side_scale.hpp); the others run as they are.
    // The norms of b, completed over a distributed solve's processes, serve the scaling and the criteria.
    const auto norms = num_columns == 0 ? std::vector<T>{} : dense_b.compute_norm2();
    auto scales = right_hand_side_scales(norms);
    RightHandSides rhs{std::vector<double>(num_columns), std::vector<double>(num_columns)};
    for (size_type column = 0; column < num_columns; ++column) {
        // s is a power of two: s ||b|| is the norm of s b (but for rounding in b's subnormal entries).
        rhs.norms[column] = static_cast<double>(scales[column]) * static_cast<double>(norms[column]);
    }
    scale_columns_whose_norm_overflows(dense_b, scales, rhs.norms);
    for (size_type column = 0; column < num_columns; ++column) {
        rhs.report_scales[column] = 1.0 / static_cast<double>(scales[column]);
    }
    if (std::all_of(scales.begin(), scales.end(), [](T scale) { return scale == T{1}; })) {
        solve(dense_b, dense_x, statuses, rhs);
    } else {
        const auto& exec = get_executor();
        const array<T> factors{exec, scales.begin(), scales.end()};
        auto scaled_b = dense_b.clone_dense(exec);
        scaled_b->scale(factors);
        dense_x.scale(factors);
        solve(*scaled_b, dense_x, statuses, rhs);
        std::vector<T> inverse_scales(num_columns);
        std::transform(scales.begin(), scales.end(), inverse_scales.begin(), [](T scale) { return T{1} / scale; });
        dense_x.scale(array<T>{exec, inverse_scales.begin(), inverse_scales.end()});
    }
    get_executor()->synchronize();
    {
        std::lock_guard<std::mutex> guard{statuses_mutex_};
        statuses_ = std::move(statuses);
    }
    for (const auto& logger : loggers_) {
        logger->on_apply_end(seconds_since(start));
    }
}

template <typename T>
void IterativeSolver<T>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    auto& dense_x = as<vector_type>(x, apply_context_.c_str());
    auto solution = dense_x.clone_dense(get_executor());
    apply_impl(b, *solution);
    dense_x.scale(static_cast<T>(beta));
    dense_x.add_scaled(static_cast<T>(alpha), *solution);
}

template <typename T>
std::vector<double> IterativeSolver<T>::compute_initial_residual_norms(const std::vector<double>& rhs_norms,
                                                                       const vector_type& b, vector_type& x,
                                                                       vector_type& r, Reductions<T>& reduce) const
{
    for (size_type column = 0; column < rhs_norms.size(); ++column) {
        if (rhs_norms[column] == 0) {
            x.create_column_view(column)->fill(T{});
        }
    }
    return compute_residual_norms(b, x, r, reduce);
}

template <typename T>
std::vector<double> IterativeSolver<T>::compute_residual_norms(const vector_type& b, const vector_type& x,
                                                               vector_type& r, Reductions<T>& reduce) const
{
    compute_residual(b, x, r);
    return reduce.column_norms2(r);
}

namespace {

/// Ends the column: its final reason, message and residual norm; it iterates no more.
template <typename Solve>
void finish(Solve& solve, stop::Reason reason, std::string message, double residual_norm)
{
    if (solve.monitor) {
        solve.status.iterations = solve.monitor->get_iterations();
    }
    solve.status.reason = reason;
    solve.status.message = std::move(message);
    solve.status.residual_norm = residual_norm;
    solve.monitor.reset();
}

}  // namespace

template <typename T>
typename IterativeSolver<T>::ColumnSolve IterativeSolver<T>::begin_column(size_type column, double rhs_norm,
                                                                          double residual_norm,
                                                                          double report_scale) const
{
    ColumnSolve solve;
    solve.column = column;
    solve.report_scale = report_scale;
    auto& status = solve.status;
    status.rhs_norm = rhs_norm;
    if (!std::isfinite(rhs_norm)) {
        finish(solve, stop::Reason::non_finite, "the right-hand side holds NaN or Inf", rhs_norm);
        return solve;
    }
    if (rhs_norm == 0) {
        finish(solve, stop::Reason::converged, "zero right-hand side: x = 0", 0.0);
        return solve;
    }
    status.initial_residual_norm = residual_norm;
    // The criteria speak in the user's scale (an absolute tolerance), the solve in its own, and either threshold
    // can leave the range of double where the other does not: an absolute tolerance of 1e10 for b of 1e-300
    // is inf in the solve's scale, 1e-30 for b of 1e300 is 0 there; a relative one for b of norm 1e310
    // (finite entries) is inf in the user's. The status keeps the user's threshold, where it is finite.
    const auto solve_threshold = criteria_.get_threshold(rhs_norm, residual_norm, 1 / report_scale);
    status.threshold = criteria_.get_threshold(rhs_norm * report_scale, residual_norm * report_scale);
    if (!std::isfinite(status.threshold)) {
        status.threshold = solve_threshold * report_scale;
    }
    for (const auto& logger : loggers_) {
        logger->on_iteration(column, 0, residual_norm * report_scale);
    }
    if (!std::isfinite(residual_norm)) {
        finish(solve, stop::Reason::non_finite, "the initial residual b - A x0 holds NaN or Inf (check x0 and A)",
               residual_norm);
        return solve;
    }
    solve.monitor =
        std::make_unique<IterationMonitor>(criteria_, solve_threshold, residual_norm, column, loggers_, report_scale);
    solve.residual_norm = residual_norm;
    if (solve.monitor->meets_threshold(residual_norm)) {
        finish(solve, stop::Reason::converged, "the initial guess meets the tolerance", residual_norm);
    }
    return solve;
}

template <typename T>
bool IterativeSolver<T>::may_iterate(ColumnSolve& solve) const
{
    if (!solve.monitor) {
        return false;
    }
    const auto exhausted = solve.monitor->budget_exhausted();
    if (exhausted != stop::Reason::none) {
        finish(solve, exhausted, std::string{"stopped by "} + stop::to_string(exhausted), solve.residual_norm);
        return false;
    }
    return true;
}

template <typename T>
void IterativeSolver<T>::end_iterate(ColumnSolve& solve, const IterationOutcome& outcome,
                                     double residual_norm) const
{
    auto& status = solve.status;
    // A breakdown before the round counted an iteration, at the true residual the round began from: x is
    // unchanged (a breakdown stops a column before it updates x), so a restart would begin from the same
    // residual and break down the same way, as often as max_residual_replacements allows (near 2^64: a
    // solve that never ends, whatever its iteration limit).
    const bool breakdown_would_repeat = outcome.reason == stop::Reason::breakdown &&
                                        solve.monitor->get_iterations() == status.iterations &&
                                        residual_norm == solve.residual_norm;
    status.iterations = solve.monitor->get_iterations();
    solve.residual_norm = residual_norm;
    if (outcome.reason == stop::Reason::non_finite || !std::isfinite(residual_norm)) {
        return finish(solve, stop::Reason::non_finite,
                      outcome.message.empty() ? "NaN or Inf in the iteration" : outcome.message, residual_norm);
    }
    if (solve.monitor->meets_threshold(residual_norm)) {
        return finish(solve, stop::Reason::converged, "the true residual meets the tolerance", residual_norm);
    }
    if (outcome.reason != stop::Reason::converged && outcome.reason != stop::Reason::breakdown) {
        return finish(solve, outcome.reason, std::string{"stopped by "} + stop::to_string(outcome.reason),
                      residual_norm);
    }
    if (breakdown_would_repeat) {
        return finish(solve, stop::Reason::breakdown,
                      outcome.message + " (before an iteration from the true residual, where a restart would begin)",
                      residual_norm);
    }
    if (status.residual_replacements >= max_residual_replacements_) {
        if (outcome.reason == stop::Reason::breakdown) {
            return finish(solve, stop::Reason::breakdown,
                          outcome.message + " (after " + std::to_string(status.residual_replacements) +
                              " restarts from the true residual)",
                          residual_norm);
        }
        return finish(solve, stop::Reason::residual_gap,
                      "the recursive residual met the tolerance but the true residual " +
                          detail::number_text(residual_norm * solve.report_scale) + " exceeds " +
                          detail::number_text(status.threshold) +
                          " after " + std::to_string(status.residual_replacements) +
                          " restarts from the true residual",
                      residual_norm);
    }
    ++status.residual_replacements;
}

template <typename T>
void IterativeSolver<T>::finish_columns_overflowing_in_their_scale(const vector_type& x,
                                                                   std::vector<ColumnSolve>& columns) const
{
    if (std::none_of(columns.begin(), columns.end(), [](const ColumnSolve& solve) { return solve.report_scale > 1; })) {
        return;
    }
    std::vector<T> report_scales(columns.size());
    std::vector<T> scales(columns.size());
    for (const auto& solve : columns) {
        report_scales[solve.column] = static_cast<T>(solve.report_scale);
        scales[solve.column] = T{1} / report_scales[solve.column];  // exact: a power of two
    }
    // Taken to the user's scale and back, x is itself where that is finite and Inf where it overflowed. In a
    // column scaled down (s <= 2^-256 in double) the norm of x, a scaled sum of squares, is then finite exactly
    // where no entry overflowed.
    const auto& exec = this->get_executor();
    auto round_trip = x.clone_dense(exec);
    round_trip->scale(array<T>{exec, report_scales.begin(), report_scales.end()});
    round_trip->scale(array<T>{exec, scales.begin(), scales.end()});
    const auto norms = round_trip->compute_norm2();
    for (auto& solve : columns) {
        if (solve.report_scale > 1 && !std::isfinite(norms[solve.column]) &&
            solve.status.reason != stop::Reason::non_finite) {
            finish(solve, stop::Reason::non_finite,
                   "the solution overflows when taken back to the right-hand side's scale",
                   std::numeric_limits<double>::infinity());
        }
    }
}

template <typename T>
void IterativeSolver<T>::report_column_end(ColumnSolve& solve, double seconds) const
{
    auto& status = solve.status;
    status.rhs_norm *= solve.report_scale;
    status.initial_residual_norm *= solve.report_scale;
    status.residual_norm *= solve.report_scale;
    for (const auto& logger : loggers_) {
        logger->on_column_end(solve.column, solve.status, seconds);
    }
}

template <typename T>
void ColumnsTogetherSolver<T>::solve(const vector_type& b, vector_type& x, std::vector<stop::Status>& statuses,
                                     const typename IterativeSolver<T>::RightHandSides& rhs) const
{
    const auto start = clock_type::now();
    const auto cols = statuses.size();
    auto r = vector_type::create(this->get_executor(), dim2{this->get_size().rows, cols});
    // The residuals and their norms of all columns at once: one product with the block, not one per column.
    Reductions<T> reduce{this->get_executor()};
    const auto initial_norms = this->compute_initial_residual_norms(rhs.norms, b, x, *r, reduce);
    clear_non_finite_columns(*r, initial_norms);
    std::vector<typename IterativeSolver<T>::ColumnSolve> columns;
    for (size_type col = 0; col < cols; ++col) {
        columns.push_back(this->begin_column(col, rhs.norms[col], initial_norms[col], rhs.report_scales[col]));
    }
    // Each round iterates the columns that still run, every one from its true residual (a restart).
    while (true) {
        std::vector<IterationMonitor*> monitors(cols, nullptr);
        for (auto& column : columns) {
            if (this->may_iterate(column)) {
                monitors[column.column] = column.monitor.get();
            }
        }
        if (std::all_of(monitors.begin(), monitors.end(), [](IterationMonitor* m) { return m == nullptr; })) {
            break;
        }
        const auto outcomes = iterate_in_groups(b, x, *r, monitors);
        const auto residual_norms = this->compute_residual_norms(b, x, *r, reduce);
        clear_non_finite_columns(*r, residual_norms);
        for (size_type col = 0; col < cols; ++col) {
            if (monitors[col]) {
                this->end_iterate(columns[col], outcomes[col], residual_norms[col]);
            }
        }
    }
    this->finish_columns_overflowing_in_their_scale(x, columns);
    this->get_executor()->synchronize();
    const auto seconds = seconds_since(start);
    for (size_type col = 0; col < cols; ++col) {
        this->report_column_end(columns[col], seconds);
        statuses[col] = std::move(columns[col].status);
    }
}

template <typename T>
std::vector<IterationOutcome> ColumnsTogetherSolver<T>::iterate_in_groups(
    const vector_type& b, vector_type& x, vector_type& r, const std::vector<IterationMonitor*>& monitors) const
{
    const auto cols = monitors.size();
    const auto group_size = get_max_columns_together();
    if (cols <= group_size) {
        return this->iterate_columns(b, x, r, monitors);
    }
    std::vector<IterationOutcome> outcomes;
    for (size_type first = 0; first < cols; first += group_size) {
        const auto count = std::min(group_size, cols - first);
        const std::vector<IterationMonitor*> group(monitors.begin() + first, monitors.begin() + first + count);
        const auto group_outcomes = this->iterate_columns(*b.create_const_columns_view(first, count),
                                                          *x.create_columns_view(first, count),
                                                          *r.create_columns_view(first, count), group);
        outcomes.insert(outcomes.end(), group_outcomes.begin(), group_outcomes.end());
    }
    return outcomes;
}

#define LARCH_INSTANTIATE_ITERATIVE_SOLVER(T) \
    template class IterativeSolver<T>;        \
    template class ColumnsTogetherSolver<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_ITERATIVE_SOLVER);

}  // namespace solver
}  // namespace larch
