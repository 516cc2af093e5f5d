// Reference kernels of preconditioner::BlockJacobi (scalar Jacobi): the specification the other backends follow.
#include "core/preconditioner/block_jacobi_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace block_jacobi {

template <typename V, typename I>
void extract_inverse_diagonal(const DefaultExecutor&, const matrix::Csr<V, I>& a, array<V>& inverse_diagonal,
                              array<I>& zero_diagonal)
{
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto values = a.get_const_values();
    for (size_type row = 0; row < a.get_size().rows; ++row) {
        V diagonal{};
        for (auto nz = row_ptrs[row]; nz < row_ptrs[row + 1]; ++nz) {
            if (static_cast<size_type>(col_idxs[nz]) == row) {
                diagonal += values[nz];
            }
        }
        const bool is_zero = diagonal == V{};
        inverse_diagonal.get_data()[row] = is_zero ? V{1} : V{1} / diagonal;
        zero_diagonal.get_data()[row] = is_zero ? I{1} : I{0};
    }
}

template <typename V>
void apply_inverse_diagonal(const DefaultExecutor&, V alpha, const array<V>& inverse_diagonal,
                            const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto inverse = inverse_diagonal.get_const_data();
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            const auto scaled = alpha * inverse[row] * b.get_const_values()[row * b.get_stride() + col];
            auto& out = x.get_values()[row * x.get_stride() + col];
            out = beta == V{} ? scaled : scaled + beta * out;
        }
    }
}

LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();

}  // namespace block_jacobi
}  // namespace reference
}  // namespace kernels
}  // namespace larch
