// The decisions of one conjugate-gradient step on executor-resident scalars (core/matrix/dense_kernels.hpp,
// cg_state), written once for every backend: when a column breaks down before its update, and when it is
// finished or paused after it. A stopped column is frozen, so the host may read the state only every few
// steps and still find x and r exactly as they were when the column stopped.
#pragma once

#include <cmath>

#include "core/base/host_device.hpp"
#include "core/matrix/dense_kernels.hpp"

namespace larch {
namespace kernels {
namespace cg_rules {

/// A divisor the step may use: finite and nonzero (rho or p^T A p).
template <typename T>
LARCH_HOST_DEVICE bool usable(T value)
{
    return value != T{0} && std::isfinite(value);
}

/// The state entry of field `field` (or norm slot `field - cg_state::norms`) of column `col`.
template <typename T>
LARCH_HOST_DEVICE T& entry(T* state, size_type cols, size_type field, size_type col)
{
    return state[field * cols + col];
}

template <typename T>
LARCH_HOST_DEVICE bool is_running(const T* state, size_type cols, size_type col)
{
    return state[cg_state::stopped * cols + col] == T{cg_state::running};
}

/// alpha of a running column, or 0 when it does not update (stopped, or breaking down now).
template <typename T>
LARCH_HOST_DEVICE T step_length(const T* state, size_type cols, size_type col)
{
    const T rho = state[cg_state::rho * cols + col];
    const T p_q = state[cg_state::p_q * cols + col];
    return is_running(state, cols, col) && usable(rho) && usable(p_q) ? rho / p_q : T{0};
}

/// Records the end of the step of column `col` given its sum of squares r^T r after the update (only
/// for a column that was running when the step began), and returns the norm written to slot `slot`.
template <typename T>
LARCH_HOST_DEVICE void finish_step(T* state, size_type cols, size_type col, size_type slot, T sum_of_squares)
{
    if (!is_running(state, cols, col)) {
        return;
    }
    auto& stopped = entry(state, cols, cg_state::stopped, col);
    auto& stop_slot = entry(state, cols, cg_state::stop_slot, col);
    if (!usable(entry(state, cols, cg_state::rho, col)) || !usable(entry(state, cols, cg_state::p_q, col))) {
        stopped = T{cg_state::breakdown};
        stop_slot = static_cast<T>(slot);
        return;
    }
    const T norm = std::sqrt(sum_of_squares);
    entry(state, cols, cg_state::norms + slot, col) = norm;
    entry(state, cols, cg_state::rho_old, col) = entry(state, cols, cg_state::rho, col);
    // !(norm > threshold) also holds for NaN; an infinite norm stops too.
    if (!(norm > entry(state, cols, cg_state::threshold, col)) || !std::isfinite(norm)) {
        stopped = T{cg_state::finished};
        stop_slot = static_cast<T>(slot);
    } else if (norm > entry(state, cols, cg_state::pause_above, col)) {
        stopped = T{cg_state::paused};
        stop_slot = static_cast<T>(slot);
    }
}

/// finish_step for a solve that folds a scalar Jacobi D^{-1} into its step: `next_rho` = r^T D^{-1} r of the
/// updated residual, formed in the same pass as r^T r, becomes rho (rho_old keeps the step's rho) for a
/// column that ran this step and did not break down (as the separate preconditioner apply and dot would
/// leave it: a frozen column's r, so its rho, does not change).
template <typename T>
LARCH_HOST_DEVICE void finish_step_with_rho(T* state, size_type cols, size_type col, size_type slot,
                                            T sum_of_squares, T next_rho)
{
    if (!is_running(state, cols, col)) {
        return;
    }
    finish_step(state, cols, col, slot, sum_of_squares);
    if (entry(state, cols, cg_state::stopped, col) != T{cg_state::breakdown}) {
        entry(state, cols, cg_state::rho, col) = next_rho;
    }
}

/// Whether the direction update of step `slot` changes column `col`: a running column, or one that this
/// very step paused (it resumes later from that direction).
template <typename T>
LARCH_HOST_DEVICE bool updates_direction(const T* state, size_type cols, size_type col, size_type slot)
{
    const T stopped = state[cg_state::stopped * cols + col];
    return stopped == T{cg_state::running} ||
           (stopped == T{cg_state::paused} && state[cg_state::stop_slot * cols + col] == static_cast<T>(slot));
}

/// beta of the direction update of a running column (the ratio of the new rho to the previous one).
template <typename T>
LARCH_HOST_DEVICE T direction_ratio(const T* state, size_type cols, size_type col)
{
    return state[cg_state::rho * cols + col] / state[cg_state::rho_old * cols + col];
}

}  // namespace cg_rules
}  // namespace kernels
}  // namespace larch
