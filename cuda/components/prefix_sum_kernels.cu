// Exclusive prefix sum on the device: a scan per block, a recursive scan of the block totals, then
// each block adds its offset (three launches per level; 256^k elements need k levels).
#include <cstdint>

#include "core/components/prefix_sum_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"
#include "larch/base/array.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace components {
namespace {

constexpr int scan_block_size = default_block_size;
constexpr int scan_group_size = 32;
constexpr int scan_num_groups = scan_block_size / scan_group_size;

/// One element per thread: each 32-lane group scans its elements, the first group scans the group
/// totals, and every thread adds its group's offset. Writes the block's total to block_totals (if
/// given), for the next level.
template <typename I>
__global__ void __launch_bounds__(scan_block_size)
    block_exclusive_scan_kernel(I* values, std::int64_t n, I* block_totals)
{
    __shared__ I group_offsets[scan_num_groups];
    const std::int64_t i = std::int64_t{blockIdx.x} * scan_block_size + threadIdx.x;
    const I value = i < n ? values[i] : I{0};
    const I inclusive = warp::inclusive_scan_sum<scan_group_size>(value);
    const int group = warp::subwarp_id_in_block<scan_group_size>();
    const int lane = warp::rank<scan_group_size>();
    if (lane == scan_group_size - 1) {
        group_offsets[group] = inclusive;
    }
    __syncthreads();
    if (group == 0) {
        const I total = lane < scan_num_groups ? group_offsets[lane] : I{0};
        const I group_inclusive = warp::inclusive_scan_sum<scan_group_size>(total);
        if (lane < scan_num_groups) {
            group_offsets[lane] = group_inclusive - total;
        }
        if (lane == scan_group_size - 1 && block_totals) {
            block_totals[blockIdx.x] = group_inclusive;
        }
    }
    __syncthreads();
    if (i < n) {
        values[i] = group_offsets[group] + inclusive - value;
    }
}

/// values[i] += offsets[block of i], the second half of a two-level scan.
template <typename I>
__global__ void __launch_bounds__(scan_block_size)
    add_block_offsets_kernel(I* values, std::int64_t n, const I* offsets)
{
    const std::int64_t i = std::int64_t{blockIdx.x} * scan_block_size + threadIdx.x;
    if (i < n) {
        values[i] += offsets[blockIdx.x];
    }
}

template <typename I>
void exclusive_scan(const DefaultExecutor& exec, I* values, std::int64_t n)
{
    if (n <= 0) {
        return;
    }
    const unsigned num_blocks = num_blocks_for(n, scan_block_size);
    if (num_blocks == 1) {
        block_exclusive_scan_kernel<<<1, scan_block_size>>>(values, n, static_cast<I*>(nullptr));
        LARCH_LAUNCH_CHECK("components::block_exclusive_scan_kernel");
        return;
    }
    array<I> block_offsets{exec.shared_from_this(), num_blocks};
    block_exclusive_scan_kernel<<<num_blocks, scan_block_size>>>(values, n,
                                                                 block_offsets.get_data());
    LARCH_LAUNCH_CHECK("components::block_exclusive_scan_kernel");
    exclusive_scan(exec, block_offsets.get_data(), num_blocks);
    add_block_offsets_kernel<<<num_blocks, scan_block_size>>>(values, n,
                                                              block_offsets.get_const_data());
    LARCH_LAUNCH_CHECK("components::add_block_offsets_kernel");
}

}  // namespace

template <typename I>
void prefix_sum(const DefaultExecutor& exec, I* values, size_type n)
{
    exclusive_scan(exec, values, static_cast<std::int64_t>(n));
}

LARCH_INSTANTIATE_PREFIX_SUM_KERNELS();

}  // namespace components
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
