// Entries of column dot products for reduce_columns (cuda/components/reduction.cuh): a_col^T b_col, both
// a_col^T b_col and a_col^T c_col as 2 cols reduced columns, or the same pair as one TwoSums per column.
#pragma once

#include <cstdint>

#include "core/base/two_sums.hpp"
#include "cuda/base/runtime.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {

/// Entry (row, col) of a_col^T b_col.
template <typename T>
struct ProductEntry {
    const T* a;
    std::int64_t a_stride;
    const T* b;
    std::int64_t b_stride;
    __device__ T operator()(std::int64_t row, std::int64_t col) const
    {
        return a[row * a_stride + col] * b[row * b_stride + col];
    }
};

/// The ProductEntry of the columns of a and b (one size).
template <typename T>
ProductEntry<T> product_entry(const matrix::Dense<T>& a, const matrix::Dense<T>& b)
{
    return {a.get_const_values(), static_cast<std::int64_t>(a.get_stride()), b.get_const_values(),
            static_cast<std::int64_t>(b.get_stride())};
}

/// Entry (row, col) of a_col^T b_col for col < cols and of a_(col - cols)^T c_(col - cols) above: both
/// products of a column pair in one reduction of 2 cols columns.
template <typename T>
struct ProductPairEntry {
    const T* a;
    std::int64_t a_stride;
    const T* b;
    std::int64_t b_stride;
    const T* c;
    std::int64_t c_stride;
    std::int64_t cols;
    __device__ T operator()(std::int64_t row, std::int64_t col) const
    {
        return col < cols ? a[row * a_stride + col] * b[row * b_stride + col]
                          : a[row * a_stride + col - cols] * c[row * c_stride + col - cols];
    }
};

/// The ProductPairEntry of the columns of a with those of b and of c (one size).
template <typename T>
ProductPairEntry<T> product_pair_entry(const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                                       const matrix::Dense<T>& c)
{
    return {a.get_const_values(), static_cast<std::int64_t>(a.get_stride()),
            b.get_const_values(), static_cast<std::int64_t>(b.get_stride()),
            c.get_const_values(), static_cast<std::int64_t>(c.get_stride()),
            static_cast<std::int64_t>(a.get_size().cols)};
}

/// ProductPairEntry's columns col and cols + col as one entry of TwoSums, a_col^T b_col and a_col^T c_col
/// summed per component in the order of those two columns (the same bits).
template <typename T>
struct TwoProductsEntry {
    ProductPairEntry<T> pair;
    __device__ TwoSums<T> operator()(std::int64_t row, std::int64_t col) const
    {
        return {pair(row, col), pair(row, pair.cols + col)};
    }
};

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
