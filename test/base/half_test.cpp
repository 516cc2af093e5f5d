// larch::half: the exact conversion to float for every one of the 65,536 bit patterns, checked against
// the value the binary16 format defines, and the round trip through to_half.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "larch/base/half.hpp"

namespace {

/// The value of binary16 bits by the format's definition: (-1)^s 2^-24 m for exponent 0 (zero and
/// subnormals), (-1)^s 2^(e - 25) (1024 + m) for exponents 1..30; infinities and NaN for 31.
double defined_value(std::uint16_t bits)
{
    const double sign = (bits & 0x8000u) != 0 ? -1.0 : 1.0;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    if (exponent == 0x1f) {
        return mantissa == 0 ? sign * INFINITY : NAN;
    }
    if (exponent == 0) {
        return sign * std::ldexp(static_cast<double>(mantissa), -24);
    }
    return sign * std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
}

TEST(Half, ToFloatGivesTheDefinedValueOfEveryBitPattern)
{
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const auto h = larch::half{static_cast<std::uint16_t>(bits)};
        const float value = larch::to_float(h);
        const double expected = defined_value(h.bits);
        if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(value)) << "bits " << bits;
            continue;
        }
        EXPECT_EQ(static_cast<double>(value), expected) << "bits " << bits;
        EXPECT_EQ(std::signbit(value), (bits & 0x8000u) != 0) << "bits " << bits;  // -0 stays -0
        // every half is exactly a float, so rounding it back gives the same bits
        EXPECT_EQ(larch::to_half(value).bits, h.bits) << "bits " << bits;
    }
}

}  // namespace
