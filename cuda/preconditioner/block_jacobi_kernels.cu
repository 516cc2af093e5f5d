// Device kernels of preconditioner::BlockJacobi: scalar Jacobi (diagonal extraction from CSR and the row
// scaling x = alpha D^{-1} b + beta x, one thread per element), and for larger blocks the supervariable
// starts, the extraction of the diagonal blocks, their storage in a per-block precision (one thread per
// row each) and the block-diagonal apply (one sub-warp per block, the block's vector segment in registers).
#include <algorithm>
#include <cstdint>

#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/batch/gauss_huard.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"
#include "larch/base/half.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace block_jacobi {
namespace {

using index64 = std::int64_t;

// one thread per row; columns are sorted within a row, so the diagonal is found by binary search
template <typename V, typename I>
struct ExtractInverseDiagonal {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    V* inverse_diagonal;
    I* zero_diagonal;

    __device__ void operator()(index64 row) const
    {
        auto begin = static_cast<index64>(row_ptrs[row]);
        auto end = static_cast<index64>(row_ptrs[row + 1]);
        while (begin < end) {
            const auto middle = begin + (end - begin) / 2;
            if (static_cast<index64>(col_idxs[middle]) < row) {
                begin = middle + 1;
            } else {
                end = middle;
            }
        }
        const bool found = begin < static_cast<index64>(row_ptrs[row + 1]) &&
                           static_cast<index64>(col_idxs[begin]) == row;
        const V diagonal = found ? values[begin] : V{};
        const bool is_zero = diagonal == V{};
        inverse_diagonal[row] = is_zero ? V{1} : V{1} / diagonal;
        zero_diagonal[row] = is_zero ? I{1} : I{0};
    }
};

// one thread per entry of x (row-major with strides)
template <typename V>
struct ApplyInverseDiagonal {
    V alpha;
    const V* inverse_diagonal;
    const V* b;
    index64 b_stride;
    V beta;
    V* x;
    index64 x_stride;
    index64 cols;

    __device__ void operator()(index64 i) const
    {
        const auto row = i / cols;
        const auto col = i % cols;
        const V scaled = alpha * inverse_diagonal[row] * b[row * b_stride + col];
        V& out = x[row * x_stride + col];
        out = beta == V{} ? scaled : scaled + beta * out;
    }
};

/// The block of `row`: the last b with block_pointers[b] <= row (binary search).
template <typename I>
__device__ __forceinline__ index64 block_of_row(const I* block_pointers, index64 num_blocks, index64 row)
{
    index64 begin = 0;
    index64 end = num_blocks;
    while (end - begin > 1) {
        const auto middle = begin + (end - begin) / 2;
        if (static_cast<index64>(block_pointers[middle]) <= row) {
            begin = middle;
        } else {
            end = middle;
        }
    }
    return begin;
}

/// The first position in [begin, end) of col_idxs (sorted) whose column is >= column (binary search).
template <typename I>
__device__ __forceinline__ index64 first_in_columns(const I* col_idxs, index64 begin, index64 end, index64 column)
{
    while (begin < end) {
        const auto middle = begin + (end - begin) / 2;
        if (static_cast<index64>(col_idxs[middle]) < column) {
            begin = middle + 1;
        } else {
            end = middle;
        }
    }
    return begin;
}

// one thread per row: compares its column pattern with the previous row's
template <typename I>
struct FindSupervariableStarts {
    const I* row_ptrs;
    const I* col_idxs;
    std::uint8_t* starts;

    __device__ void operator()(index64 row) const
    {
        bool same = row > 0 && row_ptrs[row + 1] - row_ptrs[row] == row_ptrs[row] - row_ptrs[row - 1];
        if (same) {
            const auto length = row_ptrs[row + 1] - row_ptrs[row];
            for (I k = 0; k < length && same; ++k) {
                same = col_idxs[row_ptrs[row] + k] == col_idxs[row_ptrs[row - 1] + k];
            }
        }
        starts[row] = same ? 0 : 1;
    }
};

// one thread per row: walks its CSR row and writes the row of its block (zeros where A has no entry)
template <typename V, typename I>
struct ExtractDiagonalBlocks {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    const I* block_pointers;
    index64 num_blocks;
    const std::int64_t* item_offsets;
    V* blocks;

    __device__ void operator()(index64 row) const
    {
        const auto block = block_of_row(block_pointers, num_blocks, row);
        const auto first = static_cast<index64>(block_pointers[block]);
        const auto n = static_cast<index64>(block_pointers[block + 1]) - first;
        V* block_row = blocks + item_offsets[block] + (row - first) * n;
        for (index64 c = 0; c < n; ++c) {
            block_row[c] = V{};
        }
        // columns are sorted: start at the block's first column (binary search) and stop past its last, so
        // a long row (the arrow matrix's dense last row) costs log(length) + n, not its length
        const auto end = static_cast<index64>(row_ptrs[row + 1]);
        for (auto nz = first_in_columns(col_idxs, static_cast<index64>(row_ptrs[row]), end, first); nz < end; ++nz) {
            const auto col = static_cast<index64>(col_idxs[nz]) - first;
            if (col >= n) {
                break;
            }
            block_row[col] += values[nz];
        }
    }
};

/// The value at `index` of a block stored in `precision` from `stored`, widened to V.
template <typename V>
__device__ __forceinline__ V load_stored(const std::uint8_t* stored, std::uint8_t precision, index64 index)
{
    if (precision == block_jacobi_storage::double_precision) {
        return static_cast<V>(reinterpret_cast<const double*>(stored)[index]);
    }
    if (precision == block_jacobi_storage::single_precision) {
        return static_cast<V>(reinterpret_cast<const float*>(stored)[index]);
    }
    return static_cast<V>(to_float(reinterpret_cast<const half*>(stored)[index]));
}

// one thread per row: converts its row of the block (or its diagonal entry) to the block's precision
template <typename V, typename I>
struct StoreBlocks {
    const V* blocks;
    const std::int64_t* item_offsets;
    const V* inverse_diagonal;
    const I* block_pointers;
    index64 num_blocks;
    const std::uint8_t* kinds;
    const std::uint8_t* precisions;
    const std::int64_t* byte_offsets;
    std::uint8_t* storage;

    __device__ void operator()(index64 row) const
    {
        const auto block = block_of_row(block_pointers, num_blocks, row);
        const auto first = static_cast<index64>(block_pointers[block]);
        const auto n = static_cast<index64>(block_pointers[block + 1]) - first;
        const bool diagonal = kinds[block] == block_jacobi_storage::diagonal;
        const auto count = diagonal ? 1 : n;
        const auto position = diagonal ? row - first : (row - first) * n;
        const V* source = diagonal ? inverse_diagonal + row : blocks + item_offsets[block] + position;
        std::uint8_t* destination = storage + byte_offsets[block];
        for (index64 c = 0; c < count; ++c) {
            if (precisions[block] == block_jacobi_storage::double_precision) {
                reinterpret_cast<double*>(destination)[position + c] = static_cast<double>(source[c]);
            } else if (precisions[block] == block_jacobi_storage::single_precision) {
                reinterpret_cast<float*>(destination)[position + c] = static_cast<float>(source[c]);
            } else {
                reinterpret_cast<half*>(destination)[position + c] = to_half(static_cast<float>(source[c]));
            }
        }
    }
};

/// The Gauss-Huard factors of a stored block in its precision: the storage policy of the batched solve.
template <typename V>
struct StoredFactors {
    const std::uint8_t* stored;
    std::uint8_t precision;
    __device__ __forceinline__ V operator()(std::int64_t position) const
    {
        return load_stored<V>(stored, precision, position);
    }
};

/**
 * One sub-warp per block, one block row per lane (blocks of up to subwarp_size rows, so a warp applies
 * 32 / subwarp_size blocks): the lane holds its entry of the block's segment of b in a register; an
 * inverse is applied as a gemv whose b entries come by shuffle, Gauss-Huard factors by the batched solve
 * with the stored-factor policy.
 */
template <int subwarp_size, typename V, typename I>
__global__ void __launch_bounds__(default_block_size)
    apply_blocks_kernel(index64 num_blocks, V alpha, const I* block_pointers, const std::uint8_t* kinds,
                        const std::uint8_t* precisions, const std::int64_t* byte_offsets,
                        const std::uint8_t* storage, const std::int32_t* pivots, index64 num_cols, const V* b,
                        index64 b_stride, V beta, V* x, index64 x_stride)
{
    const auto block = warp::global_subwarp_id<subwarp_size>();
    if (block >= num_blocks) {
        return;
    }
    const int lane = warp::rank<subwarp_size>();
    const auto first = static_cast<index64>(block_pointers[block]);
    const int n = static_cast<int>(block_pointers[block + 1] - first);
    const bool real_row = lane < n;
    const auto kind = kinds[block];
    const auto precision = precisions[block];
    const std::uint8_t* stored = storage + byte_offsets[block];
    const bool solve = kind == block_jacobi_storage::gauss_huard || kind == block_jacobi_storage::gauss_huard_transposed;
    const int destination = solve && real_row ? pivots[first + lane] : lane;
    for (index64 col = 0; col < num_cols; ++col) {
        const V segment_entry = real_row ? b[(first + lane) * b_stride + col] : V{};
        V result{};
        if (kind == block_jacobi_storage::inverse) {
            for (int j = 0; j < n; ++j) {
                const V b_j = warp::broadcast<subwarp_size>(segment_entry, j);
                if (real_row) {
                    result = fma(load_stored<V>(stored, precision, static_cast<index64>(lane) * n + j), b_j, result);
                }
            }
        } else if (kind == block_jacobi_storage::diagonal) {
            result = real_row ? load_stored<V>(stored, precision, lane) * segment_entry : V{};
        } else {
            result = batch_dense::gauss_huard_solve_column<subwarp_size>(
                StoredFactors<V>{stored, precision}, n, kind == block_jacobi_storage::gauss_huard_transposed,
                segment_entry);
        }
        if (real_row) {
            V& out = x[(first + destination) * x_stride + col];
            out = beta == V{} ? alpha * result : alpha * result + beta * out;
        }
    }
}

}  // namespace

template <typename V, typename I>
void extract_inverse_diagonal(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                              array<V>& inverse_diagonal, array<I>& zero_diagonal)
{
    ExtractInverseDiagonal<V, I> functor{a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(),
                                         inverse_diagonal.get_data(), zero_diagonal.get_data()};
    launch_for_each(exec, static_cast<index64>(a.get_size().rows), functor,
                    "block_jacobi::extract_inverse_diagonal");
}

template <typename V>
void apply_inverse_diagonal(const DefaultExecutor& exec, V alpha, const array<V>& inverse_diagonal,
                            const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto size = x.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    ApplyInverseDiagonal<V> functor{alpha,
                                    inverse_diagonal.get_const_data(),
                                    b.get_const_values(),
                                    static_cast<index64>(b.get_stride()),
                                    beta,
                                    x.get_values(),
                                    static_cast<index64>(x.get_stride()),
                                    static_cast<index64>(size.cols)};
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols), functor,
                    "block_jacobi::apply_inverse_diagonal");
}

template <typename V, typename I>
void find_supervariable_starts(const DefaultExecutor& exec, const matrix::Csr<V, I>& a, array<std::uint8_t>& starts)
{
    FindSupervariableStarts<I> functor{a.get_const_row_ptrs(), a.get_const_col_idxs(), starts.get_data()};
    launch_for_each(exec, static_cast<index64>(a.get_size().rows), functor, "block_jacobi::find_supervariable_starts");
}

template <typename V, typename I>
void extract_diagonal_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             batch::Dense<V>& blocks)
{
    ExtractDiagonalBlocks<V, I> functor{a.get_const_row_ptrs(),
                                        a.get_const_col_idxs(),
                                        a.get_const_values(),
                                        block_pointers.get_const_data(),
                                        static_cast<index64>(blocks.get_num_items()),
                                        blocks.get_layout().get_const_offsets(),
                                        blocks.get_values()};
    launch_for_each(exec, static_cast<index64>(a.get_size().rows), functor, "block_jacobi::extract_diagonal_blocks");
}

template <typename V, typename I>
void store_blocks(const DefaultExecutor& exec, const batch::Dense<V>& blocks, const array<V>& inverse_diagonal,
                  const array<I>& block_pointers, const array<std::uint8_t>& kinds,
                  const array<std::uint8_t>& precisions, const array<std::int64_t>& byte_offsets,
                  array<std::uint8_t>& storage)
{
    StoreBlocks<V, I> functor{blocks.get_const_values(),
                              blocks.get_layout().get_const_offsets(),
                              inverse_diagonal.get_const_data(),
                              block_pointers.get_const_data(),
                              static_cast<index64>(kinds.get_size()),
                              kinds.get_const_data(),
                              precisions.get_const_data(),
                              byte_offsets.get_const_data(),
                              storage.get_data()};
    launch_for_each(exec, static_cast<index64>(inverse_diagonal.get_size()), functor, "block_jacobi::store_blocks");
}

template <typename V, typename I>
void apply_blocks(const DefaultExecutor& exec, V alpha, const array<I>& block_pointers, size_type largest_block,
                  const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                  const array<std::int64_t>& byte_offsets, const array<std::uint8_t>& storage,
                  const array<std::int32_t>& pivots, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto num_blocks = static_cast<index64>(kinds.get_size());
    if (num_blocks == 0 || x.get_size().cols == 0) {
        return;
    }
    // the sub-warp fits the largest block (core limits GPU blocks to 32 rows)
    dispatch_subwarp_size<1, 2, 4, 8, 16, 32>(static_cast<int>(largest_block), [&](auto subwarp_constant) {
        constexpr int subwarp_size = decltype(subwarp_constant)::value;
        apply_blocks_kernel<subwarp_size><<<num_blocks_for(num_blocks * subwarp_size), default_block_size>>>(
            num_blocks, alpha, block_pointers.get_const_data(), kinds.get_const_data(), precisions.get_const_data(),
            byte_offsets.get_const_data(), storage.get_const_data(), pivots.get_const_data(),
            static_cast<index64>(x.get_size().cols), b.get_const_values(), static_cast<index64>(b.get_stride()), beta,
            x.get_values(), static_cast<index64>(x.get_stride()));
        check(LARCH_RT(GetLastError)(), "block_jacobi::apply_blocks", __FILE__, __LINE__);
    });
}

LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();

}  // namespace block_jacobi
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
