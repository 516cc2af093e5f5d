// Kernels of classical Gram-Schmidt over the Krylov basis of GMRES, for `cols` right-hand sides at once:
// the projection coefficients of a vector on every basis vector in one pass, the removal of those components
// in one pass, and the normalization of a new basis vector. GMRES runs the first two twice per Arnoldi step
// (CGS2) instead of one dot product and update per basis vector.
//
// Layout: each row i of `basis` is basis vector i of every column, an n x cols row-major block (entry (k, c)
// at basis(i, k * cols + c)): the memory of the n x cols Dense that A and the preconditioner were applied to.
// project also takes a basis of n columns whose vectors every column shares (entry (k, c) at basis(i, k):
// IDR's shadow space). With one column both are simply the vectors as rows.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

/// The most columns the Gram-Schmidt kernels take at once (a GPU thread block holds a row of all of them).
constexpr size_type max_gram_schmidt_columns = 32;

LARCH_DECLARE_KERNEL(namespace gram_schmidt {
    /// coefficients(i, c) = sum_k basis(i, k * cols + c) * w(k, c) for every row i of basis and column c of
    /// w (basis count x (n * cols), w n x cols with 1 <= cols <= max_gram_schmidt_columns, coefficients
    /// count x cols with stride cols); sum_k basis(i, k) * w(k, c) for a shared basis (count x n).
    /// `workspace`: the GPU's partial sums, an array on the executor enlarged only when too small, so that
    /// a solver that keeps it allocates nothing per iteration (unused on the CPU).
    template <typename T>
    void project(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
                 matrix::Dense<T>& coefficients, array<T>& workspace);
    /// w(k, c) -= sum_i coefficients(i, c) * basis(i, k * cols + c), the sum over i in order, for every k, c.
    template <typename T>
    void subtract(const DefaultExecutor& exec, const matrix::Dense<T>& basis,
                  const matrix::Dense<T>& coefficients, matrix::Dense<T>& w);
    /// v(k, c) = factors[c] * v(k, c), and v(k, c) = 0 wherever factors[c] == 0, even where v holds NaN or
    /// Inf: a column that stops iterating gets zero basis vectors from then on, which the later steps keep
    /// at zero without touching the other columns.
    template <typename T>
    void normalize(const DefaultExecutor& exec, const array<T>& factors, matrix::Dense<T>& v);
})

/// The explicit instantiations every backend's Gram-Schmidt kernel file ends with, written once inside
/// namespace <backend>::gram_schmidt as `LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();`.
#define LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GRAM_SCHMIDT_FOR)
#define LARCH_INSTANTIATE_GRAM_SCHMIDT_FOR(T)                                                              \
    template void project<T>(const DefaultExecutor&, const matrix::Dense<T>&, const matrix::Dense<T>&,    \
                             matrix::Dense<T>&, array<T>&);                                                \
    template void subtract<T>(const DefaultExecutor&, const matrix::Dense<T>&, const matrix::Dense<T>&,   \
                              matrix::Dense<T>&);                                                          \
    template void normalize<T>(const DefaultExecutor&, const array<T>&, matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
