// Device functors of the fused conjugate-gradient step (core/matrix/dense_kernels.hpp, cg_state): the
// solution update runs inside the first launch of the column reduction, so x, r, p and q are each touched
// once and the residual's sum of squares comes out of the same pass; the decisions are cg_step_rules.hpp's.
#pragma once

#include <cstdint>

#include "core/matrix/cg_step_rules.hpp"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {

/// entry(row, col): x += alpha p, r -= alpha q for a running column, returning the new r(row, col)^2.
template <typename T>
struct CgSolutionEntry {
    const T* state;
    size_type cols;
    T* x;
    std::int64_t x_stride;
    T* r;
    std::int64_t r_stride;
    const T* p;
    std::int64_t p_stride;
    const T* q;
    std::int64_t q_stride;

    __device__ T operator()(std::int64_t row, std::int64_t col) const
    {
        const T alpha = cg_rules::step_length(state, cols, static_cast<size_type>(col));
        T& r_entry = r[row * r_stride + col];
        // alpha == 0 (stopped or breaking down): no write, so a frozen column is never touched.
        if (alpha != T{0}) {
            x[row * x_stride + col] += alpha * p[row * p_stride + col];
            r_entry -= alpha * q[row * q_stride + col];
        }
        return r_entry * r_entry;
    }
};

/// finalize(col, r^T r): records the column's step in the state; returns the norm slot's (new) value.
template <typename T>
struct CgFinishStep {
    T* state;
    size_type cols;
    size_type slot;

    __device__ T operator()(std::int64_t col, T sum_of_squares) const
    {
        cg_rules::finish_step(state, cols, static_cast<size_type>(col), slot, sum_of_squares);
        return cg_rules::entry(state, cols, cg_state::norms + slot, static_cast<size_type>(col));
    }
};

/// finish(col): records the column's step from its sum of squares over all processes (a distributed solve).
template <typename T>
struct CgFinishFromSums {
    T* state;
    size_type cols;
    size_type slot;
    const T* sums_of_squares;

    __device__ void operator()(std::int64_t col) const
    {
        cg_rules::finish_step(state, cols, static_cast<size_type>(col), slot, sums_of_squares[col]);
    }
};

/// p = z + beta p for the columns cg_rules::updates_direction names (one thread per entry).
template <typename T>
struct CgDirectionEntries {
    const T* state;
    size_type cols;
    size_type slot;
    T* p;
    std::int64_t p_stride;
    const T* z;
    std::int64_t z_stride;

    __device__ void operator()(std::int64_t i) const
    {
        const auto position = entry_position(i, static_cast<std::int64_t>(cols));
        const auto row = position.row;
        const auto col = static_cast<size_type>(position.col);
        if (cg_rules::updates_direction(state, cols, col, slot)) {
            T& p_entry = p[row * p_stride + col];
            p_entry = z[row * z_stride + col] + cg_rules::direction_ratio(state, cols, col) * p_entry;
        }
    }
};

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
