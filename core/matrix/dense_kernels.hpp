// Kernels of matrix::Dense, declared once for every backend (see core/base/kernel_dispatch.hpp).
// Reductions write one value per column into `result` (an array on the kernel's executor).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
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
    /// x = (alpha * a + beta * b) + gamma * x, in this order, in one pass; gamma == 0 only writes x.
    template <typename T>
    void combine(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a, T beta,
                 const matrix::Dense<T>& b, T gamma, matrix::Dense<T>& x);
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

/// The explicit instantiations every backend's dense kernel file ends with, written once inside namespace
/// <backend>::dense as `LARCH_INSTANTIATE_DENSE_KERNELS();` (for every type in
/// core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_DENSE_KERNELS()                                                    \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_DENSE_KERNELS_FOR);              \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_DENSE_CONVERSIONS_FOR)
#define LARCH_INSTANTIATE_DENSE_KERNELS_FOR(T)                                                     \
    template void fill<T>(const DefaultExecutor&, matrix::Dense<T>&, T);                           \
    template void copy<T>(const DefaultExecutor&, const matrix::Dense<T>&, matrix::Dense<T>&);     \
    template void scale<T>(const DefaultExecutor&, T, matrix::Dense<T>&);                          \
    template void add_scaled<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                \
                                matrix::Dense<T>&);                                                \
    template void scale_add<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                 \
                               matrix::Dense<T>&);                                                 \
    template void combine<T>(const DefaultExecutor&, T, const matrix::Dense<T>&, T,                \
                             const matrix::Dense<T>&, T, matrix::Dense<T>&);                       \
    template void compute_dot<T>(const DefaultExecutor&, const matrix::Dense<T>&,                  \
                                 const matrix::Dense<T>&, array<T>&);                              \
    template void compute_norm2<T>(const DefaultExecutor&, const matrix::Dense<T>&, array<T>&);    \
    template void transpose<T>(const DefaultExecutor&, const matrix::Dense<T>&, matrix::Dense<T>&); \
    template void gemm<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                      \
                          const matrix::Dense<T>&, T, matrix::Dense<T>&)
#define LARCH_INSTANTIATE_DENSE_CONVERSIONS_FOR(T, I)                                              \
    template void count_nonzeros_per_row<T, I>(const DefaultExecutor&, const matrix::Dense<T>&,    \
                                               I*);                                                \
    template void convert_to_csr<T, I>(const DefaultExecutor&, const matrix::Dense<T>&,            \
                                       matrix::Csr<T, I>&)

}  // namespace kernels
}  // namespace larch
