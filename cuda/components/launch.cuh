// Launch configuration from the device's properties, a grid-stride loop, and a generic checked
// "for each index" launch that kernels with one thread per element share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// Threads per block of simple one-dimensional kernels (a multiple of every warp size).
constexpr int default_block_size = 256;

/// The most blocks a grid may have in its second (and third) dimension on CUDA and HIP; kernels that need
/// more stride over them.
constexpr std::int64_t max_grid_y = 65535;

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

/// Blocks of `block_size` threads that one multiprocessor holds at once if registers and shared memory
/// allow it (the thread limit alone).
constexpr int thread_limited_blocks_per_multiprocessor(int block_size)
{
    return max_threads_per_multiprocessor / block_size;
}

/**
 * Blocks for a grid-stride kernel over `num_items` of which one multiprocessor holds
 * `blocks_per_multiprocessor` at once: as many as the device holds, never more than one item per thread
 * needs, at least 1. Every block then runs from the start with an equal share; a grid of more would run
 * as a second, partial wave on some multiprocessors while the others wait (H200: fused vector updates of
 * 48 registers at 80% of copy bandwidth with a grid of 8 blocks per multiprocessor where 5 fit).
 */
inline unsigned grid_stride_num_blocks(const GpuExecutor& exec, std::int64_t num_items,
                                       int block_size = default_block_size,
                                       int blocks_per_multiprocessor = 0)
{
    if (blocks_per_multiprocessor <= 0) {
        blocks_per_multiprocessor = thread_limited_blocks_per_multiprocessor(block_size);
    }
    const std::int64_t resident = std::max<std::int64_t>(
        1, std::int64_t{exec.get_num_multiprocessors()} * blocks_per_multiprocessor);
    return static_cast<unsigned>(
        std::min<std::int64_t>(resident, num_blocks_for(num_items, block_size)));
}

namespace detail {

/// The occupancy figures resident_blocks_per_multiprocessor has asked the runtime for, by device, kernel
/// and block size (one table per process: the functions below are inline).
inline int cached_resident_blocks(int device_id, const void* kernel, int block_size, int (*ask)(const void*, int))
{
    static std::mutex mutex;
    static std::map<std::tuple<int, const void*, int>, int> known;
    const std::lock_guard<std::mutex> lock{mutex};
    const auto key = std::make_tuple(device_id, kernel, block_size);
    const auto found = known.find(key);
    if (found != known.end()) {
        return found->second;
    }
    const int blocks = ask(kernel, block_size);
    known.emplace(key, blocks);
    return blocks;
}

}  // namespace detail

/**
 * How many blocks of `kernel` with `block_size` threads (no dynamic shared memory) one multiprocessor of
 * `exec`'s device holds at once, as its registers and static shared memory allow; at least 1. Asked of the
 * runtime once per kernel, device and block size. The device must be current (as it is in a kernel
 * launcher).
 */
template <typename... Args>
int resident_blocks_per_multiprocessor(const GpuExecutor& exec, void (*kernel)(Args...), int block_size)
{
    const auto ask = [](const void* function, int threads) {
        int blocks = 0;
        LARCH_DEVICE_CHECK(LARCH_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&blocks, function, threads, 0));
        return std::max(blocks, 1);
    };
    return detail::cached_resident_blocks(exec.get_device_id(), reinterpret_cast<const void*>(kernel), block_size,
                                          ask);
}

/// grid_stride_num_blocks for `kernel`, sized by its own occupancy. Grids that fit on the device in any
/// case (at most one block per multiprocessor) skip the occupancy query, so launch-bound solves of small
/// systems pay nothing for it.
template <typename... Args>
unsigned grid_stride_num_blocks_for(const GpuExecutor& exec, void (*kernel)(Args...), std::int64_t num_items,
                                    int block_size = default_block_size)
{
    if (num_blocks_for(num_items, block_size) <= static_cast<unsigned>(exec.get_num_multiprocessors())) {
        return num_blocks_for(num_items, block_size);
    }
    return grid_stride_num_blocks(exec, num_items, block_size,
                                  resident_blocks_per_multiprocessor(exec, kernel, block_size));
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
    for_each_kernel<<<grid_stride_num_blocks_for(exec, &for_each_kernel<Function>, num_items),
                      default_block_size>>>(num_items, function);
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
