// Kernels of matrix::Csr, declared once for every backend (see core/base/kernel_dispatch.hpp).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace csr {
    /// x = alpha * A * b + beta * x (beta == 0: x is only written); all columns of b.
    /// Device backends honour a.get_spmv_algorithm().
    template <typename V, typename I>
    void spmv(const DefaultExecutor& exec, V alpha, const matrix::Csr<V, I>& a,
              const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);
    /// Expands row pointers into one row index per nonzero: fills result.get_row_idxs() only (result is
    /// sized with the source's nonzero count; core copies values and column indices itself).
    template <typename V, typename I>
    void convert_to_coo(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                        matrix::Coo<V, I>& result);
    /// The largest number of nonzeros in a row.
    template <typename V, typename I>
    void compute_max_row_nnz(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                             size_type& result);
    /// Fills an Ell already sized with num_stored_per_row >= the longest row: every slot of rows
    /// [0, rows), padding included (column invalid_index, value 0).
    template <typename V, typename I>
    void convert_to_ell(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                        matrix::Ell<V, I>& result);
    /// Scatters the nonzeros into `result` (same size as the source), which core has zero-filled.
    template <typename V, typename I>
    void convert_to_dense(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                          matrix::Dense<V>& result);
    /// Fills a Csr sized (cols x rows, same nnz) with the transpose, columns sorted in each row.
    template <typename V, typename I>
    void transpose(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
                   matrix::Csr<V, I>& result);
})

/// The explicit instantiations every backend's csr kernel file ends with, written once inside namespace
/// <backend>::csr as `LARCH_INSTANTIATE_CSR_KERNELS();` (for every type in core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_CSR_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_CSR_KERNELS_FOR)
#define LARCH_INSTANTIATE_CSR_KERNELS_FOR(V, I)                                                    \
    template void spmv<V, I>(const DefaultExecutor&, V, const matrix::Csr<V, I>&,                  \
                             const matrix::Dense<V>&, V, matrix::Dense<V>&);                       \
    template void convert_to_coo<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,           \
                                       matrix::Coo<V, I>&);                                        \
    template void compute_max_row_nnz<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,      \
                                            size_type&);                                           \
    template void convert_to_ell<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,           \
                                       matrix::Ell<V, I>&);                                        \
    template void convert_to_dense<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,         \
                                         matrix::Dense<V>&);                                       \
    template void transpose<V, I>(const DefaultExecutor&, const matrix::Csr<V, I>&,                \
                                  matrix::Csr<V, I>&)

}  // namespace kernels
}  // namespace larch
