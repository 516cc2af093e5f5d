// The random start of IDR(s)'s shadow space, generated where the space lives (on the executor).
#pragma once

#include <cstdint>

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace shadow_space {
    /// space(i, k) = components::counter_random_uniform(seed, i * global_cols + first_col + k), rounded to T:
    /// the columns [first_col, first_col + cols) of the s x global_cols random matrix of the seed (a process's
    /// rows of a distributed shadow space; first_col = 0, global_cols = cols for the whole one), the same values
    /// on every backend.
    template <typename T>
    void fill_random(const DefaultExecutor& exec, std::uint64_t seed, size_type global_cols, size_type first_col,
                     matrix::Dense<T>& space);
})

#define LARCH_INSTANTIATE_SHADOW_SPACE_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_SHADOW_SPACE_FOR)
#define LARCH_INSTANTIATE_SHADOW_SPACE_FOR(T) \
    template void fill_random<T>(const DefaultExecutor&, std::uint64_t, size_type, size_type, matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
