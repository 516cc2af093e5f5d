// Launch configuration from the device's properties, a grid-stride loop, and a generic checked
// "for each index" launch that kernels with one thread per element share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// Threads per block of simple one-dimensional kernels (a multiple of every warp size).
constexpr int default_block_size = 256;

/// Resident threads per multiprocessor on the targets we build for (sm_90: 2048, CDNA2/RDNA2: 2048
/// or more); GpuExecutor does not expose the exact figure and a grid-stride kernel only needs a bound.
constexpr int max_threads_per_multiprocessor = 2048;

/// ceil(a / b) for positive b.
constexpr std::int64_t ceildiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

/// The number of blocks a one-thread-per-item kernel over `num_items` needs; at least 1.
inline unsigned num_blocks_for(std::int64_t num_items, int block_size = default_block_size)
{
    return static_cast<unsigned>(std::max<std::int64_t>(1, ceildiv(num_items, block_size)));
}

/// Blocks for a grid-stride kernel over `num_items`: enough to fill every multiprocessor once, never
/// more than one item per thread needs, at least 1.
inline unsigned grid_stride_num_blocks(const GpuExecutor& exec, std::int64_t num_items,
                                       int block_size = default_block_size)
{
    const std::int64_t resident =
        std::max<std::int64_t>(1, std::int64_t{exec.get_num_multiprocessors()} *
                                      (max_threads_per_multiprocessor / block_size));
    return static_cast<unsigned>(
        std::min<std::int64_t>(resident, num_blocks_for(num_items, block_size)));
}

/**
 * The indices [0, end) this thread handles in a one-dimensional grid-stride loop:
 * `for (auto i : grid_stride_range(n)) { ... }`. Any grid size is correct; consecutive threads get
 * consecutive indices, so accesses stay coalesced.
 */
class GridStrideRange {
public:
    class iterator {
    public:
        __device__ iterator(std::int64_t index, std::int64_t step) : index_{index}, step_{step} {}
        __device__ std::int64_t operator*() const { return index_; }
        __device__ iterator& operator++()
        {
            index_ += step_;
            return *this;
        }
        // A range-for compares with end(): "not yet past the end" rather than exact inequality.
        __device__ bool operator!=(const iterator& end) const { return index_ < end.index_; }

    private:
        std::int64_t index_;
        std::int64_t step_;
    };

    __device__ GridStrideRange(std::int64_t begin, std::int64_t end, std::int64_t step)
        : begin_{begin}, end_{end}, step_{step}
    {
    }
    __device__ iterator begin() const { return {begin_, step_}; }
    __device__ iterator end() const { return {end_, step_}; }

private:
    std::int64_t begin_;
    std::int64_t end_;
    std::int64_t step_;
};

/// The grid-stride range of this thread over [0, end).
__device__ __forceinline__ GridStrideRange grid_stride_range(std::int64_t end)
{
    const std::int64_t first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    return {first, end, std::int64_t{gridDim.x} * blockDim.x};
}

/// Row and column of entry i of a row-major walk over `cols` columns.
struct EntryPosition {
    std::int64_t row;
    std::int64_t col;
};

/**
 * Where entry i of a row-major walk over `cols` columns lies. A 64-bit division takes tens of instructions,
 * more than an element-wise pass over a few vectors may spend per entry without falling behind memory
 * (H100: fused BiCGSTAB steps at 83% of copy with it), so one column divides nothing and indices below
 * 2^32 divide in 32 bits.
 */
__device__ __forceinline__ EntryPosition entry_position(std::int64_t i, std::int64_t cols)
{
    if (cols == 1) {
        return {i, 0};
    }
    if (i <= 0xffffffffLL && cols <= 0xffffffffLL) {
        const auto index = static_cast<std::uint32_t>(i);
        const auto columns = static_cast<std::uint32_t>(cols);
        return {index / columns, index % columns};
    }
    return {i / cols, i % cols};
}

/// The thin kernel behind launch_for_each: calls `function(i)` for every i in [0, num_items).
template <typename Function>
__global__ void __launch_bounds__(default_block_size)
    for_each_kernel(std::int64_t num_items, Function function)
{
    for (auto i : grid_stride_range(num_items)) {
        function(i);
    }
}

/**
 * Runs `function(i)` for i in [0, num_items) on the device, one thread per index (grid-stride), and
 * checks the launch. `function` is a functor with a `__device__ void operator()(std::int64_t) const`
 * (the build has no extended lambdas); `name` appears in the DeviceError of a failed launch.
 */
template <typename Function>
void launch_for_each(const GpuExecutor& exec, std::int64_t num_items, Function function,
                     const char* name)
{
    if (num_items <= 0) {
        return;
    }
    for_each_kernel<<<grid_stride_num_blocks(exec, num_items), default_block_size>>>(num_items,
                                                                                     function);
    ::larch::kernels::LARCH_DEVICE_NAMESPACE::check(LARCH_RT(GetLastError)(), name, __FILE__,
                                                    __LINE__);
}

/**
 * Picks a sub-warp size at run time for kernels templated on it: calls
 * `callback(std::integral_constant<int, S>{})` with the smallest S of the list `sizes...` (ascending
 * powers of two) with S >= `needed`, or with the largest one if none is. Keeping the list short keeps
 * the number of instantiations (and the build time) down, e.g.
 * `dispatch_subwarp_size<2, 4, 8, 16, 32>(avg_row_nnz, [&](auto subwarp) { kernel<decltype(subwarp)::value><<<...>>>(...); });`
 */
template <int first, int... rest, typename Callback>
void dispatch_subwarp_size(int needed, Callback&& callback)
{
    if constexpr (sizeof...(rest) == 0) {
        callback(std::integral_constant<int, first>{});
    } else {
        if (needed <= first) {
            callback(std::integral_constant<int, first>{});
        } else {
            dispatch_subwarp_size<rest...>(needed, std::forward<Callback>(callback));
        }
    }
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
