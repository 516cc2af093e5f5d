// Comparison of CSR row patterns on raw pointers, shared by the host kernels that group rows of one
// pattern: block-Jacobi's supervariables (reference, OpenMP) and the OpenMP SpMV's row groups.
#pragma once

#include "larch/base/types.hpp"

namespace larch {
namespace kernels {

/// True if row `row` (> 0) has the same column pattern as row `row - 1`.
template <typename I>
bool same_pattern_as_previous(const I* row_ptrs, const I* col_idxs, size_type row)
{
    const auto length = row_ptrs[row + 1] - row_ptrs[row];
    if (length != row_ptrs[row] - row_ptrs[row - 1]) {
        return false;
    }
    for (I k = 0; k < length; ++k) {
        if (col_idxs[row_ptrs[row] + k] != col_idxs[row_ptrs[row - 1] + k]) {
            return false;
        }
    }
    return true;
}

}  // namespace kernels
}  // namespace larch
