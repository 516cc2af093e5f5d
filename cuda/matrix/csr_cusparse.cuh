// The cuSPARSE SpMV of matrix::Csr (CUDA-only, defined in csr_cusparse.cu): the vendor path of
// CsrSpmvAlgorithm and the baseline larch's own kernel is measured against.
#pragma once

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace cuda {
namespace csr {

/**
 * x = alpha * A * b + beta * x through cuSPARSE's generic API: cusparseSpMV for one contiguous
 * right-hand side, cusparseSpMM with row-major dense operands (any stride) otherwise. Uses the cached
 * cuSPARSE handle of the executor's device; the workspace is a larch::array. Throws DeviceError naming
 * the failed cuSPARSE call.
 */
template <typename V, typename I>
void cusparse_spmv(const CudaExecutor& exec, V alpha, const matrix::Csr<V, I>& a,
                   const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);

}  // namespace csr
}  // namespace cuda
}  // namespace kernels
}  // namespace larch
