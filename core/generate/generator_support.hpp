// Shared pieces of the problem generators: a portable pseudo-random stream (the same numbers on every
// platform, unlike std:: distributions) and the size checks every generator applies to its parameters.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "larch/base/exception.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace generate {
namespace detail {

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and statistically good enough for test matrices.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_{seed} {}

    std::uint64_t next() { return mix(state_ += 0x9e3779b97f4a7c15ull); }

    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// Uniform integer in [low, high] (high - low far below 2^64, so the modulo bias is negligible).
    size_type between(size_type low, size_type high) { return low + next() % (high - low + 1); }

    /// A stateless hash of (seed, a, b) in [0, 1): for values that must not depend on generation order.
    static double hash_uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
    {
        const auto h = mix(mix(seed ^ mix(a + 0x9e3779b97f4a7c15ull)) ^ b);
        return static_cast<double>(h >> 11) * 0x1.0p-53;
    }

private:
    static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    std::uint64_t state_;
};

/// Throws BadInput naming `generator` unless `value` is positive.
inline void ensure_positive(const char* generator, const char* parameter, size_type value)
{
    LARCH_ENSURE(
        value > 0, BadInput,
        std::string{generator} + ": " + parameter + " must be positive, got " + std::to_string(value));
}

/// a * b, or BadInput naming `generator` and `what` if the product overflows size_type.
inline size_type checked_product(const char* generator, const char* what, size_type a, size_type b)
{
    LARCH_ENSURE(a == 0 || b <= std::numeric_limits<size_type>::max() / a, BadInput,
                 std::string{generator} + ": the number of " + what + " (" + std::to_string(a) + " * " +
                     std::to_string(b) + ") overflows " +
                     std::to_string(std::numeric_limits<size_type>::digits) + "-bit sizes");
    return a * b;
}

/// BadInput naming `generator` unless the rows and the nonzeros fit the index type I (CSR row
/// pointers of type I must be able to address every nonzero).
template <typename I>
void ensure_fits_index_type(const char* generator, size_type rows, size_type nonzeros)
{
    const auto max_index = static_cast<size_type>(std::numeric_limits<I>::max());
    LARCH_ENSURE(rows <= max_index, BadInput,
                 std::string{generator} + ": " + std::to_string(rows) + " rows do not fit the index type " +
                     type_name<I>());
    LARCH_ENSURE(nonzeros <= max_index, BadInput,
                 std::string{generator} + ": " + std::to_string(nonzeros) +
                     " nonzeros do not fit the index type " + type_name<I>() +
                     " (CSR row pointers of that type could not address them)");
}

}  // namespace detail
}  // namespace generate
}  // namespace larch
