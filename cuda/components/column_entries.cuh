// Work on the columns of a block of vectors where each column has scalars of its own (a solver step's
// alpha, beta, whether the column still runs): an entry functor may offer column(col), which works them
// out once per thread, and the kernels below walk the entries of a row-major block so that reads coalesce.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// Whether Entry offers column(col): a functor of the row with the column's own scalars worked out once.
template <typename Entry, typename = void>
struct HasColumnEntries : std::false_type {};

template <typename Entry>
struct HasColumnEntries<Entry, std::void_t<decltype(std::declval<const Entry&>().column(std::int64_t{}))>>
    : std::true_type {};

/// The entries of column `col` as a functor of the row: entry.column(col) where the entry offers it, else
/// entry(row, col). A fused solver step's column works out its scalars (alpha, omega, whether it runs) once
/// per thread instead of once per entry, where reloading them and dividing made its kernel execute 90-200
/// instructions per entry (H200, 10M rows).
template <typename Entry>
__device__ __forceinline__ auto column_entries(const Entry& entry, std::int64_t col)
{
    if constexpr (HasColumnEntries<Entry>::value) {
        return entry.column(col);
    } else {
        return [&entry, col](std::int64_t row) { return entry(row, col); };
    }
}

/// Whether the kernels walk the entries of a row-major block (entry (row, col + 1) next to (row, col)) as
/// (row, col) pairs, thread t always on column t % cols: for 2..32 columns, a power of two (so that cols
/// divides every block and grid). Otherwise each column's entries are walked a row apart.
inline bool interleaves_columns(std::int64_t cols)
{
    return cols >= 2 && cols <= 32 && (cols & (cols - 1)) == 0;
}

/// column_entries(entries, col)(row) for every row of column blockIdx.y (and further columns with stride
/// gridDim.y), the rows grid-strided on x. The row loops are not unrolled: unrolled, BiCGSTAB's direction
/// step took 58 registers instead of 36 and 130 us instead of 116 at 10M rows (H200, ncu).
template <typename Entries>
__global__ void __launch_bounds__(default_block_size)
    for_each_column_entry(std::int64_t rows, std::int64_t cols, Entries entries)
{
    for (std::int64_t col = blockIdx.y; col < cols; col += gridDim.y) {
        const auto column = column_entries(entries, col);
#pragma unroll 1
        for (std::int64_t row = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; row < rows;
             row += std::int64_t{gridDim.x} * blockDim.x) {
            column(row);
        }
    }
}

/// The kernel above over the row-major (row, col) pairs of 2..32 columns (interleaves_columns).
template <typename Entries>
__global__ void __launch_bounds__(default_block_size)
    for_each_interleaved_column_entry(std::int64_t rows, int cols, Entries entries)
{
    const std::int64_t pairs = rows * cols;
    // cols is a power of two: a shift instead of a 64-bit division per pair
    const int log2_cols = __ffs(cols) - 1;
    const auto column = column_entries(entries, static_cast<int>(threadIdx.x) % cols);
#pragma unroll 1
    for (std::int64_t pair = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; pair < pairs;
         pair += std::int64_t{gridDim.x} * blockDim.x) {
        column(pair >> log2_cols);
    }
}

/**
 * column_entries(entries, col)(row) for every row < rows and col < cols of a row-major block, each once, in
 * one launch sized by the kernel's occupancy (grid_stride_num_blocks). `name` appears in the DeviceError of
 * a failed launch.
 */
template <typename Entries>
void launch_for_each_column_entry(const GpuExecutor& exec, std::int64_t rows, std::int64_t cols, Entries entries,
                                  const char* name)
{
    if (rows <= 0 || cols <= 0) {
        return;
    }
    if (interleaves_columns(cols)) {
        for_each_interleaved_column_entry<<<
            grid_stride_num_blocks_for(exec, &for_each_interleaved_column_entry<Entries>, rows * cols),
            default_block_size>>>(rows, static_cast<int>(cols), entries);
    } else {
        const auto column_blocks = std::min(cols, max_grid_y);
        // The device's resident blocks shared among the columns, at least one per column.
        const auto row_blocks = std::max<std::int64_t>(
            1, grid_stride_num_blocks_for(exec, &for_each_column_entry<Entries>, rows * cols) / column_blocks);
        for_each_column_entry<<<dim3(static_cast<unsigned>(row_blocks), static_cast<unsigned>(column_blocks)),
                                default_block_size>>>(rows, cols, entries);
    }
    check(LARCH_RT(GetLastError)(), name, __FILE__, __LINE__);
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
