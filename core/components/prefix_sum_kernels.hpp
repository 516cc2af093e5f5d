// Exclusive prefix sum, used to turn per-row counts into row pointers.
#pragma once

#include "core/base/kernel_dispatch.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace components {
    /// values[0..n) becomes its exclusive prefix sum; values[n - 1] must be a spare slot (count 0) so
    /// that it receives the total. Used with n = num_rows + 1.
    template <typename I>
    void prefix_sum(const DefaultExecutor& exec, I* values, size_type n);
})

}  // namespace kernels
}  // namespace larch
