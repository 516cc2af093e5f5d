// CUDA Gram-Schmidt kernels: the projections as a deterministic two-stage reduction that reads each entry of
// w once for eight basis vectors, the update with one thread per entry of w.
#include "core/solver/gram_schmidt_kernels.hpp"

#include <cstdint>

#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/warp.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace gram_schmidt {
namespace {

using index64 = std::int64_t;

/// Basis vectors whose products with w one thread block forms in one pass over its rows: w(k) is read
/// once for all of them (one reduction per basis vector read the whole of w for each, j + 1 times per
/// Arnoldi step, where GMRES's byte model counts one read).
constexpr int project_chunk = 8;

/// Stage 1: block (x, y) sums basis(i, k) w(k) over its grid-stride share of the rows k for the basis
/// vectors i of chunk y; partials[i * gridDim.x + blockIdx.x].
template <typename T>
__global__ void __launch_bounds__(reduction_block_size)
    project_partial(index64 n, index64 count, const T* basis, index64 basis_stride, const T* w,
                    index64 w_stride, T* partials)
{
    const index64 first = index64{blockIdx.y} * project_chunk;
    T sums[project_chunk] = {};
    for (index64 k = index64{blockIdx.x} * blockDim.x + threadIdx.x; k < n;
         k += index64{gridDim.x} * blockDim.x) {
        const T w_k = w[k * w_stride];
#pragma unroll
        for (int c = 0; c < project_chunk; ++c) {
            if (first + c < count) {
                sums[c] += basis[(first + c) * basis_stride + k] * w_k;
            }
        }
    }
#pragma unroll
    for (int c = 0; c < project_chunk; ++c) {
        const T total = block_all_reduce<reduction_block_size>(sums[c], warp::Sum{});
        if (threadIdx.x == 0 && first + c < count) {
            partials[(first + c) * gridDim.x + blockIdx.x] = total;
        }
    }
}

/// One thread per entry k of w: consecutive threads read consecutive entries of each basis row.
template <typename T>
struct SubtractCombination {
    const T* basis;
    index64 basis_stride;
    index64 count;
    const T* coefficients;
    T* w;
    index64 w_stride;
    __device__ void operator()(index64 k) const
    {
        T combination{0};
        for (index64 i = 0; i < count; ++i) {
            combination += coefficients[i] * basis[i * basis_stride + k];
        }
        w[k * w_stride] -= combination;
    }
};

}  // namespace

template <typename T>
void project(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients)
{
    const auto size = basis.get_size();
    if (size.rows == 0) {
        return;
    }
    const auto n = static_cast<index64>(size.cols);
    const auto count = static_cast<index64>(size.rows);
    const auto row_blocks =
        std::min<index64>(max_partials_per_column, grid_stride_num_blocks(exec, n, reduction_block_size));
    array<T> partials{exec.shared_from_this(), static_cast<size_type>(row_blocks * count)};
    const dim3 grid(static_cast<unsigned>(row_blocks),
                    static_cast<unsigned>(ceildiv(count, index64{project_chunk})));
    project_partial<<<grid, reduction_block_size>>>(n, count, basis.get_const_values(),
                                                    static_cast<index64>(basis.get_stride()), w.get_const_values(),
                                                    static_cast<index64>(w.get_stride()), partials.get_data());
    LARCH_LAUNCH_CHECK("gram_schmidt::project_partial");
    reduce_columns_final<<<static_cast<unsigned>(count), reduction_block_size>>>(
        row_blocks, count, partials.get_const_data(), warp::Sum{}, T{0}, KeepTotal{}, coefficients.get_values());
    LARCH_LAUNCH_CHECK("gram_schmidt::project's final reduction");
}

template <typename T>
void subtract(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto size = basis.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    launch_for_each(exec, static_cast<index64>(size.cols),
                    SubtractCombination<T>{basis.get_const_values(), static_cast<index64>(basis.get_stride()),
                                           static_cast<index64>(size.rows), coefficients.get_const_values(),
                                           w.get_values(), static_cast<index64>(w.get_stride())},
                    "launch of gram_schmidt::subtract");
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
