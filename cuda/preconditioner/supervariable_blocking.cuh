// Supervariable blocking on the device, with no copy of the rows to the host. The starts of the
// supervariables and the pieces they are cut into are per-row work (one thread per row, a prefix sum to
// number the supervariables). The greedy agglomeration of the pieces is sequential, but its state between
// rows is only the rows of the open block (0..32), so each short tile of rows is a map from entry state to
// exit state, found by running the tile once per entry state (one lane per state). Chaining those maps
// is done in two levels so that no thread walks more than a few dozen of them: a warp per group of tiles
// composes its tiles' maps (remembering the state before each tile for every group entry state), one
// thread chains the groups, and then every tile knows its entry state at once and writes its block
// starts from it. (With one level of 1,024-row tiles, the sequential walks took 0.34 ms at 10^6 rows.)
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

/// Rows of a tile (at least; tiles get longer beyond max_groups * group_tiles * min_tile_rows rows), tiles
/// of a group, and the most groups (the chain kernel holds their exit maps in shared memory, 32 bytes each).
constexpr index64 min_tile_rows = 64;
constexpr int group_tiles = 64;
constexpr int max_groups = 1024;
/// Lane s of a tile's warp runs the tile from entry state s + 1 (a bound of at most 32 rows).
constexpr int num_states = 32;
/// Warps of the tile and group kernels' thread blocks.
constexpr int warps_per_block = 8;

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

/// The lane of the tile and group kernels that ran from `state` (state 0 only enters the first tile, whose
/// lanes all run from it).
__device__ __forceinline__ int lane_of_state(int state)
{
    return state == 0 ? 0 : state - 1;
}

/// One warp per tile: lane s runs the tile from entry state s + 1 (tile 0: every lane from 0, the state
/// before the first row) and records the exit state and how many blocks start in the tile. (The pointers of
/// these kernels are __restrict__: byte loads may alias any store, which would keep the compiler from
/// issuing the loads of a tile's rows ahead of the sequential walk.)
__global__ void __launch_bounds__(warps_per_block * num_states)
    run_tiles_kernel(const std::uint8_t* __restrict__ piece_rows, index64 num_rows, index64 tile_rows,
                     index64 num_tiles, int bound, std::uint8_t* __restrict__ exit_states,
                     std::int32_t* __restrict__ block_starts)
{
    const auto tile = static_cast<index64>(blockIdx.x) * warps_per_block + threadIdx.x / num_states;
    const int lane = static_cast<int>(threadIdx.x % num_states);
    if (tile >= num_tiles) {
        return;
    }
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

/**
 * One warp per group of group_tiles tiles: lane s follows the tiles' exit maps from group entry state s + 1
 * (group 0: every lane from 0), recording its state before each tile (states_before[tile][s]) and after
 * the group (group_exits[group][s]). The group's maps are staged in shared memory first, so the dependent
 * lookups do not wait on global memory.
 */
__global__ void __launch_bounds__(warps_per_block * num_states)
    compose_groups_kernel(const std::uint8_t* __restrict__ exit_states, index64 num_tiles, index64 num_groups,
                          std::uint8_t* __restrict__ states_before, std::uint8_t* __restrict__ group_exits)
{
    __shared__ std::uint8_t maps[warps_per_block][group_tiles * num_states];
    const int warp_in_block = static_cast<int>(threadIdx.x / num_states);
    const auto group = static_cast<index64>(blockIdx.x) * warps_per_block + warp_in_block;
    const int lane = static_cast<int>(threadIdx.x % num_states);
    const auto first_tile = group * group_tiles;
    const auto left = num_tiles - first_tile;
    const int tiles = group < num_groups ? static_cast<int>(left < group_tiles ? left : group_tiles) : 0;
    auto& map = maps[warp_in_block];
    for (int i = lane; i < tiles * num_states; i += num_states) {
        map[i] = exit_states[first_tile * num_states + i];
    }
    __syncthreads();
    if (group >= num_groups) {
        return;
    }
    int state = group == 0 ? 0 : lane + 1;
    for (int t = 0; t < tiles; ++t) {
        states_before[(first_tile + t) * num_states + lane] = static_cast<std::uint8_t>(state);
        state = map[t * num_states + lane_of_state(state)];
    }
    group_exits[group * num_states + lane] = static_cast<std::uint8_t>(state);
}

/// One block of max_groups threads, thread 0 chaining the groups' exit maps from state 0 (on shared
/// memory): group_entries[g] = the state before group g. Also clears summary[1], the largest block, which
/// write_block_starts_kernel raises.
__global__ void __launch_bounds__(max_groups)
    chain_groups_kernel(const std::uint8_t* group_exits, int num_groups, std::uint8_t* group_entries,
                        std::int64_t* summary)
{
    __shared__ std::uint8_t exits[max_groups * num_states];
    for (int i = static_cast<int>(threadIdx.x); i < num_groups * num_states; i += max_groups) {
        exits[i] = group_exits[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int state = 0;
        for (int g = 0; g < num_groups; ++g) {
            group_entries[g] = static_cast<std::uint8_t>(state);
            state = exits[g * num_states + lane_of_state(state)];
        }
        summary[1] = 0;
    }
}

/// One thread per tile: its entry state (the state before it for its group's entry state) and how many
/// blocks start in it from there, into tile_starts (prefix-summed next into each tile's first block).
struct FindTileEntries {
    const std::uint8_t* states_before;
    const std::uint8_t* group_entries;
    const std::int32_t* block_starts;
    std::uint8_t* entry_states;
    std::int64_t* tile_starts;

    __device__ void operator()(index64 tile) const
    {
        const int group_entry = group_entries[tile / group_tiles];
        const int entry = states_before[tile * num_states + lane_of_state(group_entry)];
        entry_states[tile] = static_cast<std::uint8_t>(entry);
        tile_starts[tile] = block_starts[tile * num_states + lane_of_state(entry)];
    }
};

/**
 * One thread per tile: runs it from its entry state and writes the rows where blocks start (block 0, open
 * at row 0, is not counted by the tiles: the tile's first new block is first_block[tile] + 1); raises
 * summary[1] to the most rows of a block that closes in the tile. The last tile also closes the final
 * block and writes block_pointers[0], block_pointers[num_blocks] and summary[0] = num_blocks.
 */
template <typename I>
__global__ void __launch_bounds__(default_block_size)
    write_block_starts_kernel(const std::uint8_t* __restrict__ piece_rows, index64 num_rows, index64 tile_rows,
                              int bound, index64 num_tiles, const std::uint8_t* __restrict__ entry_states,
                              const std::int64_t* __restrict__ first_block, I* __restrict__ block_pointers,
                              std::int64_t* summary)
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
        const auto num_blocks = first_block[num_tiles] + 1;
        block_pointers[0] = I{0};
        block_pointers[num_blocks] = static_cast<I>(num_rows);
        summary[0] = num_blocks;
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

    const auto tile_rows =
        std::max(min_tile_rows, (num_rows + index64{max_groups} * group_tiles - 1) / (index64{max_groups} * group_tiles));
    const auto num_tiles = (num_rows + tile_rows - 1) / tile_rows;
    const auto num_groups = (num_tiles + group_tiles - 1) / group_tiles;
    const auto states = [&](index64 count) { return static_cast<size_type>(count) * num_states; };
    array<std::uint8_t> exit_states{device, states(num_tiles)};
    array<std::int32_t> block_starts{device, states(num_tiles)};
    run_tiles_kernel<<<num_blocks_for(num_tiles, warps_per_block), warps_per_block * num_states>>>(
        piece_rows.get_const_data(), num_rows, tile_rows, num_tiles, bound, exit_states.get_data(),
        block_starts.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (tiles from every state)");
    array<std::uint8_t> states_before{device, states(num_tiles)};
    array<std::uint8_t> group_exits{device, states(num_groups)};
    compose_groups_kernel<<<num_blocks_for(num_groups, warps_per_block), warps_per_block * num_states>>>(
        exit_states.get_const_data(), num_tiles, num_groups, states_before.get_data(), group_exits.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (groups of tiles)");
    array<std::uint8_t> group_entries{device, static_cast<size_type>(num_groups)};
    array<std::int64_t> summary{device, 2};
    chain_groups_kernel<<<1, max_groups>>>(group_exits.get_const_data(), static_cast<int>(num_groups),
                                           group_entries.get_data(), summary.get_data());
    LARCH_LAUNCH_CHECK("block_jacobi::find_blocks (group chain)");
    array<std::uint8_t> entry_states{device, static_cast<size_type>(num_tiles)};
    array<std::int64_t> first_block{device, static_cast<size_type>(num_tiles) + 1};
    launch_for_each(exec, num_tiles,
                    FindTileEntries{states_before.get_const_data(), group_entries.get_const_data(),
                                       block_starts.get_const_data(), entry_states.get_data(), first_block.get_data()},
                    "block_jacobi::find_blocks (tile entries)");
    components::prefix_sum(exec, first_block.get_data(), first_block.get_size());
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
