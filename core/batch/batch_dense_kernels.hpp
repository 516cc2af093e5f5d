// Kernels of the variable-size batched dense operations (Anzt et al. 2017-2018: batched condition numbers,
// Gauss-Jordan, Gauss-Huard; docs/references.md), declared once for every
// backend (see core/base/kernel_dispatch.hpp). Core validates every argument before calling them.
//
// Contract shared by all kernels (core guarantees the preconditions; kernels need not re-check them):
// - num_items > 0 (core never launches on an empty batch); every item is at least 1x1; items are
//   row-major at layout offset(i) (see include/larch/batch/item_layout.hpp). Square items for
//   invert, gauss_huard_* and compute_condition_numbers; items may be larger than 32x32 on every backend.
// - `info`, `pivots`, `norms`, `cond` point to executor memory: info/norms/cond hold one entry per item,
//   pivots one entry per item row (item i's pivots start at layout row_offset(i)).
// - info[i] (MAGMA style): 0 = success; k > 0 = elimination step k (1-based) found a tiny pivot, i.e.
//   !(|pivot| > n_i * eps * ||A_i||_inf), with eps = std::numeric_limits<T>::epsilon() and ||A_i||_inf of
//   the INPUT item (so an exact zero, a NaN, and an all-zero item are all caught). The kernel stops
//   eliminating that item at step k; its output entries are then unspecified (but the kernel must not
//   hang or fault), except that gauss_huard_factorize leaves its pivots a permutation of 0..n_i-1, which
//   gauss_huard_solve uses as write positions in x_i. Pivot ties go to the smallest original index (a
//   device kernel may break near-ties differently when it compares truncated keys; that must be
//   documented there).
// - cond[i] = ||A_i||_inf * ||A_i^-1||_inf, and exactly +inf when info[i] != 0 (never NaN).
#pragma once

#include <cstdint>

#include "core/base/kernel_dispatch.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace batch_dense {
    /// x_i = A_i b_i for every item (b_i: cols_i x k, x_i: rows_i x k); x is not b.
    template <typename T>
    void apply(const DefaultExecutor& exec, const batch::Dense<T>& a, const batch::Vector<T>& b,
               batch::Vector<T>& x);

    /// inverse_i = A_i^-1 by Gauss-Jordan elimination with implicit row pivoting (Anzt et al. 2018, batched
    /// Gauss-Jordan, Fig. 2).
    /// `inverse` may be the same object as `a` (in place).
    template <typename T>
    void invert(const DefaultExecutor& exec, const batch::Dense<T>& a, batch::Dense<T>& inverse,
                std::int32_t* info);

    /// Gauss-Huard decomposition with implicit column pivoting (Anzt et al. 2017, batched Gauss-Huard,
    /// Fig. 1) of the items of `a` into `factors` (the same layout; `factors` may be the same object as
    /// `a`, in place).
    /// On exit the item holds the factors in PIVOT ORDER (as if the columns had been swapped
    /// explicitly): with F = factors, L = lower triangle of F including the diagonal (row-elimination
    /// multipliers, the unscaled pivots on the diagonal), U = strict upper triangle of F (the pivot rows
    /// scaled by their pivots). pivots[k] = original column (0-based) chosen at step k.
    /// transposed_storage = false (BGH): F stored as is. transposed_storage = true (BGHT): U transposed
    /// about the anti-diagonal, i.e. stored entry (i, j), j > i, holds U(n-1-j, n-1-i); L as in BGH.
    template <typename T>
    void gauss_huard_factorize(const DefaultExecutor& exec, const batch::Dense<T>& a,
                               batch::Dense<T>& factors, std::int32_t* pivots, std::int32_t* info,
                               bool transposed_storage);

    /// Solves A_i x_i = b_i for every column of b_i from the factors above:
    /// for k = 0..n-1: y_k = (b_k - sum_{j<k} F(k,j) y_j) / F(k,k); y_i -= U(i,k) y_k for i < k;
    /// finally x[pivots[k]] = y_k. x may be the same object as b. Items whose factorization failed
    /// give unspecified values.
    template <typename T>
    void gauss_huard_solve(const DefaultExecutor& exec, const batch::Dense<T>& factors,
                           const std::int32_t* pivots, bool transposed_storage,
                           const batch::Vector<T>& b, batch::Vector<T>& x);

    /// norms[i] = ||A_i||_inf = max_r sum_c |A_i(r, c)| (any item shape).
    template <typename T>
    void compute_infinity_norms(const DefaultExecutor& exec, const batch::Dense<T>& a, T* norms);

    /// The fused kernel of Anzt et al. 2018 (batched condition numbers): row sums and ||A_i||_inf,
    /// Gauss-Jordan inversion, ||A_i^-1||_inf,
    /// cond[i] and info[i] in one pass. `inverse` null: the inverse is not written at all; otherwise
    /// it receives A_i^-1 (it may be the same object as `a`).
    template <typename T>
    void compute_condition_numbers(const DefaultExecutor& exec, const batch::Dense<T>& a,
                                   batch::Dense<T>* inverse, T* cond, std::int32_t* info);

    /// Last step of the composed variant: cond[i] = info[i] != 0 ? +inf : norms[i] * inverse_norms[i].
    template <typename T>
    void combine_condition_numbers(const DefaultExecutor& exec, size_type num_items,
                                   const T* norms, const T* inverse_norms,
                                   const std::int32_t* info, T* cond);
})

/// The explicit instantiations every backend's batch_dense kernel file ends with, once per value type:
/// LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(float); inside namespace <backend>::batch_dense.
#define LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(T)                                                  \
    template void apply<T>(const DefaultExecutor&, const batch::Dense<T>&,                        \
                           const batch::Vector<T>&, batch::Vector<T>&);                           \
    template void invert<T>(const DefaultExecutor&, const batch::Dense<T>&, batch::Dense<T>&,     \
                            std::int32_t*);                                                       \
    template void gauss_huard_factorize<T>(const DefaultExecutor&, const batch::Dense<T>&,        \
                                           batch::Dense<T>&, std::int32_t*, std::int32_t*, bool); \
    template void gauss_huard_solve<T>(const DefaultExecutor&, const batch::Dense<T>&,            \
                                       const std::int32_t*, bool, const batch::Vector<T>&,        \
                                       batch::Vector<T>&);                                        \
    template void compute_infinity_norms<T>(const DefaultExecutor&, const batch::Dense<T>&, T*);  \
    template void compute_condition_numbers<T>(const DefaultExecutor&, const batch::Dense<T>&,    \
                                               batch::Dense<T>*, T*, std::int32_t*);              \
    template void combine_condition_numbers<T>(const DefaultExecutor&, size_type, const T*,       \
                                               const T*, const std::int32_t*, T*)

}  // namespace kernels
}  // namespace larch
