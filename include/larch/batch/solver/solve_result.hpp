// The outcome of one batched solve, item by item: why each item stopped, after how many iterations, with
// which true residual, and the residual histories of the items a logger asked for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "larch/base/types.hpp"

namespace larch {
namespace batch {

/// Why one item of a batched solve stopped (values as the kernels store them).
enum class ItemStatus : std::int32_t {
    converged = 0,       ///< the true residual ||b_i - A_i x_i|| meets the item's tolerance
    max_iterations = 1,  ///< the iteration limit was reached first
    breakdown = 2,       ///< a Krylov scalar became exactly zero (e.g. p^T A p = 0) and restarting from
                         ///< the true residual did not help within max_residual_replacements restarts
    non_finite = 3,      ///< NaN or Inf in b_i, A_i, x_i or in an intermediate result
    residual_gap = 4,    ///< the recursive residual met the tolerance but the true residual did not,
                         ///< max_residual_replacements + 1 times in a row
};

/// "converged", "max_iterations", "breakdown", "non_finite", "residual_gap".
std::string to_string(ItemStatus status);

/**
 * Per-item results of the last solve of a batched solver (host data; a copy the caller may keep).
 * Residual norms are Euclidean norms of the true residual b_i - A_i x_i of the returned x_i, computed in
 * the solver's precision; the threshold is the tolerance the item had to meet (relative: times ||b_i||).
 */
class BatchSolveResult {
public:
    BatchSolveResult() = default;
    BatchSolveResult(std::vector<ItemStatus> statuses, std::vector<size_type> iterations,
                     std::vector<double> residual_norms, std::vector<double> thresholds,
                     std::map<size_type, std::vector<double>> histories);

    size_type get_num_items() const noexcept { return statuses_.size(); }
    /// BadInput for an item out of range (as every per-item accessor).
    ItemStatus get_status(size_type item) const;
    size_type get_iterations(size_type item) const;
    double get_residual_norm(size_type item) const;
    double get_threshold(size_type item) const;
    const std::vector<ItemStatus>& get_statuses() const noexcept { return statuses_; }
    const std::vector<size_type>& get_all_iterations() const noexcept { return iterations_; }
    const std::vector<double>& get_residual_norms() const noexcept { return residual_norms_; }

    /// How many items stopped with `status`.
    size_type count(ItemStatus status) const;
    bool all_converged() const { return count(ItemStatus::converged) == get_num_items(); }
    /// The largest iteration count of any item (0 for an empty result).
    size_type get_max_iterations() const;

    /// Whether the residual history of `item` was recorded (a logger asked for it).
    bool has_residual_history(size_type item) const { return histories_.count(item) > 0; }
    /**
     * The recursive residual norm of `item` after each iteration (entry 0: the initial true residual),
     * get_iterations(item) + 1 entries; after a restart from the true residual the entry of that
     * iteration holds the true residual. BadInput if it was not recorded.
     */
    const std::vector<double>& get_residual_history(size_type item) const;

private:
    void check_item(size_type item, const char* accessor) const;

    std::vector<ItemStatus> statuses_;
    std::vector<size_type> iterations_;
    std::vector<double> residual_norms_;
    std::vector<double> thresholds_;
    std::map<size_type, std::vector<double>> histories_;
};

}  // namespace batch
}  // namespace larch
