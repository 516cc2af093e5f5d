// Gauss-Huard factorization and solve of one small item by one sub-warp (Anzt et al. 2017, batched
// Gauss-Huard), the device side of
// batch_dense::gauss_huard_factorize / gauss_huard_solve for items up to 32 x 32.
//
// Factorization thread mapping: one sub-warp of p = subwarp_size threads per item (n <= p), one COLUMN
// per thread, the column in registers (compile-time indices only). Row-major items make "thread c reads
// column c" coalesced across the sub-warp for loads and for the write-back in pivot order.
// Implicit column pivoting: columns never move; each thread remembers the step at which its column was
// the pivot (Anzt et al. 2017, batched Gauss-Huard, Section 2). Row k's elimination needs a_k,q_j for the
// pivot column q_j of each earlier step j, and the column elimination the pivot column: both are
// broadcast through shared memory (GaussHuardBuffer). The pivot search compares exact magnitudes
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

/// The shared-memory rows through which a sub-warp broadcasts, at step k, row k's entries in the earlier
/// pivot columns (the row-elimination multipliers, in step order) and the pivot column's entries 0..k;
/// aligned for 16-byte loads. Step k writes each once and reads it after a sub-warp barrier; the barrier
/// between the two (and the next step's first) orders the next writes after this step's reads.
template <int subwarp_size, typename T>
struct GaussHuardBuffer {
    static constexpr int vector_width =
        sizeof(T) * subwarp_size >= 16 ? static_cast<int>(16 / sizeof(T)) : 1;
    struct alignas(sizeof(T) * vector_width) Vector {
        T values[vector_width];
    };
    Vector multipliers[subwarp_size / vector_width];
    Vector pivot_column[subwarp_size / vector_width];
};

/// Exact pivot-search key of a candidate: its magnitude's bit pattern (which orders like the magnitude,
/// NaN above infinity) with the top bit set; 0 for a lane that may not be the pivot.
__device__ __forceinline__ unsigned long long exact_pivot_key(double value, bool candidate)
{
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(value));
    return candidate ? (bits | 0x8000000000000000ull) : 0ull;
}

__device__ __forceinline__ unsigned exact_pivot_key(float value, bool candidate)
{
    const auto bits = static_cast<unsigned>(__float_as_int(value));
    return candidate ? (bits | 0x80000000u) : 0u;
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
 * 1-based failing step; the item is then left unchanged). All lanes of the sub-warp must call it;
 * `buffer` is the sub-warp's own.
 *
 * Per step k, every lane: k fused multiply-adds for row k (its multipliers, row k's entries in the
 * earlier pivot columns, are still those of A: rows below k are untouched until step k; they reach the
 * lanes through `buffer`, 16 bytes per load), one exact pivot search (an all-reduce of a 64-bit key and
 * a ballot for the smallest lane among equal magnitudes), one division, and k fused multiply-adds for
 * the rows above k with the pivot column from `buffer`. The earlier version broadcast every multiplier
 * and every pivot-column entry by shuffles (two per double) and searched the pivot with six shuffles per
 * level: shuffle-bound, 9x slower per flop than Gauss-Jordan on the H100.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ int gauss_huard_factorize_item(T* factors, std::int32_t* pivots, int n,
                                                          bool transposed_storage,
                                                          GaussHuardBuffer<subwarp_size, T>& buffer)
{
    constexpr int width = GaussHuardBuffer<subwarp_size, T>::vector_width;
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

    int pivot_step = -1;
    int info = 0;
    // Unrolled with no early exit (compile-time register indices; see eliminate in gauss_jordan.cuh):
    // steps past n and after a tiny pivot are skipped by a predicate uniform over the sub-warp.
#pragma unroll
    for (int k = 0; k < subwarp_size; ++k) {
        if (k < n && info == 0) {
            // Row elimination: a_kc -= sum_{j<k} a_k,q_j * a_jc for every column c not yet pivoted.
            if (pivot_step >= 0) {
                buffer.multipliers[pivot_step / width].values[pivot_step % width] = column[k];
            }
            subwarp_sync<subwarp_size>();
            T updated = column[k];
#pragma unroll
            for (int c = 0; c < (k + width - 1) / width; ++c) {
                const auto multipliers = buffer.multipliers[c];
#pragma unroll
                for (int w = 0; w < width; ++w) {
                    const int j = c * width + w;
                    if (j < k) {
                        updated = fma(-multipliers.values[w], column[j], updated);
                    }
                }
            }
            const bool active = lane < n && pivot_step < 0;
            if (active) {
                column[k] = updated;
            }
            // Pivot: the largest magnitude among the active lanes, ties to the smallest lane (column).
            const auto key = exact_pivot_key(column[k], active);
            const int pivot_lane =
                warp::lowest_rank_where<subwarp_size>(key == warp::all_reduce_max<subwarp_size>(key));
            if (lane == pivot_lane) {
                pivot_step = k;
#pragma unroll
                for (int i = 0; i <= k; ++i) {
                    buffer.pivot_column[i / width].values[i % width] = column[i];
                }
            }
            subwarp_sync<subwarp_size>();
            const T pivot = buffer.pivot_column[k / width].values[k % width];
            if (!(magnitude(pivot) > tiny_bound)) {
                info = k + 1;
            } else {
                // Diagonalization (scale row k by the pivot) and column elimination above row k.
                const bool eliminating = active && lane != pivot_lane;
                if (eliminating) {
                    column[k] /= pivot;
                }
                const T row_k_entry = eliminating ? column[k] : T{};
#pragma unroll
                for (int c = 0; c < (k + width - 1) / width; ++c) {
                    const auto above = buffer.pivot_column[c];
#pragma unroll
                    for (int w = 0; w < width; ++w) {
                        const int i = c * width + w;
                        if (i < k) {
                            column[i] = fma(-above.values[w], row_k_entry, column[i]);
                        }
                    }
                }
            }
        }
    }
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
