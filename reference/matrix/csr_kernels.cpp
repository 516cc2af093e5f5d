// Reference kernels of matrix::Csr: row-by-row loops, the specification the other backends are tested against.
#include "core/matrix/csr_kernels.hpp"

#include <algorithm>
#include <vector>

namespace larch {
namespace kernels {
namespace reference {
namespace csr {

template <typename V, typename I>
void spmv(const DefaultExecutor&, V alpha, const matrix::Csr<V, I>& a, const matrix::Dense<V>& b,
          V beta, matrix::Dense<V>& x)
{
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto values = a.get_const_values();
    for (size_type row = 0; row < a.get_size().rows; ++row) {
        for (size_type j = 0; j < b.get_size().cols; ++j) {
            V sum{};
            for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
                sum += values[k] * b.get_const_values()[col_idxs[k] * b.get_stride() + j];
            }
            auto& entry = x.get_values()[row * x.get_stride() + j];
            entry = beta == V{} ? alpha * sum : alpha * sum + beta * entry;
        }
    }
}

template <typename V, typename I>
void convert_to_coo(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                    matrix::Coo<V, I>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            result.get_row_idxs()[k] = static_cast<I>(row);
        }
    }
}

template <typename V, typename I>
void compute_max_row_nnz(const DefaultExecutor&, const matrix::Csr<V, I>& source, size_type& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    result = 0;
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        result = std::max(result, static_cast<size_type>(row_ptrs[row + 1] - row_ptrs[row]));
    }
}

template <typename V, typename I>
void convert_to_ell(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                    matrix::Ell<V, I>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto stride = result.get_stride();
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        size_type slot = 0;
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k, ++slot) {
            result.get_col_idxs()[slot * stride + row] = source.get_const_col_idxs()[k];
            result.get_values()[slot * stride + row] = source.get_const_values()[k];
        }
        for (; slot < result.get_num_stored_per_row(); ++slot) {
            result.get_col_idxs()[slot * stride + row] = matrix::Ell<V, I>::invalid_index;
            result.get_values()[slot * stride + row] = V{};
        }
    }
}

template <typename V, typename I>
void convert_to_dense(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                      matrix::Dense<V>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            result.get_values()[row * result.get_stride() + source.get_const_col_idxs()[k]] =
                source.get_const_values()[k];
        }
    }
}

template <typename V, typename I>
void transpose(const DefaultExecutor&, const matrix::Csr<V, I>& source, matrix::Csr<V, I>& result)
{
    // Counting sort by column: count the entries of each column, turn the counts into row pointers of
    // the transpose, then scatter the rows in order, which leaves each new row sorted by column.
    const auto num_cols = source.get_size().cols;
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto col_idxs = source.get_const_col_idxs();
    auto result_row_ptrs = result.get_row_ptrs();
    std::fill(result_row_ptrs, result_row_ptrs + num_cols + 1, I{});
    for (size_type k = 0; k < source.get_num_stored_elements(); ++k) {
        ++result_row_ptrs[col_idxs[k] + 1];
    }
    for (size_type col = 0; col < num_cols; ++col) {
        result_row_ptrs[col + 1] += result_row_ptrs[col];
    }
    std::vector<I> next(result_row_ptrs, result_row_ptrs + num_cols);
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            const auto position = next[col_idxs[k]]++;
            result.get_col_idxs()[position] = static_cast<I>(row);
            result.get_values()[position] = source.get_const_values()[k];
        }
    }
}

LARCH_INSTANTIATE_CSR_KERNELS();

}  // namespace csr
}  // namespace reference
}  // namespace kernels
}  // namespace larch
