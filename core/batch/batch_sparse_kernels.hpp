// Kernels of the batched sparse matrices (Anzt et al. 2017, flexible batched SpMV): x_i = alpha A_i b_i + beta
// x_i for batch::Csr,
// batch::Coo and batch::Ell, declared once for every backend (see core/base/kernel_dispatch.hpp).
//
// Contract (core checks it before the call; kernels do not re-check):
// - num_items > 0; b and x have the item sizes of `a` (b_i: cols_i x k, x_i: rows_i x k, row-major at
//   their layout offsets), x is not b, and all live in memory the executor can address.
// - beta == 0: x is only written (its old values, NaN included, are never read).
// - Item data as documented in include/larch/batch/{csr,coo,ell}.hpp: values at the item's stored offset,
//   index arrays at the same offset or at 0 when the pattern is shared; item-local indices.
// - `kernel` (Csr): automatic runs the kernel a.get_automatic_kernel() names (scalar, smart or stream).
//   Reference and omp ignore the choice (one plain loop per item).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace batch_sparse {
    template <typename T, typename I>
    void csr_spmv(const DefaultExecutor& exec, const batch::Csr<T, I>& a,
                  batch::CsrSpmvKernel kernel, T alpha, const batch::Vector<T>& b, T beta,
                  batch::Vector<T>& x);

    template <typename T, typename I>
    void coo_spmv(const DefaultExecutor& exec, const batch::Coo<T, I>& a, T alpha,
                  const batch::Vector<T>& b, T beta, batch::Vector<T>& x);

    template <typename T, typename I>
    void ell_spmv(const DefaultExecutor& exec, const batch::Ell<T, I>& a, T alpha,
                  const batch::Vector<T>& b, T beta, batch::Vector<T>& x);
})

/// The explicit instantiations every backend's batch_sparse kernel file ends with:
/// LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS); inside
/// namespace <backend>::batch_sparse.
#define LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS(T, I)                                               \
    template void csr_spmv<T, I>(const DefaultExecutor&, const batch::Csr<T, I>&,                 \
                                 batch::CsrSpmvKernel, T, const batch::Vector<T>&, T,             \
                                 batch::Vector<T>&);                                              \
    template void coo_spmv<T, I>(const DefaultExecutor&, const batch::Coo<T, I>&, T,              \
                                 const batch::Vector<T>&, T, batch::Vector<T>&);                  \
    template void ell_spmv<T, I>(const DefaultExecutor&, const batch::Ell<T, I>&, T,              \
                                 const batch::Vector<T>&, T, batch::Vector<T>&)

}  // namespace kernels
}  // namespace larch
