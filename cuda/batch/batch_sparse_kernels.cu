// CUDA/HIP kernels of the batched sparse matrices (core/batch/batch_sparse_kernels.hpp, Anzt et al. 2017,
// flexible batched SpMV). The row kernels (CSR scalar/vector/smart, ELL) give every item a team of
// threads sized per batch from the largest item's work (SparsePolicy::team_size, a warp up to a block)
// and pack 256 / team items into one block, so that a 48-row item costs a warp, not a block of its own
// (rows_launch). The segmented kernels (balanced, COO) and stream run one block
// per item, sized from the largest item (SparsePolicy::block_size), and take the items largest first
// (SparseLayout::get_const_work_order), so that no long item starts last. A one-item block stages b_i
// in shared memory when the largest b_i of the batch fits (max cols * num_rhs values within the block's
// shared memory);
// otherwise, and in packed blocks, the kernels read b_i from global memory, where the item's few KB
// stay in L1/L2 anyway (the "global-memory path": same kernels, only the pointer differs, so both
// paths are always in sync).
//
// Kernels and their thread mappings:
// - CSR rows (scalar, vector, smart): one sub-warp of p lanes per row, lanes stride over the row, a
//   sub-warp all-reduce sums it; scalar is p = 1, vector p = 32, smart picks p per item, the power of
//   two >= the item's average nonzeros per row over the entries each lane loads at once
//   (SparsePolicy::row_entries_in_flight; capped at 32).
// - CSR balanced and COO: the item's nonzeros are cut into 8 equal segments, taken by the block's
//   32-lane groups in turn (one each in a 256-thread block, several in a smaller one); per chunk of 32 nonzeros a segmented warp scan keyed by the row sums the products of each row run
//   and the run's last lane adds it atomically to x (first scaled by beta). Balanced finds each
//   nonzero's row by walking the row pointers from the group's precomputed start row; COO reads it.
// - ELL: one thread per row, slots read column-major (coalesced across the rows of the block).
// - CSR stream: the item's nonzeros in chunks of 4 per thread in double and 8 in float, each load a
//   coalesced warp read; the products go to shared memory, where sub-warps (a thread for short rows, up
//   to a warp for long ones) sum the chunk's rows (a row crossing the chunk's end carries its partial
//   sum to the next chunk). One block per item.
// - CSR automatic: the fixed kernel chosen for the batch at creation (batch::Csr::get_automatic_kernel:
//   scalar for short rows, smart for even long ones, stream otherwise).
#include <algorithm>
#include <cstdint>

#include "core/batch/batch_sparse_kernels.hpp"
#include "core/components/instantiation.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/batch/batch_sparse_spmv.cuh"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_sparse {

/// The item of this thread's block row: blockDim.y items per block where `packed`, else blockIdx.x
/// (index -1 past the batch's end). Packed blocks read b_i from global memory (rows_launch stages
/// only one-item blocks), so returning early skips no barrier. One item per block is a separate
/// instantiation because the computed index costs registers: the row kernels spilled 24-64 bytes at
/// 32 registers (ptxas -v, sm_90) where the block index alone did not.
template <bool packed>
__device__ __forceinline__ std::int64_t packed_item(std::int64_t num_items)
{
    if constexpr (packed) {
        const std::int64_t index = std::int64_t{blockIdx.x} * blockDim.y + threadIdx.y;
        return index < num_items ? index : -1;
    } else {
        return blockIdx.x;
    }
}

/// The item of a one-item-per-block kernel: the block's place in the layout's work order.
__device__ __forceinline__ std::int64_t ordered_item(const std::int64_t* work_order)
{
    return item_in_work_order(work_order, blockIdx.x);
}

template <int subwarp_size, bool packed, typename T, typename I, typename C>
__global__ void __launch_bounds__(SparsePolicy::max_block_size,
                                  SparsePolicy::rows_min_blocks_per_sm(subwarp_size, packed))
    csr_rows_kernel(CsrView<T, I, C> a, Operands<T> op, std::int64_t num_items)
{
    // One block row per item (packed_item), one sub-warp of `subwarp_size` lanes per row (0: smart,
    // chosen per item).
    const auto index = packed_item<packed>(num_items);
    if (index < 0) {
        return;
    }
    const auto item = csr_item(a, index);
    const T* item_b = packed ? op.b + op.b_offsets[index] : load_item_b(op, index, item.at.cols);
    T* item_x = op.item_x(index);
    if constexpr (subwarp_size > 0) {
        csr_subwarp_rows<subwarp_size, SparsePolicy::row_entries_in_flight>(
            item.at.rows, item.values, item.col_idxs, item.row_ptrs, item_b, op, item_x,
            block_row_team());
    } else {
        csr_smart_item<SparsePolicy::row_entries_in_flight>(item, item_b, op, item_x,
                                                            block_row_team());
    }
}

template <typename T, typename I, typename C>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    csr_balanced_kernel(CsrView<T, I, C> a, Operands<T> op)
{
    // One block per item: x_i scaled by beta, then each 32-lane group sums its equal share of the
    // nonzeros (segments taken by the groups in turn, segmented scan).
    const std::int64_t index = ordered_item(a.work_order);
    const auto item = csr_item(a, index);
    T* item_x = op.item_x(index);
    scale_item_x(item.at.rows, op, item_x);
    const T* item_b = load_item_b(op, index, item.at.cols);
    const I* segment_rows = a.balanced_row_starts + index * (SparsePolicy::segments + 1);
    const I* row_ptrs = item.row_ptrs;
    accumulate_row_runs(
        static_cast<int>(row_ptrs[item.at.rows]), item.values, item.col_idxs,
        [row_ptrs, segment_rows](int segment) {
            return CsrRowWalker<I>{row_ptrs, static_cast<int>(segment_rows[segment])};
        },
        item_b, op, item_x);
}

template <bool staged, typename T, typename I, typename C>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    csr_stream_kernel(CsrView<T, I, C> a, Operands<T> op)
{
    // One block per item, streaming its nonzeros through shared memory a chunk at a time; one
    // instantiation per b_i path (item_b_on_path).
    const std::int64_t index = ordered_item(a.work_order);
    const auto item = csr_item(a, index);
    csr_stream_item(item, item_b_on_path<staged>(op, index, item.at.cols), op, op.item_x(index));
}

template <typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size, SparsePolicy::min_blocks_per_sm)
    coo_kernel(const std::int32_t* rows, const std::int32_t* cols,
               const std::int64_t* stored_offsets, const std::int64_t* work_order,
               bool shared_pattern, const T* values, const I* row_idxs, const I* col_idxs,
               Operands<T> op)
{
    // One block per item, its equal nonzero segments taken by the 32-lane groups in turn (segmented scan).
    const std::int64_t item = ordered_item(work_order);
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

template <bool packed, typename T, typename I>
__global__ void __launch_bounds__(SparsePolicy::max_block_size,
                                  SparsePolicy::rows_min_blocks_per_sm(1, packed))
    ell_kernel(const std::int32_t* rows, const std::int32_t* cols,
               const std::int64_t* stored_offsets, bool shared_pattern, const T* values,
               const I* col_idxs, Operands<T> op, std::int64_t num_items)
{
    // One block row per item (packed_item), one thread per row (ell_rows), one slot at a time
    // (SparsePolicy::solver_ell_slots_in_flight says why).
    const std::int64_t item = packed_item<packed>(num_items);
    if (item < 0) {
        return;
    }
    const auto at = item_offsets(rows, cols, stored_offsets, shared_pattern, item);
    const T* item_b = packed ? op.b + op.b_offsets[item] : load_item_b(op, item, at.cols);
    const int width = static_cast<int>((stored_offsets[item + 1] - at.values) / at.rows);
    const T* item_values = values + at.values;
    const I* item_cols = col_idxs + at.pattern;
    ell_rows<1>(at.rows, width, item_values, item_cols, item_b, op, op.item_x(item), block_row_team());
}

/// The smart kernel's sub-warp for rows of `mean_row_nnz` nonzeros on average (csr_smart_item): the
/// power of two >= it over the entries each lane keeps in flight, at most 32 (the block size of smart
/// batches is sized from the batch's mean).
inline int smart_lanes(double mean_row_nnz)
{
    const double steps = mean_row_nnz / SparsePolicy::row_entries_in_flight;
    int lanes = 1;
    while (lanes < 32 && lanes < steps) {
        lanes *= 2;
    }
    return lanes;
}

/// How a row kernel runs: blocks of team x items_per_block threads, one item per block row of `team`
/// threads, sized for `work` threads' worth of the largest item (SparsePolicy::team_size), as many
/// items as fill max_block_size threads, but fewer where the batch would then give an SM less than
/// min_blocks_per_sm blocks (1,000 48-row items: 125 blocks of 8 would leave SMs idle); b_i staged
/// (`staging` bytes) only where a block holds one item (several would need a block-wide barrier to
/// stage theirs, and a small item's b_i stays in L1 anyway).
struct RowsLaunch {
    unsigned grid;
    dim3 block;
    std::size_t staging;
};

inline RowsLaunch rows_launch(const DefaultExecutor& exec, size_type num_items, size_type work,
                              std::size_t staging)
{
    const int team = SparsePolicy::team_size(exec, work);
    const auto min_blocks = static_cast<size_type>(std::max(exec.get_num_multiprocessors(), 1)) *
                            SparsePolicy::min_blocks_per_sm;
    const int items_per_block = static_cast<int>(std::clamp<size_type>(
        num_items / min_blocks, 1, static_cast<size_type>(SparsePolicy::max_block_size / team)));
    return {static_cast<unsigned>((num_items + items_per_block - 1) / items_per_block),
            dim3(static_cast<unsigned>(team), static_cast<unsigned>(items_per_block)),
            items_per_block == 1 ? staging : 0};
}

/// The rows kernel with `subwarp_size` lanes per row (0: smart, per item), its teams sized for
/// `lanes_per_row` lanes on every row of the largest item.
template <int subwarp_size, typename T, typename I, typename C>
void launch_csr_rows(const DefaultExecutor& exec, const CsrView<T, I, C>& view, Operands<T> op,
                     size_type num_items, size_type max_rows, int lanes_per_row, std::size_t staging)
{
    const auto launch = rows_launch(exec, num_items, max_rows * static_cast<size_type>(lanes_per_row),
                                    staging);
    op.staged = launch.staging > 0;
    if (launch.block.y > 1) {
        csr_rows_kernel<subwarp_size, true, T, I, C>
            <<<launch.grid, launch.block, launch.staging>>>(view, op, num_items);
    } else {
        csr_rows_kernel<subwarp_size, false, T, I, C>
            <<<launch.grid, launch.block, launch.staging>>>(view, op, num_items);
    }
}

/// csr_spmv's launch on `view`, whose column indices are the batch's own or narrowed ones.
template <typename T, typename I, typename C>
void launch_csr_spmv(const DefaultExecutor& exec, const ::larch::batch::Csr<T, I>& a,
                     const CsrView<T, I, C>& view, ::larch::batch::CsrSpmvKernel kernel, T alpha,
                     const ::larch::batch::Vector<T>& b, T beta, ::larch::batch::Vector<T>& x)
{
    using ::larch::batch::CsrSpmvKernel;
    const auto& layout = a.get_layout();
    const auto staging = SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols());
    const auto op = operands_of(alpha, b, beta, x, staging);
    const auto num_items = a.get_num_items();
    const auto grid = static_cast<unsigned>(num_items);
    const auto max_rows = layout.get_max_size().rows;
    const int mean_lanes = smart_lanes(a.get_mean_row_nnz());
    if (kernel == CsrSpmvKernel::automatic) {
        kernel = a.get_automatic_kernel();  // scalar, smart or stream
    }
    switch (kernel) {
    case CsrSpmvKernel::scalar:
        launch_csr_rows<1>(exec, view, op, num_items, max_rows, 1, staging);
        break;
    case CsrSpmvKernel::vector:
        launch_csr_rows<32>(exec, view, op, num_items, max_rows, 32, staging);
        break;
    case CsrSpmvKernel::smart:
        launch_csr_rows<0>(exec, view, op, num_items, max_rows, mean_lanes, staging);
        break;
    case CsrSpmvKernel::balanced:
        csr_balanced_kernel<T, I, C>
            <<<grid, SparsePolicy::segmented_block_size(exec, layout), staging>>>(view, op);
        break;
    case CsrSpmvKernel::automatic:  // resolved above
    case CsrSpmvKernel::stream: {
        // b_i staged only where it fits beside the kernel's products
        const auto stream_staging = SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols(),
                                                                   SparsePolicy::stream_static_bytes<T>());
        const auto stream_kernel =
            stream_staging > 0 ? csr_stream_kernel<true, T, I, C> : csr_stream_kernel<false, T, I, C>;
        stream_kernel<<<grid, SparsePolicy::segmented_block_size(exec, layout), stream_staging>>>(
            view, operands_of(alpha, b, beta, x, stream_staging));
        break;
    }
    }
    LARCH_LAUNCH_CHECK("batch_sparse::csr_spmv");
}

template <typename T, typename I>
void csr_spmv(const DefaultExecutor& exec, const ::larch::batch::Csr<T, I>& a,
              ::larch::batch::CsrSpmvKernel kernel, T alpha, const ::larch::batch::Vector<T>& b,
              T beta, ::larch::batch::Vector<T>& x)
{
    if (a.get_const_narrow_col_idxs() != nullptr) {
        launch_csr_spmv(exec, a, view_of<std::uint16_t>(a), kernel, alpha, b, beta, x);
    } else {
        launch_csr_spmv(exec, a, view_of<I>(a), kernel, alpha, b, beta, x);
    }
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
        layout.get_const_work_order(), layout.has_shared_pattern(), a.get_const_values(),
        a.get_const_row_idxs(),
        a.get_const_col_idxs(), operands_of(alpha, b, beta, x, staging));
    LARCH_LAUNCH_CHECK("batch_sparse::coo_kernel");
}

template <typename T, typename I>
void ell_spmv(const DefaultExecutor& exec, const ::larch::batch::Ell<T, I>& a, T alpha,
              const ::larch::batch::Vector<T>& b, T beta, ::larch::batch::Vector<T>& x)
{
    const auto& layout = a.get_layout();
    const auto num_items = a.get_num_items();
    const auto launch = rows_launch(exec, num_items, layout.get_max_size().rows,
                                    SparsePolicy::staging_bytes<T>(exec, layout, b.get_num_cols()));
    const auto kernel = launch.block.y > 1 ? ell_kernel<true, T, I> : ell_kernel<false, T, I>;
    kernel<<<launch.grid, launch.block, launch.staging>>>(
        layout.get_const_rows(), layout.get_const_cols(), layout.get_const_stored_offsets(),
        layout.has_shared_pattern(), a.get_const_values(), a.get_const_col_idxs(),
        operands_of(alpha, b, beta, x, launch.staging), num_items);
    LARCH_LAUNCH_CHECK("batch_sparse::ell_kernel");
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS);

}  // namespace batch_sparse
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
