// The host's review of columns iterating together on executor-resident state (Cg, Bicgstab): after a block
// of iterations, each live column's residual norms go to its monitor in order and the columns that ended are
// frozen.
#pragma once

#include <string>
#include <vector>

#include "core/matrix/dense_kernels.hpp"
#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/// Where a solver's state array (a row of `cols` values per field) keeps what the review reads and writes.
struct ReviewedFields {
    size_type stopped;
    size_type stop_slot;
    size_type norms;
};

namespace column_state = kernels::cg_state;
static_assert(column_state::running == kernels::bicgstab_state::running &&
                  column_state::breakdown == kernels::bicgstab_state::breakdown &&
                  column_state::finished == kernels::bicgstab_state::finished &&
                  column_state::paused == kernels::bicgstab_state::paused,
              "the CG and BiCGSTAB state layouts share the values of their stopped field");

/**
 * Reviews the live columns after `steps` iterations whose state the host copied to `host_state`: a column
 * ends at the breakdown its executor recorded (its outcome from `breakdown_outcome(col)`), at the first
 * norm its monitor stops at, or when its iteration budget is spent; an ended column is marked finished in
 * `host_state` (frozen on the executor once the caller writes the stopped field back), a live one running.
 * `solver` names the solver in the internal-error message.
 */
template <typename T, typename Breakdown>
void review_columns(const char* solver, const ReviewedFields& fields, T* host_state, size_type steps,
                    const std::vector<IterationMonitor*>& monitors, std::vector<bool>& live,
                    std::vector<IterationOutcome>& outcomes, Breakdown breakdown_outcome)
{
    const auto cols = monitors.size();
    auto field = [&](size_type name, size_type col) -> T& { return host_state[name * cols + col]; };
    for (size_type col = 0; col < cols; ++col) {
        if (!live[col]) {
            continue;
        }
        auto& monitor = *monitors[col];
        const auto stopped = static_cast<int>(field(fields.stopped, col));
        const auto stop_slot = static_cast<size_type>(field(fields.stop_slot, col));
        const auto checked = stopped == column_state::running ? steps : stop_slot + 1;
        if (monitor.get_remaining_iterations() == 0) {
            outcomes[col] = {monitor.budget_exhausted(), ""};
            live[col] = false;
        }
        for (size_type slot = 0; slot < checked && live[col]; ++slot) {
            if (stopped == column_state::breakdown && slot == stop_slot) {
                outcomes[col] = breakdown_outcome(col);
                live[col] = false;
                break;
            }
            const auto reason = monitor.check(field(fields.norms + slot, col));
            if (reason != stop::Reason::none) {
                outcomes[col] = {reason, ""};
                live[col] = false;
            }
        }
        if (!live[col]) {
            // Frozen from now on, whatever the executor decided (a monitor may stop a running column).
            field(fields.stopped, col) = T{column_state::finished};
            continue;
        }
        // The executor finishes a column only where the monitor stops it (the same threshold and
        // non-finite test), so a live column that is not running was paused above the divergence
        // bound and the monitor let it go on.
        LARCH_ENSURE(stopped == column_state::running || stopped == column_state::paused, Error,
                     std::string{solver} +
                         ": the executor stopped a column the monitor did not stop (internal error)");
        field(fields.stopped, col) = T{column_state::running};
    }
}

}  // namespace solver
}  // namespace larch
