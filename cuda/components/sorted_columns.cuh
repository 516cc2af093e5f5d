// Searching the sorted column indices of a CSR row on the device.
#pragma once

#include <cstdint>

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// The first position in [begin, end) of col_idxs (sorted) whose column is >= column (binary search).
template <typename I>
__device__ __forceinline__ std::int64_t first_in_columns(const I* col_idxs, std::int64_t begin, std::int64_t end,
                                                         std::int64_t column)
{
    while (begin < end) {
        const auto middle = begin + (end - begin) / 2;
        if (static_cast<std::int64_t>(col_idxs[middle]) < column) {
            begin = middle + 1;
        } else {
            end = middle;
        }
    }
    return begin;
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
