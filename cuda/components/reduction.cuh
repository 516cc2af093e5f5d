// Block-wide all-reduce built on the sub-warp collectives of warp.cuh (32-lane groups, so the same code
// is right for 32- and 64-lane hardware warps).
#pragma once

#include "cuda/components/warp.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/**
 * Reduces `value` over all `block_size` threads of a one-dimensional block with `op` (commutative,
 * associative) and returns the result on every thread. Every thread of the block must call it (it
 * synchronizes the block twice, so the next call may reuse the shared memory). Deterministic: the
 * combination order depends only on the block size.
 */
template <int block_size, typename T, typename Op>
__device__ __forceinline__ T block_all_reduce(T value, Op op)
{
    static_assert(block_size % 32 == 0 && block_size <= 1024,
                  "block_all_reduce needs a block of a multiple of 32 threads, at most 1024");
    constexpr int num_groups = block_size / 32;
    __shared__ T group_results[num_groups];
    value = warp::all_reduce<32>(value, op);
    if (warp::rank<32>() == 0) {
        group_results[warp::subwarp_id_in_block<32>()] = value;
    }
    __syncthreads();
    // Every thread combines the (at most 32) group results itself: broadcast reads from shared
    // memory, no third synchronization.
    T result = group_results[0];
#pragma unroll
    for (int group = 1; group < num_groups; ++group) {
        result = op(result, group_results[group]);
    }
    __syncthreads();
    return result;
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
