// A lane's share of a sparse row (or of a node of rows with one pattern) times a vector, with several of its
// terms' loads in flight at once.
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

/**
 * strided_row_sum for a node: node_rows consecutive rows with one pattern, whose entries lie row_length
 * apart (rows of equal length, so row j's k-th entry is values[k + j * row_length]). One column index and
 * one gathered operand serve all the node's rows, which is what it saves: an FEM matrix of 3 unknowns per
 * node gathers a third of the operands. sums[j] += row j's products, in the order of strided_row_sum. Here
 * only the operands are loaded ahead: the values of in_flight terms of every row would take
 * in_flight * node_rows registers, and they come from shared memory where the rows are staged. One row
 * (node_rows 1) is strided_row_sum itself.
 */
template <int in_flight, int node_rows, typename V, typename C, typename Index, typename Gather>
__device__ __forceinline__ void strided_node_sums(Index first, Index end, Index step, Index row_length,
                                                  const V* values, const C* cols, Gather gather,
                                                  V (&sums)[node_rows])
{
    if constexpr (node_rows == 1) {
        sums[0] = strided_row_sum<in_flight>(first, end, step, values, cols, gather, sums[0]);
    } else {
        for (Index k = first; k < end; k += in_flight * step) {
            V operand[in_flight];
#pragma unroll
            for (int t = 0; t < in_flight; ++t) {
                const Index at = k + t * step;
                operand[t] = at < end ? gather(cols[at]) : V{};
            }
#pragma unroll
            for (int t = 0; t < in_flight; ++t) {
                const Index at = k + t * step;
                if (at < end) {
#pragma unroll
                    for (int j = 0; j < node_rows; ++j) {
                        sums[j] = fma(values[at + j * row_length], operand[t], sums[j]);
                    }
                }
            }
        }
    }
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
