// Kernels of classical Gram-Schmidt over a Krylov basis stored as the rows of a Dense matrix: the projection
// coefficients of a vector on every basis vector in one pass, and the removal of those components in one
// pass. GMRES runs each twice per Arnoldi step (CGS2) instead of one dot product and update per basis vector.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace gram_schmidt {
    /// coefficients(i, 0) = sum_k basis(i, k) * w(k, 0) for every row i of basis (basis is k x n, w n x 1,
    /// coefficients k x 1 with stride 1).
    template <typename T>
    void project(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
                 matrix::Dense<T>& coefficients);
    /// w(k, 0) -= sum_i coefficients(i, 0) * basis(i, k), the sum over i in order, for every k.
    template <typename T>
    void subtract(const DefaultExecutor& exec, const matrix::Dense<T>& basis,
                  const matrix::Dense<T>& coefficients, matrix::Dense<T>& w);
})

/// The explicit instantiations every backend's Gram-Schmidt kernel file ends with, written once inside
/// namespace <backend>::gram_schmidt as `LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();`.
#define LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GRAM_SCHMIDT_FOR)
#define LARCH_INSTANTIATE_GRAM_SCHMIDT_FOR(T)                                                              \
    template void project<T>(const DefaultExecutor&, const matrix::Dense<T>&, const matrix::Dense<T>&,    \
                             matrix::Dense<T>&);                                                           \
    template void subtract<T>(const DefaultExecutor&, const matrix::Dense<T>&, const matrix::Dense<T>&,   \
                              matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
