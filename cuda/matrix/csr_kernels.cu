// Device kernels of matrix::Csr: larch's SpMV (rows staged in shared memory by their block, up to 32
// right-hand sides per launch, FEM nodes of rows with one pattern taken together; lanes sized from the
// average row length), the dispatch to cuSPARSE, and the conversions to COO, ELL and Dense and the
// transpose.
#include <cstdint>

#include "core/components/prefix_sum_kernels.hpp"
#include "core/matrix/csr_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/atomic.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/row_products.cuh"
#include "cuda/components/warp.cuh"
#include "cuda/matrix/csr_spmv_cache.cuh"
#if !defined(__HIP__)
#include "cuda/matrix/csr_cusparse.cuh"
#endif

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace csr {
namespace {

using index64 = std::int64_t;

// ---- SpMV ------------------------------------------------------------------------------------------

/// The entries of its row a lane loads before it multiplies the first of them (see strided_row_sum), as
/// measured on the H200 with a 21-nonzero-per-row matrix of 3M rows: 8 for one right-hand side (0.26 ms per
/// SpMV against 0.30 with 4 and 0.28 with 1; the 3D Laplace of 10M rows 0.304 against 0.316 ms with 1); 4
/// for several (8 of them on the former sub-warp layout: 1.30 ms with 4, 1.37 with 1, 1.52 with 8, whose
/// operands took 48 registers instead of 32).
constexpr int entries_in_flight_one_rhs = 8;
constexpr int entries_in_flight_several_rhs = 4;
template <int rhs_slots>
constexpr int entries_in_flight = rhs_slots == 1 ? entries_in_flight_one_rhs : entries_in_flight_several_rhs;

/// Threads per block of spmv_staged_kernel, and how many nonzeros of its rows it stages in shared memory.
constexpr int staged_block_size = 256;
constexpr index64 staged_capacity = 8 * staged_block_size;
/// The entries of the staging loop per thread: unrolled, so that all of a thread's loads are in flight at once.
constexpr int staged_loads_per_thread = static_cast<int>(staged_capacity / staged_block_size);
/// Rows longer than this many entries per lane of their row are summed by the whole block (the row's lanes
/// alone would take a chain of that many dependent additions: an arrow matrix's dense row of 10^6
/// entries, milliseconds).
constexpr index64 long_row_entries_per_lane = 64;

/// Rows per node that the SpMV looks for (FEM matrices with 2, 3 or 4 unknowns per node), and the most.
constexpr int smallest_node_rows = 2;
constexpr int largest_node_rows = 4;

/**
 * num_rhs <= rhs_slots right-hand sides, rhs_slots a power of two up to 32 ("CSR-stream"): a block takes
 * staged_block_size / lanes_per_node consecutive nodes of node_rows rows each, copies their nonzeros (values
 * and column indices, contiguous in CSR) to shared memory with coalesced loads of the whole block, then each
 * node's lanes_per_node lanes sum it from there. Lane l takes right-hand side l % rhs_slots of every
 * (lanes_per_node / rhs_slots)-th entry from the (l / rhs_slots)-th, so consecutive lanes read consecutive
 * entries of one row of b, and the lanes of one right-hand side add up by shuffles; lanes of a slot beyond
 * num_rhs sum nothing. A sub-warp per row reading global memory leaves each lane a chain of dependent loads
 * (column index, then b): a 3D FEM-like matrix of 21 nonzeros per row ran at 31% of copy bandwidth that way
 * on the H200, 61% staged; with 8 right-hand sides 1.30 ms per SpMV that way, 0.65-0.70 ms staged.
 *
 * A node is one row, or node_rows consecutive rows with one pattern (the unknowns of one FEM node; see
 * find_node_rows), whose lanes gather each operand once for all its rows (strided_node_sums): that FEM-like
 * matrix, with 3 unknowns per node, took 0.44 ms per SpMV of 8 right-hand sides instead of 0.70, 1.18 ms
 * of 32 instead of 2.58 (H200). node_rows is a template parameter: as a run-time bound of 4 the node's sums
 * took 48 registers instead of 32 for nodes of 3.
 *
 * A block whose rows hold more than staged_capacity nonzeros reads them from global memory; rows longer than
 * long_row_entries_per_lane entries per lane of their right-hand side are summed by the whole block, one
 * after the other.
 */
template <int lanes_per_node, int rhs_slots, int node_rows, typename V, typename I>
__global__ void __launch_bounds__(staged_block_size)
    spmv_staged_kernel(index64 rows, int num_rhs, V alpha, const I* __restrict__ row_ptrs,
                       const I* __restrict__ col_idxs, const V* __restrict__ values, const V* __restrict__ b,
                       index64 b_stride, V beta, V* __restrict__ x, index64 x_stride)
{
    static_assert(rhs_slots <= lanes_per_node, "every right-hand side needs a lane of the node");
    constexpr int nodes_per_block = staged_block_size / lanes_per_node;
    constexpr int lanes_per_rhs = lanes_per_node / rhs_slots;
    __shared__ V staged_values[staged_capacity];
    __shared__ I staged_cols[staged_capacity];
    __shared__ bool long_nodes[nodes_per_block];
    const index64 first_row = index64{blockIdx.x} * nodes_per_block * node_rows;
    const index64 end_row =
        first_row + nodes_per_block * node_rows < rows ? first_row + nodes_per_block * node_rows : rows;
    const int local_node = static_cast<int>(threadIdx.x) / lanes_per_node;
    const int lane = static_cast<int>(threadIdx.x) % lanes_per_node;
    const int rhs = lane % rhs_slots;
    const int first_entry = lane / rhs_slots;
    // The node's first row (its rows divide `rows`, so all of them exist where it does).
    const index64 row = first_row + index64{local_node} * node_rows;
    // The row's own bounds are loaded before the staging, so that their loads overlap.
    const index64 row_begin = row < rows ? row_ptrs[row] : 0;
    const index64 row_end = row < rows ? row_ptrs[row + 1] : 0;
    const index64 begin = row_ptrs[first_row];
    const index64 count = row_ptrs[end_row] - begin;
    const bool staged = count <= staged_capacity;
    if (staged) {
#pragma unroll
        for (int i = 0; i < staged_loads_per_thread; ++i) {
            const index64 k = threadIdx.x + index64{i} * staged_block_size;
            if (k < count) {
                staged_values[k] = values[begin + k];
                staged_cols[k] = col_idxs[begin + k];
            }
        }
    }
    const bool long_node = row_end - row_begin > long_row_entries_per_lane * lanes_per_rhs;
    if (lane == 0) {
        long_nodes[local_node] = long_node;
    }
    __syncthreads();
    const auto write = [&](index64 out_row, int out_rhs, V sum) {
        V& result = x[out_row * x_stride + out_rhs];
        // beta == 0 must not read x: it may hold NaN or uninitialized memory.
        result = beta == V{0} ? alpha * sum : alpha * sum + beta * result;
    };
    // The condition is the same on all lanes of a node, so the node's shuffles stay complete.
    if (row < rows && !long_node) {
        const auto entry_of_b = [&](I col) { return b[col * b_stride + rhs]; };
        constexpr int in_flight = entries_in_flight<rhs_slots>;
        const index64 row_length = row_end - row_begin;
        // A lane of an unused slot sums an empty range (and still takes part in the shuffles).
        const index64 summed_length = rhs < num_rhs ? row_length : 0;
        V sums[node_rows] = {};
        if (staged) {
            strided_node_sums<in_flight>(row_begin - begin + first_entry, row_begin - begin + summed_length,
                                         index64{lanes_per_rhs}, row_length, staged_values, staged_cols,
                                         entry_of_b, sums);
        } else {
            strided_node_sums<in_flight>(row_begin + first_entry, row_begin + summed_length,
                                         index64{lanes_per_rhs}, row_length, values, col_idxs, entry_of_b,
                                         sums);
        }
#pragma unroll
        for (int j = 0; j < node_rows; ++j) {
            // Lanes l and l ^ offset hold the same right-hand side for every offset >= rhs_slots.
            for (int offset = lanes_per_node / 2; offset >= rhs_slots; offset /= 2) {
                sums[j] += warp::shuffle_xor<lanes_per_node>(sums[j], offset);
            }
            if (lane < num_rhs) {
                write(row + j, rhs, sums[j]);
            }
        }
    }
    if (!__syncthreads_or(long_node)) {
        return;
    }
    for (int t = 0; t < nodes_per_block; ++t) {
        if (!long_nodes[t]) {
            continue;  // uniform over the block: every thread reads the same flag
        }
        for (int j = 0; j < node_rows; ++j) {
            const index64 long_row = first_row + index64{t} * node_rows + j;
            for (int long_rhs = 0; long_rhs < num_rhs; ++long_rhs) {
                V sum = strided_row_sum<entries_in_flight<rhs_slots>>(
                    row_ptrs[long_row] + index64{threadIdx.x}, index64{row_ptrs[long_row + 1]},
                    index64{staged_block_size}, values, col_idxs,
                    [&](I col) { return b[col * b_stride + long_rhs]; });
                sum = block_all_reduce<staged_block_size>(sum, warp::Sum{});
                if (threadIdx.x == 0) {
                    write(long_row, long_rhs, sum);
                }
            }
        }
    }
}

/**
 * Clears bit k of *node_sizes (k = smallest_node_rows..largest_node_rows) where `row` does not repeat the
 * pattern (length and column indices) of the first row of its aligned group of k rows.
 */
template <typename I>
__global__ void find_rows_off_their_node(index64 rows, const I* __restrict__ row_ptrs,
                                         const I* __restrict__ col_idxs, unsigned* __restrict__ node_sizes)
{
    const index64 row = index64{blockIdx.x} * blockDim.x + threadIdx.x;
    if (row >= rows) {
        return;
    }
    const index64 begin = row_ptrs[row];
    const index64 length = row_ptrs[row + 1] - begin;
    unsigned mismatches = 0;
    for (int k = smallest_node_rows; k <= largest_node_rows; ++k) {
        const index64 first = row - row % k;
        const index64 first_begin = row_ptrs[first];
        bool same = row_ptrs[first + 1] - first_begin == length;
        for (index64 e = 0; same && e < length; ++e) {
            same = col_idxs[first_begin + e] == col_idxs[begin + e];
        }
        mismatches |= same ? 0u : 1u << k;
    }
    if (mismatches != 0) {
        atomicAnd(node_sizes, ~mismatches);
    }
}

/**
 * The rows per node of `a`: the largest k in smallest_node_rows..largest_node_rows that divides the row
 * count and such that every aligned group of k rows shares one pattern; 1 where there is none. Found once
 * per matrix (a pass over the pattern and one read back) and kept in its SpMV cache.
 */
template <typename V, typename I>
int find_node_rows(const DefaultExecutor& exec, const matrix::Csr<V, I>& a)
{
    const auto cache = spmv_cache_of(exec, a);
    const int known = cache->node_rows.load();
    if (known != 0) {
        return known;
    }
    const index64 rows = a.get_size().rows;
    unsigned candidates = 0;
    for (int k = smallest_node_rows; k <= largest_node_rows; ++k) {
        candidates |= rows > 0 && rows % k == 0 ? 1u << k : 0u;
    }
    int node_rows = 1;
    if (candidates != 0) {
        array<unsigned> node_sizes{exec.shared_from_this(), {candidates}};
        find_rows_off_their_node<<<num_blocks_for(rows), default_block_size>>>(
            rows, a.get_const_row_ptrs(), a.get_const_col_idxs(), node_sizes.get_data());
        LARCH_LAUNCH_CHECK("csr::find_rows_off_their_node");
        const unsigned found = node_sizes.copy_to_host()[0];
        for (int k = smallest_node_rows; k <= largest_node_rows; ++k) {
            node_rows = found & (1u << k) ? k : node_rows;
        }
    }
    cache->node_rows.store(node_rows);
    return node_rows;
}

/// Launches spmv_staged_kernel<lanes_per_node, rhs_slots, node_rows> on the columns of b and x from
/// first_rhs on.
template <int lanes_per_node, int rhs_slots, int node_rows, typename V, typename I>
void launch_staged_kernel(index64 first_rhs, int num_rhs, V alpha, const matrix::Csr<V, I>& a,
                          const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const index64 rows = a.get_size().rows;
    constexpr index64 rows_per_block = staged_block_size / lanes_per_node * node_rows;
    spmv_staged_kernel<lanes_per_node, rhs_slots, node_rows>
        <<<static_cast<unsigned>(ceildiv(rows, rows_per_block)), staged_block_size>>>(
            rows, num_rhs, alpha, a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(),
            b.get_const_values() + first_rhs, b.get_stride(), beta, x.get_values() + first_rhs, x.get_stride());
    LARCH_LAUNCH_CHECK("csr::spmv_staged_kernel");
}

/// Whether the automatic choice keeps larch's kernel on large matrices: every count of right-hand sides
/// but one, and one on rows of at most 21 nonzeros on average (the longest measured faster than cuSPARSE
/// there: 1.26x on the 3D Laplace of 7, 1.1x on an FEM-like matrix of 21 on the H200).
bool staged_kernel_beats_vendor(index64 num_rhs, index64 average_row_nnz)
{
    constexpr index64 longest_rows_measured_faster = 21;
    return num_rhs > 1 || average_row_nnz <= longest_rows_measured_faster;
}

/// The average row length larch_spmv sizes its kernels by (rounded up).
template <typename V, typename I>
index64 average_row_length(const matrix::Csr<V, I>& a)
{
    return ceildiv(static_cast<index64>(a.get_num_stored_elements()), static_cast<index64>(a.get_size().rows));
}

template <typename V, typename I>
void larch_spmv(const DefaultExecutor& exec, V alpha, const matrix::Csr<V, I>& a,
                const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const index64 rows = a.get_size().rows;
    const index64 num_rhs = x.get_size().cols;
    if (rows == 0 || num_rhs == 0) {
        return;
    }
    // Lanes per node sized from the average row length ("CSR-smart"): short rows waste no lanes, long rows
    // get up to a warp. A row much longer than the average still runs correctly, only on fewer lanes than
    // it could use.
    const index64 average_row_nnz = average_row_length(a);
    // Nodes of several rows serve several right-hand sides (measured there; one right-hand side gathers
    // little, and the search would cost the first product of every matrix a read back).
    const int node_rows = num_rhs > 1 ? find_node_rows(exec, a) : 1;
    // Up to 32 right-hand sides per launch, each launch on the next columns of b and x.
    for (index64 first_rhs = 0; first_rhs < num_rhs; first_rhs += max_subwarp_size) {
        const index64 launch_rhs = std::min<index64>(num_rhs - first_rhs, max_subwarp_size);
        const int launch_node_rows = launch_rhs > 1 ? node_rows : 1;
        // Slots: the count rounded up to a power of two (3 right-hand sides leave one lane of four idle).
        index64 rhs_slots = 1;
        while (rhs_slots < launch_rhs) {
            rhs_slots *= 2;
        }
        // rhs_slots lanes per node times one per 32 nonzeros of the average row, and at least one lane per 8
        // nonzeros of the node, so that a block's nodes about fill its staging (8 entries per thread) and no
        // more. On a 21-nonzero-per-row matrix of 3M rows (H200), rows one by one: 8 right-hand sides on 8
        // lanes 0.65 ms, on 32 lanes 1.30 ms (the former pair kernel with one lane per 8 products); 2 of them
        // on 2 lanes overflowed the staging into global reads (1.14 ms) where 4 lanes took 0.31 ms.
        const index64 node_nnz = launch_node_rows * average_row_nnz;
        const index64 needed = std::clamp<index64>(
            std::max(rhs_slots * ceildiv(average_row_nnz, index64{32}), ceildiv(node_nnz, index64{8})), rhs_slots,
            max_subwarp_size);
        dispatch_subwarp_size<1, 2, 4, 8, 16, 32>(static_cast<int>(rhs_slots), [&](auto slots) {
            constexpr int staged_slots = decltype(slots)::value;
            dispatch_subwarp_size<1, 2, 4, 8, 16, 32>(static_cast<int>(needed), [&](auto lanes) {
                constexpr int lanes_per_node = decltype(lanes)::value;
                // needed >= rhs_slots, and nodes of several rows come with several right-hand sides, so the
                // other combinations never run and are not compiled.
                if constexpr (lanes_per_node >= staged_slots) {
                    const auto launch = [&](auto rows_of_node) {
                        launch_staged_kernel<lanes_per_node, staged_slots, decltype(rows_of_node)::value>(
                            first_rhs, static_cast<int>(launch_rhs), alpha, a, b, beta, x);
                    };
                    if (launch_node_rows == 1) {
                        launch(std::integral_constant<int, 1>{});
                    } else if constexpr (staged_slots > 1) {
                        static_assert(smallest_node_rows == 2 && largest_node_rows == 4, "one case per size");
                        switch (launch_node_rows) {
                            case 2:
                                launch(std::integral_constant<int, 2>{});
                                break;
                            case 3:
                                launch(std::integral_constant<int, 3>{});
                                break;
                            default:
                                launch(std::integral_constant<int, 4>{});
                        }
                    }
                }
            });
        });
    }
}

// ---- conversions: one thread per row unless said otherwise ----------------------------------------

template <typename I>
struct ExpandRowPtrs {
    const I* row_ptrs;
    I* row_idxs;
    __device__ void operator()(index64 row) const
    {
        for (I k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            row_idxs[k] = static_cast<I>(row);
        }
    }
};

template <typename I>
struct RowLength {
    const I* row_ptrs;
    __device__ I operator()(index64 row, index64) const
    {
        return row_ptrs[row + 1] - row_ptrs[row];
    }
};

/// Writes row `row` of the ELL matrix, padding included; consecutive threads write consecutive
/// addresses (the ELL layout is column-major).
template <typename V, typename I>
struct FillEllRow {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    index64 num_stored_per_row;
    index64 stride;
    I* ell_col_idxs;
    V* ell_values;
    __device__ void operator()(index64 row) const
    {
        const index64 begin = row_ptrs[row];
        const index64 row_nnz = row_ptrs[row + 1] - begin;
        for (index64 slot = 0; slot < num_stored_per_row; ++slot) {
            const index64 out = slot * stride + row;
            const bool is_entry = slot < row_nnz;
            ell_col_idxs[out] = is_entry ? col_idxs[begin + slot] : I{-1};  // Ell::invalid_index
            ell_values[out] = is_entry ? values[begin + slot] : V{0};
        }
    }
};

template <typename V, typename I>
struct ScatterToDense {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    V* dense;
    index64 stride;
    __device__ void operator()(index64 row) const
    {
        for (I k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            dense[row * stride + col_idxs[k]] = values[k];
        }
    }
};

// ---- transpose: count per column, prefix sum, scatter, then sort each output row ----------------

/// One thread per nonzero: counts the nonzeros of each column into the output row pointers.
template <typename I>
struct CountColumns {
    const I* col_idxs;
    I* column_counts;
    __device__ void operator()(index64 k) const { atomic_add(column_counts + col_idxs[k], I{1}); }
};

/// One thread per source row: claims a slot of each of its entries' output rows with an atomic. The
/// order inside an output row depends on the scheduling, so SortTransposedRows restores it.
template <typename V, typename I>
struct ScatterTransposed {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    I* next_slot;
    I* unsorted_col_idxs;
    V* unsorted_values;
    __device__ void operator()(index64 row) const
    {
        for (I k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            const I slot = atomic_add(next_slot + col_idxs[k], I{1});
            unsorted_col_idxs[slot] = static_cast<I>(row);
            unsorted_values[slot] = values[k];
        }
    }
};

/// One thread per output nonzero: finds its row by binary search, then its rank among the row's
/// (distinct) column indices, and writes itself there. O(length^2) work per row, spread over the
/// row's threads; deterministic and exactly the reference's order.
template <typename V, typename I>
struct SortTransposedRows {
    const I* row_ptrs;
    index64 num_rows;
    const I* unsorted_col_idxs;
    const V* unsorted_values;
    I* col_idxs;
    V* values;
    __device__ void operator()(index64 k) const
    {
        index64 low = 0;  // invariant: row_ptrs[low] <= k < row_ptrs[high]
        index64 high = num_rows;
        while (high - low > 1) {
            const index64 middle = (low + high) / 2;
            if (row_ptrs[middle] <= k) {
                low = middle;
            } else {
                high = middle;
            }
        }
        const index64 begin = row_ptrs[low];
        const index64 end = row_ptrs[low + 1];
        const I col = unsorted_col_idxs[k];
        index64 rank = 0;
        for (index64 other = begin; other < end; ++other) {
            rank += unsorted_col_idxs[other] < col ? 1 : 0;
        }
        col_idxs[begin + rank] = col;
        values[begin + rank] = unsorted_values[k];
    }
};

}  // namespace

template <typename V, typename I>
void spmv(const DefaultExecutor& exec, V alpha, const matrix::Csr<V, I>& a,
          const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    switch (a.get_spmv_algorithm()) {
        case matrix::CsrSpmvAlgorithm::larch:
            larch_spmv(exec, alpha, a, b, beta, x);
            return;
        case matrix::CsrSpmvAlgorithm::vendor:
#if defined(__HIP__)
            LARCH_THROW(NotSupported,
                        "Csr::apply: the vendor SpMV (cuSPARSE) exists only on CUDA; on HIP use "
                        "CsrSpmvAlgorithm::larch or automatic");
#else
            LARCH_ENSURE(
                cusparse_accepts(a, b, x), NotSupported,
                "Csr::apply: the vendor SpMV (cuSPARSE) needs 16-byte aligned arrays, and an "
                "operand is a view at an unaligned offset; use CsrSpmvAlgorithm::larch or "
                "automatic");
            cusparse_spmv(exec, alpha, a, b, beta, x);
            return;
#endif
        case matrix::CsrSpmvAlgorithm::automatic:
        default:
            // The faster one as measured: larch's kernel below 2^23 nonzeros (2-3.5x faster than a cuSPARSE
            // call on the real matrices of 2e4-3e5 nonzeros, where the call's fixed cost dominates; H100,
            // benchmark/results/spmv_h100.md). From there on larch's staged kernel where
            // staged_kernel_beats_vendor says so (several right-hand sides: 8 of them 4.5x
            // cuSPARSE's SpMM on the FEM-like matrix, 4.0x on the 3D Laplace; one on rows of at most 21
            // nonzeros: 1.10-1.26x; H200, spmv_columns_h200.json), cuSPARSE otherwise. HIP has only larch's
            // kernel.
#if !defined(__HIP__)
            constexpr size_type vendor_min_nonzeros = size_type{1} << 23;
            if (a.get_num_stored_elements() >= vendor_min_nonzeros &&
                !staged_kernel_beats_vendor(static_cast<index64>(x.get_size().cols), average_row_length(a)) &&
                cusparse_accepts(a, b, x)) {
                cusparse_spmv(exec, alpha, a, b, beta, x);
                return;
            }
#endif
            larch_spmv(exec, alpha, a, b, beta, x);
            return;
    }
}

template <typename V, typename I>
void convert_to_coo(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                    matrix::Coo<V, I>& result)
{
    launch_for_each(exec, source.get_size().rows,
                    ExpandRowPtrs<I>{source.get_const_row_ptrs(), result.get_row_idxs()},
                    "launch of csr::convert_to_coo");
}

template <typename V, typename I>
void compute_max_row_nnz(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                         size_type& result)
{
    const index64 rows = source.get_size().rows;
    if (rows == 0) {
        result = 0;
        return;
    }
    array<I> max_row_nnz{exec.shared_from_this(), 1};
    reduce_columns(exec, rows, 1, RowLength<I>{source.get_const_row_ptrs()}, warp::Max{}, I{0},
                   KeepTotal{}, max_row_nnz.get_data());
    result = static_cast<size_type>(max_row_nnz.copy_to_host()[0]);
}

template <typename V, typename I>
void convert_to_ell(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                    matrix::Ell<V, I>& result)
{
    launch_for_each(exec, source.get_size().rows,
                    FillEllRow<V, I>{source.get_const_row_ptrs(), source.get_const_col_idxs(),
                                     source.get_const_values(),
                                     static_cast<index64>(result.get_num_stored_per_row()),
                                     static_cast<index64>(result.get_stride()),
                                     result.get_col_idxs(), result.get_values()},
                    "launch of csr::convert_to_ell");
}

template <typename V, typename I>
void convert_to_dense(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                      matrix::Dense<V>& result)
{
    launch_for_each(exec, source.get_size().rows,
                    ScatterToDense<V, I>{source.get_const_row_ptrs(), source.get_const_col_idxs(),
                                         source.get_const_values(), result.get_values(),
                                         static_cast<index64>(result.get_stride())},
                    "launch of csr::convert_to_dense");
}

template <typename V, typename I>
void transpose(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
               matrix::Csr<V, I>& result)
{
    const index64 rows = source.get_size().rows;
    const index64 cols = source.get_size().cols;
    const index64 nnz = source.get_num_stored_elements();
    I* transposed_row_ptrs = result.get_row_ptrs();
    LARCH_DEVICE_CHECK(LARCH_RT(Memset)(transposed_row_ptrs, 0, (cols + 1) * sizeof(I)));
    launch_for_each(exec, nnz, CountColumns<I>{source.get_const_col_idxs(), transposed_row_ptrs},
                    "launch of csr::transpose (count)");
    components::prefix_sum(exec, transposed_row_ptrs, cols + 1);
    if (nnz == 0) {
        return;
    }
    const auto device = exec.shared_from_this();
    array<I> next_slot{device, static_cast<size_type>(cols)};
    LARCH_DEVICE_CHECK(LARCH_RT(Memcpy)(next_slot.get_data(), transposed_row_ptrs, cols * sizeof(I),
                                        LARCH_RT(MemcpyDeviceToDevice)));
    array<I> unsorted_col_idxs{device, static_cast<size_type>(nnz)};
    array<V> unsorted_values{device, static_cast<size_type>(nnz)};
    launch_for_each(
        exec, rows,
        ScatterTransposed<V, I>{source.get_const_row_ptrs(), source.get_const_col_idxs(),
                                source.get_const_values(), next_slot.get_data(),
                                unsorted_col_idxs.get_data(), unsorted_values.get_data()},
        "launch of csr::transpose (scatter)");
    launch_for_each(
        exec, nnz,
        SortTransposedRows<V, I>{transposed_row_ptrs, cols, unsorted_col_idxs.get_const_data(),
                                 unsorted_values.get_const_data(), result.get_col_idxs(),
                                 result.get_values()},
        "launch of csr::transpose (sort)");
}

LARCH_INSTANTIATE_CSR_KERNELS();

}  // namespace csr
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
