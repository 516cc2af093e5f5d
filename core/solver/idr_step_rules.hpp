// The scalar phases of one IDR(s) column on the executor (core/solver/idr_kernels.hpp), written once for every
// backend: the reference and omp kernels loop over the columns, the device kernel runs one thread per column.
#pragma once

#include <cmath>

#include "core/matrix/bicgstab_omega.hpp"
#include "core/solver/idr_kernels.hpp"

namespace larch {
namespace kernels {
namespace idr_rules {

/// The scalars of one column: its state fields, its shadow system, its step's products and update rows.
template <typename T>
struct Column {
    const IdrLayout& layout;
    size_type col;
    const T* products;
    double* system;
    double* state;
    T* updates;

    LARCH_HOST_DEVICE double& field(size_type name) const { return state[name * layout.cols + col]; }
    LARCH_HOST_DEVICE double& m(size_type i, size_type k) const { return system[layout.shadow_matrix(i, k, col)]; }
    LARCH_HOST_DEVICE double& f(size_type i) const { return system[layout.rhs(i, col)]; }
    LARCH_HOST_DEVICE double& c(size_type i) const { return system[layout.coefficient(i, col)]; }
    LARCH_HOST_DEVICE double product(size_type row) const
    {
        return static_cast<double>(products[row * layout.cols + col]);
    }
    LARCH_HOST_DEVICE bool running() const { return field(idr_state::stopped) == idr_state::running; }
    /// Update row `row` = value for a running column, exactly 0 for a stopped one.
    LARCH_HOST_DEVICE void set_update(size_type row, double value) const
    {
        updates[row * layout.cols + col] = running() ? static_cast<T>(value) : T{};
    }
    LARCH_HOST_DEVICE void stop(size_type slot, int stopped, int cause) const
    {
        field(idr_state::stopped) = stopped;
        field(idr_state::stop_slot) = static_cast<double>(slot);
        field(idr_state::cause) = cause;
    }
};

template <typename T>
LARCH_HOST_DEVICE void coefficients(const Column<T>& column, size_type k, size_type slot)
{
    const auto s = column.layout.s;
    // The lower triangular m(k:s, k:s) c = f(k:s).
    for (size_type i = k; column.running() && i < s; ++i) {
        double sum = column.f(i);
        for (size_type j = k; j < i; ++j) {
            sum -= column.m(i, j) * column.c(j);
        }
        if (column.m(i, i) == 0) {
            column.stop(slot, idr_state::breakdown, idr_state::triangular_zero);
            break;
        }
        column.c(i) = sum / column.m(i, i);
        if (!std::isfinite(column.c(i))) {
            column.stop(slot, idr_state::breakdown, idr_state::coefficient_not_finite);
        }
    }
    const auto tail = s - k;
    for (size_type i = k; i < s; ++i) {
        column.set_update(i - k, -column.c(i));
    }
    column.set_update(tail, column.c(k));
    column.set_update(tail + 1, column.field(idr_state::omega));
    for (size_type i = k + 1; i < s; ++i) {
        column.set_update(tail + 1 + i - k, column.c(i));
    }
}

template <typename T>
LARCH_HOST_DEVICE void shadow_column(const Column<T>& column, size_type k, size_type slot)
{
    for (size_type i = k; column.running() && i < column.layout.s; ++i) {
        column.m(i, k) = column.product(i - k);
        if (!std::isfinite(column.m(i, k))) {
            column.stop(slot, idr_state::breakdown, idr_state::shadow_not_finite);
        }
    }
    if (column.running() && column.m(k, k) == 0) {
        column.stop(slot, idr_state::breakdown, idr_state::shadow_zero);
    }
    double beta = column.running() ? column.f(k) / column.m(k, k) : 0.0;
    if (!std::isfinite(beta)) {
        column.stop(slot, idr_state::breakdown, idr_state::beta_not_finite);
        beta = 0.0;
    }
    column.field(idr_state::beta) = beta;
    column.set_update(0, -beta);
    column.set_update(1, beta);
}

template <typename T>
LARCH_HOST_DEVICE void omega(const Column<T>& column, size_type slot, double kappa)
{
    if (column.running()) {
        const double t_norm = column.product(0);
        const double t_r = column.product(1);
        if (!std::isfinite(t_norm)) {
            column.stop(slot, idr_state::breakdown, idr_state::t_norm_not_finite);
        } else if (!std::isfinite(t_r)) {
            column.stop(slot, idr_state::breakdown, idr_state::t_r_not_finite);
        } else if (t_norm == 0 || t_r == 0) {
            column.stop(slot, idr_state::breakdown, idr_state::omega_zero);
        } else {
            // omega minimizes ||r - omega t||, enlarged where |cos(t, r)| is below kappa (BiCGSTAB's rule,
            // from the norms: their squares underflow where a residual falls below 1e-154).
            const double omega = bicgstab_omega::safeguarded_from_norms(
                t_r, t_norm, column.field(idr_state::residual_norm), kappa);
            if (std::isfinite(omega)) {
                column.field(idr_state::omega) = omega;
            } else {
                column.stop(slot, idr_state::breakdown, idr_state::omega_not_finite);
            }
        }
    }
    column.set_update(0, -column.field(idr_state::omega));
    column.set_update(1, column.field(idr_state::omega));
}

template <typename T>
LARCH_HOST_DEVICE void residual(const Column<T>& column, size_type k, size_type slot)
{
    if (!column.running()) {
        return;
    }
    const double norm = column.product(0);
    column.field(idr_state::norms + slot) = norm;
    column.field(idr_state::residual_norm) = norm;
    // IterationMonitor's tests: at or below the threshold, exactly zero, or not finite (NaN fails both
    // comparisons).
    if (!(norm > column.field(idr_state::threshold)) || norm == 0 || !std::isfinite(norm)) {
        return column.stop(slot, idr_state::finished, 0);
    }
    const double beta = column.field(idr_state::beta);
    for (size_type i = k + 1; i < column.layout.s; ++i) {
        column.f(i) -= beta * column.m(i, k);
    }
}

/// idr::step for column `col` (see its declaration).
template <typename T>
LARCH_HOST_DEVICE void step(const IdrLayout& layout, IdrPhase phase, size_type k, size_type index, size_type slot,
                            double kappa, size_type col, const T* products, double* system, double* state,
                            T* updates)
{
    const Column<T> column{layout, col, products, system, state, updates};
    switch (phase) {
    case IdrPhase::shadow_rhs:
        for (size_type i = 0; column.running() && i < layout.s; ++i) {
            column.f(i) = column.product(i);
        }
        return;
    case IdrPhase::coefficients:
        return coefficients(column, k, slot);
    case IdrPhase::orthogonalize:
        return column.set_update(0, -(column.running() ? column.product(0) / column.m(index, index) : 0.0));
    case IdrPhase::shadow_column:
        return shadow_column(column, k, slot);
    case IdrPhase::omega:
        return omega(column, slot, kappa);
    case IdrPhase::residual:
        return residual(column, k, slot);
    }
}

/// idr::step of every column in turn: the whole kernel of the host backends (O(s^2) work per column and at
/// most 32 columns, too little for threads).
template <typename T>
inline void step_every_column(const IdrLayout& layout, IdrPhase phase, size_type k, size_type index, size_type slot,
                              double kappa, const array<T>& products, array<double>& system, array<double>& state,
                              array<T>& updates)
{
    for (size_type col = 0; col < layout.cols; ++col) {
        step(layout, phase, k, index, slot, kappa, col, products.get_const_data(), system.get_data(),
             state.get_data(), updates.get_data());
    }
}

}  // namespace idr_rules
}  // namespace kernels
}  // namespace larch
