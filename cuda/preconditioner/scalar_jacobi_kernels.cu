// Device kernels of preconditioner::BlockJacobi with blocks of one row (scalar Jacobi): the diagonal's
// extraction from CSR, the row scaling x = alpha D^{-1} b + beta x (one thread per element), and the scaling
// fused with the dot products r^T z. Larger blocks: block_jacobi_kernels.cu.
#include <cstdint>

#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/scalar_jacobi_rule.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/sorted_columns.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace block_jacobi {
namespace {

using index64 = std::int64_t;

// one thread per row; columns are sorted within a row, so the diagonal is found by binary search
template <typename V, typename I>
struct ExtractInverseDiagonal {
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    V* inverse_diagonal;
    I* zero_diagonal;

    __device__ void operator()(index64 row) const
    {
        const auto end = static_cast<index64>(row_ptrs[row + 1]);
        const auto begin = first_in_columns(col_idxs, static_cast<index64>(row_ptrs[row]), end, row);
        const bool found = begin < end && static_cast<index64>(col_idxs[begin]) == row;
        const V diagonal = found ? values[begin] : V{};
        const bool unscaled = jacobi_leaves_unscaled(diagonal);
        inverse_diagonal[row] = unscaled ? V{1} : V{1} / diagonal;
        zero_diagonal[row] = unscaled ? I{1} : I{0};
    }
};

// one thread per entry of x (row-major with strides)
template <typename V>
struct ApplyInverseDiagonal {
    V alpha;
    const V* inverse_diagonal;
    const V* b;
    index64 b_stride;
    V beta;
    V* x;
    index64 x_stride;
    index64 cols;

    __device__ void operator()(index64 i) const
    {
        const auto [row, col] = entry_position(i, cols);
        const V scaled = alpha * inverse_diagonal[row] * b[row * b_stride + col];
        V& out = x[row * x_stride + col];
        out = beta == V{} ? scaled : scaled + beta * out;
    }
};

}  // namespace

template <typename V, typename I>
void extract_inverse_diagonal(const DefaultExecutor& exec, const matrix::Csr<V, I>& a,
                              array<V>& inverse_diagonal, array<I>& zero_diagonal)
{
    ExtractInverseDiagonal<V, I> functor{a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(),
                                         inverse_diagonal.get_data(), zero_diagonal.get_data()};
    launch_for_each(exec, static_cast<index64>(a.get_size().rows), functor,
                    "block_jacobi::extract_inverse_diagonal");
}

template <typename V>
void apply_inverse_diagonal(const DefaultExecutor& exec, V alpha, const array<V>& inverse_diagonal,
                            const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto size = x.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    ApplyInverseDiagonal<V> functor{alpha,
                                    inverse_diagonal.get_const_data(),
                                    b.get_const_values(),
                                    static_cast<index64>(b.get_stride()),
                                    beta,
                                    x.get_values(),
                                    static_cast<index64>(x.get_stride()),
                                    static_cast<index64>(size.cols)};
    launch_for_each(exec, static_cast<index64>(size.rows * size.cols), functor,
                    "block_jacobi::apply_inverse_diagonal");
}

/// entry(row, col) of apply_inverse_diagonal_dot: z = d r written, r z returned to the column sum.
template <typename V>
struct InverseDiagonalDotEntry {
    const V* inverse;
    const V* r;
    index64 r_stride;
    V* z;
    index64 z_stride;
    __device__ V operator()(index64 row, index64 col) const
    {
        const V r_entry = r[row * r_stride + col];
        const V z_entry = inverse[row] * r_entry;
        z[row * z_stride + col] = z_entry;
        return r_entry * z_entry;
    }
};

template <typename V>
void apply_inverse_diagonal_dot(const DefaultExecutor& exec, const array<V>& inverse_diagonal, const matrix::Dense<V>& r,
                                matrix::Dense<V>& z, array<V>& dots, array<V>& workspace)
{
    // The reduction of dense::compute_dot with an entry that also writes z: the same summation order.
    const auto size = z.get_size();
    reduce_columns(exec, size.rows, size.cols,
                   InverseDiagonalDotEntry<V>{inverse_diagonal.get_const_data(), r.get_const_values(),
                                              static_cast<index64>(r.get_stride()), z.get_values(),
                                              static_cast<index64>(z.get_stride())},
                   warp::Sum{}, V{0}, KeepTotal{}, dots.get_data(), workspace);
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_EXTRACT_FOR);
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI_APPLY_FOR);

}  // namespace block_jacobi
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
