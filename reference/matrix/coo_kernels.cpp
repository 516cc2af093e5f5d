// Reference kernels of matrix::Coo: one pass over the nonzeros, the specification the other backends are
// tested against.
#include "core/matrix/coo_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace coo {

template <typename V, typename I>
void spmv(const DefaultExecutor&, V alpha, const matrix::Coo<V, I>& a, const matrix::Dense<V>& b,
          V beta, matrix::Dense<V>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type j = 0; j < x.get_size().cols; ++j) {
            auto& entry = x.get_values()[row * x.get_stride() + j];
            entry = beta == V{} ? V{} : beta * entry;
        }
    }
    for (size_type k = 0; k < a.get_num_stored_elements(); ++k) {
        const auto row = a.get_const_row_idxs()[k];
        const auto col = a.get_const_col_idxs()[k];
        for (size_type j = 0; j < x.get_size().cols; ++j) {
            x.get_values()[row * x.get_stride() + j] +=
                alpha * a.get_const_values()[k] * b.get_const_values()[col * b.get_stride() + j];
        }
    }
}

template <typename I>
void convert_row_idxs_to_ptrs(const DefaultExecutor&, const I* row_idxs, size_type num_nonzeros,
                              I* row_ptrs, size_type num_rows)
{
    for (size_type row = 0; row <= num_rows; ++row) {
        row_ptrs[row] = 0;
    }
    for (size_type k = 0; k < num_nonzeros; ++k) {
        ++row_ptrs[row_idxs[k] + 1];
    }
    for (size_type row = 0; row < num_rows; ++row) {
        row_ptrs[row + 1] += row_ptrs[row];
    }
}

LARCH_INSTANTIATE_COO_KERNELS();

}  // namespace coo
}  // namespace reference
}  // namespace kernels
}  // namespace larch
