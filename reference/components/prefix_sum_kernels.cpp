// Reference exclusive prefix sum.
#include "core/components/prefix_sum_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace components {

template <typename I>
void prefix_sum(const DefaultExecutor&, I* values, size_type n)
{
    I partial_sum{};
    for (size_type i = 0; i < n; ++i) {
        const auto count = values[i];
        values[i] = partial_sum;
        partial_sum += count;
    }
}

LARCH_INSTANTIATE_PREFIX_SUM_KERNELS();

}  // namespace components
}  // namespace reference
}  // namespace kernels
}  // namespace larch
