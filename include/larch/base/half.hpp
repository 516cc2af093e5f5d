// larch::half: a portable IEEE 754 binary16 storage type for the host and the device. It only stores:
// values are converted to float to compute (round to nearest even on the way in), so block-Jacobi can keep
// well-conditioned blocks in 2 bytes per entry and apply them in the working precision.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIP__)
#define LARCH_HALF_FUNCTION __host__ __device__ inline
#else
#define LARCH_HALF_FUNCTION inline
#endif

namespace larch {

/// Binary16 bits; the conversions are exact bit manipulations, identical on every backend.
struct half {
    std::uint16_t bits;
};

/// The largest finite half value.
constexpr float half_max = 65504.0f;

/// Copies the bytes of a float or a 32-bit pattern; clang's HIP device code has no std::memcpy, only the
/// builtin.
LARCH_HALF_FUNCTION void copy_bytes(void* destination, const void* source, unsigned size)
{
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_memcpy(destination, source, size);
#else
    std::memcpy(destination, source, size);
#endif
}

LARCH_HALF_FUNCTION std::uint32_t bits_of(float value)
{
    std::uint32_t bits;
    copy_bytes(&bits, &value, sizeof bits);
    return bits;
}

LARCH_HALF_FUNCTION float float_of(std::uint32_t bits)
{
    float value;
    copy_bytes(&value, &bits, sizeof value);
    return value;
}

/// Rounds `value` to the nearest half (ties to even); overflow gives +-inf, NaN stays NaN.
LARCH_HALF_FUNCTION half to_half(float value)
{
    const std::uint32_t x = bits_of(value);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t magnitude = x & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) {  // inf or NaN
        return {static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u))};
    }
    if (magnitude >= 0x477ff000u) {  // rounds to a value above 65504
        return {static_cast<std::uint16_t>(sign | 0x7c00u)};
    }
    if (magnitude < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (magnitude < 0x33000000u) {  // below half of the smallest subnormal
            return {static_cast<std::uint16_t>(sign)};
        }
        const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        const int shift = 126 - static_cast<int>(magnitude >> 23);  // 14..24 for the subnormal range
        std::uint32_t result = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1u))) {
            ++result;
        }
        return {static_cast<std::uint16_t>(sign | result)};
    }
    std::uint32_t result = ((magnitude >> 13) - (112u << 10));
    const std::uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) {
        ++result;  // may carry into the exponent, which is the correct rounding
    }
    return {static_cast<std::uint16_t>(sign | result)};
}

/// The exact float value of a half.
LARCH_HALF_FUNCTION float to_float(half value)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(value.bits & 0x8000u) << 16;
    const std::uint32_t exponent = (value.bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = value.bits & 0x3ffu;
    std::uint32_t x;
    if (exponent == 0x1fu) {
        x = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        x = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else {
        // zero or subnormal: mantissa * 2^-24, exact in float (a loop normalizing the mantissa diverged
        // across the lanes of a GPU warp, and the inverses of well-conditioned blocks have many such entries)
        x = bits_of(static_cast<float>(mantissa) * 0x1p-24f) | sign;
    }
    return float_of(x);
}

}  // namespace larch
