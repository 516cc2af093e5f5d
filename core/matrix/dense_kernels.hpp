// Kernels of matrix::Dense, declared once for every backend (see core/base/kernel_dispatch.hpp).
// Reductions write one value per column into `result` (an array on the kernel's executor).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace dense {
    template <typename T>
    void fill(const DefaultExecutor& exec, matrix::Dense<T>& x, T value);
    template <typename T>
    void copy(const DefaultExecutor& exec, const matrix::Dense<T>& source, matrix::Dense<T>& dest);
    template <typename T>
    void scale(const DefaultExecutor& exec, T alpha, matrix::Dense<T>& x);
    /// x = x + alpha * b
    template <typename T>
    void add_scaled(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b,
                    matrix::Dense<T>& x);
    /// x = alpha * x + b
    template <typename T>
    void scale_add(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b,
                   matrix::Dense<T>& x);
    template <typename T>
    void compute_dot(const DefaultExecutor& exec, const matrix::Dense<T>& a,
                     const matrix::Dense<T>& b, array<T>& result);
    template <typename T>
    void compute_norm2(const DefaultExecutor& exec, const matrix::Dense<T>& a, array<T>& result);
    template <typename T>
    void transpose(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                   matrix::Dense<T>& dest);
    /// c = alpha * a * b + beta * c; with beta == 0, c is only written (NaN in c does not propagate).
    template <typename T>
    void gemm(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a,
              const matrix::Dense<T>& b, T beta, matrix::Dense<T>& c);
    /// row_nnz[i] = number of nonzero entries of row i (for conversion to sparse formats); row_nnz has
    /// rows + 1 slots, the last one is left for prefix_sum.
    template <typename T, typename I>
    void count_nonzeros_per_row(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                                I* row_nnz);
    /// Fills the column indices and values of a Csr whose row pointers are already computed (the nonzero
    /// entries of each row, in column order).
    template <typename T, typename I>
    void convert_to_csr(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                        matrix::Csr<T, I>& result);
})

}  // namespace kernels
}  // namespace larch
