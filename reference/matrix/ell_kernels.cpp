// Reference kernels of matrix::Ell: row-by-row loops over the slots, skipping padding; the specification
// the other backends are tested against.
#include "core/matrix/ell_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace ell {

template <typename V, typename I>
void spmv(const DefaultExecutor&, V alpha, const matrix::Ell<V, I>& a, const matrix::Dense<V>& b,
          V beta, matrix::Dense<V>& x)
{
    const auto stride = a.get_stride();
    for (size_type row = 0; row < a.get_size().rows; ++row) {
        for (size_type j = 0; j < b.get_size().cols; ++j) {
            V sum{};
            for (size_type slot = 0; slot < a.get_num_stored_per_row(); ++slot) {
                const auto col = a.get_const_col_idxs()[slot * stride + row];
                if (col != matrix::Ell<V, I>::invalid_index) {
                    sum += a.get_const_values()[slot * stride + row] *
                           b.get_const_values()[col * b.get_stride() + j];
                }
            }
            auto& entry = x.get_values()[row * x.get_stride() + j];
            entry = beta == V{} ? alpha * sum : alpha * sum + beta * entry;
        }
    }
}

template <typename V, typename I>
void count_nonzeros_per_row(const DefaultExecutor&, const matrix::Ell<V, I>& source, I* row_nnz)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        I count{};
        for (size_type slot = 0; slot < source.get_num_stored_per_row(); ++slot) {
            const auto col = source.get_const_col_idxs()[slot * source.get_stride() + row];
            count += col != matrix::Ell<V, I>::invalid_index ? 1 : 0;
        }
        row_nnz[row] = count;
    }
}

template <typename V, typename I>
void convert_to_csr(const DefaultExecutor&, const matrix::Ell<V, I>& source,
                    matrix::Csr<V, I>& result)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        auto k = result.get_const_row_ptrs()[row];
        for (size_type slot = 0; slot < source.get_num_stored_per_row(); ++slot) {
            const auto position = slot * source.get_stride() + row;
            const auto col = source.get_const_col_idxs()[position];
            if (col != matrix::Ell<V, I>::invalid_index) {
                result.get_col_idxs()[k] = col;
                result.get_values()[k] = source.get_const_values()[position];
                ++k;
            }
        }
    }
}

LARCH_INSTANTIATE_ELL_KERNELS();

}  // namespace ell
}  // namespace reference
}  // namespace kernels
}  // namespace larch
