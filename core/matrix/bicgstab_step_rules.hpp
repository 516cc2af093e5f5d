// The decisions and the per-entry arithmetic of one BiCGSTAB step on executor-resident scalars
// (core/matrix/dense_kernels.hpp, bicgstab_state), written once for every backend so that all of them
// stop a column at the same scalar and update its entries with the same operations in the same order.
// A stopped column is frozen, so the host may read the state only every few steps.
#pragma once

#include <cmath>

#include "core/matrix/bicgstab_omega.hpp"
#include "core/matrix/cg_step_rules.hpp"
#include "core/matrix/dense_kernels.hpp"

namespace larch {
namespace kernels {
namespace bicgstab_rules {

using cg_rules::usable;

/// The state entry of field `field` (or norm slot `field - bicgstab_state::norms`) of column `col`.
template <typename T>
LARCH_HOST_DEVICE T& entry(T* state, size_type cols, size_type field, size_type col)
{
    return state[field * cols + col];
}

template <typename T>
LARCH_HOST_DEVICE T value(const T* state, size_type cols, size_type field, size_type col)
{
    return state[field * cols + col];
}

template <typename T>
LARCH_HOST_DEVICE bool is_running(const T* state, size_type cols, size_type col)
{
    return value(state, cols, bicgstab_state::stopped, col) == T{bicgstab_state::running};
}

template <typename T>
LARCH_HOST_DEVICE void stop(T* state, size_type cols, size_type col, int code, size_type slot)
{
    entry(state, cols, bicgstab_state::stopped, col) = static_cast<T>(code);
    entry(state, cols, bicgstab_state::stop_slot, col) = static_cast<T>(slot);
}

template <typename T>
LARCH_HOST_DEVICE void break_down(T* state, size_type cols, size_type col, int cause, size_type slot)
{
    stop(state, cols, col, bicgstab_state::breakdown, slot);
    entry(state, cols, bicgstab_state::cause, col) = static_cast<T>(cause);
}

// ---- direction: p = (r - omega beta v) + beta p ------------------------------------------------------

/// Whether the direction of column `col` is updated (a running column with a usable rho_new), and if so
/// its beta and the coefficient -omega beta of v.
template <typename T>
LARCH_HOST_DEVICE bool direction_coefficients(const T* state, size_type cols, size_type col, T& beta,
                                              T& v_coefficient)
{
    const T rho_new = value(state, cols, bicgstab_state::rho_new, col);
    if (!is_running(state, cols, col) || !usable(rho_new)) {
        return false;
    }
    const T omega = value(state, cols, bicgstab_state::omega, col);
    beta = (rho_new / value(state, cols, bicgstab_state::rho, col)) *
           (value(state, cols, bicgstab_state::alpha, col) / omega);
    v_coefficient = -omega * beta;
    return true;
}

template <typename T>
LARCH_HOST_DEVICE void update_direction_entry(T beta, T v_coefficient, T r, T v, T& p)
{
    p = (r + v_coefficient * v) + beta * p;
}

// ---- half step: s = r - alpha v ----------------------------------------------------------------------

/// Whether the half step updates column `col`: running, with usable rho_new and shadow_v.
template <typename T>
LARCH_HOST_DEVICE bool half_step_updates(const T* state, size_type cols, size_type col)
{
    return is_running(state, cols, col) && usable(value(state, cols, bicgstab_state::rho_new, col)) &&
           usable(value(state, cols, bicgstab_state::shadow_v, col));
}

template <typename T>
LARCH_HOST_DEVICE T half_step_length(const T* state, size_type cols, size_type col)
{
    return value(state, cols, bicgstab_state::rho_new, col) / value(state, cols, bicgstab_state::shadow_v, col);
}

/// r -= alpha v; returns the new entry squared.
template <typename T>
LARCH_HOST_DEVICE T update_half_step_entry(T alpha, T v, T& r)
{
    r -= alpha * v;
    return r * r;
}

/// Records the half step of column `col` given s^T s after the update (only for a column that was
/// running when the step began).
template <typename T>
LARCH_HOST_DEVICE void finish_half_step(T* state, size_type cols, size_type col, size_type slot, T sum_of_squares)
{
    if (!is_running(state, cols, col)) {
        return;
    }
    const T rho_new = value(state, cols, bicgstab_state::rho_new, col);
    const T shadow_v = value(state, cols, bicgstab_state::shadow_v, col);
    if (!usable(rho_new)) {
        return break_down(state, cols, col,
                          std::isfinite(rho_new) ? bicgstab_state::rho_zero : bicgstab_state::rho_not_finite, slot);
    }
    if (!usable(shadow_v)) {
        return break_down(state, cols, col,
                          std::isfinite(shadow_v) ? bicgstab_state::shadow_v_zero
                                                  : bicgstab_state::shadow_v_not_finite,
                          slot);
    }
    entry(state, cols, bicgstab_state::alpha, col) = rho_new / shadow_v;
    entry(state, cols, bicgstab_state::rho, col) = rho_new;
    entry(state, cols, bicgstab_state::s_s, col) = sum_of_squares;
    const T norm = std::sqrt(sum_of_squares);
    // A non-finite ||s|| does not stop here: t = A M^{-1} s then reports it.
    if (std::isfinite(norm) && !(norm > value(state, cols, bicgstab_state::threshold, col))) {
        entry(state, cols, bicgstab_state::norms + slot, col) = norm;
        stop(state, cols, col, bicgstab_state::half_finished, slot);
    }
}

// ---- solution step: x = (alpha p_hat + omega s_hat) + x, r = s - omega t --------------------------------

/// What the solution step does to a column's entries.
enum class SolutionUpdate { none, alpha_only, full };

template <typename T>
LARCH_HOST_DEVICE SolutionUpdate solution_update(const T* state, size_type cols, size_type col)
{
    const T stopped = value(state, cols, bicgstab_state::stopped, col);
    if (stopped == T{bicgstab_state::half_finished}) {
        return SolutionUpdate::alpha_only;
    }
    if (stopped != T{bicgstab_state::running}) {
        return SolutionUpdate::none;
    }
    const T t_t = value(state, cols, bicgstab_state::t_t, col);
    const T t_s = value(state, cols, bicgstab_state::t_s, col);
    if (!std::isfinite(t_t) || !std::isfinite(t_s)) {
        return SolutionUpdate::none;
    }
    // omega = 0 or undefined: the half step's progress is kept (x += alpha p_hat), then the driver restarts.
    return t_t == T{0} || t_s == T{0} ? SolutionUpdate::alpha_only : SolutionUpdate::full;
}

/// The safeguarded omega (bicgstab_omega.hpp) of column `col`.
template <typename T>
LARCH_HOST_DEVICE T solution_omega(const T* state, size_type cols, size_type col)
{
    return bicgstab_omega::safeguarded(
        value(state, cols, bicgstab_state::t_s, col), value(state, cols, bicgstab_state::t_t, col),
        value(state, cols, bicgstab_state::s_s, col), value(state, cols, bicgstab_state::kappa, col));
}

/// Updates one entry of x (and of r for a full update); returns the new r entry squared.
template <typename T>
LARCH_HOST_DEVICE T update_solution_entry(SolutionUpdate update, T alpha, T omega, T p_hat, T s_hat, T t, T& x,
                                          T& r)
{
    if (update == SolutionUpdate::full) {
        x = (alpha * p_hat + omega * s_hat) + x;
        r -= omega * t;
    } else if (update == SolutionUpdate::alpha_only) {
        x += alpha * p_hat;
    }
    return r * r;
}

/// Records the solution step of column `col` given r^T r after the update (ignored unless the update
/// was full).
template <typename T>
LARCH_HOST_DEVICE void finish_solution_step(T* state, size_type cols, size_type col, size_type slot,
                                            T sum_of_squares)
{
    const auto update = solution_update(state, cols, col);
    if (update == SolutionUpdate::none) {
        if (is_running(state, cols, col)) {
            break_down(state, cols, col, bicgstab_state::t_not_finite, slot);
        }
        return;
    }
    if (update == SolutionUpdate::alpha_only) {
        if (is_running(state, cols, col)) {
            return break_down(state, cols, col, bicgstab_state::omega_zero, slot);
        }
        // finished by the half step: x is complete now
        return stop(state, cols, col, bicgstab_state::finished, slot);
    }
    entry(state, cols, bicgstab_state::omega, col) = solution_omega(state, cols, col);
    const T norm = std::sqrt(sum_of_squares);
    entry(state, cols, bicgstab_state::norms + slot, col) = norm;
    // !(norm > threshold) also holds for NaN; an infinite norm stops too.
    if (!(norm > value(state, cols, bicgstab_state::threshold, col)) || !std::isfinite(norm)) {
        stop(state, cols, col, bicgstab_state::finished, slot);
    } else if (norm > value(state, cols, bicgstab_state::pause_above, col)) {
        stop(state, cols, col, bicgstab_state::paused, slot);
    }
}

/// finish_solution_step, and for a column whose update was full, `next_rho` = r_hat^T r of the new residual
/// (formed in the same pass as r^T r) as the next direction's rho_new, so that no separate dot precedes it.
template <typename T>
LARCH_HOST_DEVICE void finish_solution_step_with_rho(T* state, size_type cols, size_type col, size_type slot,
                                                     T sum_of_squares, T next_rho)
{
    const bool full = solution_update(state, cols, col) == SolutionUpdate::full;
    finish_solution_step(state, cols, col, slot, sum_of_squares);
    if (full) {
        entry(state, cols, bicgstab_state::rho_new, col) = next_rho;
    }
}

}  // namespace bicgstab_rules
}  // namespace kernels
}  // namespace larch
