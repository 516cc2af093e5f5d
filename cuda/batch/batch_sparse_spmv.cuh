// The device building blocks of the batched sparse SpMV (Anzt et al. 2017, flexible batched SpMV): the launch
// policy, the operands, and the per-item row, segment and ELL routines that one thread block runs for one
// item. The batched SpMV kernels (batch_sparse_kernels.cu) and the batched solvers' one-launch kernels
// (batch_solver_kernels.cu) both call them, so a solver iteration multiplies exactly as the SpMV does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/base/runtime.hpp"
#include "cuda/components/atomic.cuh"
#include "cuda/components/row_products.cuh"
#include "cuda/components/warp.cuh"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_sparse {

/// Launch policy of every batched sparse kernel: one block per item of block_size(...) threads, at most
/// max_block_size, in 32-lane groups (the balanced kernel and COO cut every item into `segments` equal
/// nonzero segments, batch::Csr::balanced_segments, which the groups take in turn).
struct SparsePolicy {
    static constexpr int max_block_size = 256;
    static constexpr int group_size = 32;
    static constexpr int segments = max_block_size / group_size;
    /// Resident 256-thread blocks per SM the kernels are compiled for: 8 fill the H100's 2048 threads,
    /// i.e. at most 32 registers per thread (these memory-bound kernels need the occupancy for loads in
    /// flight; scalar took 40 registers unbounded, which left a 256-thread block 6 per SM). The kernels
    /// that branch among several sub-warp sizes (smart) and the 2..8-lane row kernels in
    /// double spill 250-500 bytes under that bound (ptxas -v, sm_90), so they get 6 blocks (40
    /// registers, no spills; a bound of 1 let ptxas unroll them to 108-116 registers). The row and ELL
    /// kernels that pack several items per block (SparsePolicy::team_size) compute their item index,
    /// which spilled 24-64 bytes at 32 registers; they get 6 blocks too (no spills, except 36-44 bytes
    /// for smart per item).
    static constexpr int min_blocks_per_sm = 8;
    static constexpr int branching_min_blocks_per_sm = 6;
    static constexpr int rows_min_blocks_per_sm(int subwarp_size, bool packed)
    {
        return !packed && (subwarp_size == 1 || subwarp_size >= 16) ? min_blocks_per_sm
                                                                    : branching_min_blocks_per_sm;
    }
    static_assert(segments == ::larch::batch::Csr<double>::balanced_segments,
                  "a 256-thread block needs one precomputed segment per 32-lane group");

    /**
     * Threads per block for a batch whose largest item needs `work` threads (rows x lanes per row, or
     * nonzeros / nonzeros per lane): rounded up to whole warps, at most max_block_size and at least two
     * warps. Two warps because an SM holds at most 32 resident blocks (2048 threads on the H100): smaller
     * blocks would cap the occupancy at half, larger ones for a small item leave threads idle (a
     * 256-thread block per 48-row item reached only 13-20% of copy bandwidth on the H100).
     */
    static int block_size(const DefaultExecutor& exec, size_type work)
    {
        const auto warp = static_cast<size_type>(exec.get_warp_size());
        const auto threads = (work + warp - 1) / warp * warp;
        return static_cast<int>(std::min<size_type>(
            std::max<size_type>(threads, 2 * warp), static_cast<size_type>(max_block_size)));
    }

    /**
     * Threads per item of the row kernels (CSR rows, ELL), which need no block-wide barrier when b_i is
     * not staged: the power of two >= half the largest item's `work` (so a thread takes at most two
     * rows' worth), at least a warp and at most max_block_size. A smaller team packs
     * max_block_size / team items into one block: a 48-row item then costs a warp instead of a block,
     * and a 100,000-item batch launches 12,500 blocks instead of 100,000 (per-block scheduling and the
     * block's dependent metadata loads capped 48-row items at 11-20% of copy bandwidth on the H100).
     */
    static int team_size(const DefaultExecutor& exec, size_type work)
    {
        size_type team = static_cast<size_type>(exec.get_warp_size());
        while (team < static_cast<size_type>(max_block_size) && 2 * team < work) {
            team *= 2;
        }
        return static_cast<int>(team);
    }

    /// Threads per block of the balanced and COO kernels: a lane per 4 nonzeros of the largest item.
    static int segmented_block_size(const DefaultExecutor& exec,
                                    const ::larch::batch::SparseLayout& layout)
    {
        return block_size(exec, (layout.get_max_stored() + 3) / 4);
    }

    /// Shared memory for b_i of every item, or 0 (global-memory path) when the largest does not fit
    /// beside the kernel's own `static_bytes` of shared memory.
    template <typename T>
    static std::size_t staging_bytes(const DefaultExecutor& exec, const ::larch::batch::SparseLayout& layout,
                                     size_type num_rhs, std::size_t static_bytes = 0)
    {
        const auto bytes = layout.get_max_size().cols * num_rhs * sizeof(T);
        return bytes + static_bytes <= exec.get_shared_memory_per_block() ? bytes : 0;
    }

    /// Entries of its row each lane of the SpMV row kernels loads before it multiplies the first: one
    /// at a time it waits a memory round trip per entry, and short rows give a thread nothing else to
    /// wait on. The batched solvers' CSR rows load one at a time, since they keep the Krylov state in
    /// registers: four pushed several of them from 80-96 to 96-128 registers and up to 144 bytes of
    /// spills (ptxas -v, sm_90), and made 5-point CG + Jacobi on 100,000 items of 1,024 rows 27% slower
    /// on the H200 (107 -> 137 ms, batch_solver_own_rows_ab_h200.log).
    static constexpr int row_entries_in_flight = 4;
    /// Slots of its row a thread of the batched solvers' ELL rows loads before it multiplies the
    /// first. A solve is latency-bound (a 3-point item's SpMV waited a round trip per slot), and four
    /// made CG + Jacobi on 100,000 3-point ELL items of 1,024 rows 15% faster (768 -> 654 ms, H200).
    /// The ELL SpMV kernel loads one at a time: four made it 10% slower on the heterogeneous double
    /// batch (1.12 -> 1.23 ms; why was not examined) and 2% faster in float (same log). One at a time
    /// through ell_rows, whose value load no longer waits for the column index, made that double batch
    /// 25% faster than before (1.12 -> 0.83-0.84 ms in three runs, batch_spmv_ell_heterogeneous_h200.log);
    /// float stayed at 0.82 ms.
    static constexpr int solver_ell_slots_in_flight = 4;
    /// Nonzeros each thread of the stream kernel loads per chunk (a chunk: stream_entries x block size):
    /// 32 bytes of values, i.e. 4 in double and 8 in float, so that float keeps as many bytes in
    /// flight per barrier as double (with 4, float batches of 32 nonzeros per row reached 42-48% of
    /// copy where double reached 65-69%; 8 made them 16-25% faster, float_chunks_ab_h100.log).
    template <typename T>
    static constexpr int stream_entries()
    {
        return static_cast<int>(32 / sizeof(T));
    }
    /// The stream kernel's shared memory besides b_i: two chunks of products.
    template <typename T>
    static constexpr std::size_t stream_static_bytes()
    {
        return 2 * max_block_size * stream_entries<T>() * sizeof(T);
    }
};

/// The operands of x_i = alpha A_i b_i + beta x_i as kernels see them.
template <typename T>
struct Operands {
    T alpha;
    T beta;
    const T* b;
    const std::int64_t* b_offsets;
    T* x;
    const std::int64_t* x_offsets;
    int num_rhs;
    bool staged;

    __device__ T* item_x(std::int64_t item) const { return x + x_offsets[item]; }

    /// alpha * product + beta * old without reading x when beta is 0.
    __device__ T scale(T product, const T* old) const
    {
        return beta == T{} ? alpha * product : alpha * product + beta * *old;
    }
};

template <typename T>
Operands<T> operands_of(T alpha, const ::larch::batch::Vector<T>& b, T beta,
                        ::larch::batch::Vector<T>& x, std::size_t staging_bytes)
{
    return {alpha, beta, b.get_const_values(), b.get_layout().get_const_offsets(), x.get_values(),
            x.get_layout().get_const_offsets(), static_cast<int>(b.get_num_cols()),
            staging_bytes > 0};
}

/// The threads that run one item: the threads of this thread's block row (threadIdx.y), i.e. the whole
/// block in a one-dimensional block (the default of the row routines, as the batched solvers call
/// them). The row kernels pack blockDim.y small items into one block, a team of blockDim.x threads (a
/// multiple of the warp size, so no warp spans two items) each.
struct Team {
    int rank;
    int size;
};

__device__ __forceinline__ Team block_row_team()
{
    return {static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
}

/// b_i of `item` (cols x num_rhs values): copied into the block's shared memory on the staged path,
/// the global array otherwise. Every thread of the block calls it (it synchronizes the block).
template <typename T>
__device__ const T* load_item_b(const Operands<T>& op, std::int64_t item, int cols)
{
    extern __shared__ __align__(16) unsigned char staging_storage[];
    const T* item_b = op.b + op.b_offsets[item];
    if (!op.staged) {
        return item_b;
    }
    auto staged = reinterpret_cast<T*>(staging_storage);
    const int count = cols * op.num_rhs;
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
        staged[e] = item_b[e];
    }
    __syncthreads();
    return staged;
}

/**
 * load_item_b in a kernel compiled for one path (`staged`, which must equal op.staged). On the staged path
 * it returns the staging array itself, so that once inlined the compiler knows the loads of b_i to be
 * shared-memory loads (ld.shared, 32-bit addresses) instead of generic ones through a pointer that may
 * point either way (csr_stream_item says what that gained). The row kernels, given this in both paths
 * of one kernel, got 5-20% slower (stream_issue_ab_h100.log), so they keep load_item_b.
 */
template <bool staged, typename T>
__device__ __forceinline__ const T* item_b_on_path(const Operands<T>& op, std::int64_t item, int cols)
{
    extern __shared__ __align__(16) unsigned char staging_storage[];
    const T* item_b = load_item_b(op, item, cols);
    return staged ? reinterpret_cast<const T*>(staging_storage) : item_b;
}

/// Where item `item`'s arrays start (shared patterns are stored once, at offset 0).
struct ItemOffsets {
    int rows;
    int cols;
    std::int64_t values;
    std::int64_t pattern;
};

__device__ __forceinline__ ItemOffsets item_offsets(const std::int32_t* rows, const std::int32_t* cols,
                                                    const std::int64_t* stored_offsets,
                                                    bool shared_pattern, std::int64_t item)
{
    const auto values = stored_offsets[item];
    return {rows[item], cols[item], values, shared_pattern ? 0 : values};
}

/// Rows of one CSR item, one sub-warp of `subwarp_size` lanes of the item's team per row (column indices
/// of type C: the batch's index type or 16 bits, see CsrView). Each lane loads `in_flight` of its entries
/// and their entries of b before it multiplies the first (SparsePolicy::row_entries_in_flight,
/// strided_row_sum); the products still add up in the row's order.
template <int subwarp_size, int in_flight = 1, typename T, typename I, typename C>
__device__ void csr_subwarp_rows(int rows, const T* values, const C* col_idxs, const I* row_ptrs,
                                 const T* item_b, const Operands<T>& op, T* item_x,
                                 Team team = block_row_team())
{
    const int lane = team.rank % subwarp_size;
    const int num_subwarps = team.size / subwarp_size;
    for (int row = team.rank / subwarp_size; row < rows; row += num_subwarps) {
        const I begin = row_ptrs[row];
        const I end = row_ptrs[row + 1];
        for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
            T sum = strided_row_sum<in_flight>(static_cast<I>(begin + lane), end, I{subwarp_size}, values,
                                               col_idxs, [&](C col) { return item_b[col * op.num_rhs + rhs]; });
            sum = warp::all_reduce_sum<subwarp_size>(sum);
            if (lane == 0) {
                T* out = item_x + std::int64_t{row} * op.num_rhs + rhs;
                *out = op.scale(sum, out);
            }
        }
    }
}

/// The arrays of a batch::Csr as its kernels read them, the column indices as C: I, or std::uint16_t
/// where the batch keeps them narrowed (batch::Csr::get_const_narrow_col_idxs; 2 bytes less per entry to
/// read in these memory-bound kernels).
template <typename T, typename I, typename C = I>
struct CsrView {
    const std::int32_t* rows;
    const std::int32_t* cols;
    const std::int64_t* stored_offsets;
    const std::int64_t* row_offsets;
    bool shared_pattern;
    const T* values;
    const C* col_idxs;
    const I* row_ptrs;
    const I* balanced_row_starts;
    const std::int64_t* work_order;
};

/// The view with column indices of type C (std::uint16_t only where the batch keeps narrowed ones).
template <typename C, typename T, typename I>
CsrView<T, I, C> view_of(const ::larch::batch::Csr<T, I>& a)
{
    const auto& layout = a.get_layout();
    const C* col_idxs;
    if constexpr (std::is_same_v<C, I>) {
        col_idxs = a.get_const_col_idxs();
    } else {
        col_idxs = a.get_const_narrow_col_idxs();
    }
    return {layout.get_const_rows(),     layout.get_const_cols(),
            layout.get_const_stored_offsets(), layout.get_const_row_offsets(),
            layout.has_shared_pattern(), a.get_const_values(),
            col_idxs,                    a.get_const_row_ptrs(),
            a.get_const_balanced_row_starts(), layout.get_const_work_order()};
}

/// The item at `position` of a launch that takes the items in a layout's work order (largest first; null:
/// the identity, see SparseLayout::get_const_work_order).
__device__ __forceinline__ std::int64_t item_in_work_order(const std::int64_t* work_order,
                                                         std::int64_t position)
{
    return work_order == nullptr ? position : work_order[position];
}

/// One CSR item as the block that owns it sees it (b_i not yet loaded).
template <typename T, typename I, typename C = I>
struct CsrItem {
    ItemOffsets at;
    const T* values;
    const C* col_idxs;
    const I* row_ptrs;
};

template <typename T, typename I, typename C>
__device__ CsrItem<T, I, C> csr_item(const CsrView<T, I, C>& a, std::int64_t item)
{
    const auto at = item_offsets(a.rows, a.cols, a.stored_offsets, a.shared_pattern, item);
    return {at, a.values + at.values, a.col_idxs + at.pattern,
            a.row_ptrs + (a.shared_pattern ? 0 : a.row_offsets[item] + item)};
}

/// Smart: one sub-warp per row, its size the power of two >= the item's average row length over
/// `in_flight`, so that a typical row is one step of its lanes' loads in flight (SparsePolicy::
/// row_entries_in_flight; the batched solvers take one at a time, so a sub-warp as wide as the mean
/// row); the same for the whole block. In the SpMV kernel a sub-warp as wide as the row left one entry
/// per lane, so a warp waited a memory round trip per row: 1.25-2.9x slower on every batch of the
/// benchmark, 2.2-2.9x on the density batches of 8 per row and of 32 even (H200,
/// batch_spmv_smart_ab_h200.log).
template <int in_flight = 1, typename T, typename I, typename C>
__device__ void csr_smart_item(const CsrItem<T, I, C>& item, const T* item_b, const Operands<T>& op,
                               T* item_x, Team team = block_row_team())
{
    const int rows = item.at.rows;
    const int nnz = static_cast<int>(item.row_ptrs[rows] - item.row_ptrs[0]);
    const int mean_row_steps = (nnz + rows * in_flight - 1) / (rows * in_flight);
    if (mean_row_steps <= 1) {
        csr_subwarp_rows<1, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    } else if (mean_row_steps <= 2) {
        csr_subwarp_rows<2, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    } else if (mean_row_steps <= 4) {
        csr_subwarp_rows<4, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    } else if (mean_row_steps <= 8) {
        csr_subwarp_rows<8, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    } else if (mean_row_steps <= 16) {
        csr_subwarp_rows<16, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    } else {
        csr_subwarp_rows<32, in_flight>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op,
                                        item_x, team);
    }
}

/// x_i = beta x_i (0 when beta is 0) by the whole block, before the atomic kernels add to it.
template <typename T>
__device__ void scale_item_x(int rows, const Operands<T>& op, T* item_x)
{
    const int count = rows * op.num_rhs;
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
        item_x[e] = op.beta == T{} ? T{} : op.beta * item_x[e];
    }
    __syncthreads();
}

/**
 * The item's nonzeros in SparsePolicy::segments equal segments [s * nnz / S, (s + 1) * nnz / S), taken by
 * the block's 32-lane groups in turn, each in chunks of 32: lane l takes nonzero chunk + l, its row from
 * the functor `row_of_segment(s)` returns (called with increasing nonzeros), a segmented scan keyed by
 * the row sums each run of equal rows, and the run's last lane adds alpha * sum to x. Lanes past the
 * end carry key -1 and product 0, so they form their own run that writes nothing. A group loads two
 * chunks before it scans either, so that two chunks' loads are in flight per warp: with one chunk's loads,
 * then its scan and atomics, the kernels waited on memory (H100, 10,000 items of the shared matrices:
 * balanced 0.676 -> 0.612 ms in double and 0.602 -> 0.528 ms in float, COO 0.698 -> 0.489 ms in float).
 * Four chunks in float (16 bytes of values per lane, as double's two) measured no better: COO 4-6%
 * slower (36 bytes of spills), balanced 0-3% faster (float_chunks_ab_h100.log).
 */
template <typename T, typename C, typename RowOfSegment>
__device__ void accumulate_row_runs(int nnz, const T* values, const C* col_idxs,
                                    RowOfSegment&& row_of_segment, const T* item_b,
                                    const Operands<T>& op, T* item_x)
{
    constexpr int group = SparsePolicy::group_size;
    constexpr int segments = SparsePolicy::segments;
    constexpr int chunks_per_step = 2;
    const int lane = warp::rank<group>();
    const int num_groups = blockDim.x / group;
    for (int segment = warp::subwarp_id_in_block<group>(); segment < segments;
         segment += num_groups) {
        const int begin = static_cast<int>(std::int64_t{segment} * nnz / segments);
        const int end = static_cast<int>(std::int64_t{segment + 1} * nnz / segments);
        auto row_of = row_of_segment(segment);
        for (int step = begin; step < end; step += chunks_per_step * group) {
            T value[chunks_per_step];
            C col[chunks_per_step];
            int row[chunks_per_step];
#pragma unroll
            for (int c = 0; c < chunks_per_step; ++c) {
                const int nz = step + c * group + lane;
                const bool active = nz < end;
                value[c] = active ? values[nz] : T{};
                col[c] = active ? col_idxs[nz] : C{};
                row[c] = active ? static_cast<int>(row_of(nz)) : -1;
            }
#pragma unroll
            for (int c = 0; c < chunks_per_step; ++c) {
                const int next_row = warp::shuffle_down<group>(row[c], 1);
                const bool last_of_run = lane == group - 1 || next_row != row[c];
                for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
                    const T product = row[c] >= 0 ? value[c] * item_b[col[c] * op.num_rhs + rhs] : T{};
                    const T run_sum = warp::segmented_inclusive_scan<group>(product, row[c], warp::Sum{});
                    if (row[c] >= 0 && last_of_run) {
                        atomic_add(item_x + std::int64_t{row[c]} * op.num_rhs + rhs, op.alpha * run_sum);
                    }
                }
            }
        }
    }
}

/// The row of nonzero `nz` of a CSR item by walking its row pointers forward from the segment's start
/// row (the calls come with increasing nonzeros, so the walk is amortized over the segment's rows).
template <typename I>
struct CsrRowWalker {
    const I* row_ptrs;
    int row;
    __device__ int operator()(int nz)
    {
        while (row_ptrs[row + 1] <= nz) {
            ++row;
        }
        return row;
    }
};

/**
 * Stream: the block reads the item's nonzeros in chunks of stream_entries x blockDim.x consecutive
 * entries, each thread stream_entries of them a block width apart (every load a coalesced warp read, and
 * stream_entries values and column indices in flight per thread; SparsePolicy::stream_entries<T>), and
 * writes their products with b_i to shared memory. Then the rows in the chunk (those that start in it,
 * and the one that crossed the previous chunk's end, at most one since rows are consecutive) are summed
 * from there by sub-warps of the widest power of two <= 32 lanes that still gives every such row its
 * own sub-warp: one thread per row for short rows, up to a warp for a few long ones (a thread per row
 * left a chunk of a few 400-entry rows waiting on one thread's serial sum). A row that runs on past the
 * chunk leaves its partial sum in `carried` for the next chunk. No atomics, no scan, no row search per
 * nonzero. The products are double-buffered and `carried` is kept for three chunks, so one barrier per
 * chunk suffices (the __syncthreads_count that finds how many rows start in it). Several right-hand
 * sides take one pass over the item each. Summed in two chains per lane (stream_sum_ab_h100.log: float
 * batch of 32 unbalanced rows per item 0.125-0.127 -> 0.120 ms; double 1-2% slower).
 *
 * The routine is bound by instruction issue and latency more than by memory (ncu, 1,000 float items of
 * 1,024 rows and 32 nonzeros per row: 2.6 instructions issued per cycle and SM, 62% of issue slots
 * busy, DRAM 45% busy; benchmark/results/ncu/batch_spmv_stream_float_h100.txt). Hence b_i is read
 * through a pointer known to be shared memory (item_b_on_path): through a generic pointer each entry's
 * load of b_i took 5-19% of the time (stream_issue_ab_h100.log: heterogeneous batch 0.394 -> 0.360 ms
 * in double, 0.296-0.302 -> 0.239-0.244 in float). The sub-warp arithmetic uses shifts, since a
 * division by a run-time divisor costs tens of instructions.
 */
template <typename T, typename I, typename C>
__device__ __forceinline__ void csr_stream_item(const CsrItem<T, I, C>& item, const T* item_b,
                                                const Operands<T>& op, T* item_x)
{
    constexpr int entries = SparsePolicy::stream_entries<T>();
    __shared__ T products[2][SparsePolicy::max_block_size * entries];
    // chunk k's slot k % 3: the row crossing the end of chunk k (-1: none) and its partial sum
    __shared__ int carried_row[3];
    __shared__ T carried_sum[3];
    const int rank = threadIdx.x;
    const int threads = blockDim.x;
    const int chunk = threads * entries;
    const int rows = item.at.rows;
    const int num_rhs = op.num_rhs;
    const I* row_ptrs = item.row_ptrs;
    const int nnz = static_cast<int>(row_ptrs[rows]);
    int buffer_index = 0;  // chunks so far (over all right-hand sides) % 2
    int slot = 0;          // and % 3
    for (int rhs = 0; rhs < num_rhs; ++rhs) {
        const T* b = item_b + rhs;
        int first_row = 0;  // the first row that starts in this chunk or a later one
        for (int begin = 0;; begin += chunk) {
            const int end = min(begin + chunk, nnz);
            const bool last = end == nnz;
            T* buffer = products[buffer_index];
            // entry k of this thread is begin + k * threads + rank, present while k * threads < mine
            const int mine = end - begin - rank;
            const T* values = item.values + begin + rank;
            const C* col_idxs = item.col_idxs + begin + rank;
            T value[entries];
            C col[entries];
#pragma unroll
            for (int k = 0; k < entries; ++k) {
                value[k] = k * threads < mine ? values[k * threads] : T{};
                col[k] = k * threads < mine ? col_idxs[k * threads] : C{};
            }
            T* product = buffer + rank;
#pragma unroll
            for (int k = 0; k < entries; ++k) {
                if (k * threads < mine) {
                    product[k * threads] = value[k] * b[static_cast<int>(col[k]) * num_rhs];
                }
            }
            if (rank == 0) {
                // last read two chunks ago, which every thread left before the previous barrier
                carried_row[slot] = -1;
            }
            // How many rows start in this chunk (in the last one: every row left, empty ones
            // included), a block width at a time; the first count is the barrier that publishes the
            // products and the previous chunk's carried row.
            int starting = 0;
            for (int base = first_row;; base += threads) {
                const int row = base + rank;
                const int count = __syncthreads_count(
                    row < rows && (last || static_cast<int>(row_ptrs[row]) < end));
                starting += count;
                if (count < threads) {
                    break;
                }
            }
            const int previous = slot == 0 ? 2 : slot - 1;
            const int crossing = begin > 0 ? carried_row[previous] : -1;
            const int first_task_row = crossing >= 0 ? crossing : first_row;
            const int tasks = starting + (crossing >= 0 ? 1 : 0);
            int lanes_log2 = 5;
            while (lanes_log2 > 0 && (tasks << lanes_log2) > threads) {
                --lanes_log2;
            }
            const int lanes = 1 << lanes_log2;
            const int lane = rank & (lanes - 1);
            const int group = rank >> lanes_log2;
            const int groups = threads >> lanes_log2;
            // sub-warp g takes rows g, g + groups, ...: every thread makes the same number of passes
            // (ceil(tasks / groups)), so all lanes reach the shuffles
            for (int task = group; task - group < tasks; task += groups) {
                const bool real = task < tasks;
                const int row = first_task_row + task;
                const int row_begin = real ? max(static_cast<int>(row_ptrs[row]), begin) : begin;
                const int row_end = real ? static_cast<int>(row_ptrs[row + 1]) : begin;
                // This lane's entries of the row in the chunk, summed in two chains so that two
                // shared-memory loads are in flight: with one chain each entry waited on its load, and a
                // chunk's long row kept the block's other warps at the next barrier (ncu: the sum loop and
                // that barrier took 38% of the stall samples on float rows of 1-129 entries). Four chains
                // spilled 24-72 bytes at the kernel's 32 registers.
                T sum{};
                T other{};
                const int stop = min(row_end, end) - begin;
                int entry = row_begin - begin + lane;
                for (; entry + lanes < stop; entry += 2 * lanes) {
                    sum += buffer[entry];
                    other += buffer[entry + lanes];
                }
                if (entry < stop) {
                    sum += buffer[entry];
                }
                sum += other;
                sum = warp::all_reduce_sum_in_groups(sum, lanes);
                if (real && lane == 0) {
                    if (row == crossing) {
                        sum += carried_sum[previous];
                    }
                    if (row_end <= end) {
                        T* out = item_x + std::int64_t{row} * num_rhs + rhs;
                        *out = op.scale(sum, out);
                    } else {
                        carried_row[slot] = row;
                        carried_sum[slot] = sum;
                    }
                }
            }
            first_row += starting;
            buffer_index ^= 1;
            slot = slot == 2 ? 0 : slot + 1;
            if (last) {
                break;
            }
        }
    }
}

/// Rows of one ELL item, one thread of its team per row; slot k of row r at k * rows + r
/// (column-major, so the threads of a warp read consecutive addresses). A thread loads the values and
/// column indices of `slots_in_flight` slots before it multiplies the first (a value's load does not wait
/// for its column index, nor a slot for the one before it); the products add up in slot order.
template <int slots_in_flight, typename T, typename I>
__device__ void ell_rows(int rows, int width, const T* values, const I* col_idxs, const T* item_b,
                         const Operands<T>& op, T* item_x, Team team = block_row_team())
{
    constexpr I padding = ::larch::batch::Ell<T, I>::invalid_index;
    for (int row = team.rank; row < rows; row += team.size) {
        for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
            T sum{};
            for (int first = 0; first < width; first += slots_in_flight) {
                T value[slots_in_flight];
                I col[slots_in_flight];
#pragma unroll
                for (int k = 0; k < slots_in_flight; ++k) {
                    const auto position = std::int64_t{first + k} * rows + row;
                    value[k] = first + k < width ? values[position] : T{};
                    col[k] = first + k < width ? col_idxs[position] : padding;
                }
#pragma unroll
                for (int k = 0; k < slots_in_flight; ++k) {
                    if (col[k] != padding) {
                        sum = fma(value[k], item_b[col[k] * op.num_rhs + rhs], sum);
                    }
                }
            }
            T* out = item_x + std::int64_t{row} * op.num_rhs + rhs;
            *out = op.scale(sum, out);
        }
    }
}

}  // namespace batch_sparse
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
