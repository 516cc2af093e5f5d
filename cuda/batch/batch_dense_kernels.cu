// CUDA/HIP kernels of the variable-size batched dense operations (core/batch/batch_dense_kernels.hpp):
// thin __global__ functions over the device algorithms of gauss_jordan.cuh, gauss_huard.cuh,
// infinity_norm.cuh and large_items.cuh, and the host entries that pick the sub-warp size and launch them.
//
// Every square-item operation runs the register kernel once per item size class (for_each_size_class of
// register_batch.cuh: a uniform batch is one class, a variable one up to six, each on the sub-warp its
// items need), which handles every item up to 32 x 32; when the batch also holds larger items,
// large_items.cuh handles those: inversion by one thread block per item up to 128 x 128, everything else
// by one thread per item.
#include <cstdint>
#include <limits>

#include "core/batch/batch_dense_kernels.hpp"
#include "core/components/instantiation.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/batch/gauss_huard.cuh"
#include "cuda/batch/gauss_jordan.cuh"
#include "cuda/batch/infinity_norm.cuh"
#include "cuda/batch/large_items.cuh"
#include "cuda/batch/register_batch.cuh"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// What one thread block of the register Gauss-Jordan keeps in shared memory, for sub-warps of p threads.
template <int subwarp_size, typename T>
struct GaussJordanBlockShared {
    static constexpr int items = RegisterPolicy::block_size / subwarp_size;
    StagingTile<subwarp_size, T> tiles[items];
    PivotRowBuffer<subwarp_size, T> pivot_rows[items];
};

/**
 * The register Gauss-Jordan of thread block `block` of a launch over `layout`: one sub-warp per item
 * (gauss_jordan.cuh). `inverse` null: not written; `cond` null: no condition number.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ void gauss_jordan_block(const LayoutView& layout, std::int64_t block,
                                                   GaussJordanBlockShared<subwarp_size, T>& shared,
                                                   const T* a, T* inverse, T* cond, std::int32_t* info)
{
    const auto item = square_item_of_subwarp<subwarp_size>(layout, block);
    const int slot = warp::subwarp_id_in_block<subwarp_size>();
    auto& tile = shared.tiles[slot];
    GaussJordanRow<subwarp_size, T> row;
    const T row_sum = load_rows<subwarp_size>(a + item.offset, item.size, tile, row);
    const T norm = warp::all_reduce_max<subwarp_size>(row_sum);
    const int item_info = eliminate<subwarp_size>(
        item.size, tiny_pivot_bound(item.size, norm), row, shared.pivot_rows[slot]);
    store_inverse<subwarp_size>(inverse + item.offset, item.size,
                                inverse != nullptr && item_info == 0, tile, row);
    if (item.size == 0) {
        return;
    }
    const T condition = cond != nullptr ? norm * inverse_norm<subwarp_size>(item.size, row) : T{};
    if (warp::rank<subwarp_size>() == 0) {
        info[item.index] = item_info;
        if (cond != nullptr) {
            cond[item.index] = item_info == 0 ? condition : std::numeric_limits<T>::infinity();
        }
    }
}

template <int subwarp_size, typename T>
__global__ void __launch_bounds__(RegisterPolicy::block_size,
                                  RegisterPolicy::min_blocks_per_multiprocessor)
    gauss_jordan_kernel(LayoutView layout, const T* a, T* inverse, T* cond, std::int32_t* info)
{
    __shared__ GaussJordanBlockShared<subwarp_size, T> shared;
    gauss_jordan_block<subwarp_size>(layout, blockIdx.x, shared, a, inverse, cond, info);
}

template <int order, typename T>
__global__ void __launch_bounds__(BlockedGaussJordan<order>::threads, order <= 64 ? 4 : 1)
    blocked_gauss_jordan_kernel(LayoutView layout, const T* a, T* inverse, T* cond, std::int32_t* info)
{
    // One thread block per listed item of order/2 < n <= order (large_items.cuh); `inverse` null: not
    // written; `cond` null: no condition number.
    __shared__ BlockedInversionShared<order, T> shared;
    const auto index = layout.listed_item(blockIdx.x);
    const int n = layout.rows_of(index);
    if (n <= order / 2 || n > order) {
        return;
    }
    const auto offset = layout.offset_of(index);
    T norm;
    T inverse_norm;
    const int item_info = blocked_invert_item<order>(a + offset, inverse + offset, n, inverse != nullptr,
                                                     shared, norm, inverse_norm);
    if (threadIdx.x == 0) {
        info[index] = item_info;
        if (cond != nullptr) {
            cond[index] = item_info == 0 ? norm * inverse_norm : std::numeric_limits<T>::infinity();
        }
    }
}

template <int order, typename T>
void launch_blocked_gauss_jordan(const LayoutView& large_items, const T* a, T* inverse, T* cond,
                                 std::int32_t* info)
{
    blocked_gauss_jordan_kernel<order, T>
        <<<static_cast<unsigned>(large_items.num_listed), BlockedGaussJordan<order>::threads>>>(
            large_items, a, inverse, cond, info);
    LARCH_LAUNCH_CHECK("batch_dense::blocked_gauss_jordan_kernel");
}

template <typename T>
__global__ void __launch_bounds__(default_block_size)
    invert_large_items_kernel(LayoutView layout, const T* a, T* inverse, T* cond,
                              std::int32_t* info, std::int32_t* permutation, T* scratch)
{
    // One thread per item larger than the blocked kernel's (large_items.cuh); `inverse` is the output
    // or, for a condition number alone, a scratch copy of the batch.
    for (const auto item : grid_stride_range(layout.num_items)) {
        const int n = layout.rows_of(item);
        if (n <= max_blocked_item_size) {
            continue;
        }
        const auto offset = layout.offset_of(item);
        const auto row_offset = layout.row_offset_of(item);
        const T norm = infinity_norm_serial(a + offset, n, n);
        if (inverse + offset != a + offset) {
            for (std::int64_t e = 0; e < std::int64_t{n} * n; ++e) {
                inverse[offset + e] = a[offset + e];
            }
        }
        const int item_info =
            invert_serial(inverse + offset, n, permutation + row_offset, scratch + row_offset);
        info[item] = item_info;
        if (cond != nullptr) {
            cond[item] = item_info == 0 ? norm * infinity_norm_serial(inverse + offset, n, n)
                                        : std::numeric_limits<T>::infinity();
        }
    }
}

template <int subwarp_size, typename T>
__global__ void __launch_bounds__(RegisterPolicy::block_size,
                                  RegisterPolicy::min_blocks_per_multiprocessor)
    gauss_huard_factorize_kernel(LayoutView layout, const T* a, T* factors, std::int32_t* pivots,
                                 std::int32_t* info, bool transposed_storage)
{
    // One sub-warp per item (gauss_huard.cuh).
    __shared__ GaussHuardBuffer<subwarp_size, T> buffers[RegisterPolicy::block_size / subwarp_size];
    const auto item = square_item_of_subwarp<subwarp_size>(layout, blockIdx.x);
    if (item.size == 0) {
        return;
    }
    const int item_info = gauss_huard_factorize_item<subwarp_size>(
        a + item.offset, factors + item.offset, pivots + layout.row_offset_of(item.index), item.size, transposed_storage,
        buffers[warp::subwarp_id_in_block<subwarp_size>()]);
    if (warp::rank<subwarp_size>() == 0) {
        info[item.index] = item_info;
    }
}

template <typename T>
__global__ void __launch_bounds__(default_block_size)
    gauss_huard_factorize_large_items_kernel(LayoutView layout, const T* a, T* factors,
                                             std::int32_t* pivots, std::int32_t* info,
                                             bool transposed_storage)
{
    // One thread per item larger than 32 x 32 (large_items.cuh).
    for (const auto item : grid_stride_range(layout.num_items)) {
        const int n = layout.rows_of(item);
        if (n > max_register_item_size) {
            info[item] = gauss_huard_factorize_serial(a + layout.offset_of(item),
                                                      factors + layout.offset_of(item),
                                                      pivots + layout.row_offset_of(item), n,
                                                      transposed_storage);
        }
    }
}

template <int subwarp_size, typename T>
__global__ void __launch_bounds__(RegisterPolicy::block_size)
    gauss_huard_solve_kernel(LayoutView layout, const T* factors, const std::int32_t* pivots,
                             bool transposed_storage, const std::int64_t* rhs_offsets, const T* b,
                             T* x, int num_rhs)
{
    // One sub-warp per item, one solution row per thread (gauss_huard.cuh).
    const auto item = square_item_of_subwarp<subwarp_size>(layout, blockIdx.x);
    if (item.size == 0) {
        return;
    }
    const auto rhs_offset = rhs_offsets[item.index];
    gauss_huard_solve_item<subwarp_size>(factors + item.offset,
                                         pivots + layout.row_offset_of(item.index), item.size,
                                         transposed_storage, b + rhs_offset, x + rhs_offset, num_rhs);
}

template <typename T>
__global__ void __launch_bounds__(default_block_size)
    gauss_huard_solve_large_items_kernel(LayoutView layout, const T* factors,
                                         const std::int32_t* pivots, bool transposed_storage,
                                         const std::int64_t* rhs_offsets, const T* b, T* x,
                                         int num_rhs, T* scratch)
{
    // One thread per item larger than 32 x 32 (large_items.cuh).
    for (const auto item : grid_stride_range(layout.num_items)) {
        const int n = layout.rows_of(item);
        if (n > max_register_item_size) {
            const auto row_offset = layout.row_offset_of(item);
            gauss_huard_solve_serial(factors + layout.offset_of(item), pivots + row_offset, n,
                                     transposed_storage, b + rhs_offsets[item],
                                     x + rhs_offsets[item], num_rhs, scratch + row_offset);
        }
    }
}

template <int team_size, int row_lanes, int width, typename T>
__global__ void __launch_bounds__(default_block_size)
    infinity_norm_kernel(LayoutView layout, const T* a, T* norms)
{
    // One team of lanes per item, read as a stream (infinity_norm.cuh).
    const std::int64_t k = warp::global_subwarp_id<team_size>();
    if (k >= layout.num_listed) {
        return;
    }
    const auto index = layout.listed_item(k);
    const T norm = team_infinity_norm<team_size, row_lanes, width>(
        a + layout.offset_of(index), layout.rows_of(index), layout.cols_of(index));
    if (warp::rank<team_size>() == 0) {
        norms[index] = norm;
    }
}

template <int team_size, int row_lanes, int width, typename T>
void launch_infinity_norm(const LayoutView& items, const T* a, T* norms)
{
    infinity_norm_kernel<team_size, row_lanes, width, T>
        <<<num_blocks_for(items.num_listed * team_size), default_block_size>>>(items, a, norms);
    LARCH_LAUNCH_CHECK("batch_dense::infinity_norm_kernel");
}

/**
 * Calls `launch(std::integral_constant<int, team_size>{})` for an infinity-norm team of `row_lanes` lanes
 * per row over items of `rows` rows: as many lanes (up to 32) as give every lane one load of each of the
 * kernel's steps in flight, so that no step only shuffles.
 */
template <int row_lanes, typename Function>
void dispatch_norm_team_size(std::int64_t rows, Function&& launch)
{
    constexpr std::int64_t steps_in_flight = norm_steps_in_flight;
    dispatch_item_subwarp_size(
        std::max<std::int64_t>(row_lanes, (rows * row_lanes + steps_in_flight - 1) / steps_in_flight),
        [&](auto team_constant) {
            if constexpr (decltype(team_constant)::value >= row_lanes) {
                launch(team_constant);
            }
        });
}

/// The norms of a uniform batch whose rows are whole vectors of `width` values: a group of lanes per row
/// (vectors per row, up to 32), a team of groups per item (dispatch_norm_team_size).
template <int width, typename T>
void uniform_infinity_norms(const ::larch::batch::ItemLayout& layout, const T* a, T* norms)
{
    const auto size = layout.get_max_size();
    const auto vectors_per_row = static_cast<std::int64_t>(size.cols) / width;
    dispatch_item_subwarp_size(vectors_per_row, [&](auto row_lanes_constant) {
        constexpr int row_lanes = decltype(row_lanes_constant)::value;
        dispatch_norm_team_size<row_lanes>(size.rows, [&](auto team_constant) {
            launch_infinity_norm<decltype(team_constant)::value, row_lanes, width>(view_of(layout), a,
                                                                                  norms);
        });
    });
}

template <int subwarp_size, typename T>
__global__ void __launch_bounds__(default_block_size)
    apply_kernel(LayoutView layout, const T* a, const std::int64_t* b_offsets, const T* b,
                 const std::int64_t* x_offsets, T* x, int num_rhs)
{
    // One sub-warp per item, rows r = lane, lane + p, ... per thread; x_i(r, :) = A_i(r, :) b_i.
    const std::int64_t k = warp::global_subwarp_id<subwarp_size>();
    if (k >= layout.num_listed) {
        return;
    }
    const auto index = layout.listed_item(k);
    const int rows = layout.rows_of(index);
    const int cols = layout.cols_of(index);
    const T* item = a + layout.offset_of(index);
    const T* item_b = b + b_offsets[index];
    T* item_x = x + x_offsets[index];
    for (int r = warp::rank<subwarp_size>(); r < rows; r += subwarp_size) {
        for (int rhs = 0; rhs < num_rhs; ++rhs) {
            T sum{};
            for (int c = 0; c < cols; ++c) {
                sum = fma(item[std::int64_t{r} * cols + c], item_b[std::int64_t{c} * num_rhs + rhs],
                          sum);
            }
            item_x[std::int64_t{r} * num_rhs + rhs] = sum;
        }
    }
}

template <typename T>
struct CombineConditionNumbers {
    const T* norms;
    const T* inverse_norms;
    const std::int32_t* info;
    T* cond;
    __device__ void operator()(std::int64_t item) const
    {
        cond[item] = info[item] != 0 ? std::numeric_limits<T>::infinity()
                                     : norms[item] * inverse_norms[item];
    }
};

/// The Gauss-Jordan launches shared by invert and compute_condition_numbers.
template <typename T>
void run_gauss_jordan(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a, T* inverse,
                      T* cond, std::int32_t* info)
{
    const auto layout = view_of(a.get_layout());
    const auto max_size = static_cast<std::int64_t>(a.get_max_item_size().rows);
    for_each_size_class(a.get_layout(), false, [&](auto subwarp_constant, const LayoutView& items) {
        constexpr int p = decltype(subwarp_constant)::value;
        gauss_jordan_kernel<p, T><<<RegisterPolicy::num_blocks(items.num_listed, p),
                                    RegisterPolicy::block_size>>>(items, a.get_const_values(),
                                                                  inverse, cond, info);
        LARCH_LAUNCH_CHECK("batch_dense::gauss_jordan_kernel");
    });
    if (max_size > max_register_item_size) {
        const auto large_items = class_view(a.get_layout(), ::larch::batch::ItemLayout::num_size_classes - 1);
        launch_blocked_gauss_jordan<64>(large_items, a.get_const_values(), inverse, cond, info);
        if (max_size > 64) {
            launch_blocked_gauss_jordan<max_blocked_item_size>(large_items, a.get_const_values(), inverse,
                                                               cond, info);
        }
    }
    if (max_size > max_blocked_item_size) {
        const auto exec_ptr = exec.shared_from_this();
        array<std::int32_t> permutation{exec_ptr, a.get_layout().get_num_rows()};
        array<T> scratch{exec_ptr, a.get_layout().get_num_rows()};
        array<T> scratch_inverse{exec_ptr, inverse ? 0 : a.get_layout().get_num_elements()};
        invert_large_items_kernel<<<grid_stride_num_blocks(exec, layout.num_items),
                                    default_block_size>>>(
            layout, a.get_const_values(), inverse ? inverse : scratch_inverse.get_data(), cond,
            info, permutation.get_data(), scratch.get_data());
        LARCH_LAUNCH_CHECK("batch_dense::invert_large_items_kernel");
    }
}

}  // namespace batch_dense

namespace batch_dense {
// The entries declared in core/batch/batch_dense_kernels.hpp.

template <typename T>
void apply(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a,
           const ::larch::batch::Vector<T>& b, ::larch::batch::Vector<T>& x)
{
    for_each_size_class(a.get_layout(), true, [&](auto subwarp_constant, const LayoutView& items) {
        constexpr int p = decltype(subwarp_constant)::value;
        apply_kernel<p, T><<<num_blocks_for(items.num_listed * p), default_block_size>>>(
            items, a.get_const_values(), b.get_layout().get_const_offsets(), b.get_const_values(),
            x.get_layout().get_const_offsets(), x.get_values(), static_cast<int>(b.get_num_cols()));
        LARCH_LAUNCH_CHECK("batch_dense::apply_kernel");
    });
    (void)exec;
}

template <typename T>
void invert(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a,
            ::larch::batch::Dense<T>& inverse, std::int32_t* info)
{
    run_gauss_jordan(exec, a, inverse.get_values(), static_cast<T*>(nullptr), info);
}

template <typename T>
void compute_condition_numbers(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a,
                               ::larch::batch::Dense<T>* inverse, T* cond, std::int32_t* info)
{
    run_gauss_jordan(exec, a, inverse ? inverse->get_values() : nullptr, cond, info);
}

template <typename T>
void gauss_huard_factorize(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a,
                           ::larch::batch::Dense<T>& factors, std::int32_t* pivots, std::int32_t* info,
                           bool transposed_storage)
{
    const auto layout = view_of(factors.get_layout());
    const auto max_size = static_cast<std::int64_t>(factors.get_max_item_size().rows);
    for_each_size_class(factors.get_layout(), false,
                        [&](auto subwarp_constant, const LayoutView& items) {
        constexpr int p = decltype(subwarp_constant)::value;
        gauss_huard_factorize_kernel<p, T><<<RegisterPolicy::num_blocks(items.num_listed, p),
                                             RegisterPolicy::block_size>>>(
            items, a.get_const_values(), factors.get_values(), pivots, info, transposed_storage);
        LARCH_LAUNCH_CHECK("batch_dense::gauss_huard_factorize_kernel");
    });
    if (max_size > max_register_item_size) {
        gauss_huard_factorize_large_items_kernel<<<grid_stride_num_blocks(exec, layout.num_items),
                                                   default_block_size>>>(
            layout, a.get_const_values(), factors.get_values(), pivots, info, transposed_storage);
        LARCH_LAUNCH_CHECK("batch_dense::gauss_huard_factorize_large_items_kernel");
    }
}

template <typename T>
void gauss_huard_solve(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& factors,
                       const std::int32_t* pivots, bool transposed_storage,
                       const ::larch::batch::Vector<T>& b, ::larch::batch::Vector<T>& x)
{
    const auto layout = view_of(factors.get_layout());
    const auto max_size = static_cast<std::int64_t>(factors.get_max_item_size().rows);
    const auto rhs_offsets = b.get_layout().get_const_offsets();
    const int num_rhs = static_cast<int>(b.get_num_cols());
    for_each_size_class(factors.get_layout(), false,
                        [&](auto subwarp_constant, const LayoutView& items) {
        constexpr int p = decltype(subwarp_constant)::value;
        gauss_huard_solve_kernel<p, T><<<RegisterPolicy::num_blocks(items.num_listed, p),
                                         RegisterPolicy::block_size>>>(
            items, factors.get_const_values(), pivots, transposed_storage, rhs_offsets,
            b.get_const_values(), x.get_values(), num_rhs);
        LARCH_LAUNCH_CHECK("batch_dense::gauss_huard_solve_kernel");
    });
    if (max_size > max_register_item_size) {
        array<T> scratch{exec.shared_from_this(), factors.get_layout().get_num_rows()};
        gauss_huard_solve_large_items_kernel<<<grid_stride_num_blocks(exec, layout.num_items),
                                               default_block_size>>>(
            layout, factors.get_const_values(), pivots, transposed_storage, rhs_offsets,
            b.get_const_values(), x.get_values(), num_rhs, scratch.get_data());
        LARCH_LAUNCH_CHECK("batch_dense::gauss_huard_solve_large_items_kernel");
    }
}

template <typename T>
void compute_infinity_norms(const DefaultExecutor& exec, const ::larch::batch::Dense<T>& a,
                            T* norms)
{
    // A uniform batch is read as one stream: 16-byte loads where its rows are whole 16-byte vectors
    // (and its values start on a 16-byte boundary, so every row does). A variable batch runs per size
    // class, one row at a time per sub-warp, value by value.
    constexpr int width = 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 1;
    const auto& item_layout = a.get_layout();
    const auto values = a.get_const_values();
    if (item_layout.is_uniform()) {
        if (item_layout.get_max_size().cols % width == 0 &&
            reinterpret_cast<std::uintptr_t>(values) % 16 == 0) {
            uniform_infinity_norms<width>(item_layout, values, norms);
        } else {
            uniform_infinity_norms<1>(item_layout, values, norms);
        }
    } else {
        for_each_size_class(item_layout, true, [&](auto subwarp_constant, const LayoutView& items) {
            // Rows of up to p values, up to p of them.
            constexpr int p = decltype(subwarp_constant)::value;
            dispatch_norm_team_size<p>(p, [&](auto team_constant) {
                launch_infinity_norm<decltype(team_constant)::value, p, 1>(items, values, norms);
            });
        });
    }
    (void)exec;
}

template <typename T>
void combine_condition_numbers(const DefaultExecutor& exec, size_type num_items, const T* norms,
                               const T* inverse_norms, const std::int32_t* info, T* cond)
{
    launch_for_each(exec, static_cast<std::int64_t>(num_items),
                    CombineConditionNumbers<T>{norms, inverse_norms, info, cond},
                    "batch_dense::combine_condition_numbers");
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_DENSE_KERNELS);

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
