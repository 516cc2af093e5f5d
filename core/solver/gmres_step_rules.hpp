// The Givens step of one GMRES column on the executor (core/solver/gmres_kernels.hpp), written once for every
// backend: the reference and omp kernels loop over the columns, the device kernel runs one thread per column.
#pragma once

#include <cmath>

#include "core/solver/gmres_kernels.hpp"

namespace larch {
namespace kernels {
namespace gmres_rules {

/// Stops column `col` at `slot` with `stopped` (and `cause` for a breakdown).
LARCH_HOST_DEVICE void stop(double* state, size_type cols, size_type col, size_type slot, int stopped, int cause)
{
    state[gmres_state::stopped * cols + col] = stopped;
    state[gmres_state::stop_slot * cols + col] = static_cast<double>(slot);
    state[gmres_state::cause * cols + col] = cause;
}

/// gmres::givens_step for column `col` (see its declaration).
template <typename T>
LARCH_HOST_DEVICE void givens_step(const GmresLayout& layout, size_type step, size_type slot, size_type col,
                                   const T* reductions, double* problem, double* state, T* factors)
{
    const auto cols = layout.cols;
    const auto j = step;
    factors[col] = T{0};
    if (state[gmres_state::stopped * cols + col] != gmres_state::running) {
        return;
    }
    const auto h = [&](size_type i) -> double& { return problem[layout.hessenberg(i, j, col)]; };
    const double subdiagonal = static_cast<double>(reductions[layout.subdiagonal(col)]);
    bool finite = std::isfinite(subdiagonal);
    for (size_type i = 0; i <= j; ++i) {
        h(i) = static_cast<double>(reductions[layout.projection(0, i, col)]) +
               static_cast<double>(reductions[layout.projection(1, i, col)]);
        finite = finite && std::isfinite(h(i));
    }
    if (!finite) {
        // The columns solved so far are still valid: x gets their update at the end of the cycle.
        return stop(state, cols, col, slot, gmres_state::breakdown, gmres_state::non_finite);
    }
    for (size_type i = 0; i < j; ++i) {
        const double cosine = problem[layout.cosine(i, col)];
        const double sine = problem[layout.sine(i, col)];
        const double upper = cosine * h(i) + sine * h(i + 1);
        h(i + 1) = -sine * h(i) + cosine * h(i + 1);
        h(i) = upper;
    }
    const double radius = std::hypot(h(j), subdiagonal);
    if (radius == 0) {
        return stop(state, cols, col, slot, gmres_state::breakdown, gmres_state::singular);
    }
    auto& cosine = problem[layout.cosine(j, col)];
    auto& sine = problem[layout.sine(j, col)];
    cosine = h(j) / radius;
    sine = subdiagonal / radius;
    h(j) = radius;
    auto& g = problem[layout.rhs(j, col)];
    auto& g_next = problem[layout.rhs(j + 1, col)];
    g_next = -sine * g;
    g = cosine * g;
    const double estimate = std::abs(g_next);
    state[(gmres_state::norms + slot) * cols + col] = estimate;
    if (subdiagonal == 0) {
        return stop(state, cols, col, slot, gmres_state::breakdown, gmres_state::lucky);
    }
    // IterationMonitor's tests: at or below the threshold, exactly zero, or not finite (NaN fails both
    // comparisons).
    if (!(estimate > state[gmres_state::threshold * cols + col]) || estimate == 0 || !std::isfinite(estimate)) {
        return stop(state, cols, col, slot, gmres_state::finished, 0);
    }
    factors[col] = static_cast<T>(1.0 / subdiagonal);
}

/// gmres::givens_step of every column in turn: the whole kernel of the host backends (O(j) work per column and
/// at most 32 columns, too little for threads).
template <typename T>
inline void givens_step_every_column(const GmresLayout& layout, size_type step, size_type slot,
                                     const array<T>& reductions, array<double>& problem, array<double>& state,
                                     array<T>& factors)
{
    for (size_type col = 0; col < layout.cols; ++col) {
        givens_step(layout, step, slot, col, reductions.get_const_data(), problem.get_data(), state.get_data(),
                    factors.get_data());
    }
}

}  // namespace gmres_rules
}  // namespace kernels
}  // namespace larch
