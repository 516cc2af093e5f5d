// Sums whose result depends only on the input, not on the number of OpenMP threads or on scheduling:
// the index range is cut into chunks of a fixed length (in parallel over chunks from the parallel
// threshold on), each chunk is summed in a fixed number of interleaved lanes, and the chunk sums are
// combined sequentially in chunk order. Solvers on the omp executor therefore take the same iterations
// from run to run and on any machine. The order differs from the reference executor's sequential sum
// (another rounding of the same terms), so iteration counts on ill-conditioned systems may differ from
// the reference's by a few.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Rows per chunk: long enough that a chunk's loop is worth a thread, short enough that even modest
/// vectors (a few 10^4 rows) spread over the threads.
constexpr std::ptrdiff_t fixed_order_chunk_length = 4096;

/// Partial sums per chunk. One sequential sum is a chain of dependent additions that waits 3-4 cycles
/// for each term; term i added to lane i % sum_lanes gives that many independent chains, which the core
/// overlaps (a dot product of 1,104 rows: 1.03 us sequentially, 0.27 us in 4 lanes, 0.20 us in 8 on
/// the 2-core development machine). Divides fixed_order_chunk_length, so a term's lane is i % sum_lanes
/// in every chunk.
constexpr std::ptrdiff_t sum_lanes = 8;

static_assert(fixed_order_chunk_length % sum_lanes == 0, "every chunk starts in lane 0");

/// lanes[l] += term(i + l) for l = 0, 1, ..., in this order: written out at compile time, so the lanes stay in
/// registers (a loop over them kept them in memory, each addition waiting on a store).
template <typename T, typename Term, std::size_t... lane>
void add_to_lanes(T* lanes, std::ptrdiff_t i, Term& term, std::index_sequence<lane...>)
{
    ((lanes[lane] += term(i + static_cast<std::ptrdiff_t>(lane))), ...);
}

/// The sum of sum_lanes partial sums in a fixed tree: lane l + w added to lane l for w = sum_lanes / 2, ...,
/// 2, 1; the lanes are overwritten.
template <typename T>
T combine_lanes(T* lanes)
{
    for (auto width = sum_lanes / 2; width > 0; width /= 2) {
        for (std::ptrdiff_t lane = 0; lane < width; ++lane) {
            lanes[lane] += lanes[lane + width];
        }
    }
    return lanes[0];
}

/// sum of term(i) for i in [begin, end) (begin a multiple of sum_lanes): the terms in increasing i, term i
/// added to lane i % sum_lanes, then the lanes combined by combine_lanes.
/// `term` is a copy: what it captures by value lives in this frame, where no store through a pointer the
/// terms write to can change it, so it is not reloaded for every term.
template <typename T, typename Term>
T lane_sum(std::ptrdiff_t begin, std::ptrdiff_t end, Term term)
{
    T lanes[sum_lanes]{};
    auto i = begin;
    for (; i + sum_lanes <= end; i += sum_lanes) {
        add_to_lanes(lanes, i, term, std::make_index_sequence<static_cast<std::size_t>(sum_lanes)>{});
    }
    for (std::ptrdiff_t lane = 0; i < end; ++i, ++lane) {
        lanes[lane] += term(i);
    }
    return combine_lanes(lanes);
}

/// sum of term(i) for i in [0, n), with the fixed chunking described above: T{} plus the chunks' lane sums
/// in chunk order. Each term is evaluated once, and within a chunk in increasing i.
template <typename T, typename Term>
T fixed_order_sum(std::ptrdiff_t n, Term term)
{
    const auto num_chunks = (n + fixed_order_chunk_length - 1) / fixed_order_chunk_length;
    const auto chunk_sum = [&](std::ptrdiff_t chunk) {
        const auto begin = chunk * fixed_order_chunk_length;
        return lane_sum<T>(begin, std::min(n, begin + fixed_order_chunk_length), term);
    };
    T sum{};
    // Below the parallel threshold the chunks are summed on this thread, without a parallel region and
    // without allocating: the same chunk sums added in the same order.
    if (runs_serially(n)) {
        for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
            sum += chunk_sum(chunk);
        }
        return sum;
    }
    std::vector<T> chunk_sums(static_cast<std::size_t>(num_chunks));
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
        chunk_sums[static_cast<std::size_t>(chunk)] = chunk_sum(chunk);
    }
    for (const auto& partial : chunk_sums) {
        sum += partial;
    }
    return sum;
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
