// Device functors of the fused BiCGSTAB step (core/matrix/dense_kernels.hpp, bicgstab_state): the
// direction update is one pass over p, r and v; the half step and the solution step run their updates
// inside the column reduction, so each vector is touched once and the residual's sum of squares comes out
// of the same pass. The decisions and the arithmetic are bicgstab_step_rules.hpp's.
#pragma once

#include <cstdint>

#include "core/base/two_sums.hpp"
#include "core/matrix/bicgstab_step_rules.hpp"
#include "cuda/base/runtime.hpp"

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

/// Column col of the direction step as a functor of the row: p = (r - omega beta v) + beta p where
/// bicgstab_rules::direction_coefficients names the column, and the fused p_hat = D^{-1} p.
template <typename T>
struct BicgstabDirectionColumn {
    T* p;
    std::int64_t p_stride;
    const T* r;
    std::int64_t r_stride;
    const T* v;
    std::int64_t v_stride;
    DeviceScaling<T> p_hat;
    /// set by BicgstabDirectionEntries::column
    std::int64_t col = 0;
    bool updates = false;
    T beta{};
    T v_coefficient{};

    __device__ void operator()(std::int64_t row) const
    {
        T& p_entry = p[row * p_stride];
        if (updates) {
            bicgstab_rules::update_direction_entry(beta, v_coefficient, r[row * r_stride], v[row * v_stride],
                                                   p_entry);
        }
        p_hat.write(row, col, p_entry);
    }
};

/// The direction step's entries for launch_for_each_column_entry: column(col) is `columns` moved to column
/// col, with whether the column updates and its coefficients.
template <typename T>
struct BicgstabDirectionEntries {
    const T* state;
    size_type cols;
    /// column 0's pointers
    BicgstabDirectionColumn<T> columns;

    __device__ BicgstabDirectionColumn<T> column(std::int64_t col) const
    {
        auto result = columns;
        result.p += col;
        result.r += col;
        result.v += col;
        result.col = col;
        result.updates = bicgstab_rules::direction_coefficients(state, cols, static_cast<size_type>(col),
                                                                result.beta, result.v_coefficient);
        return result;
    }
};

/// Column col of the half step as a functor of the row: r -= alpha v where the column updates (a frozen or
/// breaking-down column is never written), returning the new r entry squared, and the fused s_hat = D^{-1} r.
template <typename T>
struct BicgstabHalfStepColumn {
    T* r;
    std::int64_t r_stride;
    const T* v;
    std::int64_t v_stride;
    DeviceScaling<T> s_hat;
    /// set by BicgstabHalfStepEntry::column
    std::int64_t col = 0;
    bool updates = false;
    T alpha{};

    __device__ T operator()(std::int64_t row) const
    {
        T& s_entry = r[row * r_stride];
        const T square = updates ? bicgstab_rules::update_half_step_entry(alpha, v[row * v_stride], s_entry) : T{0};
        s_hat.write(row, col, s_entry);
        return square;
    }
};

/// The half step's entries for reduce_columns: column(col) is `columns` moved to column col, with whether
/// the column updates and its alpha.
template <typename T>
struct BicgstabHalfStepEntry {
    const T* state;
    size_type cols;
    /// column 0's pointers
    BicgstabHalfStepColumn<T> columns;

    __device__ BicgstabHalfStepColumn<T> column(std::int64_t col) const
    {
        const auto column = static_cast<size_type>(col);
        auto result = columns;
        result.r += col;
        result.v += col;
        result.col = col;
        result.updates = bicgstab_rules::half_step_updates(state, cols, column);
        result.alpha = result.updates ? bicgstab_rules::half_step_length(state, cols, column) : T{0};
        return result;
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

/// Column col of the solution step as a functor of the row: the update of x (and r) that `update` names,
/// returning the new r entry squared and r_hat times it (both 0 for a column left alone).
template <typename T>
struct BicgstabSolutionColumn {
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
    /// set by BicgstabSolutionEntry::column
    bicgstab_rules::SolutionUpdate update = bicgstab_rules::SolutionUpdate::none;
    T alpha{};
    T omega{};

    __device__ TwoSums<T> operator()(std::int64_t row) const
    {
        if (update == bicgstab_rules::SolutionUpdate::none) {
            return {T{0}, T{0}};
        }
        T& r_entry = r[row * r_stride];
        const T square = bicgstab_rules::update_solution_entry(update, alpha, omega, p_hat[row * p_hat_stride],
                                                               s_hat[row * s_hat_stride], t[row * t_stride],
                                                               x[row * x_stride], r_entry);
        return {square, shadow[row * shadow_stride] * r_entry};
    }
};

/// The solution step's entries for reduce_columns: column(col) is `columns` moved to column col, with the
/// column's update, alpha and (safeguarded) omega.
template <typename T>
struct BicgstabSolutionEntry {
    /// Compiled to fit 5 blocks of 256 threads per multiprocessor (see reduce_long_columns): 48 registers
    /// instead of 54 (the finish of the last block), 167 us instead of 181 at 10M rows on the H200.
    static constexpr int min_blocks_per_multiprocessor = 5;

    const T* state;
    size_type cols;
    /// column 0's pointers
    BicgstabSolutionColumn<T> columns;

    __device__ BicgstabSolutionColumn<T> column(std::int64_t col) const
    {
        using bicgstab_rules::SolutionUpdate;
        const auto column = static_cast<size_type>(col);
        auto result = columns;
        result.x += col;
        result.r += col;
        result.p_hat += col;
        result.s_hat += col;
        result.t += col;
        result.shadow += col;
        result.update = bicgstab_rules::solution_update(state, cols, column);
        result.alpha = result.update == SolutionUpdate::none
                           ? T{0}
                           : bicgstab_rules::value(state, cols, bicgstab_state::alpha, column);
        result.omega = result.update == SolutionUpdate::full ? bicgstab_rules::solution_omega(state, cols, column)
                                                              : T{0};
        return result;
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
