// Kernels of preconditioner::BlockJacobi, declared once for every backend. With max_block_size 1 the
// preconditioner is scalar Jacobi: the inverted diagonal, applied as a row scaling.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

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
})

/// The explicit instantiations every backend's block_jacobi kernel file ends with, written once inside
/// namespace <backend>::block_jacobi as `LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();` (for every type in
/// core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS()                                                \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_EXTRACT_FOR); \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_APPLY_FOR)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_EXTRACT_FOR(V, I)                                           \
    template void extract_inverse_diagonal<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&, \
                                                 array<V>&, array<I>&)
#define LARCH_INSTANTIATE_BLOCK_JACOBI_APPLY_FOR(V)                                                \
    template void apply_inverse_diagonal<V>(const DefaultExecutor&, V, const array<V>&,            \
                                            const matrix::Dense<V>&, V, matrix::Dense<V>&)

}  // namespace kernels
}  // namespace larch
