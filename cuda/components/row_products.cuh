// A lane's share of a sparse row times a vector, with several of its terms' loads in flight at once.
#pragma once

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/**
 * sum + the products values[k] * gather(cols[k]) for k = first, first + step, ... below end, added in that
 * order. The loads of `in_flight` consecutive terms (entry, column index and the gathered operand) are
 * issued before the first of them is multiplied: taken one term at a time, a lane waits a whole memory round
 * trip (the column index, then the operand it names) per term, so a row of a few tens of entries per lane is
 * bound by latency, not bandwidth. `gather` maps a column index to the operand (e.g. an entry of b).
 */
template <int in_flight, typename V, typename C, typename Index, typename Gather>
__device__ __forceinline__ V strided_row_sum(Index first, Index end, Index step, const V* values,
                                             const C* cols, Gather gather, V sum = V{})
{
    for (Index k = first; k < end; k += in_flight * step) {
        V value[in_flight];
        V operand[in_flight];
#pragma unroll
        for (int t = 0; t < in_flight; ++t) {
            const Index at = k + t * step;
            value[t] = at < end ? values[at] : V{};
            operand[t] = at < end ? gather(cols[at]) : V{};
        }
#pragma unroll
        for (int t = 0; t < in_flight; ++t) {
            if (k + t * step < end) {
                sum = fma(value[t], operand[t], sum);
            }
        }
    }
    return sum;
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
