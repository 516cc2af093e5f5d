// Device kernels of matrix::Dense (row-major with a stride): BLAS-1 updates, per-column dot and norm2,
// transpose, a tiled GEMM, and the conversion to CSR. The fused Krylov steps are krylov_step_kernels.cu's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/matrix/dense_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/warp.cuh"
#include "cuda/matrix/product_entries.cuh"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {
namespace {

using index64 = std::int64_t;

// ---- element-wise updates: one thread per entry (grid-stride over rows * cols) ----------------------

/// Applies `update(x_ij, b_ij, j)` to every entry of x; b is optional (nullptr: never read).
template <typename T, typename Update>
struct UpdateEntries {
    T* x;
    index64 x_stride;
    const T* b;
    index64 b_stride;
    index64 cols;
    Update update;

    __device__ void operator()(index64 i) const
    {
        const auto [row, col] = entry_position(i, cols);
        update(x[row * x_stride + col], b ? b[row * b_stride + col] : T{}, col);
    }
};

template <typename T>
struct Assign {
    T value;
    __device__ void operator()(T& x, T, index64) const { x = value; }
};

template <typename T>
struct Scale {
    T alpha;
    __device__ void operator()(T& x, T, index64) const { x *= alpha; }
};

template <typename T>
struct CopyEntry {
    __device__ void operator()(T& x, T b, index64) const { x = b; }
};

template <typename T>
struct AddScaled {
    T alpha;
    __device__ void operator()(T& x, T b, index64) const { x += alpha * b; }
};

/// The updates with a scalar per column (alphas on the device, one per column).
template <typename T>
struct ScaleColumns {
    const T* alphas;
    __device__ void operator()(T& x, T, index64 col) const { x *= alphas[col]; }
};

template <typename T>
struct AddScaledColumns {
    const T* alphas;
    __device__ void operator()(T& x, T b, index64 col) const { x += alphas[col] * b; }
};

template <typename T>
struct ScaleAdd {
    T alpha;
    __device__ void operator()(T& x, T b, index64) const { x = alpha * x + b; }
};

/// x_ij = (alpha a_ij + beta b_ij) + gamma x_ij; gamma == 0 never reads x.
template <typename T>
struct CombineEntries {
    T* x;
    index64 x_stride;
    const T* a;
    index64 a_stride;
    const T* b;
    index64 b_stride;
    index64 cols;
    T alpha;
    T beta;
    T gamma;

    __device__ void operator()(index64 i) const
    {
        const auto [row, col] = entry_position(i, cols);
        const T sum = alpha * a[row * a_stride + col] + beta * b[row * b_stride + col];
        T& entry = x[row * x_stride + col];
        entry = gamma == T{0} ? sum : sum + gamma * entry;
    }
};

template <typename T, typename Update>
void update_entries(const DefaultExecutor& exec, matrix::Dense<T>& x, const matrix::Dense<T>* b,
                    Update update, const char* launch_name)
{
    const auto size = x.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    UpdateEntries<T, Update> functor{x.get_values(),
                                     static_cast<index64>(x.get_stride()),
                                     b ? b->get_const_values() : nullptr,
                                     b ? static_cast<index64>(b->get_stride()) : 0,
                                     static_cast<index64>(size.cols),
                                     update};
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols), functor, launch_name);
}

template <typename T>
__device__ __forceinline__ T magnitude(T value)
{
    return value < T{0} ? -value : value;
}

/// max that lets a NaN win: the scale of a column holding a NaN is NaN, so its norm is NaN rather than
/// a NaN hidden behind a zero scale.
struct MaxKeepingNaN {
    template <typename T>
    __device__ T operator()(T a, T b) const
    {
        if (a != a) {
            return a;
        }
        return b != b || a < b ? b : a;
    }
};

template <typename T>
struct MagnitudeEntry {
    const T* a;
    index64 stride;
    __device__ T operator()(index64 row, index64 col) const
    {
        return magnitude(a[row * stride + col]);
    }
};

/// (a_ij / scale_j)^2: summing these cannot overflow, since every term is at most 1.
template <typename T>
struct ScaledSquareEntry {
    const T* a;
    index64 stride;
    const T* scales;
    __device__ T operator()(index64 row, index64 col) const
    {
        const T scale = scales[col];
        const T scaled = scale > T{0} ? a[row * stride + col] / scale : T{0};
        return scaled * scaled;
    }
};

/// norm = scale * sqrt(sum of scaled squares); a zero column gives 0, an infinite or NaN entry
/// gives its scale (inf or NaN) instead of 0 * inf.
template <typename T>
struct ScaledNorm {
    const T* scales;
    __device__ T operator()(index64 col, T sum_of_squares) const
    {
        const T scale = scales[col];
        if (!(scale > T{0}) || !isfinite(scale)) {
            return scale;
        }
        return scale * sqrt(sum_of_squares);
    }
};

// ---- transpose and GEMM: shared-memory tiles -----------------------------------------------------

constexpr int transpose_tile = 32;
constexpr int transpose_block_rows = 8;

/// One 32x32 tile per block (32x8 threads, 4 entries each), staged in shared memory (padded against
/// bank conflicts) so that both the read and the write are coalesced. Row tiles on x, column tiles on
/// y with a stride loop (gridDim.y is limited to 65535).
template <typename T>
__global__ void __launch_bounds__(transpose_tile* transpose_block_rows)
    transpose_kernel(index64 rows, index64 cols, const T* source, index64 source_stride, T* dest,
                     index64 dest_stride)
{
    __shared__ T tile[transpose_tile][transpose_tile + 1];
    const index64 num_col_tiles = ceildiv(cols, transpose_tile);
    const index64 tile_row = index64{blockIdx.x} * transpose_tile;
    for (index64 col_tile = blockIdx.y; col_tile < num_col_tiles; col_tile += gridDim.y) {
        const index64 tile_col = col_tile * transpose_tile;
        for (int j = threadIdx.y; j < transpose_tile; j += transpose_block_rows) {
            const index64 row = tile_row + j;
            const index64 col = tile_col + threadIdx.x;
            if (row < rows && col < cols) {
                tile[j][threadIdx.x] = source[row * source_stride + col];
            }
        }
        __syncthreads();
        for (int j = threadIdx.y; j < transpose_tile; j += transpose_block_rows) {
            const index64 dest_row = tile_col + j;
            const index64 dest_col = tile_row + threadIdx.x;
            if (dest_row < cols && dest_col < rows) {
                dest[dest_row * dest_stride + dest_col] = tile[threadIdx.x][j];
            }
        }
        __syncthreads();
    }
}

constexpr int gemm_tile = 16;

/// One 16x16 tile of c per block, one entry per thread; a and b pass through shared memory in 16x16
/// tiles. Dense GEMM is not a focus of larch: this is the simple textbook kernel. The tiles are
/// numbered along one grid dimension (row-major over the tiles of c), because either dimension of c
/// may exceed the 65535 blocks of a grid's second dimension (GMRES updates x, 1 x n, from its basis).
template <typename T>
__global__ void __launch_bounds__(gemm_tile* gemm_tile)
    gemm_kernel(index64 m, index64 n, index64 k, T alpha, const T* a, index64 a_stride, const T* b,
                index64 b_stride, T beta, T* c, index64 c_stride)
{
    __shared__ T a_tile[gemm_tile][gemm_tile];
    __shared__ T b_tile[gemm_tile][gemm_tile + 1];
    const index64 tile_cols = ceildiv(n, index64{gemm_tile});
    const index64 tile = blockIdx.x;
    const index64 row = (tile / tile_cols) * gemm_tile + threadIdx.y;
    const index64 col = (tile % tile_cols) * gemm_tile + threadIdx.x;
    T sum{};
    for (index64 offset = 0; offset < k; offset += gemm_tile) {
        const index64 a_col = offset + threadIdx.x;
        const index64 b_row = offset + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < m && a_col < k ? a[row * a_stride + a_col] : T{};
        b_tile[threadIdx.y][threadIdx.x] = b_row < k && col < n ? b[b_row * b_stride + col] : T{};
        __syncthreads();
#pragma unroll
        for (int i = 0; i < gemm_tile; ++i) {
            sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        T& entry = c[row * c_stride + col];
        entry = beta == T{0} ? alpha * sum : alpha * sum + beta * entry;
    }
}

// ---- conversion to CSR: one 32-lane sub-warp per row ---------------------------------------------

constexpr int row_subwarp_size = 32;

template <typename T, typename I>
__global__ void __launch_bounds__(default_block_size)
    count_nonzeros_kernel(index64 rows, index64 cols, const T* values, index64 stride, I* row_nnz)
{
    const index64 row = warp::global_subwarp_id<row_subwarp_size>();
    if (row >= rows) {
        return;  // uniform over the sub-warp
    }
    I count = 0;
    for (index64 col = warp::rank<row_subwarp_size>(); col < cols; col += row_subwarp_size) {
        count += values[row * stride + col] != T{0} ? 1 : 0;
    }
    count = warp::all_reduce_sum<row_subwarp_size>(count);
    if (warp::rank<row_subwarp_size>() == 0) {
        row_nnz[row] = count;
    }
}

/// Stream compaction of each row: 32 columns at a time, an exclusive scan of the nonzero flags gives
/// each lane its output slot, so the columns stay sorted.
template <typename T, typename I>
__global__ void __launch_bounds__(default_block_size)
    convert_to_csr_kernel(index64 rows, index64 cols, const T* values, index64 stride,
                          const I* row_ptrs, I* col_idxs, T* csr_values)
{
    const index64 row = warp::global_subwarp_id<row_subwarp_size>();
    if (row >= rows) {
        return;  // uniform over the sub-warp
    }
    const int lane = warp::rank<row_subwarp_size>();
    index64 out = row_ptrs[row];
    for (index64 first = 0; first < cols; first += row_subwarp_size) {
        const index64 col = first + lane;
        const T value = col < cols ? values[row * stride + col] : T{0};
        const int is_nonzero = value != T{0} ? 1 : 0;
        int num_nonzeros = 0;
        const int slot = warp::exclusive_scan_sum<row_subwarp_size>(is_nonzero, num_nonzeros);
        if (is_nonzero) {
            col_idxs[out + slot] = static_cast<I>(col);
            csr_values[out + slot] = value;
        }
        out += num_nonzeros;
    }
}

unsigned row_subwarp_blocks(size_type rows)
{
    return num_blocks_for(static_cast<index64>(rows) * row_subwarp_size, default_block_size);
}

}  // namespace

template <typename T>
void fill(const DefaultExecutor& exec, matrix::Dense<T>& x, T value)
{
    update_entries<T>(exec, x, nullptr, Assign<T>{value}, "launch of dense::fill");
}

template <typename T>
void copy(const DefaultExecutor& exec, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    const auto size = source.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    // Rows without gaps on both sides: one linear copy; else one thread per entry. A pitched copy
    // (cudaMemcpy2D) would see a 10M x 1 vector as 10M rows of 8 bytes.
    if (source.get_stride() == size.cols && dest.get_stride() == size.cols) {
        LARCH_DEVICE_CHECK(LARCH_RT(Memcpy)(dest.get_values(), source.get_const_values(),
                                            size.rows * size.cols * sizeof(T), LARCH_RT(MemcpyDeviceToDevice)));
        return;
    }
    update_entries(exec, dest, &source, CopyEntry<T>{}, "launch of dense::copy");
}

template <typename T>
void scale(const DefaultExecutor& exec, T alpha, matrix::Dense<T>& x)
{
    update_entries<T>(exec, x, nullptr, Scale<T>{alpha}, "launch of dense::scale");
}

template <typename T>
void add_scaled(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b,
                matrix::Dense<T>& x)
{
    update_entries(exec, x, &b, AddScaled<T>{alpha}, "launch of dense::add_scaled");
}

template <typename T>
void scale_columns(const DefaultExecutor& exec, const array<T>& alphas, matrix::Dense<T>& x)
{
    update_entries<T>(exec, x, nullptr, ScaleColumns<T>{alphas.get_const_data()}, "launch of dense::scale_columns");
}

template <typename T>
void add_scaled_columns(const DefaultExecutor& exec, const array<T>& alphas, const matrix::Dense<T>& b,
                        matrix::Dense<T>& x)
{
    update_entries(exec, x, &b, AddScaledColumns<T>{alphas.get_const_data()},
                   "launch of dense::add_scaled_columns");
}

template <typename T>
void scale_add(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    update_entries(exec, x, &b, ScaleAdd<T>{alpha}, "launch of dense::scale_add");
}

template <typename T>
void combine(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a, T beta, const matrix::Dense<T>& b,
             T gamma, matrix::Dense<T>& x)
{
    const auto size = x.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    CombineEntries<T> functor{x.get_values(),       static_cast<index64>(x.get_stride()),
                              a.get_const_values(), static_cast<index64>(a.get_stride()),
                              b.get_const_values(), static_cast<index64>(b.get_stride()),
                              static_cast<index64>(size.cols), alpha, beta, gamma};
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols), functor, "launch of dense::combine");
}

template <typename T>
void compute_dot(const DefaultExecutor& exec, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                 array<T>& result, array<T>& workspace)
{
    const auto size = a.get_size();
    result.resize_and_reset(size.cols);
    reduce_columns(exec, size.rows, size.cols, product_entry(a, b), warp::Sum{}, T{0}, KeepTotal{},
                   result.get_data(), workspace);
}

template <typename T>
void compute_dot_pair(const DefaultExecutor& exec, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                      const matrix::Dense<T>& c, array<T>& result, array<T>& workspace)
{
    const auto size = a.get_size();
    reduce_columns(exec, size.rows, 2 * size.cols, product_pair_entry(a, b, c), warp::Sum{}, T{0}, KeepTotal{},
                   result.get_data(), workspace);
}

template <typename T>
void compute_norm2(const DefaultExecutor& exec, const matrix::Dense<T>& a, array<T>& result,
                   array<T>& workspace)
{
    // Two passes, as in LAPACK's nrm2 but parallel: the largest magnitude of each column, then the
    // sum of squares of the entries divided by it.
    const auto size = a.get_size();
    const auto stride = static_cast<index64>(a.get_stride());
    result.resize_and_reset(size.cols);
    // The workspace holds the column scales, then both passes' partial sums.
    const auto needed = static_cast<size_type>(
        (1 + reduction_partials_per_column(exec, static_cast<index64>(size.rows), static_cast<index64>(size.cols))) *
        size.cols);
    if (workspace.get_size() < needed) {
        workspace.resize_and_reset(needed);
    }
    const auto scales = workspace.get_data();
    auto partials = array<T>::view(exec.shared_from_this(), workspace.get_size() - size.cols, scales + size.cols);
    reduce_columns(exec, size.rows, size.cols, MagnitudeEntry<T>{a.get_const_values(), stride},
                   MaxKeepingNaN{}, T{0}, KeepTotal{}, scales, partials);
    reduce_columns(exec, size.rows, size.cols, ScaledSquareEntry<T>{a.get_const_values(), stride, scales},
                   warp::Sum{}, T{0}, ScaledNorm<T>{scales}, result.get_data(), partials);
}

template <typename T>
void transpose(const DefaultExecutor&, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    const auto size = source.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    const dim3 grid(
        static_cast<unsigned>(ceildiv(size.rows, transpose_tile)),
        static_cast<unsigned>(std::min<index64>(ceildiv(size.cols, transpose_tile), max_grid_y)));
    transpose_kernel<<<grid, dim3(transpose_tile, transpose_block_rows)>>>(
        size.rows, size.cols, source.get_const_values(), source.get_stride(), dest.get_values(),
        dest.get_stride());
    LARCH_LAUNCH_CHECK("dense::transpose");
}

template <typename T>
void gemm(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a,
          const matrix::Dense<T>& b, T beta, matrix::Dense<T>& c)
{
    const index64 m = a.get_size().rows;
    const index64 k = a.get_size().cols;
    const index64 n = b.get_size().cols;
    if (m == 0 || n == 0) {
        return;
    }
    if (k == 0) {
        // c = beta * c (or 0): no product to add, and no tile loop to run.
        if (beta == T{0}) {
            fill(exec, c, T{0});
        } else {
            scale(exec, beta, c);
        }
        return;
    }
    const index64 num_tiles = ceildiv(m, index64{gemm_tile}) * ceildiv(n, index64{gemm_tile});
    LARCH_ENSURE(num_tiles <= std::numeric_limits<std::int32_t>::max(), NotSupported,
                 "dense::gemm: the " + std::to_string(m) + "x" + std::to_string(n) +
                     " result has more 16x16 tiles than a grid can hold");
    gemm_kernel<<<static_cast<unsigned>(num_tiles), dim3(gemm_tile, gemm_tile)>>>(
        m, n, k, alpha, a.get_const_values(), a.get_stride(), b.get_const_values(), b.get_stride(),
        beta, c.get_values(), c.get_stride());
    LARCH_LAUNCH_CHECK("dense::gemm");
}

template <typename T, typename I>
void count_nonzeros_per_row(const DefaultExecutor&, const matrix::Dense<T>& source, I* row_nnz)
{
    const auto size = source.get_size();
    if (size.rows == 0) {
        return;
    }
    count_nonzeros_kernel<<<row_subwarp_blocks(size.rows), default_block_size>>>(
        size.rows, size.cols, source.get_const_values(), source.get_stride(), row_nnz);
    LARCH_LAUNCH_CHECK("dense::count_nonzeros_per_row");
}

template <typename T, typename I>
void convert_to_csr(const DefaultExecutor&, const matrix::Dense<T>& source,
                    matrix::Csr<T, I>& result)
{
    const auto size = source.get_size();
    if (size.rows == 0) {
        return;
    }
    convert_to_csr_kernel<<<row_subwarp_blocks(size.rows), default_block_size>>>(
        size.rows, size.cols, source.get_const_values(), source.get_stride(),
        result.get_const_row_ptrs(), result.get_col_idxs(), result.get_values());
    LARCH_LAUNCH_CHECK("dense::convert_to_csr");
}

LARCH_INSTANTIATE_DENSE_KERNELS();

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
