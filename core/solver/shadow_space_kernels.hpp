// The random start of IDR(s)'s shadow space, generated where the space lives (on the executor).
#pragma once

#include <cstdint>

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace shadow_space {
    /// space(i, k) = components::counter_random_uniform(seed, i * cols + k), rounded to T: the same values
    /// on every backend.
    template <typename T>
    void fill_random(const DefaultExecutor& exec, std::uint64_t seed, matrix::Dense<T>& space);
})

#define LARCH_INSTANTIATE_SHADOW_SPACE_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_SHADOW_SPACE_FOR)
#define LARCH_INSTANTIATE_SHADOW_SPACE_FOR(T) \
    template void fill_random<T>(const DefaultExecutor&, std::uint64_t, matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
