// The per-column state of solvers that iterate the columns of b together on executor-resident scalars (Cg,
// Bicgstab, Gmres, Idr): the host's copy in the solver's layout, the executor's copy that the step kernels update,
// and the host's review after each block of iterations (norms to each monitor in order, ended columns frozen).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/matrix/dense_kernels.hpp"
#include "core/solver/threshold_below.hpp"
#include "larch/base/array.hpp"
#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/// Where a solver's state layout (a row of `cols` values per field) keeps what the host sets and reviews.
struct ColumnStateFields {
    size_type threshold;
    size_type pause_above;
    size_type stopped;
    size_type stop_slot;
    /// The first of check_interval rows of residual norms, one per iteration of a block.
    size_type norms;
};

namespace column_state = kernels::column_stop;

template <typename T>
class ColumnState {
public:
    /**
     * A zero host state for one column per monitor: a column with a monitor runs, with the monitor's
     * threshold and divergence bound as T (threshold_below); one without starts finished, so the kernels
     * leave it alone. Set further fields with field(), then upload().
     */
    ColumnState(std::shared_ptr<const Executor> exec, const ColumnStateFields& fields, size_type check_interval,
                const std::vector<IterationMonitor*>& monitors)
        : exec_{std::move(exec)},
          fields_{fields},
          check_interval_{block_rows(check_interval, monitors)},
          monitors_{monitors},
          host_{exec_->get_host(), (fields.norms + check_interval_) * monitors.size()},
          device_{exec_},
          live_(monitors.size(), false),
          outcomes_(monitors.size())
    {
        std::fill_n(host_.get_data(), host_.get_size(), T{});
        for (size_type col = 0; col < monitors.size(); ++col) {
            if (monitors[col]) {
                live_[col] = true;
                field(fields.threshold, col) = threshold_below<T>(monitors[col]->get_threshold());
                field(fields.pause_above, col) = threshold_below<T>(monitors[col]->get_divergence_bound());
            } else {
                field(fields.stopped, col) = T{column_state::finished};
            }
        }
    }

    size_type get_num_columns() const noexcept { return monitors_.size(); }

    /// Field `name` of column `col` in the host's copy.
    T& field(size_type name, size_type col) { return host_.get_data()[name * get_num_columns() + col]; }

    /// Copies the host's state to the executor (before the first block, and after end()).
    void upload() { device_.copy_from(host_); }

    /// The executor's state, for the step kernels.
    array<T>& get_device_state() noexcept { return device_; }

    /// Field `name` of the executor's state (one value per column), as a view.
    array<T> view(size_type name) { return kernels::state_rows(device_, name, 1, get_num_columns()); }

    bool any_live() const { return std::find(live_.begin(), live_.end(), true) != live_.end(); }

    /// Whether column `col` still iterates (it has a monitor and has not ended).
    bool is_live(size_type col) const { return live_[col]; }

    /// Ends live column `col` with `outcome` decided by the host between reviews (GMRES's test of the true
    /// residual at a restart); the executor sees it frozen from the next upload() on.
    void end(size_type col, IterationOutcome outcome)
    {
        outcomes_[col] = std::move(outcome);
        live_[col] = false;
        field(fields_.stopped, col) = T{column_state::finished};
    }

    /// The iterations of the next block: the check interval, fewer where a live column's budget ends sooner.
    size_type next_block_steps() const
    {
        auto steps = check_interval_;
        for (size_type col = 0; col < get_num_columns(); ++col) {
            if (live_[col]) {
                steps = std::min(steps, monitors_[col]->get_remaining_iterations());
            }
        }
        return steps;
    }

    /**
     * After a block of `steps` iterations: copies the executor's state to the host, then ends a live column
     * at the breakdown its executor recorded (outcome `breakdown_outcome(col)`), at the first norm its
     * monitor stops at, or when its budget is spent; an ended column is frozen (stopped = finished), a live
     * one set running again, and the stopped field goes back to the executor. `solver` names the solver in
     * the internal-error message.
     */
    template <typename Breakdown>
    void review(const char* solver, size_type steps, Breakdown breakdown_outcome)
    {
        host_.copy_from(device_);
        for (size_type col = 0; col < get_num_columns(); ++col) {
            if (live_[col]) {
                review_column(solver, col, steps, breakdown_outcome);
            }
        }
        const auto cols = get_num_columns();
        exec_->copy_from(*exec_->get_host(), cols * sizeof(T), host_.get_const_data() + fields_.stopped * cols,
                         device_.get_data() + fields_.stopped * cols);
    }

    /// Each column's outcome (for the columns that had a monitor).
    const std::vector<IterationOutcome>& get_outcomes() const noexcept { return outcomes_; }

private:
    template <typename Breakdown>
    void review_column(const char* solver, size_type col, size_type steps, Breakdown& breakdown_outcome)
    {
        auto& monitor = *monitors_[col];
        const auto stopped = static_cast<int>(field(fields_.stopped, col));
        const auto stop_slot = static_cast<size_type>(field(fields_.stop_slot, col));
        const auto checked = stopped == column_state::running ? steps : stop_slot + 1;
        if (monitor.get_remaining_iterations() == 0) {
            outcomes_[col] = {monitor.budget_exhausted(), ""};
            live_[col] = false;
        }
        for (size_type slot = 0; slot < checked && live_[col]; ++slot) {
            if (stopped == column_state::breakdown && slot == stop_slot) {
                outcomes_[col] = breakdown_outcome(col);
                live_[col] = false;
                break;
            }
            const auto reason = monitor.check(field(fields_.norms + slot, col));
            if (reason != stop::Reason::none) {
                outcomes_[col] = {reason, ""};
                live_[col] = false;
            }
        }
        if (!live_[col]) {
            // Frozen from now on, whatever the executor decided (a monitor may stop a running column).
            field(fields_.stopped, col) = T{column_state::finished};
            return;
        }
        // The executor finishes a column only where the monitor stops it (the same threshold and
        // non-finite test), so a live column that is not running was paused above the divergence
        // bound and the monitor let it go on.
        LARCH_ENSURE(stopped == column_state::running || stopped == column_state::paused, Error,
                     std::string{solver} +
                         ": the executor stopped a column the monitor did not stop (internal error)");
        field(fields_.stopped, col) = T{column_state::running};
    }

    /// Rows of norms a block can fill: the check interval, fewer where every monitor's budget ends sooner
    /// (next_block_steps never runs past a budget). A check_interval far beyond the iteration limit, 10^14
    /// say, would otherwise allocate a row per iteration that never runs.
    static size_type block_rows(size_type check_interval, const std::vector<IterationMonitor*>& monitors)
    {
        size_type longest_budget = 0;
        for (const auto* monitor : monitors) {
            if (monitor) {
                longest_budget = std::max(longest_budget, monitor->get_remaining_iterations());
            }
        }
        return std::min(check_interval, longest_budget);
    }

    std::shared_ptr<const Executor> exec_;
    ColumnStateFields fields_;
    size_type check_interval_;  // block_rows; declared before host_, which it sizes
    std::vector<IterationMonitor*> monitors_;
    array<T> host_;
    array<T> device_;
    std::vector<bool> live_;
    std::vector<IterationOutcome> outcomes_;
};

}  // namespace solver
}  // namespace larch
