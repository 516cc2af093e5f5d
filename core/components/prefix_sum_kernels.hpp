// Exclusive prefix sum, used to turn per-row counts into row pointers.
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace components {
    /// values[0..n) becomes its exclusive prefix sum: values[i] = sum of the old values[0..i). The last
    /// slot is a spare one whose old content is never read; it receives the total. Used with
    /// n = num_rows + 1 on per-row counts to make row pointers.
    template <typename I>
    void prefix_sum(const DefaultExecutor& exec, I* values, size_type n);
})

/// The explicit instantiations every backend's prefix_sum kernel file ends with, written once inside
/// namespace <backend>::components as `LARCH_INSTANTIATE_PREFIX_SUM_KERNELS();` (for every index type in
/// core/components/instantiation.hpp, and for 64-bit byte offsets).
#define LARCH_INSTANTIATE_PREFIX_SUM_KERNELS()                              \
    LARCH_INSTANTIATE_FOR_EACH_INDEX_TYPE(LARCH_INSTANTIATE_PREFIX_SUM_FOR); \
    LARCH_INSTANTIATE_PREFIX_SUM_FOR(std::int64_t)
#define LARCH_INSTANTIATE_PREFIX_SUM_FOR(I) \
    template void prefix_sum<I>(const DefaultExecutor&, I*, size_type)

}  // namespace kernels
}  // namespace larch
