// The power-of-two scaling that lets the batched solvers take right-hand sides of any magnitude.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/base/host_device.hpp"

namespace larch {
namespace batch {
namespace item {

/**
 * The factor s_i by which the batched solve multiplies b_i and the initial guess x_i before iterating (and
 * divides x_i, the residual norms and the threshold after), from m = max_r |b_i(r)|.
 *
 * Why: the methods' norms and dot products are plain sums of squares. For b_i of 1e-170 in double (1e-23
 * in float) the squares underflow to 0, so b_i looked like 0 and the item was reported solved by x_i = 0;
 * for b_i of 1e200 they overflow and the item was reported non_finite. Every step of the methods is
 * homogeneous in (b_i, x_i), so solving A_i (s x_i) = s b_i is the same solve, and with s a power of two
 * the scaling itself is exact.
 *
 * s = 1 (the item runs unscaled, bit for bit as without this rule) for b_i = 0, for a non-finite m (the
 * solve reports the item non_finite), and for m within 2^(+-max_exponent / 4): 1e-77..1e77 in double,
 * 2.3e-10..4.3e9 in float, where sums of squares of residuals down to eps m neither underflow nor
 * overflow. Otherwise s = 2^-e with e the binary exponent of m, so that s m lies in [1, 2); s stays within
 * 2^+-(max_exponent - 1), so that both s and 1 / s are finite (a subnormal m still lands far inside the
 * safe range).
 */
template <typename T>
LARCH_HOST_DEVICE T right_hand_side_scale(T largest_magnitude)
{
    using limits = std::numeric_limits<T>;
    constexpr int safe_exponent = limits::max_exponent / 4;
    if (!(largest_magnitude > T{}) || !(largest_magnitude <= limits::max())) {
        return T{1};
    }
    const int exponent = std::ilogb(largest_magnitude);
    if (exponent >= -safe_exponent && exponent <= safe_exponent) {
        return T{1};
    }
    const int shift = exponent < -(limits::max_exponent - 1) ? limits::max_exponent - 1 : -exponent;
    return std::ldexp(T{1}, shift);
}

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
