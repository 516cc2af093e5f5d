// What every register kernel of the batched dense operations shares: the launch policy (one launch per
// item size class, its sub-warp size, block size, grid), and the view of
// one item of a batch from the sub-warp that owns it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"
#include "larch/base/exception.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// Items up to this order live in the registers of one sub-warp; larger ones take the global-memory path.
constexpr int max_register_item_size = max_subwarp_size;

/**
 * Launch policy of the register kernels: one sub-warp of `subwarp_size` threads per item, 128 threads
 * per block. 128 threads keep the per-block staging buffer of Gauss-Jordan (128 * (p + 1) values) under
 * the 48 KB of static shared memory for p = 32 in double, and __launch_bounds__(128, 4) caps the
 * registers at 128 per thread, which the probe found to be the sweet spot for p = 32 (no spills, 16 warps
 * per multiprocessor).
 */
struct RegisterPolicy {
    static constexpr int block_size = 128;
    static constexpr int min_blocks_per_multiprocessor = 4;

    /// Grid of a kernel with one sub-warp of `subwarp_size` threads per item.
    static unsigned num_blocks(std::int64_t num_items, int subwarp_size)
    {
        return num_blocks_for(num_items * subwarp_size, block_size);
    }
};

/**
 * Calls `function(std::integral_constant<int, p>{})` with p = the smallest power of two >= min(n, 32).
 */
template <typename Function>
void dispatch_item_subwarp_size(std::int64_t n, Function&& function)
{
    dispatch_subwarp_size<1, 2, 4, 8, 16, 32>(
        static_cast<int>(std::min<std::int64_t>(n, max_register_item_size)),
        std::forward<Function>(function));
}

/**
 * Where a batch's items are: the executor copies of its layout (see batch::ItemLayout). For a uniform
 * batch, `uniform_rows` x `uniform_cols` is the common item size and the accessors compute sizes and
 * offsets instead of reading them, which saves 24 bytes of index traffic per item (more than the item
 * itself for 1 x 1 items); for a variable batch both are 0.
 */
struct LayoutView {
    const std::int32_t* rows;
    const std::int32_t* cols;
    const std::int64_t* offsets;
    const std::int64_t* row_offsets;
    std::int64_t num_items;
    std::int32_t uniform_rows;
    std::int32_t uniform_cols;
    /// The items one launch covers: its sub-warp k < num_listed works on item listed_item(k), which is
    /// listed_items[k] for one size class of a variable batch, and k itself when listed_items is null.
    const std::int64_t* listed_items;
    std::int64_t num_listed;

    __device__ __forceinline__ std::int64_t listed_item(std::int64_t k) const
    {
        return listed_items != nullptr ? listed_items[k] : k;
    }

    __device__ __forceinline__ int rows_of(std::int64_t item) const
    {
        return uniform_rows > 0 ? uniform_rows : rows[item];
    }
    __device__ __forceinline__ int cols_of(std::int64_t item) const
    {
        return uniform_rows > 0 ? uniform_cols : cols[item];
    }
    __device__ __forceinline__ std::int64_t offset_of(std::int64_t item) const
    {
        return uniform_rows > 0 ? item * uniform_rows * uniform_cols : offsets[item];
    }
    __device__ __forceinline__ std::int64_t row_offset_of(std::int64_t item) const
    {
        return uniform_rows > 0 ? item * uniform_rows : row_offsets[item];
    }
};

template <typename LayoutType>
LayoutView view_of(const LayoutType& layout)
{
    const auto num_items = static_cast<std::int64_t>(layout.get_num_items());
    const bool uniform = num_items > 0 && layout.is_uniform();
    const auto size = layout.get_max_size();
    return {layout.get_const_rows(),
            layout.get_const_cols(),
            layout.get_const_offsets(),
            layout.get_const_row_offsets(),
            num_items,
            uniform ? static_cast<std::int32_t>(size.rows) : 0,
            uniform ? static_cast<std::int32_t>(size.cols) : 0,
            nullptr,
            num_items};
}

/// The view listing the items of one size class (batch::ItemLayout::size_class_of; the last class holds
/// the items with a dimension above 32).
template <typename LayoutType>
LayoutView class_view(const LayoutType& layout, int size_class)
{
    auto view = view_of(layout);
    view.listed_items = layout.get_const_class_items(size_class);
    view.num_listed = static_cast<std::int64_t>(layout.get_class_size(size_class));
    return view;
}

/**
 * The one launch policy over item sizes: calls `launch(std::integral_constant<int, p>{}, view)` once per
 * non-empty size class of the batch (batch::ItemLayout::size_class_of), with p = the class's sub-warp
 * size (1, 2, 4, ..., 32) and `view` listing the class's items, so that every item runs on the sub-warp
 * its own size needs, not the largest item's. Items with a dimension above 32 go to a p = 32 launch when
 * `include_large` (kernels that loop over any item size); otherwise they are left to the large-item
 * kernels. A uniform batch is one class and its items are not listed.
 */
template <typename LayoutType, typename Function>
void for_each_size_class(const LayoutType& layout, bool include_large, Function&& launch)
{
    constexpr int large_class = LayoutType::num_size_classes - 1;
    for (int size_class = 0; size_class < LayoutType::num_size_classes; ++size_class) {
        const auto view = class_view(layout, size_class);
        if (view.num_listed == 0 || (size_class == large_class && !include_large)) {
            continue;
        }
        dispatch_item_subwarp_size(std::int64_t{1} << std::min(size_class, large_class - 1),
                                   [&](auto subwarp_constant) { launch(subwarp_constant, view); });
    }
}

/**
 * The square item a sub-warp works on. `size` is 0 for a sub-warp past the end of the batch or whose
 * item is larger than `max_size` (such items are left to another kernel); such a sub-warp still has to
 * take part in the block's __syncthreads, so kernels never return early.
 */
struct SquareItem {
    std::int64_t index;
    std::int64_t offset;
    int size;
};

template <int subwarp_size>
__device__ __forceinline__ SquareItem square_item_of_subwarp(const LayoutView& layout, std::int64_t block)
{
    // `block` is the thread block's index in the launch over `layout` (blockIdx.x, or its position among
    // the blocks of one size class in a launch over several); blocks have RegisterPolicy::block_size threads.
    const std::int64_t k =
        (block * RegisterPolicy::block_size + static_cast<std::int64_t>(threadIdx.x)) / subwarp_size;
    if (k >= layout.num_listed) {
        return {k, 0, 0};
    }
    const auto index = layout.listed_item(k);
    const int size = layout.rows_of(index);
    return {index, layout.offset_of(index), size <= subwarp_size ? size : 0};
}

/// `count` values in shared memory through which a sub-warp broadcasts a row or column of its item, aligned
/// for 16-byte accesses where the values fill whole 16-byte vectors.
template <int count, typename T>
struct SharedValues {
    static constexpr int width =
        (16 % sizeof(T) == 0 && count % static_cast<int>(16 / sizeof(T)) == 0) ? static_cast<int>(16 / sizeof(T))
                                                                                : 1;
    struct alignas(sizeof(T) * width) Vector {
        T values[width];
    };
    Vector vectors[count / width];

    __device__ __forceinline__ void store(int index, T value)
    {
        vectors[index / width].values[index % width] = value;
    }
    __device__ __forceinline__ T load(int index) const { return vectors[index / width].values[index % width]; }
    /// All values into `out`, one vector load at a time.
    __device__ __forceinline__ void load_all(T (&out)[count]) const
    {
#pragma unroll
        for (int v = 0; v < count / width; ++v) {
            const Vector vector = vectors[v];
#pragma unroll
            for (int w = 0; w < width; ++w) {
                out[v * width + w] = vector.values[w];
            }
        }
    }
};

/// The tiny-pivot bound of the info contract: a pivot p fails if !(|p| > max(n * eps * ||A||_inf, the
/// smallest normal number)), as is_tiny_pivot on the host.
template <typename T>
__device__ __forceinline__ T tiny_pivot_bound(int n, T input_norm)
{
    const T bound = static_cast<T>(n) * std::numeric_limits<T>::epsilon() * input_norm;
    return bound > std::numeric_limits<T>::min() ? bound : std::numeric_limits<T>::min();
}

template <typename T>
__device__ __forceinline__ T magnitude(T value)
{
    return value < T{0} ? -value : value;
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
