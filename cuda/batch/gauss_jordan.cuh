// Gauss-Jordan inversion of one small item held in the registers of one sub-warp (Anzt et al. 2018, batched
// Gauss-Jordan, Figure 2, with the changes that measurements on the H100 found worth making), shared by
// batched inversion and the
// fused condition-number kernel.
//
// Thread mapping: one sub-warp of p = subwarp_size threads per item (n <= p), one ROW per thread; the
// row lives in a register array indexed only by compile-time indices (all loops over columns and steps
// are unrolled; the item's actual size n is a run-time bound).
//
// - Loads and stores are coalesced by staging the item in shared memory (one p x (p + 1) tile per
//   sub-warp, the +1 avoids bank conflicts): global rows are read with one thread per column, then each
//   thread picks up its row. The tile is used again to apply the permutation at write-back. We do not
//   invert the transpose (the trick of Anzt et al. 2018) because that pivots on columns of A, which would
//   change which step reports a singular item compared with the reference's row pivoting.
// - The pivot row is broadcast through shared memory (the pivot thread stores it, the sub-warp reads it
//   16 bytes at a time), not by shuffles: half the instructions on the pipe both share
//   (benchmark/results/batch_tuning_notes.md).
// - Implicit row pivoting: rows never move; each thread remembers the step at which its row was the
//   pivot, and the permutation is applied when writing back.
// - The pivot row is kept UNSCALED: every other row does one fused multiply-add per element with the
//   broadcast pivot row and its multiplier f = a_rk / pivot (0 for the pivot row itself, which is what
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

/// One row of the working matrix [A | I], stored in place, and what the thread knows about its row.
template <int subwarp_size, typename T>
struct GaussJordanRow {
    T values[subwarp_size];
    int pivot_step = -1;  ///< the step at which this row was the pivot (-1: not yet)
    T pivot = T{1};       ///< the row's pivot; the stored row is the true row times it
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
 * item), picks this thread's row into `row` and returns its row sum |a_r|_1. All threads of the block
 * must call it.
 */
template <int subwarp_size, typename T, typename Loader>
__device__ __forceinline__ T load_rows_with(const Loader& loader, int n, StagingTile<subwarp_size, T>& tile,
                                            GaussJordanRow<subwarp_size, T>& row)
{
    const int lane = warp::rank<subwarp_size>();
    loader(n, tile);
    __syncthreads();
    T row_sum{};
#pragma unroll
    for (int j = 0; j < subwarp_size; ++j) {
        row.values[j] = tile[lane][j];
        row_sum += magnitude(row.values[j]);
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

/// Two pivot rows per sub-warp in shared memory (step k uses rows[k % 2], so one sub-warp barrier per
/// step suffices), aligned for 16-byte accesses.
template <int subwarp_size, typename T>
struct PivotRowBuffer {
    static constexpr int vector_width =
        sizeof(T) * subwarp_size >= 16 ? static_cast<int>(16 / sizeof(T)) : 1;
    struct alignas(sizeof(T) * vector_width) Vector {
        T values[vector_width];
    };
    Vector rows[2][subwarp_size / vector_width];
};

/**
 * In-place Gauss-Jordan elimination of the item held by the sub-warp (one row per thread, rows >= n are
 * padding). Returns info: 0, or the 1-based step whose pivot p had !(|p| > tiny_bound), at which the
 * elimination stopped. The result is identical on all lanes of the sub-warp. `buffer` is this
 * sub-warp's pivot-row buffer.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ int eliminate(int n, T tiny_bound, GaussJordanRow<subwarp_size, T>& row,
                                         PivotRowBuffer<subwarp_size, T>& buffer)
{
    using Buffer = PivotRowBuffer<subwarp_size, T>;
    constexpr int width = Buffer::vector_width;
    const int lane = warp::rank<subwarp_size>();
    int info = 0;
    // The loops have no early exit (a break or return would keep clang from unrolling them, and a
    // rolled loop sends the register row to local memory): steps past n, and the steps after a tiny
    // pivot, are skipped by a predicate that is uniform over the sub-warp.
#pragma unroll
    for (int k = 0; k < subwarp_size; ++k) {
        if (k < n && info == 0) {
            const bool candidate = lane < n && row.pivot_step < 0;
            const int pivot_rank = rank_of_pivot_key(warp::all_reduce_max<subwarp_size>(
                pivot_key(row.values[k], lane, candidate)));
            const bool is_pivot_row = lane == pivot_rank;
            // The pivot row reaches the other rows through shared memory, 16 bytes per load: on the
            // H100 that halved the time at n = 32 compared with one shuffle per entry (two per
            // double), because shuffles and shared-memory accesses share one pipe.
            auto& pivot_row = buffer.rows[k % 2];
            if (is_pivot_row) {
#pragma unroll
                for (int c = 0; c < subwarp_size / width; ++c) {
#pragma unroll
                    for (int w = 0; w < width; ++w) {
                        pivot_row[c].values[w] = row.values[c * width + w];
                    }
                }
            }
            subwarp_sync<subwarp_size>();
            const T pivot = pivot_row[k / width].values[k % width];
            if (!(magnitude(pivot) > tiny_bound)) {
                info = k + 1;
            } else {
                const T multiplier = is_pivot_row ? T{} : row.values[k] / pivot;
                if (is_pivot_row) {
                    row.pivot_step = k;
                    row.pivot = pivot;
                }
#pragma unroll
                for (int c = 0; c < subwarp_size / width; ++c) {
                    // Columns past n are zero padding, skipped in groups of four: (j & ~3) < n is the
                    // same test for the four columns of a group, so it is evaluated once per group (a
                    // padded column would only cost its load, never change a result).
                    if (((c * width) & ~3) < n) {
                        const auto entries = pivot_row[c];
#pragma unroll
                        for (int w = 0; w < width; ++w) {
                            const int j = c * width + w;
                            if (j != k) {
                                row.values[j] = fma(-multiplier, entries.values[w], row.values[j]);
                            }
                        }
                    }
                }
                row.values[k] = is_pivot_row ? T{1} : -multiplier;
            }
        }
    }
    return info;
}

/// ||A^-1||_inf from the eliminated rows (row sums do not depend on the column permutation).
template <int subwarp_size, typename T>
__device__ __forceinline__ T inverse_norm(int n, const GaussJordanRow<subwarp_size, T>& row)
{
    T row_sum{};
#pragma unroll
    for (int j = 0; j < subwarp_size; ++j) {
        row_sum += magnitude(row.values[j]);
    }
    const bool real_row = warp::rank<subwarp_size>() < n;
    return warp::all_reduce_max<subwarp_size>(real_row ? row_sum / magnitude(row.pivot) : T{});
}

/**
 * Writes A^-1 (row-major, n x n at `inverse`) from the eliminated rows: the row that was the pivot of
 * step k is row k of the inverse, and column j of the working array is column pivot_row(j) of it. Both
 * are applied through `tile`, so the global stores are coalesced. `write` may differ between sub-warps,
 * but all threads of the block must call this function.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ void store_inverse(T* inverse, int n, bool write,
                                              StagingTile<subwarp_size, T>& tile,
                                              const GaussJordanRow<subwarp_size, T>& row)
{
    const int lane = warp::rank<subwarp_size>();
    const bool active = write && lane < n;
    if (active) {
        const T scale = T{1} / row.pivot;
#pragma unroll
        for (int j = 0; j < subwarp_size; ++j) {
            tile[row.pivot_step][j] = row.values[j] * scale;
        }
    }
    __syncthreads();
    if (active) {
        // This thread's row was the pivot of step pivot_step, so tile column pivot_step is column `lane`.
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            if (r < n) {
                inverse[r * n + lane] = tile[r][row.pivot_step];
            }
        }
    }
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
