// Gauss-Huard factorization and solve of one small item by one sub-warp (Anzt et al. 2017, batched
// Gauss-Huard), the device side of
// batch_dense::gauss_huard_factorize / gauss_huard_solve for items up to 32 x 32.
//
// Factorization thread mapping: one sub-warp of p = subwarp_size threads per item (n <= p), one COLUMN
// per thread, the column in registers (compile-time indices only). Row-major items make "thread c reads
// column c" coalesced across the sub-warp for loads and for the write-back in pivot order.
// Implicit column pivoting: columns never move; every thread keeps the list of the columns pivoted so far
// (packed four to a register) because row k's elimination needs a_k,q_j for the pivot column q_j of each
// earlier step j (Anzt et al. 2017, batched Gauss-Huard, Section 2). The pivot search uses the exact
// value-and-index all-reduce
// (unlike Gauss-Jordan's truncated key): the stored factors depend on which pivot is chosen, so they must
// follow the reference's rule exactly (largest magnitude, ties to the smaller column).
//
// Solve thread mapping: one sub-warp per item, one row of the solution per thread, one right-hand side
// after the other; the dot products are sub-warp sums and the AXPYs need the broadcast y_k.
#pragma once

#include <cstdint>

#include "cuda/batch/register_batch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// The pivot columns of the steps so far, packed one byte per step (a column index is < 32).
template <int subwarp_size>
class PivotHistory {
public:
    template <int step>
    __device__ __forceinline__ void record(int column)
    {
        words_[step / 4] |= static_cast<std::uint32_t>(column) << (8 * (step % 4));
    }
    template <int step>
    __device__ __forceinline__ int column_of() const
    {
        return static_cast<int>((words_[step / 4] >> (8 * (step % 4))) & 0xffu);
    }

private:
    std::uint32_t words_[(subwarp_size + 3) / 4] = {};
};

/// Calls function(std::integral_constant<int, i>) for i = 0..count-1 (unrolled; the history above
/// needs the step as a compile-time constant).
template <int first, int count, typename Function>
__device__ __forceinline__ void for_each_step(Function&& function)
{
    if constexpr (first < count) {
        function(std::integral_constant<int, first>{});
        for_each_step<first + 1, count>(function);
    }
}

/// Position of entry `row` of the column that was the pivot of `step` in the stored factors.
__device__ __forceinline__ std::int64_t factor_position(int row, int step, int n, bool transposed_storage)
{
    // BGHT stores U (row < step) transposed about the anti-diagonal: U(a, b) at (n-1-b, n-1-a).
    return (transposed_storage && row < step) ? std::int64_t{n - 1 - step} * n + (n - 1 - row)
                                              : std::int64_t{row} * n + step;
}

/**
 * Factorizes the n x n item at `factors` in place (row-major, stored as described in
 * core/batch/batch_dense_kernels.hpp) and writes its pivot columns to `pivots`; returns info (0 or the
 * 1-based failing step; the item is then left unchanged). All lanes of the sub-warp must call it.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ int gauss_huard_factorize_item(T* factors, std::int32_t* pivots, int n,
                                                          bool transposed_storage)
{
    const int lane = warp::rank<subwarp_size>();
    T column[subwarp_size];
    T row_sums[subwarp_size];
#pragma unroll
    for (int i = 0; i < subwarp_size; ++i) {
        column[i] = (lane < n && i < n) ? factors[i * n + lane] : T{};
        row_sums[i] = magnitude(column[i]);
    }
    warp::reduce_scatter_sum<subwarp_size>(row_sums);
    const T tiny_bound = tiny_pivot_bound(n, warp::all_reduce_max<subwarp_size>(row_sums[0]));

    PivotHistory<subwarp_size> history;
    int pivot_step = -1;
    int info = 0;
    for_each_step<0, subwarp_size>([&](auto step_constant) {
        constexpr int k = decltype(step_constant)::value;
        if (info != 0 || k >= n) {
            return;
        }
        // Row elimination: a_kc -= sum_{j<k} a_k,q_j * a_jc for every column c not yet pivoted.
        T updated = column[k];
        for_each_step<0, k>([&](auto earlier) {
            constexpr int j = decltype(earlier)::value;
            const T multiplier = warp::broadcast<subwarp_size>(column[k], history.template column_of<j>());
            updated = fma(-multiplier, column[j], updated);
        });
        const bool active = lane < n && pivot_step < 0;
        if (active) {
            column[k] = updated;
        }
        const auto pivot =
            warp::all_reduce_max_abs_with_index<subwarp_size>(column[k], lane, active);
        if (!(magnitude(pivot.value) > tiny_bound)) {
            info = k + 1;
            return;
        }
        history.template record<k>(pivot.index);
        const bool eliminating = active && lane != pivot.index;
        if (lane == pivot.index) {
            pivot_step = k;
        }
        // Diagonalization (scale row k by the pivot) and column elimination above row k.
        if (eliminating) {
            column[k] /= pivot.value;
        }
        const T row_k_entry = eliminating ? column[k] : T{};
#pragma unroll
        for (int i = 0; i < k; ++i) {
            column[i] = fma(-warp::broadcast<subwarp_size>(column[i], pivot.index), row_k_entry,
                            column[i]);
        }
    });
    if (info == 0 && lane < n) {
        pivots[pivot_step] = lane;
#pragma unroll
        for (int i = 0; i < subwarp_size; ++i) {
            if (i < n) {
                factors[factor_position(i, pivot_step, n, transposed_storage)] = column[i];
            }
        }
    }
    return info;
}

/**
 * Solves with the factors of one n x n item for one right-hand side, one solution entry per lane: on entry
 * `y` is this lane's entry of b (0 for lanes >= n); returns the solution entry that belongs at row
 * pivots[lane]. `factor(position)` returns the factor stored at `position` (see factor_position) in T: the
 * storage policy, so that callers keep the factors in any precision or place (block-Jacobi stores them
 * in a per-block precision).
 */
template <int subwarp_size, typename T, typename FactorLoader>
__device__ __forceinline__ T gauss_huard_solve_column(const FactorLoader& factor, int n, bool transposed_storage,
                                                      T y)
{
    const int lane = warp::rank<subwarp_size>();
    for (int k = 0; k < n; ++k) {
        const T partial = lane < k ? factor(std::int64_t{k} * n + lane) * y : T{};
        const T dot = warp::all_reduce_sum<subwarp_size>(partial);
        if (lane == k) {
            y = (y - dot) / factor(std::int64_t{k} * n + k);
        }
        const T y_k = warp::broadcast<subwarp_size>(y, k);
        if (lane < k) {
            y = fma(-factor(factor_position(lane, k, n, transposed_storage)), y_k, y);
        }
    }
    return y;
}

/// Reads factors of T from memory: the storage policy of the batched solve.
template <typename T>
struct PlainFactors {
    const T* factors;
    __device__ __forceinline__ T operator()(std::int64_t position) const { return factors[position]; }
};

/**
 * Solves with the factors of one n x n item for each of the `num_rhs` columns of b (row-major n x num_rhs)
 * into x (may be b). One solution entry per lane.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ void gauss_huard_solve_item(const T* factors, const std::int32_t* pivots,
                                                       int n, bool transposed_storage, const T* b,
                                                       T* x, int num_rhs)
{
    const int lane = warp::rank<subwarp_size>();
    const bool real_row = lane < n;
    const int destination_row = real_row ? pivots[lane] : 0;
    for (int rhs = 0; rhs < num_rhs; ++rhs) {
        const T y = gauss_huard_solve_column<subwarp_size>(PlainFactors<T>{factors}, n, transposed_storage,
                                                           real_row ? b[lane * num_rhs + rhs] : T{});
        if (real_row) {
            x[destination_row * num_rhs + rhs] = y;
        }
    }
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
