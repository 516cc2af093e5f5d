// CUDA/HIP kernels of the batched Krylov solvers: the whole solve of every item in ONE launch, one thread
// block per item (one warp per item for items of at most 32 rows, see SolverPolicy) running the per-item
// algorithm of core/batch/solver/krylov_item_algorithms.hpp, its SpMV the device routines of the batched
// sparse SpMV (batch_sparse_spmv.cuh), its dot products all-reduces of its team. An item that has
// converged (or failed) leaves the kernel while its neighbours iterate on; there is no host
// synchronization between iterations.
//
// Memory: when the Krylov vectors, the Jacobi scales, x_i and the method's scalars of the largest
// item fit in shared memory (see SolverPolicy::shared_bytes), every item works on shared copies and
// writes x_i back at the end. Otherwise (items of a few thousand rows, heterogeneous batches of large
// items, or GMRES with a long restart) every item works in a global workspace of vectors x rows_i +
// scalars values and on b_i and x_i in place. Each kernel is compiled once per path, so that the shared
// path's vector accesses are shared-memory loads and stores rather than generic ones. H200, 100,000 items
// of 1,024 rows against the one-kernel form: CG + Jacobi 3-point 625 -> 559 ms, 5-point 107 -> 96, ELL
// 636 -> 547; 256-row BiCGSTAB 99 -> 83; 5-point BiCGSTAB 158 -> 162 (benchmark/results/
// batch_solver_shared_path_ab_h200.log).
//
// Two small kernels (a warp per item) serve the right-hand-side scaling of the solve's driver
// (core/base/right_hand_side_scale.hpp): the per-item scales, and multiplying items by factors.
#include <algorithm>
#include <cstdint>

#include "core/batch/batch_solver_kernels.hpp"
#include "core/batch/solver/krylov_item_algorithms.hpp"
#include "core/base/right_hand_side_scale.hpp"
#include "core/components/instantiation.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/batch/batch_sparse_spmv.cuh"
#include "cuda/components/reduction.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_solver {

using batch_sparse::Operands;

/// The threads that solve one item: a whole thread block (one item per block), compiled so that the
/// registers leave room for `min_blocks` blocks per multiprocessor (0: the compiler's choice; a minimum
/// of 1 is not the same, it lets a kernel take up to 255 registers) ...
template <int block_size, int min_blocks = 0>
struct BlockPerItem {
    static constexpr int size = block_size;
    static constexpr int items_per_block = 1;
    static constexpr int min_blocks_per_sm = min_blocks;
    __device__ static int rank() { return static_cast<int>(threadIdx.x); }
    __device__ static int slot() { return 0; }
    __device__ static void sync() { __syncthreads(); }
    /// Before a dot product reads what this thread wrote: nothing, its all-reduce synchronizes the block.
    __device__ static void order_for_dot() {}
    template <typename T>
    __device__ static T sum(T value)
    {
        return block_all_reduce<block_size>(value, warp::Sum{});
    }
};

/// ... or one warp, block_size / 32 items of at most a few dozen rows packed into a block: a block per item
/// would leave most of its threads idle and wait at block barriers. A warp has no barrier with the others,
/// so a warp past the batch's end returns at once.
template <int block_size>
struct WarpPerItem {
    static constexpr int size = 32;
    static constexpr int items_per_block = block_size / 32;
    static constexpr int min_blocks_per_sm = 0;
    __device__ static int rank() { return static_cast<int>(threadIdx.x % 32); }
    __device__ static int slot() { return static_cast<int>(threadIdx.x / 32); }
    __device__ static void sync() { warp::sync<32>(); }
    /// Before a dot product: a warp barrier still, since the all-reduce's shuffles do not order the
    /// lanes' shared-memory writes before the reads that follow it.
    __device__ static void order_for_dot() { warp::sync<32>(); }
    template <typename T>
    __device__ static T sum(T value)
    {
        return warp::all_reduce_sum<32>(value);
    }
};

template <typename Team>
__device__ batch_sparse::Team rows_team()
{
    return {Team::rank(), Team::size};
}

/// x = A_i b as the SpMV routines take it: alpha 1, beta 0 (x only written), one column, b not staged.
template <typename T>
__device__ Operands<T> plain_product()
{
    return {T{1}, T{}, nullptr, nullptr, nullptr, nullptr, 1, false};
}

/// One CSR item: scalar rows (a thread per row) for items of fewer than 32 nonzeros per row on average,
/// smart rows otherwise (which take a warp per row for them; balanced is not used: its
/// precomputed segments assume the SpMV kernel's staging of b, which the solver replaces). The threshold
/// is twice the SpMV kernel's: smart, used above 16 before, rounds the mean up, so items of 16..31 per
/// row got a 32-lane warp per row, half of it idle, one row after another (H100, 10,000 items of the
/// shared matrices, Jacobi: BiCGSTAB on the solvable pool 0.504 -> 0.186 s, CG 0.189 -> 0.110 s, on the
/// whole pool 0.880 -> 0.763 and 0.502 -> 0.426 s; 16-lane sub-warps there gained less: 0.351, 0.131,
/// 0.804, 0.429 s). The rows are shared by the threads of `team` (a block, or one warp: WarpPerItem).
template <typename T, typename I>
struct CsrItemMatrix {
    static constexpr bool warp_capable = true;
    batch_sparse::CsrItem<T, I> item;
    bool scalar;

    __device__ int rows() const { return item.at.rows; }
    /// Whether apply computes row r on the thread of rank r % team size (as for_rows and dot take rows).
    __device__ bool rows_by_rank() const { return scalar; }
    __device__ void apply(const T* in, T* out, batch_sparse::Team team) const
    {
        if (scalar) {
            batch_sparse::csr_subwarp_rows<1>(item.at.rows, item.values, item.col_idxs, item.row_ptrs, in,
                                              plain_product<T>(), out, team);
        } else {
            batch_sparse::csr_smart_item(item, in, plain_product<T>(), out, team);
        }
    }
    /// diag[r] = A(r, r) (0 if not stored), one thread per row.
    __device__ void diagonal(T* diag, batch_sparse::Team team) const
    {
        for (int row = team.rank; row < item.at.rows; row += team.size) {
            T entry{};
            for (I nz = item.row_ptrs[row]; nz < item.row_ptrs[row + 1]; ++nz) {
                if (item.col_idxs[nz] == row) {
                    entry = item.values[nz];
                }
            }
            diag[row] = entry;
        }
    }
};

template <typename T, typename I>
struct CsrBatch {
    using Item = CsrItemMatrix<T, I>;
    batch_sparse::CsrView<T, I> view;
    __device__ CsrItemMatrix<T, I> item(std::int64_t index) const
    {
        const auto item = batch_sparse::csr_item(view, index);
        return {item, static_cast<int>(item.row_ptrs[item.at.rows]) < 32 * item.at.rows};
    }
};

/// One COO item: the segmented-scan SpMV of batch::Coo, which needs the whole block (its `team`).
template <typename T, typename I>
struct CooItemMatrix {
    static constexpr bool warp_capable = false;
    int num_rows;
    int nnz;
    const T* values;
    const I* row_idxs;
    const I* col_idxs;

    __device__ int rows() const { return num_rows; }
    __device__ bool rows_by_rank() const { return false; }
    __device__ void apply(const T* in, T* out, batch_sparse::Team) const
    {
        const auto op = plain_product<T>();
        batch_sparse::scale_item_x(num_rows, op, out);
        const I* item_rows = row_idxs;
        batch_sparse::accumulate_row_runs(
            nnz, values, col_idxs,
            [item_rows](int) { return [item_rows](int nz) { return item_rows[nz]; }; }, in, op, out);
    }
    /// Zeros, then each stored diagonal entry (unique) written by the thread that meets it.
    __device__ void diagonal(T* diag, batch_sparse::Team) const
    {
        for (int row = threadIdx.x; row < num_rows; row += blockDim.x) {
            diag[row] = T{};
        }
        __syncthreads();
        for (int nz = threadIdx.x; nz < nnz; nz += blockDim.x) {
            if (row_idxs[nz] == col_idxs[nz]) {
                diag[row_idxs[nz]] = values[nz];
            }
        }
    }
};

template <typename T, typename I>
struct CooBatch {
    using Item = CooItemMatrix<T, I>;
    const std::int32_t* rows;
    const std::int64_t* stored_offsets;
    bool shared_pattern;
    const T* values;
    const I* row_idxs;
    const I* col_idxs;
    __device__ CooItemMatrix<T, I> item(std::int64_t index) const
    {
        const auto at = batch_sparse::item_offsets(rows, rows, stored_offsets, shared_pattern, index);
        return {at.rows, static_cast<int>(stored_offsets[index + 1] - at.values), values + at.values,
                row_idxs + at.pattern, col_idxs + at.pattern};
    }
};

/// One ELL item: one thread of its team per row over the column-major slots.
template <typename T, typename I>
struct EllItemMatrix {
    static constexpr bool warp_capable = true;
    int num_rows;
    int width;
    const T* values;
    const I* col_idxs;

    __device__ int rows() const { return num_rows; }
    __device__ bool rows_by_rank() const { return true; }
    __device__ void apply(const T* in, T* out, batch_sparse::Team team) const
    {
        batch_sparse::ell_rows<batch_sparse::SparsePolicy::solver_ell_slots_in_flight>(
            num_rows, width, values, col_idxs, in, plain_product<T>(), out, team);
    }
    __device__ void diagonal(T* diag, batch_sparse::Team team) const
    {
        for (int row = team.rank; row < num_rows; row += team.size) {
            T entry{};
            for (int slot = 0; slot < width; ++slot) {
                const auto position = std::int64_t{slot} * num_rows + row;
                if (col_idxs[position] == row) {
                    entry = values[position];
                }
            }
            diag[row] = entry;
        }
    }
};

template <typename T, typename I>
struct EllBatch {
    using Item = EllItemMatrix<T, I>;
    const std::int32_t* rows;
    const std::int64_t* stored_offsets;
    bool shared_pattern;
    const T* values;
    const I* col_idxs;
    __device__ EllItemMatrix<T, I> item(std::int64_t index) const
    {
        const auto at = batch_sparse::item_offsets(rows, rows, stored_offsets, shared_pattern, index);
        return {at.rows, static_cast<int>((stored_offsets[index + 1] - at.values) / at.rows),
                values + at.values, col_idxs + at.pattern};
    }
};

template <typename T, typename I>
CsrBatch<T, I> batch_view(const ::larch::batch::Csr<T, I>& a)
{
    return {batch_sparse::view_of<I>(a)};
}

template <typename T, typename I>
CooBatch<T, I> batch_view(const ::larch::batch::Coo<T, I>& a)
{
    const auto& layout = a.get_layout();
    return {layout.get_const_rows(), layout.get_const_stored_offsets(), layout.has_shared_pattern(),
            a.get_const_values(), a.get_const_row_idxs(), a.get_const_col_idxs()};
}

template <typename T, typename I>
EllBatch<T, I> batch_view(const ::larch::batch::Ell<T, I>& a)
{
    const auto& layout = a.get_layout();
    return {layout.get_const_rows(), layout.get_const_stored_offsets(), layout.has_shared_pattern(),
            a.get_const_values(), a.get_const_col_idxs()};
}

/// The Item of krylov_item_algorithms.hpp for one team (a block or a warp, see BlockPerItem): rows
/// strided over its threads, a barrier after every SpMV and vector update, except where a dot product reads
/// the rows next on the threads that wrote them (ReadBy), dot products by the team's all-reduce (the same
/// value on every thread).
template <typename Team, typename T, typename Matrix>
struct TeamItem {
    Matrix matrix;
    T* workspace;
    const T* jacobi;
    /// Block-Jacobi per row of this item, or null (see HostItem).
    const std::int32_t* block_first_rows;
    const std::int32_t* block_sizes;
    const std::int64_t* block_inverse_rows;
    const T* block_inverses;
    const std::int32_t* block_gather_rows;
    T* history;
    T* scalar_storage;

    __device__ int rows() const { return matrix.rows(); }
    __device__ T* vector(int k) const { return workspace + static_cast<std::int64_t>(k) * matrix.rows(); }
    using ReadBy = ::larch::batch::item::ReadBy;
    /// The end of a step: no barrier where a dot product reads the rows next and the step wrote each row
    /// on the thread that dots it (`own_rows`), else the team's barrier.
    __device__ static void end_step(ReadBy next, bool own_rows)
    {
        if (next == ReadBy::dot && own_rows) {
            Team::order_for_dot();
        } else {
            Team::sync();
        }
    }
    template <typename F>
    __device__ void for_rows(F f, ReadBy next = ReadBy::any) const
    {
        for (int row = Team::rank(); row < matrix.rows(); row += Team::size) {
            f(row);
        }
        end_step(next, true);
    }
    __device__ T dot(const T* u, const T* v) const
    {
        T sum{};
        for (int row = Team::rank(); row < matrix.rows(); row += Team::size) {
            sum = fma(u[row], v[row], sum);
        }
        return Team::sum(sum);
    }
    __device__ void spmv(const T* in, T* out, ReadBy next = ReadBy::any) const
    {
        matrix.apply(in, out, rows_team<Team>());
        end_step(next, matrix.rows_by_rank());
    }
    __device__ void precondition(const T* in, T* out, ReadBy next = ReadBy::any) const
    {
        const T* scales = jacobi;
        const TeamItem& self = *this;
        for_rows(
            [=, &self](int row) {
                out[row] = self.block_inverses
                               ? ::larch::batch::item::block_row_product(
                                     self.block_inverses + self.block_inverse_rows[row], in,
                                     self.block_first_rows[row], self.block_gather_rows, self.block_sizes[row])
                           : scales ? scales[row] * in[row]
                                    : in[row];
            },
            next);
    }
    __device__ void record(int iteration, T norm) const
    {
        if (history && Team::rank() == 0) {
            history[iteration] = norm;
        }
    }
    __device__ T* scalars() const { return scalar_storage; }
    template <typename F>
    __device__ void single(F f) const
    {
        if (Team::rank() == 0) {
            f();
        }
        Team::sync();
    }
};

/// Where b, x and the global workspace (null: shared-memory path) are; on the shared path, the values
/// each item of a block owns there (`shared_stride`: vectors, x_i and scalars of the largest item).
/// Teams take their items in the layout's work order (largest stored-entry count first; null: item
/// order), so the longest solves start first instead of ending the launch alone.
template <typename T>
struct SolveOperands {
    const T* b;
    T* x;
    const std::int64_t* offsets;
    T* global_workspace;
    std::int64_t shared_stride;
    std::int64_t num_items;
    const std::int64_t* work_order;
};

template <typename Team, typename Method, typename T, typename Batch, bool in_shared>
__global__ void __launch_bounds__(Team::size * Team::items_per_block, Team::min_blocks_per_sm)
    solve_kernel(Batch a, ::larch::batch::SolveSettings settings, SolveOperands<T> operands,
                 ::larch::batch::SolveOutputs<T> outputs)
{
    // One item per team, rows strided over its threads; the item's whole solve, then its results.
    namespace item_algorithms = ::larch::batch::item;
    extern __shared__ __align__(16) unsigned char solver_storage[];
    const std::int64_t position = std::int64_t{blockIdx.x} * Team::items_per_block + Team::slot();
    if (position >= operands.num_items) {
        return;  // only a warp of the last block of WarpPerItem, which shares no barrier
    }
    const std::int64_t index = batch_sparse::item_in_work_order(operands.work_order, position);
    const auto matrix = a.item(index);
    const int rows = matrix.rows();
    const bool jacobi = settings.preconditioner == ::larch::batch::ItemPreconditioner::jacobi;
    // Layout per item: [Krylov vectors | Jacobi scales | (shared path: x_i) | scalars]. b_i stays in global
    // memory: it is read for the first residual and for true-residual checks only.
    const int num_vectors = Method::num_vectors(settings.krylov_dim) + (jacobi ? 1 : 0);
    const int num_scalars = Method::num_scalars(settings.krylov_dim);
    const std::int64_t offset = operands.offsets[index];
    // The path is a template argument so that on the shared one the compiler sees every vector come from
    // shared memory: shared loads and stores instead of generic ones, which may not alias the matrix.
    T* workspace;
    T* item_x;
    T* scalars;
    if constexpr (in_shared) {
        workspace = reinterpret_cast<T*>(solver_storage) + Team::slot() * operands.shared_stride;
        item_x = workspace + std::int64_t{num_vectors} * rows;
        scalars = item_x + rows;
    } else {
        workspace = operands.global_workspace + num_vectors * offset + num_scalars * index;
        item_x = operands.x + offset;
        scalars = workspace + std::int64_t{num_vectors} * rows;
    }
    const T* item_b = operands.b + offset;
    if constexpr (in_shared) {
        for (int row = Team::rank(); row < rows; row += Team::size) {
            item_x[row] = operands.x[offset + row];
        }
    }
    T* jacobi_scales =
        jacobi ? workspace + std::int64_t{Method::num_vectors(settings.krylov_dim)} * rows : nullptr;
    if (jacobi) {
        matrix.diagonal(jacobi_scales, rows_team<Team>());
        Team::sync();
        for (int row = Team::rank(); row < rows; row += Team::size) {
            jacobi_scales[row] = item_algorithms::jacobi_scale(jacobi_scales[row]);
        }
    }
    Team::sync();
    const auto slot = outputs.history_slots[index];
    T* history = slot < 0 ? nullptr : outputs.history + std::int64_t{slot} * (settings.max_iterations + 1);
    const bool blocks = outputs.block_inverses != nullptr;
    TeamItem<Team, T, decltype(matrix)> item{matrix,
                                             workspace,
                                             jacobi_scales,
                                             blocks ? outputs.block_first_rows + offset : nullptr,
                                             blocks ? outputs.block_sizes + offset : nullptr,
                                             blocks ? outputs.block_inverse_rows + offset : nullptr,
                                             outputs.block_inverses,
                                             blocks && outputs.block_gather_rows && outputs.block_item_matched[index]
                                                 ? outputs.block_gather_rows + offset
                                                 : nullptr,
                                             history,
                                             scalars};
    const item_algorithms::ItemCriterion<T> criterion{
        outputs.tolerances[index], settings.absolute_tolerance, settings.max_iterations,
        settings.max_residual_replacements, settings.krylov_dim, static_cast<T>(settings.kappa)};
    const auto outcome = item_algorithms::solve_item<Method>(item, criterion, item_b, item_x);
    if constexpr (in_shared) {
        for (int row = Team::rank(); row < rows; row += Team::size) {
            operands.x[offset + row] = item_x[row];
        }
    }
    if (Team::rank() == 0) {
        outputs.statuses[index] = static_cast<std::int32_t>(outcome.status);
        outputs.iterations[index] = outcome.iterations;
        outputs.residual_norms[index] = outcome.residual_norm;
        outputs.thresholds[index] = outcome.threshold;
    }
}

/// Launch policy of the solve kernels. Batches of items up to 32 rows in CSR or ELL: a warp per item, 4
/// items per block (WarpPerItem; H100, 100,000 3-point items of 32 rows: GMRES(10) + Jacobi, 396
/// iterations, 165 -> 84 ms, BiCGSTAB + Jacobi 7.5-8.0 -> 5.7-5.8 ms; COO needs its block's barriers).
/// Otherwise a block per item: 64 threads (a thread per row) for items up to 64 rows, 128 above, and 256
/// where every item has at least 512 rows. With thousands of items the blocks, not the threads of one
/// block, fill the device, except where each item's vectors take so much shared memory that only 3-4
/// blocks fit on a multiprocessor (1,024 rows: CG + Jacobi 48 KB, BiCGSTAB 64 KB): 128 threads then leave
/// 12-16 warps per multiprocessor, each thread walks 8 rows one after the other in every step of an
/// iteration, and the iteration's latency, not the memory, sets the time (the H100 and the H200, 1.45x
/// its bandwidth, took the same 0.87 s for CG on 100,000 such items). 256 threads take 4 rows each; their
/// kernels are held to 64 registers so that four blocks fit, as many as the shared memory allows for CG +
/// Jacobi. H200, 100,000 items of 1,024 rows, 128 threads -> 512 threads held to two blocks -> 256 held
/// to four: CG + Jacobi 3-point 0.873 -> 0.767 -> 0.634 s, 5-point 0.147 -> 0.114 -> 0.107 s; BiCGSTAB +
/// Jacobi 5-point 0.230 -> 0.203 -> 0.174 s; ELL CG 3-point 1.228 -> 0.820 -> 0.767 s. Four shapes only:
/// each is a full set of kernels (methods x formats x precisions x the two paths) in the build.
struct SolverPolicy {
    static constexpr int warp_item_rows = 32;
    static constexpr int packed_block_size = 128;
    /// Threads per item where every item has at least wide_item_rows rows, and the blocks per
    /// multiprocessor their kernels' registers leave room for.
    static constexpr int wide_block_size = 256;
    static constexpr int wide_blocks_per_sm = 4;
    static constexpr int wide_item_rows = 512;
    static int block_size(size_type min_rows, size_type max_rows)
    {
        return max_rows <= 64 ? 64 : min_rows >= static_cast<size_type>(wide_item_rows) ? wide_block_size : 128;
    }

    /**
     * Dynamic shared memory of the shared path, or 0 (global workspace). Each item of a block gets
     * `values_per_item` (vectors, x_i, b_i and scalars of the largest item), beside the kernel's static
     * shared memory (`static_bytes`, the block all-reduce's):
     * - within the default 48 KB per block: always;
     * - beyond it, up to the device's opt-in maximum (227 KB on the H100), only when the smallest item
     *   has at least half the largest's rows. Opting in leaves 3-4 blocks per SM for 1,024-row items (CG
     *   with Jacobi 56 KB, BiCGSTAB 72 KB), which pays when every block uses its share (H100, 100,000
     *   stencil items of 1,024 rows: CG + Jacobi 1.41 -> 0.87 s, BiCGSTAB + Jacobi 4.71 -> 1.96 s) and
     *   costs 1-17% on the heterogeneous pool of 36..1,024 rows, whose small items would hold their
     *   block's memory idle (the global workspace keeps 16 blocks per SM there).
     */
    template <typename T>
    static std::size_t shared_bytes(const DefaultExecutor& exec, std::size_t values_per_item, int items_per_block,
                                    size_type min_rows, size_type max_rows, std::size_t static_bytes)
    {
        const auto bytes = values_per_item * static_cast<std::size_t>(items_per_block) * sizeof(T);
        const bool similar_sizes = 2 * min_rows >= max_rows;
        const auto limit = similar_sizes ? exec.get_max_shared_memory_per_block() : exec.get_shared_memory_per_block();
        return bytes + static_bytes <= limit ? bytes : 0;
    }
};

template <typename Team, typename Method, typename T, typename Batch>
void launch_solve(const DefaultExecutor& exec, const Batch& view, size_type num_items, size_type min_rows,
                  size_type max_rows, size_type total_rows, const std::int64_t* work_order,
                  const ::larch::batch::SolveSettings& settings,
                  const ::larch::batch::Vector<T>& b, ::larch::batch::Vector<T>& x,
                  const ::larch::batch::SolveOutputs<T>& outputs)
{
    const int num_vectors =
        Method::num_vectors(settings.krylov_dim) +
        (settings.preconditioner == ::larch::batch::ItemPreconditioner::jacobi ? 1 : 0);
    const int num_scalars = Method::num_scalars(settings.krylov_dim);
    const auto values_per_item = static_cast<std::size_t>(num_vectors + 1) * max_rows + num_scalars;
    const auto shared_path_kernel = solve_kernel<Team, Method, T, Batch, true>;
    LARCH_RT(FuncAttributes) attributes;
    LARCH_DEVICE_CHECK(
        LARCH_RT(FuncGetAttributes)(&attributes, reinterpret_cast<const void*>(shared_path_kernel)));
    const auto shared = SolverPolicy::shared_bytes<T>(exec, values_per_item, Team::items_per_block, min_rows,
                                                       max_rows, attributes.sharedSizeBytes);
    const auto kernel = shared == 0 ? solve_kernel<Team, Method, T, Batch, false> : shared_path_kernel;
    array<T> global_workspace{exec.shared_from_this()};
    if (shared == 0) {
        global_workspace.resize_and_reset(static_cast<size_type>(num_vectors) * total_rows +
                                          static_cast<size_type>(num_scalars) * num_items);
    }
    const SolveOperands<T> operands{b.get_const_values(),
                                    x.get_values(),
                                    b.get_layout().get_const_offsets(),
                                    shared == 0 ? global_workspace.get_data() : nullptr,
                                    static_cast<std::int64_t>(values_per_item),
                                    static_cast<std::int64_t>(num_items),
                                    work_order};
    // Beyond the default, the kernel opts in (for its dynamic and static shared memory together).
    if (shared + attributes.sharedSizeBytes > exec.get_shared_memory_per_block()) {
        LARCH_DEVICE_CHECK(LARCH_RT(FuncSetAttribute)(reinterpret_cast<const void*>(kernel),
                                                      LARCH_RT(FuncAttributeMaxDynamicSharedMemorySize),
                                                      static_cast<int>(shared)));
    }
    const auto blocks = (num_items + Team::items_per_block - 1) / Team::items_per_block;
    kernel<<<static_cast<unsigned>(blocks), Team::size * Team::items_per_block, shared>>>(view, settings, operands,
                                                                                         outputs);
    LARCH_LAUNCH_CHECK("batch_solver::solve_kernel");
    if (shared == 0) {
        // The workspace is freed at return: wait for the kernel that uses it.
        LARCH_DEVICE_CHECK(LARCH_RT(DeviceSynchronize)());
    }
}

template <typename T, typename Matrix>
void solve(const DefaultExecutor& exec, const Matrix& a, const ::larch::batch::SolveSettings& settings,
           const ::larch::batch::Vector<T>& b, ::larch::batch::Vector<T>& x,
           const ::larch::batch::SolveOutputs<T>& outputs)
{
    const auto& layout = a.get_layout();
    const auto view = batch_view(a);
    using Batch = decltype(view);
    const auto max_rows = layout.get_max_size().rows;
    const auto min_rows = layout.get_min_rows();
    const auto dispatch = [&](auto method) {
        using Method = decltype(method);
        const auto launch = [&](auto team) {
            launch_solve<decltype(team), Method>(exec, view, a.get_num_items(), min_rows, max_rows,
                                                 layout.get_total_rows(), layout.get_const_work_order(),
                                                 settings, b, x, outputs);
        };
        if constexpr (Batch::Item::warp_capable) {
            if (max_rows <= SolverPolicy::warp_item_rows) {
                return launch(WarpPerItem<SolverPolicy::packed_block_size>{});
            }
        }
        switch (SolverPolicy::block_size(min_rows, max_rows)) {
        case 64: return launch(BlockPerItem<64>{});
        case SolverPolicy::wide_block_size:
            return launch(BlockPerItem<SolverPolicy::wide_block_size, SolverPolicy::wide_blocks_per_sm>{});
        default: return launch(BlockPerItem<128>{});
        }
    };
    switch (settings.method) {
    case ::larch::batch::KrylovMethod::cg: dispatch(::larch::batch::item::CgMethod{}); break;
    case ::larch::batch::KrylovMethod::bicgstab: dispatch(::larch::batch::item::BicgstabMethod{}); break;
    case ::larch::batch::KrylovMethod::gmres: dispatch(::larch::batch::item::GmresMethod{}); break;
    }
}

/// Threads per block of the two scaling kernels below, which give each item one warp.
constexpr int scaling_block_size = 128;

template <typename T>
__global__ void __launch_bounds__(scaling_block_size)
    right_hand_side_scales_kernel(const T* b, const std::int64_t* offsets, std::int64_t num_items, T* scales)
{
    const std::int64_t item = (std::int64_t{blockIdx.x} * scaling_block_size + threadIdx.x) / 32;
    if (item >= num_items) {
        return;  // a whole warp: the all-reduce below involves no other
    }
    T largest{};
    for (auto k = offsets[item] + threadIdx.x % 32; k < offsets[item + 1]; k += 32) {
        largest = warp::Max{}(largest, std::abs(b[k]));
    }
    largest = warp::all_reduce<32>(largest, warp::Max{});
    if (threadIdx.x % 32 == 0) {
        scales[item] = ::larch::detail::right_hand_side_scale(largest);
    }
}

template <typename T>
__global__ void __launch_bounds__(scaling_block_size)
    multiply_items_kernel(const T* factors, const std::int64_t* offsets, std::int64_t num_items, T* values)
{
    const std::int64_t item = (std::int64_t{blockIdx.x} * scaling_block_size + threadIdx.x) / 32;
    if (item < num_items) {
        for (auto k = offsets[item] + threadIdx.x % 32; k < offsets[item + 1]; k += 32) {
            values[k] *= factors[item];
        }
    }
}

/// Blocks for one warp per item.
inline unsigned warp_per_item_blocks(size_type num_items)
{
    return num_blocks_for(static_cast<std::int64_t>(num_items) * 32, scaling_block_size);
}

template <typename T>
void right_hand_side_scales(const DefaultExecutor&, const ::larch::batch::Vector<T>& b, T* scales)
{
    right_hand_side_scales_kernel<<<warp_per_item_blocks(b.get_num_items()), scaling_block_size>>>(
        b.get_const_values(), b.get_layout().get_const_offsets(), static_cast<std::int64_t>(b.get_num_items()),
        scales);
    LARCH_LAUNCH_CHECK("batch_solver::right_hand_side_scales");
}

template <typename T>
void multiply_items(const DefaultExecutor&, const T* factors, ::larch::batch::Vector<T>& v)
{
    multiply_items_kernel<<<warp_per_item_blocks(v.get_num_items()), scaling_block_size>>>(
        factors, v.get_layout().get_const_offsets(), static_cast<std::int64_t>(v.get_num_items()), v.get_values());
    LARCH_LAUNCH_CHECK("batch_solver::multiply_items");
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_KERNELS);
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_SCALING_KERNELS);

}  // namespace batch_solver
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
