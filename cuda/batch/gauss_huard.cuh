// Gauss-Huard factorization and solve of one small item by one sub-warp (Anzt et al. 2017, batched
// Gauss-Huard), the device side of
// batch_dense::gauss_huard_factorize / gauss_huard_solve for items up to 32 x 32.
//
// Factorization thread mapping: one sub-warp of p = subwarp_size threads per item (n <= p), each thread
// holding two adjacent columns of every other row (GaussHuardShape) in registers (compile-time indices
// only); consecutive lanes hold consecutive columns, so loads and the write-back are coalesced.
// Implicit column pivoting: columns never move; each thread remembers the step at which each of its
// columns was the pivot (Anzt et al. 2017, batched Gauss-Huard, Section 2). Row k's elimination needs a_k,q_j for the
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

/**
 * How the p x p item is shared by the p threads of the factorization: a grid of row_groups x
 * column_groups threads (the lane is tc + column_groups * tr), where thread (tr, tc) holds the rows
 * tr + row_groups * i and the row_groups consecutive columns row_groups * tc + j. With two row groups,
 * each value broadcast through shared memory serves two columns (half the loads per fused multiply-add
 * of one column per thread), at the price of one shuffle level to add up the two halves of row k's
 * elimination and one to hand the scaled row k to the other row group.
 */
template <int subwarp_size>
struct GaussHuardShape {
    static constexpr int row_groups = subwarp_size >= 2 ? 2 : 1;
    static constexpr int column_groups = subwarp_size / row_groups;
    static constexpr int rows_per_thread = subwarp_size / row_groups;
    static constexpr int columns_per_thread = row_groups;
};

/// What step k broadcasts through shared memory, grouped by row group (entry i of group g belongs to
/// row or step g + row_groups * i): row k's entries in the earlier pivot columns (the row-elimination
/// multipliers, by step) and the pivot column's entries in rows 0..k. Step k writes each once and reads
/// it after a sub-warp barrier; the barrier between the two (and the next step's first) orders the next
/// writes after this step's reads.
template <int subwarp_size, typename T>
struct GaussHuardBuffer {
    using Shape = GaussHuardShape<subwarp_size>;
    SharedValues<Shape::rows_per_thread, T> multipliers[Shape::row_groups];
    SharedValues<Shape::rows_per_thread, T> pivot_column[Shape::row_groups];
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
 * Factorizes the n x n item whose entry (r, c) is entry(r, c) (r, c < n), hands the factors to
 * store_factor(position, value) (at their positions in the row-major storage described in
 * core/batch/batch_dense_kernels.hpp; the item is read whole, and each thread has passed a sub-warp barrier,
 * before anything is stored, so the factors may replace the item) and writes its pivot columns to `pivots`;
 * returns info (0 or the 1-based failing step; nothing is then stored). All lanes of the sub-warp must call
 * it; `buffer` is the sub-warp's own. Threads share the item as GaussHuardShape describes.
 *
 * Step k: row k's multipliers (its entries in the earlier pivot columns, still those of A: rows below k
 * are untouched until step k) and the pivot column reach the threads through `buffer`, 16 bytes per
 * load; each thread adds up its rows' part of row k's elimination for its columns, one shuffle level
 * adds the row groups' parts; the pivot search is exact (an all-reduce of a 64-bit magnitude key and a
 * ballot for the smallest column among equal magnitudes). The first version broadcast every multiplier
 * and pivot-column entry by shuffles (two per double) and searched the pivot with six shuffles per
 * level: shuffle-bound, 9x slower per flop than Gauss-Jordan on the H100.
 */
template <int subwarp_size, typename T, typename Entry, typename FactorSink>
__device__ __forceinline__ int gauss_huard_factorize_with(const Entry& entry, const FactorSink& store_factor,
                                                          std::int32_t* pivots, int n, bool transposed_storage,
                                                          GaussHuardBuffer<subwarp_size, T>& buffer)
{
    using Shape = GaussHuardShape<subwarp_size>;
    constexpr int row_groups = Shape::row_groups;
    constexpr int column_groups = Shape::column_groups;
    constexpr int rows = Shape::rows_per_thread;
    constexpr int columns = Shape::columns_per_thread;
    using Shared = SharedValues<rows, T>;
    constexpr int width = Shared::width;
    const int lane = warp::rank<subwarp_size>();
    const int tr = lane / column_groups;
    const int tc = lane % column_groups;
    T values[rows][columns];
    int column_step[columns];  // the step at which the column was the pivot (-1: not yet)
    T row_sums[rows];
#pragma unroll
    for (int i = 0; i < rows; ++i) {
        const int r = tr + row_groups * i;
        row_sums[i] = T{};
#pragma unroll
        for (int j = 0; j < columns; ++j) {
            const int c = row_groups * tc + j;
            values[i][j] = (r < n && c < n) ? entry(r, c) : T{};
            row_sums[i] += magnitude(values[i][j]);
        }
    }
#pragma unroll
    for (int j = 0; j < columns; ++j) {
        column_step[j] = -1;
    }
    // The threads of one row group are consecutive lanes: the reduce-scatter leaves row tr + row_groups * tc's
    // sum on each.
    warp::reduce_scatter_sum<column_groups>(row_sums);
    const T tiny_bound = tiny_pivot_bound(n, warp::all_reduce_max<subwarp_size>(row_sums[0]));

    int info = 0;
    // Unrolled with no early exit (compile-time register indices; see eliminate in gauss_jordan.cuh):
    // steps past n and after a tiny pivot are skipped by a predicate uniform over the sub-warp.
#pragma unroll
    for (int k = 0; k < subwarp_size; ++k) {
        if (k < n && info == 0) {
            const int k_slot = k / row_groups;
            const bool holds_row_k = tr == k % row_groups;
            // Row elimination: a_kc -= sum_{j<k} a_k,q_j * a_jc for every column c not yet pivoted.
            if (holds_row_k) {
#pragma unroll
                for (int j = 0; j < columns; ++j) {
                    const int step = column_step[j];
                    if (step >= 0) {
                        buffer.multipliers[step % row_groups].store(step / row_groups, values[k_slot][j]);
                    }
                }
            }
            warp::sync<subwarp_size>();
            T sums[columns];
#pragma unroll
            for (int j = 0; j < columns; ++j) {
                sums[j] = T{};
            }
            // Rows tr + row_groups * i < k; the last slot may hold row k or below for some tr (masked).
#pragma unroll
            for (int v = 0; v * width * row_groups < k; ++v) {
                const auto weights = buffer.multipliers[tr].vectors[v];
#pragma unroll
                for (int w = 0; w < width; ++w) {
                    const int i = v * width + w;
                    if (row_groups * i < k) {
                        const T weight = tr + row_groups * i < k ? weights.values[w] : T{};
#pragma unroll
                        for (int j = 0; j < columns; ++j) {
                            sums[j] = fma(weight, values[i][j], sums[j]);
                        }
                    }
                }
            }
            using Key = decltype(exact_pivot_key(T{}, false));
            Key key = 0;
            int best = 0;
            bool active[columns];
#pragma unroll
            for (int j = 0; j < columns; ++j) {
#pragma unroll
                for (int offset = column_groups; offset < subwarp_size; offset *= 2) {
                    sums[j] += warp::shuffle_xor<subwarp_size>(sums[j], offset);
                }
                active[j] = row_groups * tc + j < n && column_step[j] < 0;
                if (holds_row_k && active[j]) {
                    values[k_slot][j] -= sums[j];
                }
                // Ties go to the smaller column: a later column of this thread must be strictly larger.
                const Key column_key = exact_pivot_key(values[k_slot][j], holds_row_k && active[j]);
                if (column_key > key) {
                    key = column_key;
                    best = j;
                }
            }
            // Pivot: the largest magnitude of row k among the active columns, ties to the smallest
            // column (the lowest lane, whose columns come first).
            const int pivot_lane =
                warp::lowest_rank_where<subwarp_size>(key == warp::all_reduce_max<subwarp_size>(key));
            const int pivot_slot = warp::shuffle<subwarp_size>(best, pivot_lane);
            const bool holds_pivot_column = tc == pivot_lane % column_groups;
            if (holds_pivot_column) {
#pragma unroll
                for (int j = 0; j < columns; ++j) {
                    if (j == pivot_slot) {
                        column_step[j] = k;
#pragma unroll
                        for (int i = 0; row_groups * i <= k; ++i) {
                            buffer.pivot_column[tr].store(i, values[i][j]);
                        }
                    }
                }
            }
            warp::sync<subwarp_size>();
            const T pivot = buffer.pivot_column[k % row_groups].load(k_slot);
            if (!(magnitude(pivot) > tiny_bound)) {
                info = k + 1;
            } else {
                // Diagonalization (scale row k by the pivot) by its holders, who hand the scaled row to
                // the other row groups; then column elimination above row k.
                T row_k[columns];
#pragma unroll
                for (int j = 0; j < columns; ++j) {
                    const bool eliminating = active[j] && !(holds_pivot_column && j == pivot_slot);
                    if (holds_row_k && eliminating) {
                        values[k_slot][j] /= pivot;
                    }
                    row_k[j] = warp::shuffle<subwarp_size>(eliminating ? values[k_slot][j] : T{},
                                                           tc + column_groups * (k % row_groups));
                }
#pragma unroll
                for (int v = 0; v * width * row_groups < k; ++v) {
                    const auto above = buffer.pivot_column[tr].vectors[v];
#pragma unroll
                    for (int w = 0; w < width; ++w) {
                        const int i = v * width + w;
                        if (row_groups * i < k) {
                            const T factor = tr + row_groups * i < k ? above.values[w] : T{};
#pragma unroll
                            for (int j = 0; j < columns; ++j) {
                                values[i][j] = fma(-factor, row_k[j], values[i][j]);
                            }
                        }
                    }
                }
            }
        }
    }
    if (info == 0) {
#pragma unroll
        for (int j = 0; j < columns; ++j) {
            const int c = row_groups * tc + j;
            if (c < n) {
                const int step = column_step[j];
                if (tr == 0) {
                    pivots[step] = c;
                }
#pragma unroll
                for (int i = 0; i < rows; ++i) {
                    const int r = tr + row_groups * i;
                    if (r < n) {
                        store_factor(factor_position(r, step, n, transposed_storage), values[i][j]);
                    }
                }
            }
        }
    } else if (tr == 0) {
        // A failed item's pivots are the identity, a permutation, so that a solve with them writes inside the
        // item (its values unspecified) instead of at uninitialized positions.
#pragma unroll
        for (int j = 0; j < columns; ++j) {
            const int c = row_groups * tc + j;
            if (c < n) {
                pivots[c] = c;
            }
        }
    }
    return info;
}

/// gauss_huard_factorize_with for an item stored row-major at `a`, factors stored row-major at `factors`
/// (which may be `a`).
template <int subwarp_size, typename T>
__device__ __forceinline__ int gauss_huard_factorize_item(const T* a, T* factors, std::int32_t* pivots, int n,
                                                          bool transposed_storage,
                                                          GaussHuardBuffer<subwarp_size, T>& buffer)
{
    return gauss_huard_factorize_with(
        [a, n](int r, int c) { return a[r * n + c]; },
        [factors](std::int64_t position, T value) { factors[position] = value; }, pivots, n, transposed_storage,
        buffer);
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
