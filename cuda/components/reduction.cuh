// Block-wide all-reduce built on the sub-warp collectives of warp.cuh (32-lane groups, so the same code
// is right for 32- and 64-lane hardware warps), and a deterministic device-wide reduction per column.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/components/column_entries.cuh"
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

constexpr int reduction_block_size = 256;
/// Enough partial results per column to fill the device for one column, few enough for one block to
/// finish them quickly.
constexpr std::int64_t max_partials_per_column = 1024;
/// Columns of at most this many rows are reduced in one launch (reduce_short_columns).
constexpr std::int64_t max_short_column_rows = 4096;
/// The most rows (columns on y) of a reduce_long_columns grid, each with its own ticket; further columns
/// stride.
constexpr std::int64_t max_ticket_rows = 1024;

namespace {

/**
 * One ticket per row of a reduce_long_columns grid (reduce_interleaved_columns uses the first): the block
 * that takes its row's last ticket finishes that row's columns, so that a reduction is one launch, not a
 * partial launch and a final one (the final launch kept the GPU nearly idle for 3.6-4.5 us, plus a launch
 * gap, twice per CG iteration at 10M rows on the H200).
 * Zero when the module loads, and atomicInc wraps a row's ticket back to zero as its last block takes it,
 * so every launch finds them zero. No two launches use them at once: every larch kernel of a device runs
 * in order on its default stream. Each translation unit has its own (no relocatable device code).
 */
__device__ unsigned reduction_tickets[max_ticket_rows];

}  // namespace

/**
 * Whether this block is the last of the `blocks` blocks sharing `ticket` to get here. Every thread of the
 * block calls it after its writes that the last block will read: each thread fences its own writes before
 * the block takes its ticket, and the last block fences again before it reads the others'.
 */
__device__ __forceinline__ bool takes_last_ticket(unsigned& ticket, unsigned blocks)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicInc(&ticket, blocks - 1) == blocks - 1;
        if (last) {
            __threadfence();
        }
    }
    __syncthreads();
    return last;
}

/// *address read from L2, past this multiprocessor's L1 (which may hold an older copy): a partial result
/// that another block may have written during this launch.
template <typename T>
__device__ __forceinline__ T load_written_by_other_block(const T* address)
{
    static_assert(sizeof(T) % sizeof(unsigned) == 0 && std::is_trivially_copyable<T>::value,
                  "read as 32-bit words");
    T value;
    const auto source = reinterpret_cast<const volatile unsigned*>(address);
    const auto words = reinterpret_cast<unsigned*>(&value);
#pragma unroll
    for (std::size_t i = 0; i < sizeof(T) / sizeof(unsigned); ++i) {
        words[i] = source[i];
    }
    return value;
}

/// op over `count` partial results from `partials` on, by the whole block in a fixed order; the total on
/// every thread.
template <typename T, typename Op>
__device__ T combine_partials(std::int64_t count, const T* partials, Op op, T identity)
{
    T total = identity;
    for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) {
        total = op(total, load_written_by_other_block(partials + i));
    }
    return block_all_reduce<reduction_block_size>(total, op);
}

/**
 * op over the block's values per column, where thread t holds a value of column t % cols (cols a power of
 * two up to 32): lanes of one column are combined by shuffles, then the block's warps in order. The total
 * of column t on thread t < cols. Every thread of the block calls it.
 */
template <typename T, typename Op>
__device__ T combine_interleaved(T value, int cols, Op op)
{
    // Lanes l and l ^ offset hold the same column for every offset >= cols.
    for (int offset = 16; offset >= cols; offset /= 2) {
        value = op(value, warp::shuffle_xor<32>(value, offset));
    }
    constexpr int num_groups = reduction_block_size / 32;
    __shared__ T group_results[num_groups][32];
    const int lane = warp::rank<32>();
    if (lane < cols) {
        group_results[warp::subwarp_id_in_block<32>()][lane] = value;
    }
    __syncthreads();
    if (threadIdx.x < cols) {
        value = group_results[0][threadIdx.x];
        for (int group = 1; group < num_groups; ++group) {
            value = op(value, group_results[group][threadIdx.x]);
        }
    }
    __syncthreads();
    return value;
}

/**
 * The least number of blocks per multiprocessor that reduce_long_columns is compiled to fit for Entry
 * (__launch_bounds__'s second argument): Entry::min_blocks_per_multiprocessor where the entry declares it,
 * else 0, which asks for nothing (the same code as no second argument).
 */
template <typename Entry, typename = void>
struct MinBlocksPerMultiprocessor : std::integral_constant<int, 0> {};

template <typename Entry>
struct MinBlocksPerMultiprocessor<Entry, std::void_t<decltype(Entry::min_blocks_per_multiprocessor)>>
    : std::integral_constant<int, Entry::min_blocks_per_multiprocessor> {};

/**
 * Each block reduces `entry(row, col)` over its grid-stride share of the rows of column blockIdx.y (and
 * further columns with stride gridDim.y) into one partial result per block and column; the last block of
 * each grid row (takes_last_ticket) combines that row's partial results: result[col] = finalize(col, total).
 */
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size, MinBlocksPerMultiprocessor<Entry>::value)
    reduce_long_columns(std::int64_t rows, std::int64_t cols, Entry entry, Op op, T identity, Finalize finalize,
                        T* partials, R* result)
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
    if (!takes_last_ticket(reduction_tickets[blockIdx.y], gridDim.x)) {
        return;
    }
    for (std::int64_t col = blockIdx.y; col < cols; col += gridDim.y) {
        const T total = combine_partials(std::int64_t{gridDim.x}, partials + col * gridDim.x, op, identity);
        if (threadIdx.x == 0) {
            result[col] = finalize(col, total);
        }
    }
}

/**
 * The kernel above for 2, 4, 8, 16 or 32 columns: the threads stride over the (row, col) pairs in
 * row-major order, so a warp reads consecutive entries of a row-major block (coalesced) where the kernel
 * above reads one column's entries a row apart (a 64-byte row of 8 doubles costs a 32-byte sector per 8
 * useful bytes, column after column). The column count divides the block and the grid, so thread t always
 * meets column t % cols. The partial results lie row-major too (block after block), so that the last block
 * reads them the same way.
 */
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_interleaved_columns(std::int64_t rows, int cols, Entry entry, Op op, T identity, Finalize finalize,
                               T* partials, R* result)
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
    partial = combine_interleaved(partial, cols, op);
    if (threadIdx.x < cols) {
        partials[std::int64_t{blockIdx.x} * cols + threadIdx.x] = partial;
    }
    if (!takes_last_ticket(reduction_tickets[0], gridDim.x)) {
        return;
    }
    partial = identity;
    for (std::int64_t i = threadIdx.x; i < std::int64_t{gridDim.x} * cols; i += blockDim.x) {
        partial = op(partial, load_written_by_other_block(partials + i));
    }
    partial = combine_interleaved(partial, cols, op);
    if (threadIdx.x < cols) {
        result[threadIdx.x] = finalize(threadIdx.x, partial);
    }
}

/// op over entry(row, col) for every row of column `col`, by the whole block; the total on every thread.
template <typename T, typename Entry, typename Op>
__device__ T reduce_short_column(std::int64_t rows, const Entry& entry, std::int64_t col, Op op, T identity)
{
    const auto column = column_entries(entry, col);
    T partial = identity;
    for (std::int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
        partial = op(partial, column(row));
    }
    return block_all_reduce<reduction_block_size>(partial, op);
}

/// Short columns: one block per column reduces all of it and finalizes it (for a few thousand rows,
/// where a solver's iteration is launch-bound, a grid over the rows would cost more than the work).
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_short_columns(std::int64_t rows, std::int64_t cols, Entry entry, Op op, T identity,
                         Finalize finalize, R* result)
{
    for (std::int64_t col = blockIdx.x; col < cols; col += gridDim.x) {
        const T total = reduce_short_column(rows, entry, col, op, identity);
        if (threadIdx.x == 0) {
            result[col] = finalize(col, total);
        }
    }
}

/**
 * reduce_short_columns for entries that read a leading reduction of their own column (a solver step whose
 * scalar is a dot product of the step's inputs): one block per column reduces lead(row, col) with op,
 * lead_finalize(col, lead total) stores that where the column's entries read it, and the same block then
 * reduces the entries. Two launches' work in one, where a 1,000-row solve is launch-bound.
 */
template <typename L, typename Lead, typename LeadFinalize, typename T, typename Entry, typename Op,
          typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_short_columns_after_lead(std::int64_t rows, std::int64_t cols, Lead lead, L lead_identity,
                                    LeadFinalize lead_finalize, Entry entry, Op op, T identity, Finalize finalize,
                                    R* result)
{
    for (std::int64_t col = blockIdx.x; col < cols; col += gridDim.x) {
        const L lead_total = reduce_short_column(rows, lead, col, op, lead_identity);
        if (threadIdx.x == 0) {
            lead_finalize(col, lead_total);
        }
        // the stored lead total is visible to the whole block from here on
        __syncthreads();
        const T total = reduce_short_column(rows, entry, col, op, identity);
        if (threadIdx.x == 0) {
            result[col] = finalize(col, total);
        }
    }
}

/// One block per output combines the num_partials partial results partials[out * num_partials + i] that an
/// earlier kernel wrote: result[out] = finalize(out, total).
template <typename T, typename Op, typename Finalize, typename R>
__global__ void __launch_bounds__(reduction_block_size)
    reduce_columns_final(std::int64_t num_partials, std::int64_t outputs, const T* partials, Op op,
                         T identity, Finalize finalize, R* result)
{
    for (std::int64_t out = blockIdx.x; out < outputs; out += gridDim.x) {
        const T total = combine_partials(num_partials, partials + out * num_partials, op, identity);
        if (threadIdx.x == 0) {
            result[out] = finalize(out, total);
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

/**
 * The number of partial results per column of reduce_columns for `rows` x `cols` on `exec` with a
 * kernel of which one multiprocessor holds `blocks_per_multiprocessor` blocks at once. The default, the
 * thread limit, gives the most that either kernel uses: the size of a workspace that serves them all.
 */
inline std::int64_t reduction_partials_per_column(
    const GpuExecutor& exec, std::int64_t rows, std::int64_t cols,
    int blocks_per_multiprocessor = thread_limited_blocks_per_multiprocessor(reduction_block_size))
{
    if (interleaves_columns(cols)) {
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
 * result[col] = finalize(col, op(entry(0, col), ..., entry(rows - 1, col))) for every col < cols of a
 * row-major block, with `result` in device memory, in one launch: blocks over rows on x and columns on y (or over the row-major
 * (row, col) pairs for 2..32 columns in a power of two), of which the last to finish a grid row combines
 * that row's partial results (takes_last_ticket). The partial results, at most 1024 per column, lie in
 * `workspace` (enlarged only when too small, so a caller that keeps it allocates once; a value T of several
 * words W, such as TwoSums, takes several of its entries); for at most max_short_column_rows rows one block
 * per column reduces it alone, without workspace. `entry` and `finalize` are functors with `__device__ T
 * operator()(std::int64_t, std::int64_t)` (or an `entry.column(col)` whose `operator()(row)` gives entry
 * (row, col): column_entries) and `__device__ R operator()(std::int64_t col, T total)`;
 * `entry` is called exactly once per (row, col) and `finalize` once per column, after every entry of its
 * column (not necessarily after those of the other columns), so either may also write memory of its own
 * column. Deterministic for a given device and build: the grid depends only on the sizes, the device and
 * the kernel's occupancy (its registers), and the partial results are combined in a fixed order. A plain
 * reduction is the case cols == 1.
 */
template <typename T, typename Entry, typename Op, typename Finalize, typename R, typename W>
void reduce_columns(const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, Entry entry,
                    Op op, T identity, Finalize finalize, R* result, array<W>& workspace)
{
    static_assert(sizeof(T) % sizeof(W) == 0 && alignof(T) <= alignof(W),
                  "a partial result takes whole workspace entries");
    constexpr auto words_per_partial = static_cast<size_type>(sizeof(T) / sizeof(W));
    if (cols == 0) {
        return;
    }
    if (rows <= max_short_column_rows) {
        reduce_short_columns<<<static_cast<unsigned>(std::min(cols, max_grid_y)), reduction_block_size>>>(
            rows, cols, entry, op, identity, finalize, result);
        LARCH_LAUNCH_CHECK("components::reduce_short_columns");
        return;
    }
    // As many blocks as the kernel fits on the device at once (see grid_stride_num_blocks).
    const bool interleaved = interleaves_columns(cols);
    const int blocks_per_multiprocessor =
        interleaved ? resident_blocks_per_multiprocessor(
                          exec, &reduce_interleaved_columns<T, Entry, Op, Finalize, R>, reduction_block_size)
                    : resident_blocks_per_multiprocessor(exec, &reduce_long_columns<T, Entry, Op, Finalize, R>,
                                                         reduction_block_size);
    const auto blocks_per_column = reduction_partials_per_column(exec, rows, cols, blocks_per_multiprocessor);
    const auto needed = static_cast<size_type>(blocks_per_column * cols) * words_per_partial;
    if (workspace.get_size() < needed) {
        workspace.resize_and_reset(needed);
    }
    const auto partials = reinterpret_cast<T*>(workspace.get_data());
    if (interleaved) {
        reduce_interleaved_columns<<<static_cast<unsigned>(blocks_per_column), reduction_block_size>>>(
            rows, static_cast<int>(cols), entry, op, identity, finalize, partials, result);
        LARCH_LAUNCH_CHECK("components::reduce_interleaved_columns");
    } else {
        const auto ticket_rows = std::min(cols, max_ticket_rows);
        reduce_long_columns<<<dim3(static_cast<unsigned>(blocks_per_column), static_cast<unsigned>(ticket_rows)),
                                 reduction_block_size>>>(rows, cols, entry, op, identity, finalize, partials,
                                                         result);
        LARCH_LAUNCH_CHECK("components::reduce_long_columns");
    }
}

/// As above with a workspace of its own (from the executor's stream-ordered pool).
template <typename T, typename Entry, typename Op, typename Finalize, typename R>
void reduce_columns(const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, Entry entry,
                    Op op, T identity, Finalize finalize, R* result)
{
    array<R> workspace{exec.shared_from_this()};
    reduce_columns(exec, rows, cols, entry, op, identity, finalize, result, workspace);
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
