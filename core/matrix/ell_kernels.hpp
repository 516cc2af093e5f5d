// Kernels of matrix::Ell, declared once for every backend (see core/base/kernel_dispatch.hpp).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace ell {
    /// x = alpha * A * b + beta * x (beta == 0: x is only written).
    template <typename V, typename I>
    void spmv(const DefaultExecutor& exec, V alpha, const matrix::Ell<V, I>& a,
              const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);
    /// row_nnz[i] = number of non-padding slots of row i (row_nnz has rows + 1 slots, the last one is
    /// left for prefix_sum).
    template <typename V, typename I>
    void count_nonzeros_per_row(const DefaultExecutor& exec, const matrix::Ell<V, I>& source,
                                I* row_nnz);
    /// Fills the column indices and values of a Csr whose row pointers are already computed.
    template <typename V, typename I>
    void convert_to_csr(const DefaultExecutor& exec, const matrix::Ell<V, I>& source,
                        matrix::Csr<V, I>& result);
})

/// The explicit instantiations every backend's ell kernel file ends with, written once inside namespace
/// <backend>::ell as `LARCH_INSTANTIATE_ELL_KERNELS();` (for every type in core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_ELL_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_ELL_KERNELS_FOR)
#define LARCH_INSTANTIATE_ELL_KERNELS_FOR(V, I)                                                    \
    template void spmv<V, I>(const DefaultExecutor&, V, const matrix::Ell<V, I>&,                  \
                             const matrix::Dense<V>&, V, matrix::Dense<V>&);                       \
    template void count_nonzeros_per_row<V, I>(const DefaultExecutor&, const matrix::Ell<V, I>&,   \
                                               I*);                                                \
    template void convert_to_csr<V, I>(const DefaultExecutor&, const matrix::Ell<V, I>&,           \
                                       matrix::Csr<V, I>&)

}  // namespace kernels
}  // namespace larch
