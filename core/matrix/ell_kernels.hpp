// Kernels of matrix::Ell, declared once for every backend (see core/base/kernel_dispatch.hpp).
#pragma once

#include "core/base/kernel_dispatch.hpp"
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

}  // namespace kernels
}  // namespace larch
