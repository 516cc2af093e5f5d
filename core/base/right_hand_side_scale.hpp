// The power-of-two scaling that lets the solvers take right-hand sides of any finite magnitude.
#pragma once

#include <cmath>
#include <limits>

#include "core/base/host_device.hpp"

namespace larch {
namespace detail {

/**
 * The factor s by which a solve multiplies a right-hand side b and its initial guess x before iterating (and
 * divides x, the residual norms and the threshold after), from m, the magnitude of b: its largest entry
 * (the batched solvers) or its 2-norm (the single-system solvers); the two differ by at most sqrt(n), far
 * inside the window below.
 *
 * Why: the methods' norms and dot products are plain sums of squares. For b of 1e-170 in double (1e-23 in
 * float) the squares underflow to 0; for b of 1e200 they overflow. Every step of the methods is homogeneous
 * in (b, x), so solving A (s x) = s b is the same solve, and with s a power of two the scaling itself is
 * exact.
 *
 * s = 1 (the solve runs unscaled, bit for bit as without this rule) for m = 0, for a non-finite m (the solve
 * reports it), and for m within 2^(+-max_exponent / 4): 1e-77..1e77 in double, 2.3e-10..4.3e9 in float,
 * where sums of squares of residuals down to eps m neither underflow nor overflow. Otherwise s = 2^-e with e
 * the binary exponent of m, so that s m lies in [1, 2); s stays within 2^+-(max_exponent - 1), so that both s
 * and 1 / s are finite (a subnormal m still lands far inside the safe range).
 */
template <typename T>
LARCH_HOST_DEVICE T right_hand_side_scale(T magnitude)
{
    using limits = std::numeric_limits<T>;
    constexpr int safe_exponent = limits::max_exponent / 4;
    if (!(magnitude > T{}) || !(magnitude <= limits::max())) {
        return T{1};
    }
    const int exponent = std::ilogb(magnitude);
    if (exponent >= -safe_exponent && exponent <= safe_exponent) {
        return T{1};
    }
    const int shift = exponent < -(limits::max_exponent - 1) ? limits::max_exponent - 1 : -exponent;
    return std::ldexp(T{1}, shift);
}

}  // namespace detail
}  // namespace larch
