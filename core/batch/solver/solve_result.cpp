// BatchSolveResult: per-item statuses, iteration counts, true residuals and histories of a batched solve.
#include "larch/batch/solver/solve_result.hpp"

#include <algorithm>

#include "larch/base/exception.hpp"

namespace larch {
namespace batch {

std::string to_string(ItemStatus status)
{
    switch (status) {
    case ItemStatus::converged: return "converged";
    case ItemStatus::max_iterations: return "max_iterations";
    case ItemStatus::breakdown: return "breakdown";
    case ItemStatus::non_finite: return "non_finite";
    case ItemStatus::residual_gap: return "residual_gap";
    }
    return "unknown";
}

BatchSolveResult::BatchSolveResult(std::vector<ItemStatus> statuses, std::vector<size_type> iterations,
                                   std::vector<double> residual_norms, std::vector<double> thresholds,
                                   std::map<size_type, std::vector<double>> histories)
    : statuses_{std::move(statuses)}, iterations_{std::move(iterations)},
      residual_norms_{std::move(residual_norms)}, thresholds_{std::move(thresholds)},
      histories_{std::move(histories)}
{}

void BatchSolveResult::check_item(size_type item, const char* accessor) const
{
    LARCH_ENSURE(item < get_num_items(), BadInput,
                 std::string{"BatchSolveResult::"} + accessor + ": item " + std::to_string(item) +
                     " is out of range (the result has " + std::to_string(get_num_items()) + " items)");
}

ItemStatus BatchSolveResult::get_status(size_type item) const
{
    check_item(item, "get_status");
    return statuses_[item];
}

size_type BatchSolveResult::get_iterations(size_type item) const
{
    check_item(item, "get_iterations");
    return iterations_[item];
}

double BatchSolveResult::get_residual_norm(size_type item) const
{
    check_item(item, "get_residual_norm");
    return residual_norms_[item];
}

double BatchSolveResult::get_threshold(size_type item) const
{
    check_item(item, "get_threshold");
    return thresholds_[item];
}

size_type BatchSolveResult::count(ItemStatus status) const
{
    return static_cast<size_type>(std::count(statuses_.begin(), statuses_.end(), status));
}

size_type BatchSolveResult::get_max_iterations() const
{
    return iterations_.empty() ? 0 : *std::max_element(iterations_.begin(), iterations_.end());
}

const std::vector<double>& BatchSolveResult::get_residual_history(size_type item) const
{
    check_item(item, "get_residual_history");
    const auto found = histories_.find(item);
    LARCH_ENSURE(found != histories_.end(), BadInput,
                 "BatchSolveResult::get_residual_history: the history of item " + std::to_string(item) +
                     " was not recorded (ask a BatchConvergence logger for it)");
    return found->second;
}

}  // namespace batch
}  // namespace larch
