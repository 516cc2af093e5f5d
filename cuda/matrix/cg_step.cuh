// Device functors of the fused conjugate-gradient step (core/matrix/dense_kernels.hpp, cg_state): the
// solution update runs inside the column reduction, so x, r, p and q are each touched once and the
// residual's sum of squares comes out of the same pass (with a folded scalar Jacobi D^{-1}, the next
// rho = r^T D^{-1} r beside it); the decisions are cg_step_rules.hpp's.
#pragma once

#include <cstdint>

#include "core/base/two_sums.hpp"
#include "core/matrix/cg_step_rules.hpp"
#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {

/// Column col of the solution step as a functor of the row: x += alpha p, r -= alpha q (alpha = 0, a column
/// stopped or breaking down: no write, so a frozen column is never touched), returning the new r entry
/// squared, and with `folds_scaling` also r (d_row r), the term of r^T D^{-1} r.
template <typename T, bool folds_scaling>
struct CgSolutionColumn {
    T* x;
    std::int64_t x_stride;
    T* r;
    std::int64_t r_stride;
    const T* p;
    std::int64_t p_stride;
    const T* q;
    std::int64_t q_stride;
    /// D^{-1} (read only with folds_scaling)
    const T* inverse_diagonal;
    /// set by CgSolutionEntry::column
    T alpha{};

    __device__ auto operator()(std::int64_t row) const
    {
        T& r_entry = r[row * r_stride];
        if (alpha != T{0}) {
            x[row * x_stride] += alpha * p[row * p_stride];
            r_entry -= alpha * q[row * q_stride];
        }
        if constexpr (folds_scaling) {
            return TwoSums<T>{r_entry * r_entry, r_entry * (inverse_diagonal[row] * r_entry)};
        } else {
            return r_entry * r_entry;
        }
    }
};

/// The solution step's entries for reduce_columns: column(col) is `columns` moved to column col, with the
/// column's alpha (cg_rules::step_length).
template <typename T, bool folds_scaling>
struct CgSolutionEntry {
    /// Compiled to fit 5 blocks of 256 threads per multiprocessor (see reduce_long_columns): at 10M rows on
    /// the H200 the step took 143 us instead of 150 (the same 48 registers, another schedule).
    static constexpr int min_blocks_per_multiprocessor = 5;

    const T* state;
    size_type cols;
    /// column 0's pointers
    CgSolutionColumn<T, folds_scaling> columns;

    __device__ CgSolutionColumn<T, folds_scaling> column(std::int64_t col) const
    {
        auto result = columns;
        result.x += col;
        result.r += col;
        result.p += col;
        result.q += col;
        result.alpha = cg_rules::step_length(state, cols, static_cast<size_type>(col));
        return result;
    }
};

/// Records column `col`'s step from its sums: r^T r, or r^T r and r^T D^{-1} r (cg_rules).
template <typename T>
__device__ void finish_cg_step(T* state, size_type cols, std::int64_t col, size_type slot, T sum_of_squares)
{
    cg_rules::finish_step(state, cols, static_cast<size_type>(col), slot, sum_of_squares);
}

template <typename T>
__device__ void finish_cg_step(T* state, size_type cols, std::int64_t col, size_type slot, TwoSums<T> sums)
{
    cg_rules::finish_step_with_rho(state, cols, static_cast<size_type>(col), slot, sums.first, sums.second);
}

/// finalize(col, sums): records the column's step in the state; returns the norm slot's (new) value.
template <typename T>
struct CgFinishStep {
    T* state;
    size_type cols;
    size_type slot;

    template <typename Sums>
    __device__ T operator()(std::int64_t col, Sums sums) const
    {
        finish_cg_step(state, cols, col, slot, sums);
        return cg_rules::entry(state, cols, cg_state::norms + slot, static_cast<size_type>(col));
    }
};

/// Column col of the direction step as a functor of the row: p = z + beta p where the column updates
/// (cg_rules::updates_direction), with z = D^{-1} r formed here where `inverse_diagonal` is given (then `z`
/// points to r).
template <typename T>
struct CgDirectionColumn {
    T* p;
    std::int64_t p_stride;
    const T* z;
    std::int64_t z_stride;
    const T* inverse_diagonal;
    /// set by CgDirectionEntries::column
    bool updates = false;
    T beta{};

    __device__ void operator()(std::int64_t row) const
    {
        if (updates) {
            T& p_entry = p[row * p_stride];
            const T z_entry = z[row * z_stride];
            const T scaled = inverse_diagonal ? inverse_diagonal[row] * z_entry : z_entry;
            p_entry = scaled + beta * p_entry;
        }
    }
};

/// The direction step's entries for launch_for_each_column_entry: column(col) is `columns` moved to column
/// col, with whether the column updates and its beta (cg_rules::direction_ratio).
template <typename T>
struct CgDirectionEntries {
    const T* state;
    size_type cols;
    size_type slot;
    /// column 0's pointers
    CgDirectionColumn<T> columns;

    __device__ CgDirectionColumn<T> column(std::int64_t col) const
    {
        const auto column = static_cast<size_type>(col);
        auto result = columns;
        result.p += col;
        result.z += col;
        result.updates = cg_rules::updates_direction(state, cols, column, slot);
        result.beta = result.updates ? cg_rules::direction_ratio(state, cols, column) : T{0};
        return result;
    }
};

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
