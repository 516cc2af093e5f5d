// A counter-based random number: the value of entry `index` of stream `seed` is a pure function of both
// (SplitMix64's finalizer, Steele, Lea and Flood 2014), so every backend fills any entry independently, in
// any order and on any number of threads, and all of them produce the same bits.
#pragma once

#include <cstdint>

#include "core/base/host_device.hpp"

namespace larch {
namespace kernels {
namespace components {

/// SplitMix64's output function applied to the (seed, index) pair.
LARCH_HOST_DEVICE std::uint64_t counter_random_bits(std::uint64_t seed, std::uint64_t index)
{
    std::uint64_t z = seed * 0x9e3779b97f4a7c15ull + (index + 1) * 0xd1b54a32d192ed03ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Uniform in [-1, 1): the top 53 bits as an exact double in [0, 1), doubled and shifted (both exact).
LARCH_HOST_DEVICE double counter_random_uniform(std::uint64_t seed, std::uint64_t index)
{
    return static_cast<double>(counter_random_bits(seed, index) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace components
}  // namespace kernels
}  // namespace larch
