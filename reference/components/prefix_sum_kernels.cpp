// Reference exclusive prefix sum.
#include "core/components/prefix_sum_kernels.hpp"

#include "core/components/instantiation.hpp"

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

#define LARCH_PREFIX_SUM(I) template void prefix_sum<I>(const DefaultExecutor&, I*, size_type)
LARCH_INSTANTIATE_FOR_EACH_INDEX_TYPE(LARCH_PREFIX_SUM);

}  // namespace components
}  // namespace reference
}  // namespace kernels
}  // namespace larch
