// The host backends' part of the batched solvers' right-hand-side scaling (the rule:
// core/base/right_hand_side_scale.hpp, applied to each item's largest entry).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/base/right_hand_side_scale.hpp"

namespace larch {
namespace batch {
namespace item {

/// max |values[k]| over [begin, end) for the host backends; NaN if an entry is NaN, as on the devices.
template <typename T>
T largest_magnitude(const T* values, std::int64_t begin, std::int64_t end)
{
    T largest{};
    for (auto k = begin; k < end; ++k) {
        const T magnitude = std::abs(values[k]);
        largest = std::isnan(magnitude) ? magnitude : std::max(largest, magnitude);
    }
    return largest;
}

}  // namespace item
}  // namespace batch
}  // namespace larch
