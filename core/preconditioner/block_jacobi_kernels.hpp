// Kernels of preconditioner::BlockJacobi, declared once for every backend. With max_block_size 1 the
// preconditioner is scalar Jacobi: the inverted diagonal, applied as a row scaling. Larger blocks: the
// supervariable starts, the extraction of the diagonal blocks into a batch::Dense, their storage in a
// per-block precision and the block-diagonal apply.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/batch/dense.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace block_jacobi_storage {

/// How a stored block is applied (kinds array of the kernels below).
enum : std::uint8_t {
    inverse = 0,                 ///< n x n explicit inverse, column-major (B^T row-major, so the lanes of a
                                 ///< GPU sub-warp read consecutive addresses): x_b = B b_b
    gauss_huard = 1,             ///< n x n Gauss-Huard factors (BGH) + n pivots: solve
    gauss_huard_transposed = 2,  ///< the same with U stored transposed (BGHT)
    diagonal = 3                 ///< n values of the scalar Jacobi D^{-1} (fallback of a singular block)
};

/// Storage precision codes (values of preconditioner::BlockPrecision) and their sizes in bytes.
enum : std::uint8_t { double_precision = 0, single_precision = 1, half_precision = 2 };

}  // namespace block_jacobi_storage

LARCH_DECLARE_KERNEL(namespace block_jacobi {
    /// inverse_diagonal[i] = 1 / a(i, i); a zero or missing diagonal entry gives 1 (the row is left
    /// unscaled) and zero_diagonal[i] = 1, otherwise zero_diagonal[i] = 0. Both arrays hold num_rows entries.
    template <typename V, typename I>
    void extract_inverse_diagonal(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                  array<V>& inverse_diagonal, array<I>& zero_diagonal);
    /// x(i, j) = alpha * inverse_diagonal[i] * b(i, j) + beta * x(i, j) for every column j;
    /// beta == 0 only writes x (NaN in x does not propagate).
    template <typename V>
    void apply_inverse_diagonal(const DefaultExecutor& exec, V alpha, const array<V>& inverse_diagonal,
                                const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);
    /// starts[i] = 1 if row i starts a supervariable (i = 0, or its column pattern differs from row
    /// i - 1's), 0 otherwise; num_rows entries.
    template <typename V, typename I>
    void find_supervariable_starts(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                   array<std::uint8_t>& starts);
    /// Item b of `blocks` (square, block_pointers[b + 1] - block_pointers[b] rows) = A(rows, rows) for the
    /// rows of block b, zeros where A has no entry; duplicate entries are summed.
    template <typename V, typename I>
    void extract_diagonal_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                 const array<I>& block_pointers, batch::Dense<V>& blocks);
    /// Extraction (as extract_diagonal_blocks) and Gauss-Jordan inversion with the condition number (as
    /// batch_dense::compute_condition_numbers) of every diagonal block in one pass: item b of `inverses`
    /// receives the inverse of block b, cond[b] and info[b] what batch::CondEstimator gives. On GPUs one
    /// kernel; `largest_block` picks its sub-warp, `shared_extraction` its loader (the sub-warp reads each
    /// row coalesced, otherwise each thread walks its row); host executors ignore both.
    template <typename V, typename I>
    void generate_inverse_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                 const array<I>& block_pointers, size_type largest_block, bool shared_extraction,
                                 batch::Dense<V>& inverses, array<V>& cond, array<std::int32_t>& info);
    /// Writes every block into `storage` from byte byte_offsets[b] in precision precisions[b]: item b of
    /// `blocks` (kinds inverse and gauss_huard*) or the block's rows of inverse_diagonal (kind diagonal).
    template <typename V, typename I>
    void store_blocks(const DefaultExecutor& exec, const batch::Dense<V>& blocks,
                      const array<V>& inverse_diagonal, const array<I>& block_pointers,
                      const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                      const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage);
    /// x_b = alpha * D_b^{-1} b_b + beta * x_b for every block and every column (beta == 0 only writes x),
    /// D_b^{-1} applied as its kind says, in V, with the block's stored values widened to V. `pivots`
    /// holds the Gauss-Huard pivots at the blocks' row offsets (unused by other kinds). `largest_block` is the
    /// most rows of a block (the GPU kernels pick their sub-warp size from it).
    template <typename V, typename I>
    void apply_blocks(const DefaultExecutor& exec, V alpha, const array<I>& block_pointers, size_type largest_block,
                      const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                      const array<std::int64_t>& byte_offsets, const array<std::uint8_t>& storage,
                      const array<std::int32_t>& pivots, const matrix::Dense<V>& b, V beta,
                      matrix::Dense<V>& x);
})

/// The explicit instantiations every backend's block_jacobi kernel file ends with, written once inside
/// namespace <backend>::block_jacobi as `LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();` (for every type in
/// core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS()                                                \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_EXTRACT_FOR); \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_APPLY_FOR);            \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_BLOCKS_FOR)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_EXTRACT_FOR(V, I)                                           \
    template void extract_inverse_diagonal<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&, \
                                                 array<V>&, array<I>&)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_APPLY_FOR(V)                                                \
    template void apply_inverse_diagonal<V>(const DefaultExecutor&, V, const array<V>&,            \
                                            const matrix::Dense<V>&, V, matrix::Dense<V>&)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_BLOCKS_FOR(V, I)                                              \
    template void find_supervariable_starts<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&, \
                                                  array<std::uint8_t>&);                            \
    template void extract_diagonal_blocks<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,   \
                                                const array<I>&, batch::Dense<V>&);                 \
    template void generate_inverse_blocks<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,   \
                                                const array<I>&, size_type, bool, batch::Dense<V>&, \
                                                array<V>&, array<std::int32_t>&);                   \
    template void store_blocks<V, I>(const DefaultExecutor&, const batch::Dense<V>&, const array<V>&, \
                                     const array<I>&, const array<std::uint8_t>&,                   \
                                     const array<std::uint8_t>&, const array<std::int64_t>&,        \
                                     array<std::uint8_t>&);                                         \
    template void apply_blocks<V, I>(const DefaultExecutor&, V, const array<I>&, size_type,         \
                                     const array<std::uint8_t>&, const array<std::uint8_t>&,        \
                                     const array<std::int64_t>&, const array<std::uint8_t>&,        \
                                     const array<std::int32_t>&, const matrix::Dense<V>&, V,        \
                                     matrix::Dense<V>&)

}  // namespace kernels
}  // namespace larch
