// CUDA Gram-Schmidt kernels: the projections as a deterministic two-stage reduction that reads each entry of
// w once for eight basis vectors, with the entries of all columns read in row-major order (coalesced); the
// updates with one thread per entry of w.
#include "core/solver/gram_schmidt_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

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

/// Stage 1: a block takes the (row, column) entries of `slots` consecutive rows at a time, thread t always
/// column t % cols (the block uses slots * cols of its threads), and sums basis(i, k * row_step + c *
/// col_step) w(k, c) over its grid-stride share of the rows k for the basis vectors i of chunk blockIdx.y
/// (row_step cols and col_step 1 for interleaved columns, 1 and 0 for a shared basis); the sums of one
/// column are then combined over the slots by a tree in shared memory (a fixed order for any column count).
/// partials[(i * cols + c) * gridDim.x + blockIdx.x].
template <typename T>
__global__ void __launch_bounds__(reduction_block_size)
    project_partial(index64 n, int cols, index64 row_step, index64 col_step, index64 count, const T* basis,
                    index64 basis_stride, const T* w, index64 w_stride, T* partials)
{
    const int slots = reduction_block_size / cols;
    const int slot = static_cast<int>(threadIdx.x) / cols;
    const int col = static_cast<int>(threadIdx.x) % cols;
    const index64 first = index64{blockIdx.y} * project_chunk;
    T sums[project_chunk] = {};
    if (slot < slots) {
        for (index64 k = index64{blockIdx.x} * slots + slot; k < n; k += index64{gridDim.x} * slots) {
            const T w_k = w[k * w_stride + col];
            const index64 entry = k * row_step + col * col_step;
#pragma unroll
            for (int c = 0; c < project_chunk; ++c) {
                if (first + c < count) {
                    sums[c] += basis[(first + c) * basis_stride + entry] * w_k;
                }
            }
        }
    }
    __shared__ T slot_sums[project_chunk][reduction_block_size];
#pragma unroll
    for (int c = 0; c < project_chunk; ++c) {
        slot_sums[c][threadIdx.x] = sums[c];
    }
    __syncthreads();
    int half = 1;
    while (half * 2 < slots) {
        half *= 2;
    }
    for (; half > 0; half /= 2) {
        if (slot < half && slot + half < slots) {
#pragma unroll
            for (int c = 0; c < project_chunk; ++c) {
                slot_sums[c][threadIdx.x] += slot_sums[c][threadIdx.x + half * cols];
            }
        }
        __syncthreads();
    }
    if (threadIdx.x < cols) {
        for (int c = 0; c < project_chunk && first + c < count; ++c) {
            partials[((first + c) * cols + threadIdx.x) * gridDim.x + blockIdx.x] = slot_sums[c][threadIdx.x];
        }
    }
}

/// One thread per entry (k, c) of w, in row-major order: consecutive threads read consecutive entries of
/// each basis vector.
template <typename T>
struct SubtractCombination {
    const T* basis;
    index64 basis_stride;
    index64 count;
    const T* coefficients;
    T* w;
    index64 w_stride;
    index64 cols;
    __device__ void operator()(index64 entry) const
    {
        const auto [row, col] = entry_position(entry, cols);
        T combination{0};
        for (index64 i = 0; i < count; ++i) {
            combination += coefficients[i * cols + col] * basis[i * basis_stride + entry];
        }
        w[row * w_stride + col] -= combination;
    }
};

template <typename T>
struct NormalizeEntry {
    const T* factors;
    T* v;
    index64 v_stride;
    index64 cols;
    __device__ void operator()(index64 entry) const
    {
        const auto [row, col] = entry_position(entry, cols);
        T& value = v[row * v_stride + col];
        value = factors[col] == T{0} ? T{0} : factors[col] * value;
    }
};

}  // namespace

template <typename T>
void project(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients, array<T>& workspace)
{
    const auto n = static_cast<index64>(w.get_size().rows);
    const auto cols = static_cast<index64>(w.get_size().cols);
    const auto count = static_cast<index64>(basis.get_size().rows);
    if (count == 0 || cols == 0) {
        return;
    }
    LARCH_ENSURE(cols <= static_cast<index64>(max_gram_schmidt_columns), NotSupported,
                 "gram_schmidt::project: " + std::to_string(cols) + " columns, at most " +
                     std::to_string(max_gram_schmidt_columns) + " at once");
    const auto row_blocks =
        std::min<index64>(max_partials_per_column, grid_stride_num_blocks(exec, n * cols, reduction_block_size));
    const auto outputs = count * cols;
    const auto needed = static_cast<size_type>(row_blocks * outputs);
    if (workspace.get_size() < needed) {
        workspace.resize_and_reset(needed);
    }
    T* partials = workspace.get_data();
    const dim3 grid(static_cast<unsigned>(row_blocks),
                    static_cast<unsigned>(ceildiv(count, index64{project_chunk})));
    const bool shared = static_cast<index64>(basis.get_size().cols) == n;
    project_partial<<<grid, reduction_block_size>>>(n, static_cast<int>(cols), shared ? 1 : cols, shared ? 0 : 1,
                                                    count, basis.get_const_values(),
                                                    static_cast<index64>(basis.get_stride()), w.get_const_values(),
                                                    static_cast<index64>(w.get_stride()), partials);
    LARCH_LAUNCH_CHECK("gram_schmidt::project_partial");
    reduce_columns_final<<<static_cast<unsigned>(std::min<index64>(outputs, 65535)), reduction_block_size>>>(
        row_blocks, outputs, partials, warp::Sum{}, T{0}, KeepTotal{}, coefficients.get_values());
    LARCH_LAUNCH_CHECK("gram_schmidt::project's final reduction");
}

template <typename T>
void subtract(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto size = w.get_size();
    if (basis.get_size().rows == 0 || size.rows == 0 || size.cols == 0) {
        return;
    }
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols),
                    SubtractCombination<T>{basis.get_const_values(), static_cast<index64>(basis.get_stride()),
                                           static_cast<index64>(basis.get_size().rows),
                                           coefficients.get_const_values(), w.get_values(),
                                           static_cast<index64>(w.get_stride()), static_cast<index64>(size.cols)},
                    "launch of gram_schmidt::subtract");
}

template <typename T>
void normalize(const DefaultExecutor& exec, const array<T>& factors, matrix::Dense<T>& v)
{
    const auto size = v.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols),
                    NormalizeEntry<T>{factors.get_const_data(), v.get_values(), static_cast<index64>(v.get_stride()),
                                      static_cast<index64>(size.cols)},
                    "launch of gram_schmidt::normalize");
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
