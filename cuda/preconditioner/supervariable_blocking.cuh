// Supervariable blocking on the device, with no copy of the rows to the host. The starts of the
// supervariables and the pieces they are cut into are per-row work (one thread per row, a prefix sum to
// number the supervariables). The greedy agglomeration of the pieces is sequential, but its state between
// rows is only the rows of the open block (0..32): every tile of rows is run once per possible entry state
// (one lane per state), a single block chains the tiles' exit states to find each tile's real entry state,
// and each tile is then run again from that state to write its block starts.
#pragma once

#include <cstdint>

#include "core/components/prefix_sum_kernels.hpp"
#include "core/preconditioner/block_jacobi_rules.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"
#include "cuda/components/warp.cuh"
#include "larch/base/array.hpp"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace block_jacobi {
namespace supervariable_blocking {

using index64 = std::int64_t;

/// Tiles the chain kernel holds in shared memory (exit state tables of 32 bytes each); tiles get longer
/// beyond max_tiles * min_tile_rows rows.
constexpr int max_tiles = 1024;
constexpr index64 min_tile_rows = 1024;
/// Lane s of a tile's warp runs the tile from entry state s + 1 (a bound of at most 32 rows).
constexpr int num_states = 32;

// one thread per row: 1 if the row starts a supervariable (its column pattern differs from the previous row's)
template <typename I>
struct MarkSupervariableStarts {
    const I* row_ptrs;
    const I* col_idxs;
    I* starts;

    __device__ void operator()(index64 row) const
    {
        bool same = row > 0 && row_ptrs[row + 1] - row_ptrs[row] == row_ptrs[row] - row_ptrs[row - 1];
        if (same) {
            const auto length = row_ptrs[row + 1] - row_ptrs[row];
            for (I k = 0; k < length && same; ++k) {
                same = col_idxs[row_ptrs[row] + k] == col_idxs[row_ptrs[row - 1] + k];
            }
        }
        starts[row] = same ? I{0} : I{1};
    }
};

// one thread per row; numbers[r] = supervariables before row r (numbers[num_rows] = their count):
// first_rows[s] = the first row of supervariable s, first_rows[count] = num_rows
template <typename I>
struct RecordFirstRows {
    const I* numbers;
    index64 num_rows;
    I* first_rows;

    __device__ void operator()(index64 row) const
    {
        if (numbers[row + 1] > numbers[row]) {
            first_rows[numbers[row]] = static_cast<I>(row);
        }
        if (row == num_rows - 1) {
            first_rows[numbers[num_rows]] = static_cast<I>(num_rows);
        }
    }
};

// one thread per row: the rows of the piece starting there (0 if none), see block_jacobi_rules::piece_rows_at
template <typename I>
struct MeasurePieces {
    const I* numbers;
    const I* first_rows;
    int bound;
    std::uint8_t* piece_rows;

    __device__ void operator()(index64 row) const
    {
        const auto supervariable = numbers[row + 1] - 1;
        const auto offset = row - static_cast<index64>(first_rows[supervariable]);
        const auto remaining = static_cast<index64>(first_rows[supervariable + 1]) - row;
        piece_rows[row] = static_cast<std::uint8_t>(block_jacobi_rules::piece_rows_at(offset, remaining, bound));
    }
};

/// One warp per tile: lane s runs the tile from entry state s + 1 (tile 0: every lane from 0, the state
/// before the first row) and records the exit state and how many blocks start in the tile.
__global__ void __launch_bounds__(num_states)
    run_tiles_kernel(const std::uint8_t* piece_rows, index64 num_rows, index64 tile_rows, int bound,
                     std::uint8_t* exit_states, std::int32_t* block_starts)
{
    const auto tile = static_cast<index64>(blockIdx.x);
    const int lane = static_cast<int>(threadIdx.x);
    const auto begin = tile * tile_rows;
    const auto end = begin + tile_rows < num_rows ? begin + tile_rows : num_rows;
    int open_rows = tile == 0 ? 0 : lane + 1;
    std::int32_t starts = 0;
    for (auto row = begin; row < end; ++row) {
        const int rows = piece_rows[row];
        if (rows > 0) {
            starts += block_jacobi_rules::take_piece(open_rows, rows, bound);
        }
    }
    exit_states[tile * num_states + lane] = static_cast<std::uint8_t>(open_rows);
    block_starts[tile * num_states + lane] = starts;
}

/// The lane of run_tiles_kernel that ran from `state`.
__device__ __forceinline__ int lane_of_state(int state)
{
    return state == 0 ? 0 : state - 1;
}

/**
 * One block of max_tiles threads: chains the tiles' exit states from state 0 (sequential, on shared
 * memory), then numbers the block starts of every tile by a scan. Writes each tile's entry state and first
 * block index, block_pointers[0] and block_pointers[num_blocks], and summary[0] = num_blocks,
 * summary[1] = 0 (the largest block, which chain_tiles' successor raises).
 */
template <typename I>
__global__ void __launch_bounds__(max_tiles)
    chain_tiles_kernel(const std::uint8_t* exit_states, const std::int32_t* block_starts, int num_tiles,
                       index64 num_rows, std::uint8_t* entry_states, std::int64_t* first_block, I* block_pointers,
                       std::int64_t* summary)
{
    __shared__ std::uint8_t exits[max_tiles * num_states];
    __shared__ std::uint8_t entries[max_tiles];
    __shared__ std::int64_t warp_totals[max_tiles / 32];
    const int tile = static_cast<int>(threadIdx.x);
    for (int i = tile; i < num_tiles * num_states; i += max_tiles) {
        exits[i] = exit_states[i];
    }
    __syncthreads();
    if (tile == 0) {
        int state = 0;
        for (int t = 0; t < num_tiles; ++t) {
            entries[t] = static_cast<std::uint8_t>(state);
            state = exits[t * num_states + lane_of_state(state)];
        }
    }
    __syncthreads();
    const std::int64_t starts =
        tile < num_tiles ? block_starts[tile * num_states + lane_of_state(entries[tile])] : 0;
    // exclusive scan of the tiles' block starts: within each warp, then over the warp totals
    const auto inclusive = warp::inclusive_scan_sum<32>(starts);
    const int warp_index = tile / 32;
    if (tile % 32 == 31) {
        warp_totals[warp_index] = inclusive;
    }
    __syncthreads();
    if (warp_index == 0) {
        const auto total = warp::inclusive_scan_sum<32>(warp_totals[tile]);
        warp_totals[tile] = total - warp_totals[tile];
    }
    __syncthreads();
    const auto before = warp_totals[warp_index] + inclusive - starts;
    if (tile < num_tiles) {
        entry_states[tile] = entries[tile];
        first_block[tile] = before;
    }
    if (tile == num_tiles - 1) {
        // the blocks that start in tiles, and the one open at row 0
        const auto num_blocks = before + starts + 1;
        block_pointers[0] = I{0};
        block_pointers[num_blocks] = static_cast<I>(num_rows);
        summary[0] = num_blocks;
        summary[1] = 0;
    }
}

/// One thread per tile: runs it from its entry state and writes the rows where blocks start; raises
/// summary[1] to the most rows of a block that closes in the tile (the last tile: also the final block).
template <typename I>
__global__ void __launch_bounds__(default_block_size)
    write_block_starts_kernel(const std::uint8_t* piece_rows, index64 num_rows, index64 tile_rows, int bound,
                              int num_tiles, const std::uint8_t* entry_states, const std::int64_t* first_block,
                              I* block_pointers, std::int64_t* summary)
{
    const auto tile = static_cast<index64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (tile >= num_tiles) {
        return;
    }
    const auto begin = tile * tile_rows;
    const auto end = begin + tile_rows < num_rows ? begin + tile_rows : num_rows;
    int open_rows = entry_states[tile];
    auto next = first_block[tile] + 1;
    int largest = 0;
    for (auto row = begin; row < end; ++row) {
        const int rows = piece_rows[row];
        const int before = open_rows;
        if (rows > 0 && block_jacobi_rules::take_piece(open_rows, rows, bound)) {
            block_pointers[next++] = static_cast<I>(row);
            largest = before > largest ? before : largest;
        }
    }
    if (tile == num_tiles - 1) {
        largest = open_rows > largest ? open_rows : largest;
    }
    atomicMax(reinterpret_cast<unsigned long long*>(summary + 1), static_cast<unsigned long long>(largest));
}

}  // namespace supervariable_blocking

/// find_blocks on the device (see core/preconditioner/block_jacobi_kernels.hpp); max_block_size <= 32.
template <typename V, typename I>
void find_blocks(const DefaultExecutor& exec, const matrix::Csr<V, I>& a, size_type max_block_size,
                 array<I>& block_pointers, size_type& num_blocks, size_type& largest_block)
{
    using namespace supervariable_blocking;
    const auto num_rows = static_cast<index64>(a.get_size().rows);
    num_blocks = 0;
    largest_block = 0;
    if (num_rows == 0) {
        return;
    }
    const auto device = exec.shared_from_this();
    const auto bound = static_cast<int>(max_block_size);
    array<I> numbers{device, static_cast<size_type>(num_rows) + 1};
    launch_for_each(exec, num_rows,
                    MarkSupervariableStarts<I>{a.get_const_row_ptrs(), a.get_const_col_idxs(), numbers.get_data()},
                    "block_jacobi::find_blocks (supervariable starts)");
    components::prefix_sum(exec, numbers.get_data(), numbers.get_size());
    array<I> first_rows{device, static_cast<size_type>(num_rows) + 1};
    launch_for_each(exec, num_rows, RecordFirstRows<I>{numbers.get_const_data(), num_rows, first_rows.get_data()},
                    "block_jacobi::find_blocks (supervariable rows)");
    array<std::uint8_t> piece_rows{device, static_cast<size_type>(num_rows)};
    launch_for_each(exec, num_rows,
                    MeasurePieces<I>{numbers.get_const_data(), first_rows.get_const_data(), bound,
                                     piece_rows.get_data()},
                    "block_jacobi::find_blocks (pieces)");

    const auto tile_rows = std::max(min_tile_rows, (num_rows + max_tiles - 1) / max_tiles);
    const auto num_tiles = static_cast<int>((num_rows + tile_rows - 1) / tile_rows);
    array<std::uint8_t> exit_states{device, static_cast<size_type>(num_tiles) * num_states};
    array<std::int32_t> block_starts{device, static_cast<size_type>(num_tiles) * num_states};
    run_tiles_kernel<<<num_tiles, num_states>>>(piece_rows.get_const_data(), num_rows, tile_rows, bound,
                                                exit_states.get_data(), block_starts.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (tiles from every state)");
    array<std::uint8_t> entry_states{device, static_cast<size_type>(num_tiles)};
    array<std::int64_t> first_block{device, static_cast<size_type>(num_tiles)};
    array<std::int64_t> summary{device, 2};
    chain_tiles_kernel<I><<<1, max_tiles>>>(exit_states.get_const_data(), block_starts.get_const_data(), num_tiles,
                                            num_rows, entry_states.get_data(), first_block.get_data(),
                                            block_pointers.get_data(), summary.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (tile chain)");
    write_block_starts_kernel<I><<<num_blocks_for(num_tiles), default_block_size>>>(
        piece_rows.get_const_data(), num_rows, tile_rows, bound, num_tiles, entry_states.get_const_data(),
        first_block.get_const_data(), block_pointers.get_data(), summary.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (block starts)");
    const auto host_summary = summary.copy_to_host();
    num_blocks = static_cast<size_type>(host_summary[0]);
    largest_block = static_cast<size_type>(host_summary[1]);
}

}  // namespace block_jacobi
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
