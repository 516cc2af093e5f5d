// The cuSPARSE SpMV of matrix::Csr (CUDA-only, defined in csr_cusparse.cu): the vendor path of
// CsrSpmvAlgorithm and the baseline larch's own kernel is measured against.
#pragma once

#include <cstdint>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace cuda {
namespace csr {

/**
 * Whether cuSPARSE's generic SpMV/SpMM may be given these operands: it requires every array to be
 * aligned to 16 bytes, which allocations are but column views of a Dense (or arrays viewed at an
 * offset) need not be.
 */
template <typename V, typename I>
bool cusparse_accepts(const matrix::Csr<V, I>& a, const matrix::Dense<V>& b,
                      const matrix::Dense<V>& x)
{
    const auto aligned = [](const void* pointer) {
        return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
    };
    return aligned(a.get_const_values()) && aligned(a.get_const_col_idxs()) &&
           aligned(a.get_const_row_ptrs()) && aligned(b.get_const_values()) &&
           aligned(x.get_const_values());
}

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
