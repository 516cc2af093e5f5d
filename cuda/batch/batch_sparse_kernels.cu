// CUDA/HIP kernels of the batched sparse matrices (core/batch/batch_sparse_kernels.hpp, Anzt et al. 2017,
// flexible batched SpMV): one thread block per item, its size chosen per batch (SparsePolicy::block_size)
// from the largest item's work, so that a 48-row item does not hold a 256-thread block of which 208
// threads idle. The item's b_i is staged in shared memory when the largest b_i of the batch fits
// (max cols * num_rhs values within the block's shared memory); otherwise every kernel reads b_i from
// global memory, where the item's few KB stay in L1/L2 anyway (the "global-memory path": same kernels,
// only the pointer differs, so both paths are always in sync).
//
// Kernels and their thread mappings:
// - CSR rows (scalar, vector, smart): one sub-warp of p lanes per row, lanes stride over the row, a
//   sub-warp all-reduce sums it; scalar is p = 1, vector p = 32, smart picks p per item, the power of
//   two >= the item's average nonzeros per row (capped at 32).
// - CSR balanced and COO: the item's nonzeros are cut into 8 equal segments, taken by the block's
//   32-lane groups in turn (one each in a 256-thread block, several in a smaller one); per chunk of 32 nonzeros a segmented warp scan keyed by the row sums the products of each row run
//   and the run's last lane adds it atomically to x (first scaled by beta). Balanced finds each
//   nonzero's row by walking the row pointers from the group's precomputed start row; COO reads it.
// - ELL: one thread per row, slots read column-major (coalesced across the rows of the block).
// - CSR automatic: when every item chose the same kernel at creation (batch::Csr::get_automatic_kernel)
//   that fixed kernel runs; otherwise one kernel branches per item on get_const_item_kernels (scalar,
//   smart or balanced; the branch is uniform over the block).
#include <algorithm>
#include <cstdint>

#include "core/batch/batch_sparse_kernels.hpp"
#include "core/components/instantiation.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/atomic.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"

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
    /// that branch among several sub-warp sizes (smart, automatic) and the 2..8-lane row kernels in
    /// double spill 250-500 bytes under that bound (ptxas -v, sm_90), so they get 6 blocks (40
    /// registers, no spills; a bound of 1 let ptxas unroll them to 108-116 registers). The per-item
    /// automatic kernel keeps the plain bound: it gets 40 registers unspilled that way, but spills
    /// 208 bytes in float when asked for 6 blocks.
    static constexpr int min_blocks_per_sm = 8;
    static constexpr int branching_min_blocks_per_sm = 6;
    static constexpr int rows_min_blocks_per_sm(int subwarp_size)
    {
        return subwarp_size == 1 || subwarp_size >= 16 ? min_blocks_per_sm
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

    /// Threads per block of the balanced and COO kernels: a lane per 4 nonzeros of the largest item.
    static int segmented_block_size(const DefaultExecutor& exec,
                                    const ::larch::batch::SparseLayout& layout)
    {
        return block_size(exec, (layout.get_max_stored() + 3) / 4);
    }

    /// Shared memory for b_i of every item, or 0 (global-memory path) when the largest does not fit.
    template <typename T>
    static std::size_t staging_bytes(const DefaultExecutor& exec, const ::larch::batch::SparseLayout& layout,
                                     size_type num_rhs)
    {
        const auto bytes = layout.get_max_size().cols * num_rhs * sizeof(T);
        return bytes <= exec.get_shared_memory_per_block() ? bytes : 0;
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

/// Rows of one CSR item, one sub-warp of `subwarp_size` lanes per row.
template <int subwarp_size, typename T, typename I>
__device__ void csr_subwarp_rows(int rows, const T* values, const I* col_idxs, const I* row_ptrs,
                                 const T* item_b, const Operands<T>& op, T* item_x)
{
    const int lane = warp::rank<subwarp_size>();
    const int num_subwarps = blockDim.x / subwarp_size;
    for (int row = warp::subwarp_id_in_block<subwarp_size>(); row < rows; row += num_subwarps) {
        const I begin = row_ptrs[row];
        const I end = row_ptrs[row + 1];
        for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
            T sum{};
            for (I nz = begin + lane; nz < end; nz += subwarp_size) {
                sum = fma(values[nz], item_b[col_idxs[nz] * op.num_rhs + rhs], sum);
            }
            sum = warp::all_reduce_sum<subwarp_size>(sum);
            if (lane == 0) {
                T* out = item_x + std::int64_t{row} * op.num_rhs + rhs;
                *out = op.scale(sum, out);
            }
        }
    }
}

/// The arrays of a batch::Csr as its kernels read them.
template <typename T, typename I>
struct CsrView {
    const std::int32_t* rows;
    const std::int32_t* cols;
    const std::int64_t* stored_offsets;
    const std::int64_t* row_offsets;
    bool shared_pattern;
    const T* values;
    const I* col_idxs;
    const I* row_ptrs;
    const I* balanced_row_starts;
    const std::int32_t* item_kernels;
};

template <typename T, typename I>
CsrView<T, I> view_of(const ::larch::batch::Csr<T, I>& a)
{
    const auto& layout = a.get_layout();
    return {layout.get_const_rows(),     layout.get_const_cols(),
            layout.get_const_stored_offsets(), layout.get_const_row_offsets(),
            layout.has_shared_pattern(), a.get_const_values(),
            a.get_const_col_idxs(),      a.get_const_row_ptrs(),
            a.get_const_balanced_row_starts(), a.get_const_item_kernels()};
}

/// One CSR item as the block that owns it sees it (b_i not yet loaded).
template <typename T, typename I>
struct CsrItem {
    ItemOffsets at;
    const T* values;
    const I* col_idxs;
    const I* row_ptrs;
};

template <typename T, typename I>
__device__ CsrItem<T, I> csr_item(const CsrView<T, I>& a, std::int64_t item)
{
    const auto at = item_offsets(a.rows, a.cols, a.stored_offsets, a.shared_pattern, item);
    return {at, a.values + at.values, a.col_idxs + at.pattern,
            a.row_ptrs + (a.shared_pattern ? 0 : a.row_offsets[item] + item)};
}

/// Smart: one sub-warp per row, its size the power of two >= the item's average row length, so that
/// a typical row keeps every lane of its sub-warp busy for one step; the same for the whole block.
template <typename T, typename I>
__device__ void csr_smart_item(const CsrItem<T, I>& item, const T* item_b, const Operands<T>& op,
                               T* item_x)
{
    const int rows = item.at.rows;
    const int nnz = static_cast<int>(item.row_ptrs[rows] - item.row_ptrs[0]);
    const int mean_row_nnz = (nnz + rows - 1) / rows;
    if (mean_row_nnz <= 1) {
        csr_subwarp_rows<1>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    } else if (mean_row_nnz <= 2) {
        csr_subwarp_rows<2>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    } else if (mean_row_nnz <= 4) {
        csr_subwarp_rows<4>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    } else if (mean_row_nnz <= 8) {
        csr_subwarp_rows<8>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    } else if (mean_row_nnz <= 16) {
        csr_subwarp_rows<16>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    } else {
        csr_subwarp_rows<32>(rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x);
    }
}

template <int subwarp_size, typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size,
                                  SparsePolicy::rows_min_blocks_per_sm(subwarp_size))
    csr_rows_kernel(CsrView<T, I> a, Operands<T> op)
{
    // One block per item, one sub-warp of `subwarp_size` lanes per row (0: smart, chosen per item).
    const std::int64_t index = blockIdx.x;
    const auto item = csr_item(a, index);
    const T* item_b = load_item_b(op, index, item.at.cols);
    T* item_x = op.item_x(index);
    if constexpr (subwarp_size > 0) {
        csr_subwarp_rows<subwarp_size>(item.at.rows, item.values, item.col_idxs, item.row_ptrs,
                                       item_b, op, item_x);
    } else {
        csr_smart_item(item, item_b, op, item_x);
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
 * end carry key -1 and product 0, so they form their own run that writes nothing.
 */
template <typename T, typename I, typename RowOfSegment>
__device__ void accumulate_row_runs(int nnz, const T* values, const I* col_idxs,
                                    RowOfSegment&& row_of_segment, const T* item_b,
                                    const Operands<T>& op, T* item_x)
{
    constexpr int group = SparsePolicy::group_size;
    constexpr int segments = SparsePolicy::segments;
    const int lane = warp::rank<group>();
    const int num_groups = blockDim.x / group;
    for (int segment = warp::subwarp_id_in_block<group>(); segment < segments;
         segment += num_groups) {
        const int begin = static_cast<int>(std::int64_t{segment} * nnz / segments);
        const int end = static_cast<int>(std::int64_t{segment + 1} * nnz / segments);
        auto row_of = row_of_segment(segment);
        for (int chunk = begin; chunk < end; chunk += group) {
            const int nz = chunk + lane;
            const bool active = nz < end;
            const int row = active ? static_cast<int>(row_of(nz)) : -1;
            const int next_row = warp::shuffle_down<group>(row, 1);
            const bool last_of_run = lane == group - 1 || next_row != row;
            for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
                const T product = active ? values[nz] * item_b[col_idxs[nz] * op.num_rhs + rhs] : T{};
                const T run_sum = warp::segmented_inclusive_scan<group>(product, row, warp::Sum{});
                if (active && last_of_run) {
                    atomic_add(item_x + std::int64_t{row} * op.num_rhs + rhs, op.alpha * run_sum);
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

/// Balanced: x_i scaled by beta, then each 32-lane group sums its equal share of the nonzeros.
template <typename T, typename I>
__device__ void csr_balanced_item(const CsrView<T, I>& a, std::int64_t index,
                                  const CsrItem<T, I>& item, const Operands<T>& op, T* item_x)
{
    scale_item_x(item.at.rows, op, item_x);
    const T* item_b = load_item_b(op, index, item.at.cols);
    const I* segment_rows = a.balanced_row_starts + index * (SparsePolicy::segments + 1);
    const I* row_ptrs = item.row_ptrs;
    accumulate_row_runs(
        static_cast<int>(item.row_ptrs[item.at.rows]), item.values, item.col_idxs,
        [row_ptrs, segment_rows](int segment) {
            return CsrRowWalker<I>{row_ptrs, static_cast<int>(segment_rows[segment])};
        },
        item_b, op, item_x);
}

template <typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    csr_balanced_kernel(CsrView<T, I> a, Operands<T> op)
{
    // One block per item, its equal nonzero segments taken by the 32-lane groups in turn (segmented scan).
    const std::int64_t index = blockIdx.x;
    csr_balanced_item(a, index, csr_item(a, index), op, op.item_x(index));
}

template <typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size)
    csr_automatic_kernel(CsrView<T, I> a, Operands<T> op)
{
    // One block per item, running it as scalar, smart or balanced as chosen at creation (the branch is
    // uniform over the block, so it costs no divergence).
    using ::larch::batch::CsrSpmvKernel;
    const std::int64_t index = blockIdx.x;
    const auto item = csr_item(a, index);
    T* item_x = op.item_x(index);
    const auto item_kernel = a.item_kernels[index];
    if (item_kernel == static_cast<std::int32_t>(CsrSpmvKernel::balanced)) {
        csr_balanced_item(a, index, item, op, item_x);
    } else if (item_kernel == static_cast<std::int32_t>(CsrSpmvKernel::scalar)) {
        csr_subwarp_rows<1>(item.at.rows, item.values, item.col_idxs, item.row_ptrs,
                            load_item_b(op, index, item.at.cols), op, item_x);
    } else {
        csr_smart_item(item, load_item_b(op, index, item.at.cols), op, item_x);
    }
}

template <typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    coo_kernel(const std::int32_t* rows, const std::int32_t* cols,
               const std::int64_t* stored_offsets, bool shared_pattern, const T* values,
               const I* row_idxs, const I* col_idxs, Operands<T> op)
{
    // One block per item, its equal nonzero segments taken by the 32-lane groups in turn (segmented scan).
    const std::int64_t item = blockIdx.x;
    const auto at = item_offsets(rows, cols, stored_offsets, shared_pattern, item);
    T* item_x = op.item_x(item);
    scale_item_x(at.rows, op, item_x);
    const T* item_b = load_item_b(op, item, at.cols);
    const I* item_rows = row_idxs + at.pattern;
    accumulate_row_runs(static_cast<int>(stored_offsets[item + 1] - at.values), values + at.values,
                        col_idxs + at.pattern,
                        [item_rows](int) { return [item_rows](int nz) { return item_rows[nz]; }; },
                        item_b, op, item_x);
}

template <typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    ell_kernel(const std::int32_t* rows, const std::int32_t* cols,
               const std::int64_t* stored_offsets, bool shared_pattern, const T* values,
               const I* col_idxs, Operands<T> op)
{
    // One block per item, one thread per row; slot k of row r at k * rows + r (column-major).
    const std::int64_t item = blockIdx.x;
    const auto at = item_offsets(rows, cols, stored_offsets, shared_pattern, item);
    const T* item_b = load_item_b(op, item, at.cols);
    const int width = static_cast<int>((stored_offsets[item + 1] - at.values) / at.rows);
    const T* item_values = values + at.values;
    const I* item_cols = col_idxs + at.pattern;
    T* item_x = op.item_x(item);
    for (int row = threadIdx.x; row < at.rows; row += blockDim.x) {
        for (int rhs = 0; rhs < op.num_rhs; ++rhs) {
            T sum{};
            for (int slot = 0; slot < width; ++slot) {
                const auto position = std::int64_t{slot} * at.rows + row;
                const I col = item_cols[position];
                if (col != ::larch::batch::Ell<T, I>::invalid_index) {
                    sum = fma(item_values[position], item_b[col * op.num_rhs + rhs], sum);
                }
            }
            T* out = item_x + std::int64_t{row} * op.num_rhs + rhs;
            *out = op.scale(sum, out);
        }
    }
}

/// The smart kernel's sub-warp for rows of `mean_row_nnz` nonzeros on average: the power of two >= it,
/// at most 32 (the block size of smart batches is sized from the batch's mean).
inline int smart_lanes(double mean_row_nnz)
{
    int lanes = 1;
    while (lanes < 32 && lanes < mean_row_nnz) {
        lanes *= 2;
    }
    return lanes;
}

/// The rows kernel with `subwarp_size` lanes per row (0: smart, per item), its block sized for
/// `lanes_per_row` lanes on every row of the largest item.
template <int subwarp_size, typename T, typename I>
void launch_csr_rows(const DefaultExecutor& exec, const CsrView<T, I>& view, const Operands<T>& op,
                     unsigned grid, size_type max_rows, int lanes_per_row, std::size_t staging)
{
    const int block = SparsePolicy::block_size(exec, max_rows * static_cast<size_type>(lanes_per_row));
    csr_rows_kernel<subwarp_size, T, I><<<grid, block, staging>>>(view, op);
}

template <typename T, typename I>
void csr_spmv(const DefaultExecutor& exec, const ::larch::batch::Csr<T, I>& a,
              ::larch::batch::CsrSpmvKernel kernel, T alpha, const ::larch::batch::Vector<T>& b,
              T beta, ::larch::batch::Vector<T>& x)
{
    using ::larch::batch::CsrSpmvKernel;
    const auto& layout = a.get_layout();
    const auto staging = SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols());
    const auto op = operands_of(alpha, b, beta, x, staging);
    const auto view = view_of(a);
    const auto grid = static_cast<unsigned>(a.get_num_items());
    const auto max_rows = layout.get_max_size().rows;
    const int mean_lanes = smart_lanes(a.get_mean_row_nnz());
    int subwarp_size = 0;
    if (kernel == CsrSpmvKernel::automatic) {
        // A batch whose items all chose one kernel runs it as the fixed kernel (no per-item branch).
        kernel = a.get_automatic_kernel();
        subwarp_size = a.get_automatic_subwarp_size();
    }
    switch (kernel) {
    case CsrSpmvKernel::scalar:
        launch_csr_rows<1>(exec, view, op, grid, max_rows, 1, staging);
        break;
    case CsrSpmvKernel::vector:
        launch_csr_rows<32>(exec, view, op, grid, max_rows, 32, staging);
        break;
    case CsrSpmvKernel::smart:
        switch (subwarp_size) {
        case 1: launch_csr_rows<1>(exec, view, op, grid, max_rows, 1, staging); break;
        case 2: launch_csr_rows<2>(exec, view, op, grid, max_rows, 2, staging); break;
        case 4: launch_csr_rows<4>(exec, view, op, grid, max_rows, 4, staging); break;
        case 8: launch_csr_rows<8>(exec, view, op, grid, max_rows, 8, staging); break;
        case 16: launch_csr_rows<16>(exec, view, op, grid, max_rows, 16, staging); break;
        case 32: launch_csr_rows<32>(exec, view, op, grid, max_rows, 32, staging); break;
        default: launch_csr_rows<0>(exec, view, op, grid, max_rows, mean_lanes, staging); break;
        }
        break;
    case CsrSpmvKernel::balanced:
        csr_balanced_kernel<T, I>
            <<<grid, SparsePolicy::segmented_block_size(exec, layout), staging>>>(view, op);
        break;
    case CsrSpmvKernel::automatic: {
        // Items differ: the block must suit the largest item's rows and its nonzero segments.
        const int block = std::max(
            SparsePolicy::block_size(exec, max_rows * static_cast<size_type>(mean_lanes)),
            SparsePolicy::segmented_block_size(exec, layout));
        csr_automatic_kernel<T, I><<<grid, block, staging>>>(view, op);
        break;
    }
    }
    LARCH_LAUNCH_CHECK("batch_sparse::csr_spmv");
}

template <typename T, typename I>
void coo_spmv(const DefaultExecutor& exec, const ::larch::batch::Coo<T, I>& a, T alpha,
              const ::larch::batch::Vector<T>& b, T beta, ::larch::batch::Vector<T>& x)
{
    const auto& layout = a.get_layout();
    const auto staging = SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols());
    coo_kernel<T, I><<<static_cast<unsigned>(a.get_num_items()),
                       SparsePolicy::segmented_block_size(exec, layout), staging>>>(
        layout.get_const_rows(), layout.get_const_cols(), layout.get_const_stored_offsets(),
        layout.has_shared_pattern(), a.get_const_values(), a.get_const_row_idxs(),
        a.get_const_col_idxs(), operands_of(alpha, b, beta, x, staging));
    LARCH_LAUNCH_CHECK("batch_sparse::coo_kernel");
}

template <typename T, typename I>
void ell_spmv(const DefaultExecutor& exec, const ::larch::batch::Ell<T, I>& a, T alpha,
              const ::larch::batch::Vector<T>& b, T beta, ::larch::batch::Vector<T>& x)
{
    const auto& layout = a.get_layout();
    const auto staging = SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols());
    ell_kernel<T, I><<<static_cast<unsigned>(a.get_num_items()),
                       SparsePolicy::block_size(exec, layout.get_max_size().rows), staging>>>(
        layout.get_const_rows(), layout.get_const_cols(), layout.get_const_stored_offsets(),
        layout.has_shared_pattern(), a.get_const_values(), a.get_const_col_idxs(),
        operands_of(alpha, b, beta, x, staging));
    LARCH_LAUNCH_CHECK("batch_sparse::ell_kernel");
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS);

}  // namespace batch_sparse
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
