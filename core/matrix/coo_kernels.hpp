// Kernels of matrix::Coo, declared once for every backend (see core/base/kernel_dispatch.hpp).
#pragma once

#include "core/base/kernel_dispatch.hpp"
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

}  // namespace kernels
}  // namespace larch
