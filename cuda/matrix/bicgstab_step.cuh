// Device functors of the fused BiCGSTAB step (core/matrix/dense_kernels.hpp, bicgstab_state): the
// direction update is one pass over p, r and v; the half step and the solution step run their updates
// inside the first launch of the column reduction, so each vector is touched once and the residual's sum
// of squares comes out of the same pass. The decisions and the arithmetic are bicgstab_step_rules.hpp's.
#pragma once

#include <cstdint>

#include "core/base/two_sums.hpp"
#include "core/matrix/bicgstab_step_rules.hpp"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {

/// A fused scalar Jacobi pass on the device (FusedScaling): scaled = inverse_diagonal[row] u where
/// inverse_diagonal is not null.
template <typename T>
struct DeviceScaling {
    const T* inverse_diagonal;
    T* scaled;
    std::int64_t scaled_stride;

    __device__ void write(std::int64_t row, std::int64_t col, T updated) const
    {
        if (inverse_diagonal != nullptr) {
            scaled[row * scaled_stride + col] = inverse_diagonal[row] * updated;
        }
    }
};

template <typename T>
DeviceScaling<T> device_scaling(const FusedScaling<T>& scaling)
{
    if (!scaling.is_fused()) {
        return {nullptr, nullptr, 0};
    }
    return {scaling.inverse_diagonal->get_const_data(), scaling.scaled->get_values(),
            static_cast<std::int64_t>(scaling.scaled->get_stride())};
}

/// p = (r - omega beta v) + beta p for the columns bicgstab_rules::direction_coefficients names, and the
/// fused p_hat = D^{-1} p (one thread per entry).
template <typename T>
struct BicgstabDirectionEntries {
    const T* state;
    size_type cols;
    T* p;
    std::int64_t p_stride;
    const T* r;
    std::int64_t r_stride;
    const T* v;
    std::int64_t v_stride;
    DeviceScaling<T> p_hat;

    __device__ void operator()(std::int64_t i) const
    {
        const auto position = entry_position(i, static_cast<std::int64_t>(cols));
        const auto row = position.row;
        const auto col = static_cast<size_type>(position.col);
        T beta{};
        T v_coefficient{};
        T& p_entry = p[row * p_stride + col];
        if (bicgstab_rules::direction_coefficients(state, cols, col, beta, v_coefficient)) {
            bicgstab_rules::update_direction_entry(beta, v_coefficient, r[row * r_stride + col], v[row * v_stride + col],
                                                   p_entry);
        }
        p_hat.write(row, static_cast<std::int64_t>(col), p_entry);
    }
};

/// entry(row, col): r -= alpha v for a column the half step updates, returning the new r(row, col)^2, and
/// the fused s_hat = D^{-1} r.
template <typename T>
struct BicgstabHalfStepEntry {
    const T* state;
    size_type cols;
    T* r;
    std::int64_t r_stride;
    const T* v;
    std::int64_t v_stride;
    DeviceScaling<T> s_hat;

    __device__ T operator()(std::int64_t row, std::int64_t col) const
    {
        const auto column = static_cast<size_type>(col);
        T& s_entry = r[row * r_stride + col];
        if (!bicgstab_rules::half_step_updates(state, cols, column)) {
            s_hat.write(row, col, s_entry);
            return T{0};  // a frozen or breaking-down column is never written
        }
        const T square = bicgstab_rules::update_half_step_entry(bicgstab_rules::half_step_length(state, cols, column),
                                                                v[row * v_stride + col], s_entry);
        s_hat.write(row, col, s_entry);
        return square;
    }
};

/// finalize(col, s^T s): records the column's half step; returns the norm slot's (possibly new) value.
template <typename T>
struct BicgstabFinishHalfStep {
    T* state;
    size_type cols;
    size_type slot;

    __device__ T operator()(std::int64_t col, T sum_of_squares) const
    {
        const auto column = static_cast<size_type>(col);
        bicgstab_rules::finish_half_step(state, cols, column, slot, sum_of_squares);
        return bicgstab_rules::value(state, cols, bicgstab_state::norms + slot, column);
    }
};

/// entry(row, col): the solution step's update of x (and r) for the column, returning the new r(row, col)^2.
template <typename T>
struct BicgstabSolutionEntry {
    const T* state;
    size_type cols;
    T* x;
    std::int64_t x_stride;
    T* r;
    std::int64_t r_stride;
    const T* p_hat;
    std::int64_t p_hat_stride;
    const T* s_hat;
    std::int64_t s_hat_stride;
    const T* t;
    std::int64_t t_stride;
    const T* shadow;
    std::int64_t shadow_stride;

    /// The new r entry squared and r_hat times it (both 0 for a column left alone).
    __device__ TwoSums<T> operator()(std::int64_t row, std::int64_t col) const
    {
        using bicgstab_rules::SolutionUpdate;
        const auto column = static_cast<size_type>(col);
        const auto update = bicgstab_rules::solution_update(state, cols, column);
        if (update == SolutionUpdate::none) {
            return {T{0}, T{0}};
        }
        const T alpha = bicgstab_rules::value(state, cols, bicgstab_state::alpha, column);
        const T omega = update == SolutionUpdate::full ? bicgstab_rules::solution_omega(state, cols, column) : T{0};
        T& r_entry = r[row * r_stride + col];
        const T square = bicgstab_rules::update_solution_entry(update, alpha, omega, p_hat[row * p_hat_stride + col],
                                                               s_hat[row * s_hat_stride + col], t[row * t_stride + col],
                                                               x[row * x_stride + col], r_entry);
        return {square, shadow[row * shadow_stride + col] * r_entry};
    }
};

/// finalize(col, (r^T r, r_hat^T r)): records the column's solution step and the next rho_new; returns the
/// norm slot's (possibly new) value.
template <typename T>
struct BicgstabFinishSolutionStep {
    T* state;
    size_type cols;
    size_type slot;

    __device__ T operator()(std::int64_t col, TwoSums<T> sums) const
    {
        const auto column = static_cast<size_type>(col);
        bicgstab_rules::finish_solution_step_with_rho(state, cols, column, slot, sums.first, sums.second);
        return bicgstab_rules::value(state, cols, bicgstab_state::norms + slot, column);
    }
};

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
