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
// - The pivot row is broadcast through shared memory (its holder stores it, the sub-warp reads it 16
//   bytes at a time), not by shuffles: half the instructions on the pipe both share
//   (benchmark/results/batch_tuning_notes.md). With a whole row per thread, so are the pivot and its
//   reciprocal, which every thread computes for its own entry while the pivot search runs.
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

/// Pivot-search key (see the file comment) for rows 0..order-1 (order a power of two <= 128): 0 for a
/// row that may not be the pivot, otherwise bit 31 set, the magnitude's leading bits, and
/// order - 1 - rank in the low log2(order) bits (ties go to the smaller rank; 5 bits up to order 32).
template <int order, typename T>
__device__ __forceinline__ std::uint32_t pivot_key(T value, int rank, bool candidate)
{
    constexpr std::uint32_t mask = order < 32 ? 31u : static_cast<std::uint32_t>(order - 1);
    const std::uint32_t bits = leading_bits(magnitude(value));
    return candidate ? (0x80000000u | (bits & ~mask) | (mask - static_cast<std::uint32_t>(rank))) : 0u;
}

template <int order>
__device__ __forceinline__ int rank_of_pivot_key(std::uint32_t key)
{
    constexpr std::uint32_t mask = order < 32 ? 31u : static_cast<std::uint32_t>(order - 1);
    return static_cast<int>(mask - (key & mask));
}

/**
 * How the order x order working matrix of one item is shared by `threads` threads: a grid of
 * row_groups x column_groups threads (rank tc + column_groups * tr), where thread (tr, tc) holds the
 * rows_per_thread rows tr + row_groups * i and the columns_per_thread columns tc + column_groups * j.
 * Each thread holds a near-square block: for a sub-warp (order = threads = p, GaussJordanShape) at
 * p = 32, 4 x 8 values, whose update at each step needs 8 pivot-row entries and 4 column entries from
 * shared memory (12 loads for 32 fused multiply-adds, against 32 for 32 with one row per thread, where
 * the shared-memory pipe was the limit). Interleaved rows and columns keep a smaller item (n < order) off
 * the padding uniformly: a step skips the row slots i with row_groups * i >= n and the column slots j with
 * column_groups * j >= n on every thread, so an item of 17 costs about 17^2, not 32^2, per step.
 * Consecutive ranks hold consecutive columns, so a thread block reading its item straight from global
 * memory reads whole row segments.
 */
template <int order_, int threads_, int column_groups_>
struct GaussJordanGrid {
    static constexpr int order = order_;
    static constexpr int threads = threads_;
    static constexpr int column_groups = column_groups_;
    static constexpr int row_groups = threads / column_groups;
    static constexpr int rows_per_thread = order / row_groups;
    static constexpr int columns_per_thread = order / column_groups;

    __device__ static int row_group(int rank) { return rank / column_groups; }
    __device__ static int column_group(int rank) { return rank % column_groups; }
};

/// The grid of a sub-warp of p threads on a p x p item: one row per thread. Blocks of 4 x 8 values per
/// thread (column_groups 4 at p = 32) read 2.7x fewer broadcast values per fused multiply-add but cost
/// about three times the instructions per step (pivot keys, multipliers and stores for four rows, the
/// padding guards) and measured slower on the H100 for full items (n = 16: 1.79 against 1.23 ms, n = 32
/// with the inverse: 12.1 against 7.6 ms, 500,000 items; faster only when the padding skip pays, n = 17:
/// 4.57 against 5.03 ms); the thread-block kernel of large_items.cuh uses them.
template <int subwarp_size>
using GaussJordanShape = GaussJordanGrid<subwarp_size, subwarp_size, 1>;

/// This thread's block of the working matrix [A | I] (stored in place, see GaussJordanGrid), and what
/// it knows about its rows.
template <typename Grid, typename T>
struct GaussJordanPart {
    T values[Grid::rows_per_thread][Grid::columns_per_thread];
    int pivot_step[Grid::rows_per_thread];  ///< the step at which the row was the pivot (-1: not yet)
    T pivot[Grid::rows_per_thread];         ///< the row's pivot; the stored row is the true row times it
};

/// A sub-warp's part of its item.
template <int subwarp_size, typename T>
using GaussJordanRow = GaussJordanPart<GaussJordanShape<subwarp_size>, T>;

/// The threads that eliminate one item together, as eliminate_with needs them: a sub-warp (its own
/// barrier; all-reduces by shuffles) ...
template <int subwarp_size>
struct SubwarpTeam {
    struct Scratch {};
    __device__ static int rank() { return warp::rank<subwarp_size>(); }
    __device__ static void sync() { warp::sync<subwarp_size>(); }
    __device__ static std::uint32_t all_reduce_max(std::uint32_t key, Scratch&, int)
    {
        return warp::all_reduce_max<subwarp_size>(key);
    }
};

/// ... or a whole thread block (block barriers; all-reduces through shared memory, `parity` alternating
/// between consecutive calls so that one barrier per call suffices).
template <int threads>
struct BlockTeam {
    static constexpr int warps = threads / 32;
    struct Scratch {
        std::uint32_t keys[2][warps];
    };
    __device__ static int rank() { return static_cast<int>(threadIdx.x); }
    __device__ static void sync() { __syncthreads(); }
    __device__ static std::uint32_t all_reduce_max(std::uint32_t key, Scratch& scratch, int parity)
    {
        const std::uint32_t warp_max = warp::all_reduce_max<32>(key);
        if (warp::rank<32>() == 0) {
            scratch.keys[parity][rank() / 32] = warp_max;
        }
        __syncthreads();
        std::uint32_t result = 0;
#pragma unroll
        for (int w = 0; w < warps; ++w) {
            result = scratch.keys[parity][w] > result ? scratch.keys[parity][w] : result;
        }
        return result;
    }
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
    const int tr = Shape::row_group(lane);
    const int tc = Shape::column_group(lane);
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
/// (row[tc] holds the entries of the columns of the threads with that tc), column k, grouped by row
/// group (column[tr] holds the entries of the rows of the threads with that tr), or, where every thread
/// holds a whole row (and so column k), the pivot with its reciprocal.
template <typename Grid, typename T>
struct GaussJordanStep {
    SharedValues<Grid::columns_per_thread, T> row[Grid::column_groups];
    SharedValues<Grid::rows_per_thread, T> column[Grid::row_groups];
    SharedValues<2, T> pivot;  ///< the pivot and its reciprocal
};

/// A team's broadcast buffers for two steps (step k uses steps[k % 2], so one barrier per step suffices)
/// and what its all-reduce needs.
template <typename Grid, typename Team, typename T>
struct GaussJordanBuffer {
    GaussJordanStep<Grid, T> steps[2];
    typename Team::Scratch scratch;
};

/// A sub-warp's buffers.
template <int subwarp_size, typename T>
using PivotRowBuffer = GaussJordanBuffer<GaussJordanShape<subwarp_size>, SubwarpTeam<subwarp_size>, T>;

/**
 * In-place Gauss-Jordan elimination of the item held by the team (see GaussJordanGrid; rows and
 * columns >= n are padding). Returns info: 0, or the 1-based step whose pivot p had
 * !(|p| > tiny_bound), at which the elimination stopped. The result is identical on all threads of the
 * team. `buffer` is this team's.
 */
template <typename Grid, typename Team, typename T>
__device__ __forceinline__ int eliminate_with(int n, T tiny_bound, GaussJordanPart<Grid, T>& row,
                                              GaussJordanBuffer<Grid, Team, T>& buffer)
{
    constexpr int row_groups = Grid::row_groups;
    constexpr int column_groups = Grid::column_groups;
    constexpr int rows = Grid::rows_per_thread;
    constexpr int columns = Grid::columns_per_thread;
    const int tr = Grid::row_group(Team::rank());
    const int tc = Grid::column_group(Team::rank());
    // With one whole row per thread (a sub-warp's shape) each thread holds column k itself, and divides by
    // its own entry of it while the pivot search runs, so that the division is off the critical path; the
    // pivot's holder broadcasts pivot and reciprocal. Otherwise column k comes through shared memory and
    // every thread divides by the pivot after the search: tracking each thread's best candidate over its
    // rows, or the holder dividing before the barrier, measured slower there (blocked kernel, n = 128: 8.5
    // and 9.6 ms against 8.1 ms).
    constexpr bool whole_rows = rows == 1 && column_groups == 1;
    int info = 0;
    // The loops have no early exit (a break or return would keep clang from unrolling them, and a
    // rolled loop sends the register block to local memory): steps past n, and the steps after a tiny
    // pivot, are skipped by a predicate that is uniform over the sub-warp.
#pragma unroll
    for (int k = 0; k < Grid::order; ++k) {
        if (k < n && info == 0) {
            // Column k is column slot k_slot of the threads with tc == k % column_groups.
            const int k_slot = k / column_groups;
            const bool holds_column_k = tc == k % column_groups;
            std::uint32_t key = 0;
#pragma unroll
            for (int i = 0; i < rows; ++i) {
                const int r = tr + row_groups * i;
                const std::uint32_t row_key =
                    pivot_key<Grid::order>(row.values[i][k_slot], r,
                                           holds_column_k && r < n && row.pivot_step[i] < 0);
                key = row_key > key ? row_key : key;
            }
            // (a 0 entry divides 1 by 1: the division's fast path; that reciprocal is never used)
            const T own_entry = row.values[0][k_slot];
            const T own_inverse = whole_rows ? T{1} / (own_entry != T{} ? own_entry : T{1}) : T{};
            const int pivot_rank =
                rank_of_pivot_key<Grid::order>(Team::all_reduce_max(key, buffer.scratch, k % 2));
            const int pivot_slot = pivot_rank / row_groups;
            const bool holds_pivot_row = tr == pivot_rank % row_groups;
            auto& step = buffer.steps[k % 2];
            if (!whole_rows && holds_column_k) {
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
                    if (whole_rows) {
                        step.pivot.store(0, own_entry);
                        step.pivot.store(1, own_inverse);
                    }
                }
            }
            Team::sync();
            const T pivot =
                whole_rows ? step.pivot.load(0) : step.column[pivot_rank % row_groups].load(pivot_slot);
            if (!(magnitude(pivot) > tiny_bound)) {
                info = k + 1;
            } else {
                // The pivot row stays unscaled (see the file comment).
                const T inverse_pivot = whole_rows ? step.pivot.load(1) : T{1} / pivot;
                T multipliers[rows];
                if (whole_rows) {
#pragma unroll
                    for (int i = 0; i < rows; ++i) {
                        multipliers[i] = row.values[i][k_slot];
                    }
                } else {
                    step.column[tr].load_all(multipliers);
                }
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

/// eliminate_with for a sub-warp.
template <int subwarp_size, typename T>
__device__ __forceinline__ int eliminate(int n, T tiny_bound, GaussJordanRow<subwarp_size, T>& row,
                                         PivotRowBuffer<subwarp_size, T>& buffer)
{
    return eliminate_with(n, tiny_bound, row, buffer);
}

/// The largest over this thread's real rows (< n) of |row|_1 / |scale of the row| (the scale is the
/// row's pivot after elimination, 1 before), where the threads of a row group, consecutive ranks, add up
/// their parts of each row: the team's maximum of it is ||A^-1||_inf after elimination (row sums do not
/// depend on the column permutation) and ||A||_inf before.
template <typename Grid, typename T>
__device__ __forceinline__ T largest_scaled_row_sum(int rank, int n, const GaussJordanPart<Grid, T>& row)
{
    const int tr = Grid::row_group(rank);
    T largest{};
#pragma unroll
    for (int i = 0; i < Grid::rows_per_thread; ++i) {
        T row_sum{};
#pragma unroll
        for (int j = 0; j < Grid::columns_per_thread; ++j) {
            row_sum += magnitude(row.values[i][j]);
        }
        row_sum = warp::all_reduce_sum<Grid::column_groups>(row_sum);
        const bool real_row = tr + Grid::row_groups * i < n;
        const T scaled = real_row ? row_sum / magnitude(row.pivot[i]) : T{};
        largest = scaled > largest ? scaled : largest;
    }
    return largest;
}

/// ||A^-1||_inf from the sub-warp's eliminated rows.
template <int subwarp_size, typename T>
__device__ __forceinline__ T inverse_norm(int n, const GaussJordanRow<subwarp_size, T>& row)
{
    return warp::all_reduce_max<subwarp_size>(
        largest_scaled_row_sum(warp::rank<subwarp_size>(), n, row));
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
    const int tr = Shape::row_group(lane);
    const int tc = Shape::column_group(lane);
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
