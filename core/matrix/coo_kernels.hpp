// Kernels of matrix::Coo, declared once for every backend (see core/base/kernel_dispatch.hpp).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace coo {
    /// x = alpha * A * b + beta * x (beta == 0: x is only written).
    template <typename V, typename I>
    void spmv(const DefaultExecutor& exec, V alpha, const matrix::Coo<V, I>& a,
              const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);
    /// Compresses sorted row indices into num_rows + 1 row pointers (rows without entries included).
    template <typename I>
    void convert_row_idxs_to_ptrs(const DefaultExecutor& exec, const I* row_idxs,
                                  size_type num_nonzeros, I* row_ptrs, size_type num_rows);
})

/// The explicit instantiations every backend's coo kernel file ends with, written once inside namespace
/// <backend>::coo as `LARCH_INSTANTIATE_COO_KERNELS();` (for every type in core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_COO_KERNELS()                                                 \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_COO_SPMV_FOR);    \
    LARCH_INSTANTIATE_FOR_EACH_INDEX_TYPE(LARCH_INSTANTIATE_COO_ROW_PTRS_FOR)
#define LARCH_INSTANTIATE_COO_SPMV_FOR(V, I)                                                       \
    template void spmv<V, I>(const DefaultExecutor&, V, const matrix::Coo<V, I>&,                  \
                             const matrix::Dense<V>&, V, matrix::Dense<V>&)
#define LARCH_INSTANTIATE_COO_ROW_PTRS_FOR(I)                                                      \
    template void convert_row_idxs_to_ptrs<I>(const DefaultExecutor&, const I*, size_type, I*,     \
                                              size_type)

}  // namespace kernels
}  // namespace larch
