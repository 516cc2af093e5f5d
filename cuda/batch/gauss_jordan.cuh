// Gauss-Jordan inversion of one small item held in the registers of one sub-warp (Anzt et al. 2018, batched
// Gauss-Jordan, Figure 2, with the changes that measurements on the H100 found worth making), shared by
// batched inversion and the
// fused condition-number kernel.
//
// Thread mapping: one sub-warp of p = subwarp_size threads per item (n <= p); each thread holds a block
// of the working matrix (interleaved rows and columns, see GaussJordanShape) in a register array indexed
// only by compile-time indices (all loops over rows, columns and steps are unrolled; the item's actual
// size n is a run-time bound).
//
// - Loads and stores are coalesced by staging the item in shared memory (one p x (p + 1) tile per
//   sub-warp, the +1 avoids bank conflicts): global rows are read with one thread per column, then each
//   thread picks up its block. The tile is used again to apply the permutation at write-back. We do not
//   invert the transpose (the trick of Anzt et al. 2018) because that pivots on columns of A, which would
//   change which step reports a singular item compared with the reference's row pivoting.
// - The pivot row and column k are broadcast through shared memory (their holders store them, the
//   sub-warp reads them 16 bytes at a time), not by shuffles: half the instructions on the pipe both
//   share (benchmark/results/batch_tuning_notes.md).
// - Implicit row pivoting: rows never move; each thread remembers the step at which its row was the
//   pivot, and the permutation is applied when writing back.
// - The pivot row is kept UNSCALED: every other row does one fused multiply-add per element with the
//   broadcast pivot row and its multiplier f = a_rk * (1 / pivot) (0 for the pivot row itself, which is what
//   leaves it untouched), so there is no per-element select or division. Column k of the working array
//   then receives the inverse's column: -f, or 1 for the pivot row. Since every later update of a row is
//   linear in that row, a pivot row stays consistently scaled by its pivot, and 1/pivot is applied once
//   at write-back.
// - Pivot search by ONE 32-bit-key all-reduce (one shuffle per level instead of the several that a
//   value-and-index reduction needs): the key is the top 26 bits of |a_rk| above the row's rank. Keys
//   compare like the magnitudes except that magnitudes equal in their leading 15 (double) or 18 (float)
//   mantissa bits tie, and a tie goes to the smaller row. So the kernel may choose a different pivot than
//   the reference only among near-ties (relative difference < 2^-15), which keeps the stability of
//   partial pivoting and changes the inverse only by rounding.
#pragma once

#include <cstdint>

#include "cuda/batch/register_batch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// The shared-memory tile one sub-warp stages its item in.
template <int subwarp_size, typename T>
using StagingTile = T[subwarp_size][subwarp_size + 1];

/// The top 32 bits of a non-negative value's bit pattern; they order like the value.
__device__ __forceinline__ std::uint32_t leading_bits(double value)
{
    return static_cast<std::uint32_t>(static_cast<unsigned long long>(__double_as_longlong(value)) >> 32);
}

__device__ __forceinline__ std::uint32_t leading_bits(float value)
{
    return static_cast<std::uint32_t>(__float_as_int(value));
}

/// Pivot-search key (see the file comment): 0 for a row that may not be the pivot, otherwise
/// bit 31 set, the magnitude's leading bits, and 31 - rank in the low 5 bits (ties go to the smaller rank).
template <typename T>
__device__ __forceinline__ std::uint32_t pivot_key(T value, int rank, bool candidate)
{
    const std::uint32_t bits = leading_bits(magnitude(value));
    return candidate ? (0x80000000u | (bits & ~31u) | static_cast<std::uint32_t>(31 - rank)) : 0u;
}

__device__ __forceinline__ int rank_of_pivot_key(std::uint32_t key)
{
    return 31 - static_cast<int>(key & 31u);
}

/**
 * How the p x p working matrix of one item is shared by the p threads of its sub-warp: a grid of
 * row_groups x column_groups threads (the lane is tr + row_groups * tc), where thread (tr, tc) holds the
 * rows_per_thread rows tr + row_groups * i and the columns_per_thread columns tc + column_groups * j.
 * column_groups is the largest power of two whose square is at most p, so that each thread holds a
 * near-square block: at p = 32, 4 x 8 values, whose update at each step needs 8 pivot-row entries and 4
 * column entries from shared memory (12 loads for 32 fused multiply-adds, against 32 for 32 with one
 * row per thread, where the shared-memory pipe was the limit). Interleaved rows and columns keep a
 * smaller item (n < p) off the padding uniformly: a step skips the row slots i with row_groups * i >= n
 * and the column slots j with column_groups * j >= n on every thread, so an item of 17 costs about 17^2,
 * not 32^2, per step.
 */
template <int subwarp_size>
struct GaussJordanShape {
    static constexpr int column_groups = subwarp_size >= 16 ? 4 : subwarp_size >= 4 ? 2 : 1;
    static constexpr int row_groups = subwarp_size / column_groups;
    static constexpr int rows_per_thread = column_groups;
    static constexpr int columns_per_thread = row_groups;
};

/// This thread's block of the working matrix [A | I] (stored in place, see GaussJordanShape), and what
/// it knows about its rows.
template <int subwarp_size, typename T>
struct GaussJordanRow {
    using Shape = GaussJordanShape<subwarp_size>;
    T values[Shape::rows_per_thread][Shape::columns_per_thread];
    int pivot_step[Shape::rows_per_thread];  ///< the step at which the row was the pivot (-1: not yet)
    T pivot[Shape::rows_per_thread];         ///< the row's pivot; the stored row is the true row times it
};

/**
 * Loader of an item stored row-major at `item` (n x n): fills the sub-warp's whole p x p tile (zeros
 * outside the item) with one thread per column, so the global reads are coalesced. A loader is "where the
 * item comes from" for load_rows_with: block-Jacobi generation reads its items straight from a CSR matrix
 * (cuda/preconditioner/block_jacobi_kernels.cu) with loaders of the same shape.
 */
template <int subwarp_size, typename T>
struct DenseItemLoader {
    const T* item;

    __device__ __forceinline__ void operator()(int n, StagingTile<subwarp_size, T>& tile) const
    {
        const int lane = warp::rank<subwarp_size>();
        // Every load of the item is issued before the first one is used: a loop bounded by the run-time n
        // keeps one load per thread in flight, far too few to cover the memory latency. The whole p x p
        // tile is written (zeros outside the item), so the rows are picked up without a test.
        T column[subwarp_size];
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            column[r] = (lane < n && r < n) ? item[r * n + lane] : T{};
        }
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            tile[r][lane] = column[r];
        }
    }
};

/**
 * Stages the item through `tile` with `loader` (which writes the whole tile, zeros outside the n x n
 * item, and leaves its last column alone), picks this thread's block into `row` and returns the row sum
 * |a_r|_1 of row r = this thread's rank (so the sub-warp's all_reduce_max of it is ||A||_inf). All
 * threads of the block must call it.
 */
template <int subwarp_size, typename T, typename Loader>
__device__ __forceinline__ T load_rows_with(const Loader& loader, int n, StagingTile<subwarp_size, T>& tile,
                                            GaussJordanRow<subwarp_size, T>& row)
{
    using Shape = GaussJordanShape<subwarp_size>;
    const int lane = warp::rank<subwarp_size>();
    const int tr = lane % Shape::row_groups;
    const int tc = lane / Shape::row_groups;
    loader(n, tile);
    __syncthreads();
    T row_sum{};
#pragma unroll
    for (int j = 0; j < subwarp_size; ++j) {
        row_sum += magnitude(tile[lane][j]);
    }
#pragma unroll
    for (int i = 0; i < Shape::rows_per_thread; ++i) {
        row.pivot_step[i] = -1;
        row.pivot[i] = T{1};
#pragma unroll
        for (int j = 0; j < Shape::columns_per_thread; ++j) {
            row.values[i][j] = tile[tr + Shape::row_groups * i][tc + Shape::column_groups * j];
        }
    }
    __syncthreads();
    return row_sum;
}

/// load_rows_with for an item stored row-major at `item` (n x n).
template <int subwarp_size, typename T>
__device__ __forceinline__ T load_rows(const T* item, int n, StagingTile<subwarp_size, T>& tile,
                                       GaussJordanRow<subwarp_size, T>& row)
{
    return load_rows_with<subwarp_size>(DenseItemLoader<subwarp_size, T>{item}, n, tile, row);
}

/// What one elimination step broadcasts through shared memory: the pivot row, grouped by column group
/// (row[tc] holds the entries of the columns of the threads with that tc), and column k, grouped by row
/// group (column[tr] holds the entries of the rows of the threads with that tr).
template <int subwarp_size, typename T>
struct GaussJordanStep {
    using Shape = GaussJordanShape<subwarp_size>;
    SharedValues<Shape::columns_per_thread, T> row[Shape::column_groups];
    SharedValues<Shape::rows_per_thread, T> column[Shape::row_groups];
};

/// A sub-warp's broadcast buffers for two steps (step k uses steps[k % 2], so one sub-warp barrier per
/// step suffices).
template <int subwarp_size, typename T>
struct PivotRowBuffer {
    GaussJordanStep<subwarp_size, T> steps[2];
};

/**
 * In-place Gauss-Jordan elimination of the item held by the sub-warp (see GaussJordanShape; rows and
 * columns >= n are padding). Returns info: 0, or the 1-based step whose pivot p had
 * !(|p| > tiny_bound), at which the elimination stopped. The result is identical on all lanes of the
 * sub-warp. `buffer` is this sub-warp's.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ int eliminate(int n, T tiny_bound, GaussJordanRow<subwarp_size, T>& row,
                                         PivotRowBuffer<subwarp_size, T>& buffer)
{
    using Shape = GaussJordanShape<subwarp_size>;
    constexpr int row_groups = Shape::row_groups;
    constexpr int column_groups = Shape::column_groups;
    constexpr int rows = Shape::rows_per_thread;
    constexpr int columns = Shape::columns_per_thread;
    const int lane = warp::rank<subwarp_size>();
    const int tr = lane % row_groups;
    const int tc = lane / row_groups;
    int info = 0;
    // The loops have no early exit (a break or return would keep clang from unrolling them, and a
    // rolled loop sends the register block to local memory): steps past n, and the steps after a tiny
    // pivot, are skipped by a predicate that is uniform over the sub-warp.
#pragma unroll
    for (int k = 0; k < subwarp_size; ++k) {
        if (k < n && info == 0) {
            // Column k is column slot k_slot of the threads with tc == k % column_groups.
            const int k_slot = k / column_groups;
            const bool holds_column_k = tc == k % column_groups;
            std::uint32_t key = 0;
#pragma unroll
            for (int i = 0; i < rows; ++i) {
                const int r = tr + row_groups * i;
                const std::uint32_t row_key =
                    pivot_key(row.values[i][k_slot], r, holds_column_k && r < n && row.pivot_step[i] < 0);
                key = row_key > key ? row_key : key;
            }
            const int pivot_rank = rank_of_pivot_key(warp::all_reduce_max<subwarp_size>(key));
            const int pivot_slot = pivot_rank / row_groups;
            const bool holds_pivot_row = tr == pivot_rank % row_groups;
            auto& step = buffer.steps[k % 2];
            if (holds_column_k) {
#pragma unroll
                for (int i = 0; i < rows; ++i) {
                    step.column[tr].store(i, row.values[i][k_slot]);
                }
            }
#pragma unroll
            for (int i = 0; i < rows; ++i) {
                if (holds_pivot_row && pivot_slot == i) {
#pragma unroll
                    for (int j = 0; j < columns; ++j) {
                        step.row[tc].store(j, row.values[i][j]);
                    }
                }
            }
            subwarp_sync<subwarp_size>();
            const T pivot = step.column[pivot_rank % row_groups].load(pivot_slot);
            if (!(magnitude(pivot) > tiny_bound)) {
                info = k + 1;
            } else {
                // The pivot row stays unscaled (see the file comment); one division per thread and step.
                const T inverse_pivot = T{1} / pivot;
                T multipliers[rows];
                step.column[tr].load_all(multipliers);
#pragma unroll
                for (int i = 0; i < rows; ++i) {
                    const bool is_pivot_row = tr + row_groups * i == pivot_rank;
                    multipliers[i] = is_pivot_row ? T{} : multipliers[i] * inverse_pivot;
                    if (is_pivot_row) {
                        row.pivot_step[i] = k;
                        row.pivot[i] = pivot;
                    }
                }
                // One 16-byte vector of the pivot row at a time, used by every row of the block.
                using Row = SharedValues<columns, T>;
#pragma unroll
                for (int v = 0; v < columns / Row::width; ++v) {
                    if (column_groups * v * Row::width < n) {
                        const auto entries = step.row[tc].vectors[v];
#pragma unroll
                        for (int w = 0; w < Row::width; ++w) {
                            const int j = v * Row::width + w;
#pragma unroll
                            for (int i = 0; i < rows; ++i) {
                                if (row_groups * i < n) {
                                    row.values[i][j] = fma(-multipliers[i], entries.values[w], row.values[i][j]);
                                }
                            }
                        }
                    }
                }
                if (holds_column_k) {
#pragma unroll
                    for (int i = 0; i < rows; ++i) {
                        row.values[i][k_slot] = tr + row_groups * i == pivot_rank ? T{1} : -multipliers[i];
                    }
                }
            }
        }
    }
    return info;
}

/// ||A^-1||_inf from the eliminated rows (row sums do not depend on the column permutation).
template <int subwarp_size, typename T>
__device__ __forceinline__ T inverse_norm(int n, const GaussJordanRow<subwarp_size, T>& row)
{
    using Shape = GaussJordanShape<subwarp_size>;
    const int tr = warp::rank<subwarp_size>() % Shape::row_groups;
    T largest{};
#pragma unroll
    for (int i = 0; i < Shape::rows_per_thread; ++i) {
        T row_sum{};
#pragma unroll
        for (int j = 0; j < Shape::columns_per_thread; ++j) {
            row_sum += magnitude(row.values[i][j]);
        }
        // The threads with the same tr hold the rest of the row: lanes row_groups, 2 row_groups, ... apart.
#pragma unroll
        for (int offset = Shape::row_groups; offset < subwarp_size; offset *= 2) {
            row_sum += warp::shuffle_xor<subwarp_size>(row_sum, offset);
        }
        const bool real_row = tr + Shape::row_groups * i < n;
        const T scaled = real_row ? row_sum / magnitude(row.pivot[i]) : T{};
        largest = scaled > largest ? scaled : largest;
    }
    return warp::all_reduce_max<subwarp_size>(largest);
}

/**
 * Writes A^-1 (n x n at `inverse`, row-major, or column-major with `column_major`) from the eliminated rows:
 * the row that was the pivot of step k is row k of the inverse, and column c of the working array is
 * column pivot_row(c) of it. Both are applied through `tile`, whose last column receives pivot_row(c) at
 * row c (a small integer, exact in T), so the global stores are coalesced. `write` may differ between
 * sub-warps, but all threads of the block must call this function.
 */
template <int subwarp_size, bool column_major = false, typename T>
__device__ __forceinline__ void store_inverse(T* inverse, int n, bool write,
                                              StagingTile<subwarp_size, T>& tile,
                                              const GaussJordanRow<subwarp_size, T>& row)
{
    using Shape = GaussJordanShape<subwarp_size>;
    const int lane = warp::rank<subwarp_size>();
    const int tr = lane % Shape::row_groups;
    const int tc = lane / Shape::row_groups;
    if (write) {
#pragma unroll
        for (int i = 0; i < Shape::rows_per_thread; ++i) {
            const int r = tr + Shape::row_groups * i;
            if (r < n) {
                const int step = row.pivot_step[i];
                const T scale = T{1} / row.pivot[i];
#pragma unroll
                for (int j = 0; j < Shape::columns_per_thread; ++j) {
                    tile[step][tc + Shape::column_groups * j] = row.values[i][j] * scale;
                }
                if (tc == 0) {
                    tile[step][subwarp_size] = static_cast<T>(r);
                }
            }
        }
    }
    __syncthreads();
    if (write && lane < n && column_major) {
        // Lane r writes row r of every column: working column c is column destination(c) of the inverse.
#pragma unroll
        for (int c = 0; c < subwarp_size; ++c) {
            if (c < n) {
                inverse[static_cast<int>(tile[c][subwarp_size]) * n + lane] = tile[lane][c];
            }
        }
    } else if (write && lane < n) {
        // Working column `lane` is column `destination` of the inverse.
        const int destination = static_cast<int>(tile[lane][subwarp_size]);
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            if (r < n) {
                inverse[r * n + destination] = tile[r][lane];
            }
        }
    }
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
