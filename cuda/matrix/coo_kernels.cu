// Device kernels of matrix::Coo: SpMV by a segmented warp scan over the nonzeros with atomics for rows
// that cross chunks, and the compression of row indices into row pointers.
#include <algorithm>
#include <cstdint>

#include "core/matrix/coo_kernels.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/atomic.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace coo {
namespace {

using index64 = std::int64_t;

constexpr int spmv_group_size = 32;

/// One 32-lane group per contiguous chunk of nonzeros (a multiple of 32 long), 32 nonzeros per step:
/// each lane forms one product, a segmented scan keyed by the (sorted) row index sums the products of
/// each row within the step, and the last lane of each row's run adds alpha times the sum to x with
/// an atomic (a row may continue in the next step or chunk). x already holds beta * x.
template <typename V, typename I>
__global__ void __launch_bounds__(default_block_size)
    spmv_kernel(index64 nnz, index64 chunk_size, index64 num_rhs, V alpha,
                const I* __restrict__ row_idxs, const I* __restrict__ col_idxs,
                const V* __restrict__ values, const V* __restrict__ b, index64 b_stride, V* x,
                index64 x_stride)
{
    const index64 begin = warp::global_subwarp_id<spmv_group_size>() * chunk_size;
    if (begin >= nnz) {
        return;  // uniform over the group
    }
    const index64 end = std::min(begin + chunk_size, nnz);
    const int lane = warp::rank<spmv_group_size>();
    for (index64 rhs = 0; rhs < num_rhs; ++rhs) {
        for (index64 first = begin; first < end; first += spmv_group_size) {
            const index64 k = first + lane;
            const bool is_entry = k < end;
            // Lanes past the end get row -1: a run of their own that never writes.
            const I row = is_entry ? row_idxs[k] : I{-1};
            const V product = is_entry ? values[k] * b[col_idxs[k] * b_stride + rhs] : V{0};
            const V row_sum =
                warp::segmented_inclusive_scan<spmv_group_size>(product, row, warp::Sum{});
            const I next_row = warp::shuffle_down<spmv_group_size>(row, 1);
            const bool ends_run = lane == spmv_group_size - 1 || next_row != row;
            if (is_entry && ends_run) {
                atomic_add(x + row * x_stride + rhs, alpha * row_sum);
            }
        }
    }
}

/// One thread per position k in [0, nnz]: every row r with row_idxs[k - 1] < r <= row_idxs[k] starts
/// at k (row_idxs[-1] = -1, row_idxs[nnz] = num_rows), so each row pointer is written exactly once,
/// empty rows included.
template <typename I>
struct RowStarts {
    const I* row_idxs;
    index64 nnz;
    index64 num_rows;
    I* row_ptrs;
    __device__ void operator()(index64 k) const
    {
        const index64 previous_row = k == 0 ? -1 : row_idxs[k - 1];
        const index64 row = k == nnz ? num_rows : row_idxs[k];
        for (index64 r = previous_row + 1; r <= row; ++r) {
            row_ptrs[r] = static_cast<I>(k);
        }
    }
};

}  // namespace

template <typename V, typename I>
void spmv(const DefaultExecutor& exec, V alpha, const matrix::Coo<V, I>& a,
          const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    // x = beta * x first (a fill for beta == 0, so x is never read), then the kernel adds alpha A b.
    if (beta == V{0}) {
        dense::fill(exec, x, V{0});
    } else if (beta != V{1}) {
        dense::scale(exec, beta, x);
    }
    const index64 nnz = a.get_num_stored_elements();
    const index64 num_rhs = x.get_size().cols;
    if (nnz == 0 || num_rhs == 0) {
        return;
    }
    // As many groups as the device holds at once (fewer for small matrices), each with an equal
    // chunk of nonzeros: the load is balanced whatever the row lengths.
    const index64 max_groups =
        std::max<index64>(1, index64{exec.get_num_multiprocessors()} *
                                 max_threads_per_multiprocessor / spmv_group_size);
    const index64 num_groups = std::min(ceildiv(nnz, spmv_group_size), max_groups);
    const index64 chunk_size = ceildiv(ceildiv(nnz, num_groups), spmv_group_size) * spmv_group_size;
    const index64 used_groups = ceildiv(nnz, chunk_size);
    spmv_kernel<<<num_blocks_for(used_groups * spmv_group_size), default_block_size>>>(
        nnz, chunk_size, num_rhs, alpha, a.get_const_row_idxs(), a.get_const_col_idxs(),
        a.get_const_values(), b.get_const_values(), b.get_stride(), x.get_values(), x.get_stride());
    LARCH_LAUNCH_CHECK("coo::spmv_kernel");
}

template <typename I>
void convert_row_idxs_to_ptrs(const DefaultExecutor& exec, const I* row_idxs,
                              size_type num_nonzeros, I* row_ptrs, size_type num_rows)
{
    launch_for_each(exec, static_cast<index64>(num_nonzeros) + 1,
                    RowStarts<I>{row_idxs, static_cast<index64>(num_nonzeros),
                                 static_cast<index64>(num_rows), row_ptrs},
                    "launch of coo::convert_row_idxs_to_ptrs");
}

LARCH_INSTANTIATE_COO_KERNELS();

}  // namespace coo
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
