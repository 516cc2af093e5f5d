// Block-wide all-reduce built on the sub-warp collectives of warp.cuh (32-lane groups, so the same code
// is right for 32- and 64-lane hardware warps), and a deterministic device-wide reduction per column.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"
#include "larch/base/array.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/**
 * Reduces `value` over all `block_size` threads of a one-dimensional block with `op` (commutative,
 * associative) and returns the result on every thread. Every thread of the block must call it (it
 * synchronizes the block twice, so the next call may reuse the shared memory). Deterministic: the
 * combination order depends only on the block size.
 */
template <int block_size, typename T, typename Op>
__device__ __forceinline__ T block_all_reduce(T value, Op op)
{
    static_assert(block_size % 32 == 0 && block_size <= 1024,
                  "block_all_reduce needs a block of a multiple of 32 threads, at most 1024");
    constexpr int num_groups = block_size / 32;
    __shared__ T group_results[num_groups];
    value = warp::all_reduce<32>(value, op);
    if (warp::rank<32>() == 0) {
        group_results[warp::subwarp_id_in_block<32>()] = value;
    }
    __syncthreads();
    // Every thread combines the (at most 32) group results itself: broadcast reads from shared
    // memory, no third synchronization.
    T result = group_results[0];
#pragma unroll
    for (int group = 1; group < num_groups; ++group) {
        result = op(result, group_results[group]);
    }
    __syncthreads();
    return result;
}

/// Whether Entry offers column(col): a functor of the row with the column's own scalars worked out once.
template <typename Entry, typename = void>
struct HasColumnEntries : std::false_type {};

template <typename Entry>
struct HasColumnEntries<Entry, std::void_t<decltype(std::declval<const Entry&>().column(std::int64_t{}))>>
    : std::true_type {};

/// The entries of column `col` as a functor of the row: entry.column(col) where the entry offers it, else
/// entry(row, col). A fused solver step's column works out its scalars (alpha, omega, whether it runs) once
/// per thread instead of once per entry, where reloading them and dividing made its kernel execute 90-200
/// instructions per entry (H200, 10M rows).
template <typename Entry>
__device__ __forceinline__ auto column_entries(const Entry& entry, std::int64_t col)
{
    if constexpr (HasColumnEntries<Entry>::value) {
        return entry.column(col);
    } else {
        return [&entry, col](std::int64_t row) { return entry(row, col); };
    }
}

constexpr int reduction_block_size = 256;
/// Enough partial results per column to fill the device for one column, few enough for one block to
/// finish them quickly.
constexpr std::int64_t max_partials_per_column = 1024;
/// Columns of at most this many rows are reduced in one launch (reduce_short_columns).
constexpr std::int64_t max_short_column_rows = 4096;

/// Stage 1: each block reduces `entry(row, col)` over its grid-stride share of the rows of column
/// blockIdx.y (and further columns with stride gridDim.y); one partial result per block and column.
template <typename T, typename Entry, typename Op>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_columns_partial(std::int64_t rows, std::int64_t cols, Entry entry, Op op, T identity,
                           T* partials)
{
    for (std::int64_t col = blockIdx.y; col < cols; col += gridDim.y) {
        const auto column = column_entries(entry, col);
        T partial = identity;
        for (std::int64_t row = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; row < rows;
             row += std::int64_t{gridDim.x} * blockDim.x) {
            partial = op(partial, column(row));
        }
        partial = block_all_reduce<reduction_block_size>(partial, op);
        if (threadIdx.x == 0) {
            partials[col * gridDim.x + blockIdx.x] = partial;
        }
    }
}

/// Stage 1 for 2, 4, 8, 16 or 32 columns: the threads stride over the (row, col) pairs in row-major order,
/// so a warp reads consecutive entries of a row-major block (coalesced) where the kernel above reads one
/// column's entries a row apart (a 64-byte row of 8 doubles costs a 32-byte sector per 8 useful bytes,
/// column after column). The column count divides the block and the grid, so thread t always meets
/// column t % cols; lanes of one column are combined by shuffles, then the block's warps in order. One
/// partial result per block and column, as above.
template <typename T, typename Entry, typename Op>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_interleaved_columns_partial(std::int64_t rows, int cols, Entry entry, Op op, T identity,
                                       T* partials)
{
    const std::int64_t pairs = rows * cols;
    const int col = static_cast<int>(threadIdx.x) % cols;
    // cols is a power of two: a shift instead of a 64-bit division per pair, which made this kernel
    // instruction-bound (a dot pair of 10M rows on the H100 at 47% of copy)
    const int log2_cols = __ffs(cols) - 1;
    const auto column = column_entries(entry, col);
    T partial = identity;
    for (std::int64_t pair = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; pair < pairs;
         pair += std::int64_t{gridDim.x} * blockDim.x) {
        partial = op(partial, column(pair >> log2_cols));
    }
    // Lanes l and l ^ offset meet the same column for every offset >= cols.
    for (int offset = 16; offset >= cols; offset /= 2) {
        partial = op(partial, warp::shuffle_xor<32>(partial, offset));
    }
    constexpr int num_groups = reduction_block_size / 32;
    __shared__ T group_results[num_groups][32];
    const int lane = warp::rank<32>();
    if (lane < cols) {
        group_results[warp::subwarp_id_in_block<32>()][lane] = partial;
    }
    __syncthreads();
    if (threadIdx.x < cols) {
        T total = group_results[0][threadIdx.x];
        for (int group = 1; group < num_groups; ++group) {
            total = op(total, group_results[group][threadIdx.x]);
        }
        partials[std::int64_t{threadIdx.x} * gridDim.x + blockIdx.x] = total;
    }
}

/// Short columns in one launch: one block per column reduces all of it and finalizes it (the two launches
/// below cost more than the work for a few thousand rows, where a solver's iteration is launch-bound).
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_short_columns(std::int64_t rows, std::int64_t cols, Entry entry, Op op, T identity,
                         Finalize finalize, R* result)
{
    for (std::int64_t col = blockIdx.x; col < cols; col += gridDim.x) {
        const auto column = column_entries(entry, col);
        T partial = identity;
        for (std::int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
            partial = op(partial, column(row));
        }
        const T total = block_all_reduce<reduction_block_size>(partial, op);
        if (threadIdx.x == 0) {
            result[col] = finalize(col, total);
        }
    }
}

/// Stage 2: one block per column combines its partial results; result[col] = finalize(col, total).
template <typename T, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_columns_final(std::int64_t num_partials, std::int64_t cols, const T* partials, Op op,
                         T identity, Finalize finalize, R* result)
{
    for (std::int64_t col = blockIdx.x; col < cols; col += gridDim.x) {
        T total = identity;
        for (std::int64_t i = threadIdx.x; i < num_partials; i += blockDim.x) {
            total = op(total, partials[col * num_partials + i]);
        }
        total = block_all_reduce<reduction_block_size>(total, op);
        if (threadIdx.x == 0) {
            result[col] = finalize(col, total);
        }
    }
}

/// The finalize functor of a plain reduction.
struct KeepTotal {
    template <typename T>
    __device__ T operator()(std::int64_t, T total) const
    {
        return total;
    }
};

/// Where entry(row, col) lies: `row_major` for a row-major block (entry (row, col + 1) next to (row, col)),
/// `column_major` where each column is contiguous (entry (row + 1, col) next to (row, col)).
enum class EntryLayout { row_major, column_major };

/// Whether reduce_columns reads the entries as row-major (row, col) pairs: a row-major layout of 2..32
/// columns, a power of two.
inline bool reduces_interleaved_columns(std::int64_t cols, EntryLayout layout)
{
    return layout == EntryLayout::row_major && cols >= 2 && cols <= 32 && (cols & (cols - 1)) == 0;
}

/**
 * The number of partial results per column of reduce_columns for `rows` x `cols` on `exec` with a stage-1
 * kernel of which one multiprocessor holds `blocks_per_multiprocessor` blocks at once. The default, the
 * thread limit, gives the most that any stage-1 kernel uses: the size of a workspace that serves them all.
 */
inline std::int64_t reduction_partials_per_column(
    const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, EntryLayout layout = EntryLayout::row_major,
    int blocks_per_multiprocessor = thread_limited_blocks_per_multiprocessor(reduction_block_size))
{
    if (reduces_interleaved_columns(cols, layout)) {
        return std::min<std::int64_t>(max_partials_per_column,
                                      grid_stride_num_blocks(exec, rows * cols, reduction_block_size,
                                                             blocks_per_multiprocessor));
    }
    return std::min<std::int64_t>(
        max_partials_per_column,
        std::max<std::int64_t>(1, grid_stride_num_blocks(exec, rows, reduction_block_size, blocks_per_multiprocessor) /
                                      std::clamp(cols, std::int64_t{1}, std::int64_t{32})));
}

/**
 * result[col] = finalize(col, op(entry(0, col), ..., entry(rows - 1, col))) for every col < cols, with
 * `result` in device memory. Two launches (blocks over rows on x and columns on y, or over the row-major
 * (row, col) pairs for 2..32 columns in a power of two; then one block per column over the partial
 * results) and a workspace of at most 1024 values per column, taken from `workspace` (enlarged only when
 * too small, so a caller that keeps it allocates once; a value T of several words W, such as TwoSums, takes
 * several of its entries); one launch and no workspace for at most
 * max_short_column_rows rows. `entry` and `finalize` are functors with `__device__ T
 * operator()(std::int64_t, std::int64_t)` (or an `entry.column(col)` whose `operator()(row)` gives entry
 * (row, col): column_entries) and `__device__ R operator()(std::int64_t col, T total)`;
 * `entry` is called exactly once per (row, col) and `finalize` once per column, after every entry of its
 * column (not necessarily after those of the other columns), so either may also write memory of its own
 * column. Deterministic for a given device and build: the grid depends only on the sizes, the layout, the device and
 * the stage-1 kernel's occupancy (its registers).
 * A plain reduction is the case cols == 1. `layout` says how the entries lie in memory, so that the reads
 * coalesce.
 */
template <typename T, typename Entry, typename Op, typename Finalize, typename R, typename W>
void reduce_columns(const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, Entry entry,
                    Op op, T identity, Finalize finalize, R* result, array<W>& workspace,
                    EntryLayout layout = EntryLayout::row_major)
{
    static_assert(sizeof(T) % sizeof(W) == 0 && alignof(T) <= alignof(W),
                  "a partial result takes whole workspace entries");
    constexpr auto words_per_partial = static_cast<size_type>(sizeof(T) / sizeof(W));
    if (cols == 0) {
        return;
    }
    constexpr std::int64_t max_grid_y = 65535;
    const std::int64_t column_blocks = std::min(cols, max_grid_y);
    if (rows <= max_short_column_rows) {
        reduce_short_columns<<<static_cast<unsigned>(column_blocks), reduction_block_size>>>(
            rows, cols, entry, op, identity, finalize, result);
        LARCH_LAUNCH_CHECK("components::reduce_short_columns");
        return;
    }
    // As many blocks as the stage-1 kernel fits on the device at once (see grid_stride_num_blocks).
    const bool interleaved = reduces_interleaved_columns(cols, layout);
    const int blocks_per_multiprocessor =
        interleaved ? resident_blocks_per_multiprocessor(exec, &reduce_interleaved_columns_partial<T, Entry, Op>,
                                                         reduction_block_size)
                    : resident_blocks_per_multiprocessor(exec, &reduce_columns_partial<T, Entry, Op>,
                                                         reduction_block_size);
    const auto blocks_per_column = reduction_partials_per_column(exec, rows, cols, layout, blocks_per_multiprocessor);
    const auto needed = static_cast<size_type>(blocks_per_column * cols) * words_per_partial;
    if (workspace.get_size() < needed) {
        workspace.resize_and_reset(needed);
    }
    const auto partials = reinterpret_cast<T*>(workspace.get_data());
    if (interleaved) {
        reduce_interleaved_columns_partial<<<static_cast<unsigned>(blocks_per_column),
                                             reduction_block_size>>>(rows, static_cast<int>(cols), entry, op,
                                                                      identity, partials);
        LARCH_LAUNCH_CHECK("components::reduce_interleaved_columns_partial");
    } else {
        reduce_columns_partial<<<dim3(static_cast<unsigned>(blocks_per_column),
                                      static_cast<unsigned>(column_blocks)),
                                 reduction_block_size>>>(rows, cols, entry, op, identity, partials);
        LARCH_LAUNCH_CHECK("components::reduce_columns_partial");
    }
    reduce_columns_final<<<static_cast<unsigned>(column_blocks), reduction_block_size>>>(
        blocks_per_column, cols, partials, op, identity, finalize, result);
    LARCH_LAUNCH_CHECK("components::reduce_columns_final");
}

/// As above with a workspace of its own (from the executor's stream-ordered pool).
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
void reduce_columns(const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, Entry entry,
                    Op op, T identity, Finalize finalize, R* result,
                    EntryLayout layout = EntryLayout::row_major)
{
    array<R> workspace{exec.shared_from_this()};
    reduce_columns(exec, rows, cols, entry, op, identity, finalize, result, workspace, layout);
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
