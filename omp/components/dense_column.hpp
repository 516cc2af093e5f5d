// One column of a row-major Dense block as a vector of its rows, held by value (a pointer and a stride). The
// terms of the fixed-order sums capture these and their scalars by value: captured by reference, every
// pointer and scalar was reloaded after each store to a vector (a double written to r might be alpha).
#pragma once

#include <cstddef>

#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Entry `row` of the column at values[row * stride]; with unit_stride (a single column without gaps, a
/// solver's vector) the stride is the constant 1, so unrolled loops over rows need no multiplications
/// and one address register per column.
template <typename T, bool unit_stride>
struct DenseColumn {
    T* values;
    std::ptrdiff_t stride;

    T& operator[](std::ptrdiff_t row) const { return values[unit_stride ? row : row * stride]; }
};

/// Column `col` of `m`, read-only.
template <bool unit_stride, typename T>
DenseColumn<const T, unit_stride> column_of(const matrix::Dense<T>& m, size_type col)
{
    return {m.get_const_values() + col, static_cast<std::ptrdiff_t>(m.get_stride())};
}

/// Column `col` of `m`, to write.
template <bool unit_stride, typename T>
DenseColumn<T, unit_stride> column_of(matrix::Dense<T>& m, size_type col)
{
    return {m.get_values() + col, static_cast<std::ptrdiff_t>(m.get_stride())};
}

/// f(column col of each of ms...): as unit-stride columns where every one of ms is a single column of
/// stride 1, as strided columns otherwise. f is generic, instantiated for both.
template <typename F, typename... M>
auto with_columns(size_type col, F f, M&... ms)
{
    if (((ms.get_stride() == 1 && ms.get_size().cols == 1) && ...)) {
        return f(column_of<true>(ms, col)...);
    }
    return f(column_of<false>(ms, col)...);
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
