// Device kernels of preconditioner::BlockJacobi for blocks larger than one row: the supervariable starts, the
// fused generation of the diagonal blocks (extraction from CSR and Gauss-Jordan inversion or Gauss-Huard
// factorization, one sub-warp per block), their storage in a per-block precision (one thread per row) and the
// block-diagonal apply (one sub-warp per block, the block's vector segment in registers). Scalar Jacobi is in
// scalar_jacobi_kernels.cu.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/block_jacobi_rules.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/batch/gauss_huard.cuh"
#include "cuda/batch/gauss_jordan.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/sorted_columns.cuh"
#include "cuda/components/warp.cuh"
#include "cuda/preconditioner/supervariable_blocking.cuh"
#include "larch/base/half.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace block_jacobi {
namespace {

using index64 = std::int64_t;

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

/**
 * Adds the entries of CSR row `row` that lie in the block's columns [first, first + n) to block_row
 * (block_row[c] for column first + c). Columns are sorted: the walk starts at the block's first column
 * (binary search) and stops past its last, so a long row (the arrow matrix's dense last row) costs
 * log(length) + n, not its length.
 */
template <typename V, typename I, typename BlockRow>
__device__ __forceinline__ void add_block_row(const I* row_ptrs, const I* col_idxs, const V* values, index64 row,
                                              index64 first, index64 n, BlockRow&& block_row)
{
    const auto end = static_cast<index64>(row_ptrs[row + 1]);
    for (auto nz = first_in_columns(col_idxs, static_cast<index64>(row_ptrs[row]), end, first); nz < end; ++nz) {
        const auto col = static_cast<index64>(col_idxs[nz]) - first;
        if (col >= n) {
            break;
        }
        block_row[col] += values[nz];
    }
}

/**
 * `cached` loader of the fused generation kernel: thread r of the sub-warp walks row first + r of the CSR
 * matrix (from the block's first column, binary search) and writes it into row r of the staging tile.
 */
template <int subwarp_size, typename V, typename I>
struct CachedCsrBlockLoader {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    index64 first;

    __device__ __forceinline__ void operator()(int n, batch_dense::StagingTile<subwarp_size, V>& tile) const
    {
        const int lane = warp::rank<subwarp_size>();
#pragma unroll
        for (int c = 0; c < subwarp_size; ++c) {
            tile[lane][c] = V{};
        }
        if (lane < n) {
            add_block_row(row_ptrs, col_idxs, values, first + lane, first, index64{n}, tile[lane]);
        }
    }
};

/**
 * `shared` loader of the fused generation kernel: thread r finds where row first + r enters and leaves the
 * block's columns (binary searches, all rows at once), then the sub-warp reads the block's part of each
 * row coalesced, one entry per lane, into the staging tile. Because the tile is shared memory, each
 * thread then picks up its own row of the block (load_rows_with): the coalesced read needs no transposed
 * inversion (Anzt et al. 2018 extract the transpose for that, which would pivot on columns and change the
 * blocks reported singular compared with the reference). Duplicate entries are summed in order by the
 * lane holding the first of them, as the reference sums them.
 */
template <int subwarp_size, typename V, typename I>
struct SharedCsrBlockLoader {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    index64 first;

    __device__ __forceinline__ void operator()(int n, batch_dense::StagingTile<subwarp_size, V>& tile) const
    {
        const int lane = warp::rank<subwarp_size>();
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            tile[r][lane] = V{};
        }
        I my_begin{};
        I my_end{};
        if (lane < n) {
            const auto row = first + lane;
            const auto row_end = static_cast<index64>(row_ptrs[row + 1]);
            const auto begin = first_in_columns(col_idxs, static_cast<index64>(row_ptrs[row]), row_end, first);
            my_begin = static_cast<I>(begin);
            my_end = static_cast<I>(first_in_columns(col_idxs, begin, row_end, first + n));
        }
        warp::sync<subwarp_size>();
        for (int r = 0; r < n; ++r) {
            const auto begin = static_cast<index64>(warp::broadcast<subwarp_size>(my_begin, r));
            const auto end = static_cast<index64>(warp::broadcast<subwarp_size>(my_end, r));
            for (auto base = begin; base < end; base += subwarp_size) {
                const auto nz = base + lane;
                if (nz < end) {
                    const auto col = col_idxs[nz];
                    if (nz == begin || col_idxs[nz - 1] != col) {
                        V sum = V{} + values[nz];
                        for (auto k = nz + 1; k < end && col_idxs[k] == col; ++k) {
                            sum += values[k];
                        }
                        tile[r][static_cast<index64>(col) - first] = sum;
                    }
                }
            }
        }
    }
};

/// Thread blocks (of RegisterPolicy::block_size threads) per multiprocessor that the fused generation kernels
/// are compiled for: 5, not the register kernels' 4, and five blocks' 38 KB of shared memory still fit. At
/// p = 32 in double that caps them at 96 registers: the Gauss-Jordan kernel does not spill, the Gauss-Huard
/// kernel spills about 1 KB (308 bytes at 128 registers). Both ran faster on the H100 (tridiagonal matrix,
/// 1,000,000 rows, bound 32): Gauss-Jordan generation 437 us against 464 us with 4 (ncu), Gauss-Huard
/// generation 1.91 ms against 2.10 ms.
constexpr int generation_blocks_per_multiprocessor = 5;

/// Where a generation kernel's sub-warp finds its diagonal block: the block's first row and its rows (0 for a
/// sub-warp past the last block, which still takes part in the thread block's barriers).
template <int subwarp_size, typename I>
struct GenerationBlock {
    index64 block;
    index64 first;
    int n;

    __device__ GenerationBlock(index64 num_blocks, const I* block_pointers)
        : block{warp::global_subwarp_id<subwarp_size>()}, first{}, n{}
    {
        if (block < num_blocks) {
            first = static_cast<index64>(block_pointers[block]);
            n = static_cast<int>(block_pointers[block + 1] - block_pointers[block]);
        }
    }
};

/// Extracts the block from CSR into `tile` with the cached or shared loader and picks up this thread's
/// Gauss-Jordan row (load_rows_with); returns ||A||_inf of the block. All threads of the block must call it.
template <int subwarp_size, bool shared_extraction, typename V, typename I>
__device__ __forceinline__ V load_csr_block(const I* row_ptrs, const I* col_idxs, const V* values, index64 first,
                                            int n, batch_dense::StagingTile<subwarp_size, V>& tile,
                                            batch_dense::GaussJordanRow<subwarp_size, V>& row)
{
    V row_sum;
    if (shared_extraction) {
        row_sum = batch_dense::load_rows_with<subwarp_size>(
            SharedCsrBlockLoader<subwarp_size, V, I>{row_ptrs, col_idxs, values, first}, n, tile, row);
    } else {
        row_sum = batch_dense::load_rows_with<subwarp_size>(
            CachedCsrBlockLoader<subwarp_size, V, I>{row_ptrs, col_idxs, values, first}, n, tile, row);
    }
    return warp::all_reduce_max<subwarp_size>(row_sum);
}

/**
 * Fused block-Jacobi generation: one sub-warp per diagonal block extracts it from CSR into the staging
 * tile (the loader: cached or shared), inverts it in registers by the batched Gauss-Jordan of
 * gauss_jordan.cuh and writes the inverse column-major into the block storage, its condition number and
 * info as the CondEstimator kernel does for a dense batch, and the inverse's infinity norm. Launch:
 * RegisterPolicy (128 threads, one sub-warp per block).
 */
template <int subwarp_size, bool shared_extraction, typename V, typename I>
__global__ void __launch_bounds__(batch_dense::RegisterPolicy::block_size,
                                  generation_blocks_per_multiprocessor)
    generate_inverse_blocks_kernel(index64 num_blocks, const I* row_ptrs, const I* col_idxs, const V* values,
                                   const I* block_pointers, const std::int64_t* byte_offsets, std::uint8_t* storage,
                                   V* cond, std::int32_t* info, V* norms)
{
    using namespace batch_dense;
    constexpr int items_per_block = RegisterPolicy::block_size / subwarp_size;
    __shared__ StagingTile<subwarp_size, V> tiles[items_per_block];
    __shared__ PivotRowBuffer<subwarp_size, V> pivot_rows[items_per_block];
    const GenerationBlock<subwarp_size, I> at{num_blocks, block_pointers};
    const int slot = warp::subwarp_id_in_block<subwarp_size>();
    auto& tile = tiles[slot];
    GaussJordanRow<subwarp_size, V> row;
    const V norm =
        load_csr_block<subwarp_size, shared_extraction>(row_ptrs, col_idxs, values, at.first, at.n, tile, row);
    const int block_info = eliminate<subwarp_size>(at.n, tiny_pivot_bound(at.n, norm), row, pivot_rows[slot]);
    // column-major, as apply_blocks reads an inverse
    V* inverse = reinterpret_cast<V*>(storage + (at.n > 0 ? byte_offsets[at.block] : std::int64_t{}));
    store_inverse<subwarp_size, true>(inverse, at.n, block_info == 0, tile, row);
    if (at.n == 0) {
        return;
    }
    const V stored_norm = inverse_norm<subwarp_size>(at.n, row);
    if (warp::rank<subwarp_size>() == 0) {
        info[at.block] = block_info;
        cond[at.block] = block_info == 0 ? norm * stored_norm : std::numeric_limits<V>::infinity();
        norms[at.block] = stored_norm;
    }
}

/**
 * Fused Gauss-Huard generation: as generate_inverse_blocks_kernel up to the Gauss-Jordan elimination, which
 * here only gives the condition number and the inversion info (the inverse is not stored); the sub-warp
 * then factorizes the block, still in the staging tile, by the batched Gauss-Huard of gauss_huard.cuh,
 * collects the factors in the tile (so that each lane adds up one stored row for their infinity norm) and
 * writes them row-major, coalesced, with the pivots at the block's rows of `pivots`.
 */
template <int subwarp_size, bool shared_extraction, typename V, typename I>
__global__ void __launch_bounds__(batch_dense::RegisterPolicy::block_size,
                                  generation_blocks_per_multiprocessor)
    generate_factorized_blocks_kernel(index64 num_blocks, const I* row_ptrs, const I* col_idxs, const V* values,
                                      const I* block_pointers, bool transposed, const std::int64_t* byte_offsets,
                                      std::uint8_t* storage, std::int32_t* pivots, V* cond,
                                      std::int32_t* inversion_info, std::int32_t* factorization_info, V* norms)
{
    using namespace batch_dense;
    constexpr int items_per_block = RegisterPolicy::block_size / subwarp_size;
    __shared__ StagingTile<subwarp_size, V> tiles[items_per_block];
    __shared__ PivotRowBuffer<subwarp_size, V> pivot_rows[items_per_block];
    __shared__ GaussHuardBuffer<subwarp_size, V> huard_buffers[items_per_block];
    const GenerationBlock<subwarp_size, I> at{num_blocks, block_pointers};
    const int slot = warp::subwarp_id_in_block<subwarp_size>();
    auto& tile = tiles[slot];
    GaussJordanRow<subwarp_size, V> row;
    const V norm =
        load_csr_block<subwarp_size, shared_extraction>(row_ptrs, col_idxs, values, at.first, at.n, tile, row);
    if (at.n == 0) {
        return;  // no block barrier follows
    }
    const int n = at.n;
    const int block_info = eliminate<subwarp_size>(n, tiny_pivot_bound(n, norm), row, pivot_rows[slot]);
    const V inverse_norm_value = inverse_norm<subwarp_size>(n, row);
    const int factor_info = gauss_huard_factorize_with(
        [&tile](int r, int c) { return tile[r][c]; },
        [&tile, n](std::int64_t position, V value) {
            tile[static_cast<int>(position) / n][static_cast<int>(position) % n] = value;
        },
        pivots + at.first, n, transposed, huard_buffers[slot]);
    warp::sync<subwarp_size>();
    const int lane = warp::rank<subwarp_size>();
    V row_sum{};
    if (factor_info == 0 && lane < n) {
        for (int c = 0; c < n; ++c) {
            row_sum += magnitude(tile[lane][c]);
        }
    }
    const V factor_norm = warp::all_reduce_max<subwarp_size>(row_sum);
    if (factor_info == 0 && lane < n) {
        V* factors = reinterpret_cast<V*>(storage + byte_offsets[at.block]);
#pragma unroll
        for (int r = 0; r < subwarp_size; ++r) {
            if (r < n) {
                factors[r * n + lane] = tile[r][lane];
            }
        }
    }
    if (lane == 0) {
        inversion_info[at.block] = block_info;
        factorization_info[at.block] = factor_info;
        cond[at.block] = block_info == 0 ? norm * inverse_norm_value : std::numeric_limits<V>::infinity();
        norms[at.block] = factor_norm;
    }
}

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

/// Writes `value` at position `index` of a block stored in `precision` from `stored`.
template <typename V>
__device__ __forceinline__ void store_in_precision(std::uint8_t* stored, std::uint8_t precision, index64 index, V value)
{
    if (precision == block_jacobi_storage::double_precision) {
        reinterpret_cast<double*>(stored)[index] = static_cast<double>(value);
    } else if (precision == block_jacobi_storage::single_precision) {
        reinterpret_cast<float*>(stored)[index] = static_cast<float>(value);
    } else {
        reinterpret_cast<half*>(stored)[index] = to_half(static_cast<float>(value));
    }
}

// one thread per block: its kind and precision; counts singular and reduced-precision blocks in summary
template <typename V, typename I>
struct ClassifyBlocks {
    const I* block_pointers;
    const V* cond;
    const std::int32_t* inversion_info;
    const std::int32_t* factorization_info;  // null: not given
    const V* norms;
    std::uint8_t block_kind;
    bool adaptive;
    double accuracy;
    std::uint8_t* kinds;
    std::uint8_t* precisions;
    unsigned long long* summary;  // singular blocks, the first of them, reduced blocks

    __device__ void operator()(index64 block) const
    {
        const bool failed = inversion_info[block] != 0 || (factorization_info && factorization_info[block] != 0);
        const auto choice = block_jacobi_rules::choose_storage<V>(
            block_pointers[block + 1] - block_pointers[block], static_cast<double>(cond[block]), failed,
            static_cast<double>(norms[block]), block_kind, adaptive, accuracy);
        kinds[block] = choice.kind;
        precisions[block] = choice.precision;
        if (choice.kind == block_jacobi_storage::diagonal) {
            atomicAdd(summary, 1ull);
            atomicMin(summary + 1, static_cast<unsigned long long>(block));
        }
        if (choice.precision != block_jacobi_rules::working_precision<V>()) {
            atomicAdd(summary + 2, 1ull);
        }
    }
};

// one thread per block: its stored bytes (kinds null: n x n in V)
template <typename V, typename I>
struct ComputeBlockBytes {
    const I* block_pointers;
    const std::uint8_t* kinds;
    const std::uint8_t* precisions;
    std::int64_t* byte_offsets;

    __device__ void operator()(index64 block) const
    {
        const std::int64_t n = block_pointers[block + 1] - block_pointers[block];
        byte_offsets[block] =
            kinds ? block_jacobi_rules::stored_block_bytes(n, kinds[block], precisions[block])
                  : block_jacobi_rules::stored_block_bytes(n, block_jacobi_storage::inverse,
                                                           block_jacobi_rules::working_precision<V>());
    }
};

// one thread per row: converts its share of its block (n of the n x n values, or its diagonal entry) from
// the working layout to the block's own precision
template <typename V, typename I>
struct RestoreBlocks {
    const std::uint8_t* working;
    const std::int64_t* working_offsets;
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
        std::uint8_t* destination = storage + byte_offsets[block];
        const auto precision = precisions[block];
        if (kinds[block] == block_jacobi_storage::diagonal) {
            store_in_precision(destination, precision, row - first, inverse_diagonal[row]);
            return;
        }
        const V* source = reinterpret_cast<const V*>(working + working_offsets[block]);
        for (auto i = (row - first) * n; i < (row - first + 1) * n; ++i) {
            store_in_precision(destination, precision, i, source[i]);
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

__device__ __forceinline__ double widen(double value) { return value; }
__device__ __forceinline__ float widen(float value) { return value; }
__device__ __forceinline__ float widen(half value) { return to_float(value); }

/// Columns of an inverse whose loads a lane issues together in the application (apply_inverse): 8 measured
/// fastest on the H100 (random blocks of 1..32 rows at bound 32: 1, 4, 8, 16 gave 67%, 80-84%, 86%, 79% of
/// copy; 16 needs 112 registers).
constexpr int apply_chunk = 8;

/**
 * Row `lane` of B b for an n x n inverse B stored column-major in Stored, b's entry j held by lane j. The
 * columns are taken apply_chunk at a time (at most the sub-warp's), all loads of a chunk issued before the
 * first is used (each lane has that many loads of the block in flight: one per step leaves the apply bound
 * by memory latency); a chunk past n is skipped uniformly, and so is a step past n inside the last chunk.
 */
template <int subwarp_size, typename Stored, typename V>
__device__ __forceinline__ V apply_inverse(const Stored* inverse, int n, V segment_entry)
{
    constexpr int chunk = subwarp_size < apply_chunk ? subwarp_size : apply_chunk;
    const int lane = warp::rank<subwarp_size>();
    const bool real_row = lane < n;
    V result{};
    // not unrolled: the compiler would then hoist the next chunk's loads too, and their registers cost
    // more occupancy than the extra loads in flight gain
#pragma unroll 1
    for (int first = 0; first < subwarp_size; first += chunk) {
        if (first < n) {
            // the stored values first, converted afterwards: the branches of a half's conversion between
            // the loads kept the compiler from issuing them together (ncu: twice the instructions of
            // double storage, and each load waited on before the next)
            Stored entries[chunk];
#pragma unroll
            for (int k = 0; k < chunk; ++k) {
                // column-major: lanes read consecutive addresses (coalesced)
                entries[k] = real_row && first + k < n ? inverse[(first + k) * n + lane] : Stored{};
            }
#pragma unroll
            for (int k = 0; k < chunk; ++k) {
                const V b_j = warp::broadcast<subwarp_size>(segment_entry, first + k);
                if (first + k < n) {
                    result = fma(static_cast<V>(widen(entries[k])), b_j, result);
                }
            }
        }
    }
    return result;
}

/**
 * One sub-warp per block, one block row per lane (blocks of up to subwarp_size rows, so a warp applies
 * 32 / subwarp_size blocks): the lane holds its entry of the block's segment of b in a register; an
 * inverse is applied as a gemv whose b entries come by shuffle, Gauss-Huard factors by the batched solve
 * with the stored-factor policy. `factorized` (Gauss-Huard blocks, and fallback diagonals) or not (inverses
 * and fallback diagonals) is a template parameter: a kernel holding both paths takes the registers of the
 * larger one and runs at a fraction of the occupancy.
 */
template <int subwarp_size, bool factorized, typename V, typename I>
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
    const bool solve = factorized && kind != block_jacobi_storage::diagonal;
    const int destination = solve && real_row ? pivots[first + lane] : lane;
    for (index64 col = 0; col < num_cols; ++col) {
        const V segment_entry = real_row ? b[(first + lane) * b_stride + col] : V{};
        V result{};
        if (kind == block_jacobi_storage::diagonal) {
            result = real_row ? load_stored<V>(stored, precision, lane) * segment_entry : V{};
        } else if (!factorized) {
            if (precision == block_jacobi_storage::double_precision) {
                result = apply_inverse<subwarp_size>(reinterpret_cast<const double*>(stored), n, segment_entry);
            } else if (precision == block_jacobi_storage::single_precision) {
                result = apply_inverse<subwarp_size>(reinterpret_cast<const float*>(stored), n, segment_entry);
            } else {
                result = apply_inverse<subwarp_size>(reinterpret_cast<const half*>(stored), n, segment_entry);
            }
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

/**
 * Launches a generation kernel over `num_blocks` blocks in one launch, the sub-warp fitting the largest block
 * (core limits GPU blocks to 32 rows): launch(subwarp_constant, shared_constant, grid, threads) starts the
 * kernel instantiated for that sub-warp size and extraction (std::integral_constant arguments).
 */
template <typename Launch>
void launch_generation(size_type num_blocks, size_type largest_block, bool shared_extraction, const char* name,
                       Launch&& launch)
{
    if (num_blocks == 0) {
        return;
    }
    batch_dense::dispatch_item_subwarp_size(static_cast<std::int64_t>(largest_block), [&](auto subwarp_constant) {
        constexpr int subwarp_size = decltype(subwarp_constant)::value;
        const auto grid = batch_dense::RegisterPolicy::num_blocks(static_cast<index64>(num_blocks), subwarp_size);
        constexpr int threads = batch_dense::RegisterPolicy::block_size;
        if (shared_extraction) {
            launch(subwarp_constant, std::true_type{}, grid, threads);
        } else {
            launch(subwarp_constant, std::false_type{}, grid, threads);
        }
        check(LARCH_RT(GetLastError)(), name, __FILE__, __LINE__);
    });
}

}  // namespace

template <typename V, typename I>
void generate_inverse_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             size_type num_blocks, size_type largest_block, bool shared_extraction,
                             const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage, array<V>& cond,
                             array<std::int32_t>& info, array<V>& norms)
{
    launch_generation(num_blocks, largest_block, shared_extraction, "block_jacobi::generate_inverse_blocks",
                      [&](auto subwarp, auto shared, auto grid, int threads) {
                          generate_inverse_blocks_kernel<decltype(subwarp)::value, decltype(shared)::value, V, I>
                              <<<grid, threads>>>(static_cast<index64>(num_blocks), a.get_const_row_ptrs(),
                                                  a.get_const_col_idxs(), a.get_const_values(),
                                                  block_pointers.get_const_data(), byte_offsets.get_const_data(),
                                                  storage.get_data(), cond.get_data(), info.get_data(),
                                                  norms.get_data());
                      });
}

template <typename V, typename I>
void generate_factorized_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                const array<I>& block_pointers, size_type num_blocks, size_type largest_block,
                                bool shared_extraction, bool transposed, const array<std::int64_t>& byte_offsets,
                                array<std::uint8_t>& storage, array<std::int32_t>& pivots, array<V>& cond,
                                array<std::int32_t>& inversion_info, array<std::int32_t>& factorization_info,
                                array<V>& norms)
{
    launch_generation(
        num_blocks, largest_block, shared_extraction, "block_jacobi::generate_factorized_blocks",
        [&](auto subwarp, auto shared, auto grid, int threads) {
            generate_factorized_blocks_kernel<decltype(subwarp)::value, decltype(shared)::value, V, I>
                <<<grid, threads>>>(static_cast<index64>(num_blocks), a.get_const_row_ptrs(), a.get_const_col_idxs(),
                                    a.get_const_values(), block_pointers.get_const_data(), transposed,
                                    byte_offsets.get_const_data(), storage.get_data(), pivots.get_data(),
                                    cond.get_data(), inversion_info.get_data(), factorization_info.get_data(),
                                    norms.get_data());
        });
}

template <typename V, typename I>
void classify_blocks(const DefaultExecutor& exec, const array<I>& block_pointers, const array<V>& cond,
                     const array<std::int32_t>& inversion_info, const array<std::int32_t>& factorization_info,
                     const array<V>& norms, std::uint8_t block_kind, bool adaptive, double accuracy,
                     array<std::uint8_t>& kinds, array<std::uint8_t>& precisions, size_type& num_singular,
                     size_type& first_singular, size_type& num_reduced)
{
    const auto num_blocks = static_cast<unsigned long long>(kinds.get_size());
    array<unsigned long long> summary{exec.shared_from_this(), {0ull, num_blocks, 0ull}};
    launch_for_each(exec, static_cast<index64>(num_blocks),
                    ClassifyBlocks<V, I>{block_pointers.get_const_data(), cond.get_const_data(),
                                         inversion_info.get_const_data(),
                                         factorization_info.get_size() > 0 ? factorization_info.get_const_data()
                                                                           : nullptr,
                                         norms.get_const_data(), block_kind, adaptive, accuracy, kinds.get_data(),
                                         precisions.get_data(), summary.get_data()},
                    "block_jacobi::classify_blocks");
    const auto counts = summary.copy_to_host();
    num_singular = static_cast<size_type>(counts[0]);
    first_singular = static_cast<size_type>(counts[1]);
    num_reduced = static_cast<size_type>(counts[2]);
}

template <typename V, typename I>
void compute_block_bytes(const DefaultExecutor& exec, const array<I>& block_pointers, size_type num_blocks,
                         const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                         array<std::int64_t>& byte_offsets)
{
    launch_for_each(exec, static_cast<index64>(num_blocks),
                    ComputeBlockBytes<V, I>{block_pointers.get_const_data(),
                                            kinds.get_size() > 0 ? kinds.get_const_data() : nullptr,
                                            precisions.get_const_data(), byte_offsets.get_data()},
                    "block_jacobi::compute_block_bytes");
}

template <typename V, typename I>
void restore_blocks(const DefaultExecutor& exec, const array<std::uint8_t>& working,
                    const array<std::int64_t>& working_offsets, const array<V>& inverse_diagonal,
                    const array<I>& block_pointers, const array<std::uint8_t>& kinds,
                    const array<std::uint8_t>& precisions, const array<std::int64_t>& byte_offsets,
                    array<std::uint8_t>& storage)
{
    RestoreBlocks<V, I> functor{working.get_const_data(),
                                working_offsets.get_const_data(),
                                inverse_diagonal.get_const_data(),
                                block_pointers.get_const_data(),
                                static_cast<index64>(kinds.get_size()),
                                kinds.get_const_data(),
                                precisions.get_const_data(),
                                byte_offsets.get_const_data(),
                                storage.get_data()};
    launch_for_each(exec, static_cast<index64>(inverse_diagonal.get_size()), functor, "block_jacobi::restore_blocks");
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
        const auto launch = [&](auto kernel) {
            kernel<<<num_blocks_for(num_blocks * subwarp_size), default_block_size>>>(
                num_blocks, alpha, block_pointers.get_const_data(), kinds.get_const_data(),
                precisions.get_const_data(), byte_offsets.get_const_data(), storage.get_const_data(),
                pivots.get_const_data(), static_cast<index64>(x.get_size().cols), b.get_const_values(),
                static_cast<index64>(b.get_stride()), beta, x.get_values(), static_cast<index64>(x.get_stride()));
        };
        // Gauss-Huard blocks come with their pivots; inverses have none
        if (pivots.get_size() > 0) {
            launch(apply_blocks_kernel<subwarp_size, true, V, I>);
        } else {
            launch(apply_blocks_kernel<subwarp_size, false, V, I>);
        }
        check(LARCH_RT(GetLastError)(), "block_jacobi::apply_blocks", __FILE__, __LINE__);
    });
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_BLOCKS_FOR);

}  // namespace block_jacobi
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
