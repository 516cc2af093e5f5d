// The serial SpMV of one item of batch::Csr, batch::Coo and batch::Ell: the "serial tier" that the
// reference backend loops over and the OpenMP backend runs in parallel over items. They define the
// results every backend must reproduce (contract: core/batch/batch_sparse_kernels.hpp).
#pragma once

#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace batch {
namespace item {

/// alpha * product + beta * old, where beta == 0 never reads `old` (so a NaN there does not leak).
template <typename T>
T scale_result(T alpha, T product, T beta, T old)
{
    return beta == T{} ? alpha * product : alpha * product + beta * old;
}

/// Where item `item`'s operands start: b_i and x_i (row-major, num_cols columns).
template <typename T>
struct ItemOperands {
    const T* b;
    T* x;
    size_type num_cols;
};

template <typename T>
ItemOperands<T> operands_of(size_type item, const Vector<T>& b, Vector<T>& x)
{
    return {b.get_const_values() + b.get_layout().get_offset(item),
            x.get_values() + x.get_layout().get_offset(item), b.get_num_cols()};
}

/// Offset of item `item`'s column (and row) indices: shared patterns are stored once.
inline std::int64_t pattern_offset(const SparseLayout& layout, size_type item)
{
    return layout.has_shared_pattern() ? 0 : layout.get_stored_offset(item);
}

/// x_i = alpha A_i b_i + beta x_i, row by row.
template <typename T, typename I>
void csr_spmv(const Csr<T, I>& a, size_type item, T alpha, const ItemOperands<T>& op,
              T beta)
{
    const auto& layout = a.get_layout();
    const auto rows = layout.get_size(item).rows;
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    const I* row_ptrs = a.get_const_row_ptrs() + a.get_row_ptrs_offset(item);
    for (size_type row = 0; row < rows; ++row) {
        for (size_type col = 0; col < op.num_cols; ++col) {
            T sum{};
            for (auto nz = row_ptrs[row]; nz < row_ptrs[row + 1]; ++nz) {
                sum += values[nz] * op.b[static_cast<size_type>(col_idxs[nz]) * op.num_cols + col];
            }
            auto& out = op.x[row * op.num_cols + col];
            out = scale_result(alpha, sum, beta, out);
        }
    }
}

/// x_i = beta x_i, then x_i(row, :) += alpha * value * b_i(col, :) for every stored entry.
template <typename T, typename I>
void coo_spmv(const Coo<T, I>& a, size_type item, T alpha, const ItemOperands<T>& op,
              T beta)
{
    const auto& layout = a.get_layout();
    const auto size = layout.get_size(item);
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* row_idxs = a.get_const_row_idxs() + pattern_offset(layout, item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    for (size_type e = 0; e < size.rows * op.num_cols; ++e) {
        op.x[e] = scale_result(T{}, T{}, beta, op.x[e]);
    }
    for (size_type nz = 0; nz < layout.get_num_stored(item); ++nz) {
        const auto row = static_cast<size_type>(row_idxs[nz]);
        const auto col = static_cast<size_type>(col_idxs[nz]);
        for (size_type c = 0; c < op.num_cols; ++c) {
            op.x[row * op.num_cols + c] += alpha * values[nz] * op.b[col * op.num_cols + c];
        }
    }
}

/// x_i = alpha A_i b_i + beta x_i, row by row over the column-major slots (padding skipped).
template <typename T, typename I>
void ell_spmv(const Ell<T, I>& a, size_type item, T alpha, const ItemOperands<T>& op,
              T beta)
{
    const auto& layout = a.get_layout();
    const auto rows = layout.get_size(item).rows;
    const auto width = a.get_item_width(item);
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    for (size_type row = 0; row < rows; ++row) {
        for (size_type col = 0; col < op.num_cols; ++col) {
            T sum{};
            for (size_type slot = 0; slot < width; ++slot) {
                const auto column = col_idxs[slot * rows + row];
                if (column != Ell<T, I>::invalid_index) {
                    sum += values[slot * rows + row] *
                           op.b[static_cast<size_type>(column) * op.num_cols + col];
                }
            }
            auto& out = op.x[row * op.num_cols + col];
            out = scale_result(alpha, sum, beta, out);
        }
    }
}

/// The three SpMVs above on item `item` of whole batch vectors (the batched SpMV kernels' form); the
/// operand forms serve callers whose item vectors are not batch vectors (the batched solvers' workspace).
template <typename T, typename I>
void csr_spmv(const Csr<T, I>& a, size_type item, T alpha, const Vector<T>& b, T beta, Vector<T>& x)
{
    csr_spmv(a, item, alpha, operands_of(item, b, x), beta);
}

template <typename T, typename I>
void coo_spmv(const Coo<T, I>& a, size_type item, T alpha, const Vector<T>& b, T beta, Vector<T>& x)
{
    coo_spmv(a, item, alpha, operands_of(item, b, x), beta);
}

template <typename T, typename I>
void ell_spmv(const Ell<T, I>& a, size_type item, T alpha, const Vector<T>& b, T beta, Vector<T>& x)
{
    ell_spmv(a, item, alpha, operands_of(item, b, x), beta);
}

}  // namespace item
}  // namespace batch
}  // namespace larch
