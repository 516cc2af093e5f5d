// Kernels of preconditioner::BlockJacobi, declared once for every backend. With max_block_size 1 the
// preconditioner is scalar Jacobi: the inverted diagonal, applied as a row scaling. Larger blocks: the
// supervariable blocking, the generation of the diagonal blocks (extraction from CSR and inversion or
// Gauss-Huard factorization in one pass), their storage in a per-block precision and the block-diagonal
// apply.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
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
    /// z(i, j) = inverse_diagonal[i] * r(i, j) and, in the same pass, dots[j] = r_j^T z_j, summed as
    /// dense::compute_dot sums (so the same bits as apply_inverse_diagonal followed by compute_dot). The
    /// sums are this process's own. `workspace` as for dense::compute_dot.
    template <typename V>
    void apply_inverse_diagonal_dot(const DefaultExecutor& exec, const array<V>& inverse_diagonal,
                                    const matrix::Dense<V>& r, matrix::Dense<V>& z, array<V>& dots,
                                    array<V>& workspace);
    /// Supervariable blocking (see preconditioner::BlockJacobi): block_pointers (num_rows + 1 entries) receives
    /// the first num_blocks + 1 row offsets of the blocks, num_blocks and largest_block (the most rows of a
    /// block) are returned on the host. Every backend finds the same blocks as the reference; on GPUs the
    /// agglomeration, a sequential greedy, runs as a scan over row tiles (no copy of the rows to the host).
    template <typename V, typename I>
    void find_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a, size_type max_block_size,
                     array<I>& block_pointers, size_type& num_blocks, size_type& largest_block);
    /// Extraction of the first num_blocks diagonal blocks (A(rows, rows) for the rows of block b, zeros where A
    /// has no entry, duplicate entries summed) and their Gauss-Jordan inversion with the condition number (as
    /// batch_dense::compute_condition_numbers) in one pass: the inverse
    /// of block b goes column-major in V to storage from byte byte_offsets[b], cond[b] and info[b] receive
    /// what batch::CondEstimator gives, norms[b] the infinity norm of the inverse. On GPUs one kernel;
    /// `largest_block` picks its sub-warp, `shared_extraction` its loader (the sub-warp reads each row
    /// coalesced, otherwise each thread walks its row); host executors ignore both.
    template <typename V, typename I>
    void generate_inverse_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                 const array<I>& block_pointers, size_type num_blocks, size_type largest_block,
                                 bool shared_extraction, const array<std::int64_t>& byte_offsets,
                                 array<std::uint8_t>& storage, array<V>& cond, array<std::int32_t>& info,
                                 array<V>& norms);
    /// Extraction, condition number and inversion info as generate_inverse_blocks (the inverse is not kept),
    /// and the Gauss-Huard factorization of each block (as batch_dense::gauss_huard_factorize, with U
    /// transposed about the anti-diagonal if `transposed`) in one pass: the factors go row-major in V to
    /// storage from byte byte_offsets[b] and the pivot column of step k to pivots[block_pointers[b] + k]
    /// (the factors are not written, and the pivots are meaningless, if factorization_info[b] != 0); norms[b] receives the infinity norm of the stored
    /// factors. On GPUs one kernel, with the same `largest_block` and `shared_extraction` as
    /// generate_inverse_blocks.
    template <typename V, typename I>
    void generate_factorized_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                                    const array<I>& block_pointers, size_type num_blocks, size_type largest_block,
                                    bool shared_extraction, bool transposed, const array<std::int64_t>& byte_offsets,
                                    array<std::uint8_t>& storage, array<std::int32_t>& pivots, array<V>& cond,
                                    array<std::int32_t>& inversion_info, array<std::int32_t>& factorization_info,
                                    array<V>& norms);
    /// The kind and storage precision of each of the kinds.get_size() blocks. A block is singular if
    /// inversion_info or factorization_info (empty: not given) is nonzero, its condition number is above
    /// 1 / (n eps) or not finite, or norms[b] (of its inverse or factors) is not finite: its kind becomes
    /// `diagonal` in the working precision. Otherwise its kind is `block_kind`, and with `adaptive` its
    /// precision the cheapest whose unit roundoff times cond stays below `accuracy` and whose range holds
    /// the stored values (half only for inverses). Returns on the host how many blocks are singular, the
    /// first of them (num_blocks if none) and how many are stored below the working precision.
    template <typename V, typename I>
    void classify_blocks(const DefaultExecutor& exec, const array<I>& block_pointers, const array<V>& cond,
                         const array<std::int32_t>& inversion_info, const array<std::int32_t>& factorization_info,
                         const array<V>& norms, std::uint8_t block_kind, bool adaptive, double accuracy,
                         array<std::uint8_t>& kinds, array<std::uint8_t>& precisions, size_type& num_singular,
                         size_type& first_singular, size_type& num_reduced);
    /// byte_offsets[b] (b < num_blocks) = the bytes block b takes in its kind and precision, rounded up to 8
    /// so that every block starts 8-byte aligned; with kinds and precisions empty, every block is n x n in V
    /// (the working layout). byte_offsets has num_blocks + 1 entries (the last is a spare for the prefix sum
    /// that turns sizes into offsets).
    template <typename V, typename I>
    void compute_block_bytes(const DefaultExecutor& exec, const array<I>& block_pointers, size_type num_blocks,
                             const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                             array<std::int64_t>& byte_offsets);
    /// Copies every block from `working` (working precision V at working_offsets, as stored by
    /// generate_inverse_blocks or generate_factorized_blocks) to `storage` in its kind and precision at byte_offsets; a
    /// `diagonal` block receives its rows of inverse_diagonal instead.
    template <typename V, typename I>
    void restore_blocks(const DefaultExecutor& exec, const array<std::uint8_t>& working,
                        const array<std::int64_t>& working_offsets, const array<V>& inverse_diagonal,
                        const array<I>& block_pointers, const array<std::uint8_t>& kinds,
                        const array<std::uint8_t>& precisions, const array<std::int64_t>& byte_offsets,
                        array<std::uint8_t>& storage);
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
                                            const matrix::Dense<V>&, V, matrix::Dense<V>&);       \
    template void apply_inverse_diagonal_dot<V>(const DefaultExecutor&, const array<V>&,           \
                                                const matrix::Dense<V>&, matrix::Dense<V>&, array<V>&, \
                                                array<V>&)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_BLOCKS_FOR(V, I)                                              \
    template void find_blocks<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&, size_type, array<I>&, \
                                    size_type&, size_type&);                                            \
    template void generate_inverse_blocks<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,        \
                                                const array<I>&, size_type, size_type, bool,             \
                                                const array<std::int64_t>&, array<std::uint8_t>&,        \
                                                array<V>&, array<std::int32_t>&, array<V>&);             \
    template void generate_factorized_blocks<V, I>(                                                     \
        const DefaultExecutor&, const matrix::Csr<V, I>&, const array<I>&, size_type, size_type, bool, bool, \
        const array<std::int64_t>&, array<std::uint8_t>&, array<std::int32_t>&, array<V>&,                 \
        array<std::int32_t>&, array<std::int32_t>&, array<V>&);                                          \
    template void classify_blocks<V, I>(const DefaultExecutor&, const array<I>&, const array<V>&,            \
                                        const array<std::int32_t>&, const array<std::int32_t>&,              \
                                        const array<V>&, std::uint8_t, bool, double, array<std::uint8_t>&,   \
                                        array<std::uint8_t>&, size_type&, size_type&, size_type&);           \
    template void compute_block_bytes<V, I>(const DefaultExecutor&, const array<I>&, size_type,            \
                                            const array<std::uint8_t>&, const array<std::uint8_t>&,        \
                                            array<std::int64_t>&);                                         \
    template void restore_blocks<V, I>(const DefaultExecutor&, const array<std::uint8_t>&,                 \
                                       const array<std::int64_t>&, const array<V>&, const array<I>&,       \
                                       const array<std::uint8_t>&, const array<std::uint8_t>&,             \
                                       const array<std::int64_t>&, array<std::uint8_t>&);                  \
    template void apply_blocks<V, I>(const DefaultExecutor&, V, const array<I>&, size_type,         \
                                     const array<std::uint8_t>&, const array<std::uint8_t>&,        \
                                     const array<std::int64_t>&, const array<std::uint8_t>&,        \
                                     const array<std::int32_t>&, const matrix::Dense<V>&, V,        \
                                     matrix::Dense<V>&)

}  // namespace kernels
}  // namespace larch
