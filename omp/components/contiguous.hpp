// Whether dense operands can be walked as one flat array: kernels then run plain loops over entry indices,
// which the compiler vectorizes, instead of a loop over each row's columns.
#pragma once

#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Whether every matrix has the same size as the first and stores its entries without gaps (stride equal
/// to its columns, or a single row), so that entry (row, col) of each is its element row * cols + col.
template <typename T, typename... Others>
bool are_contiguous(const matrix::Dense<T>& first, const Others&... others)
{
    const auto gapless = [](const matrix::Dense<T>& m) {
        return m.get_stride() == m.get_size().cols || m.get_size().rows <= 1;
    };
    return gapless(first) && ((others.get_size() == first.get_size() && gapless(others)) && ...);
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
