// Sums whose result depends only on the input, not on the number of OpenMP threads or on scheduling:
// the index range is cut into chunks of a fixed length, each chunk is summed sequentially (in parallel
// over chunks, and a few chunks side by side on each thread), and the chunk sums are combined sequentially
// in chunk order. Solvers on the omp executor
// therefore take the same iterations from run to run and on any machine.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Rows per chunk: long enough that a chunk's loop is worth a thread, short enough that even modest
/// vectors (a few 10^4 rows) spread over the threads.
constexpr std::ptrdiff_t fixed_order_chunk_length = 4096;

/// sum of term(i) for i in [begin, end), sequentially.
template <typename T, typename Term>
T sequential_sum(std::ptrdiff_t begin, std::ptrdiff_t end, Term& term)
{
    T sum{};
    for (auto i = begin; i < end; ++i) {
        sum += term(i);
    }
    return sum;
}

/// How many chunks one thread sums side by side: each chunk's sum is a chain of additions that waits on
/// the latency of every addition, and independent chains let the core overlap them.
constexpr std::ptrdiff_t chunks_side_by_side = 4;

/// Sums over fewer rows run on the calling thread: up to chunks_side_by_side chunks per thread, one thread
/// summing them side by side is about as fast as two threads summing half of them each.
constexpr std::ptrdiff_t parallel_sum_threshold = 2 * chunks_side_by_side * fixed_order_chunk_length;

/// The sums of the `count` chunks from chunk `first` (of [0, n)) into sums[0, count): the chunks' terms are
/// visited side by side, and each chunk is still summed from its first term to its last. Only the last
/// chunk of [0, n) may be shorter than fixed_order_chunk_length, so the group's last chunk is its shortest.
template <std::ptrdiff_t count, typename T, typename Term>
void sum_chunk_group(std::ptrdiff_t first, std::ptrdiff_t n, Term& term, T* sums)
{
    std::ptrdiff_t begin[count];
    T partial[count];
    for (std::ptrdiff_t chunk = 0; chunk < count; ++chunk) {
        begin[chunk] = (first + chunk) * fixed_order_chunk_length;
        partial[chunk] = T{};
    }
    const auto shortest = std::min(n, (first + count) * fixed_order_chunk_length) - begin[count - 1];
    for (std::ptrdiff_t i = 0; i < shortest; ++i) {
        for (std::ptrdiff_t chunk = 0; chunk < count; ++chunk) {
            partial[chunk] += term(begin[chunk] + i);
        }
    }
    for (std::ptrdiff_t chunk = 0; chunk + 1 < count; ++chunk) {
        for (auto i = begin[chunk] + shortest; i < begin[chunk] + fixed_order_chunk_length; ++i) {
            partial[chunk] += term(i);
        }
    }
    std::copy(partial, partial + count, sums);
}

/// The sums of chunks [first, last) of [0, n) into sums[0, last - first), chunks_side_by_side at a time.
template <typename T, typename Term>
void sum_chunks(std::ptrdiff_t first, std::ptrdiff_t last, std::ptrdiff_t n, Term& term, T* sums)
{
    static_assert(chunks_side_by_side == 4, "sum_chunks dispatches groups of 1 to 4 chunks");
    for (; first < last; first += chunks_side_by_side, sums += chunks_side_by_side) {
        switch (std::min(chunks_side_by_side, last - first)) {
        case 1:
            sum_chunk_group<1>(first, n, term, sums);
            break;
        case 2:
            sum_chunk_group<2>(first, n, term, sums);
            break;
        case 3:
            sum_chunk_group<3>(first, n, term, sums);
            break;
        default:
            sum_chunk_group<4>(first, n, term, sums);
        }
    }
}

/// sum of term(i) for i in [0, n), with the fixed chunking described above. Each term is evaluated once.
template <typename T, typename Term>
T fixed_order_sum(std::ptrdiff_t n, Term term)
{
    const auto num_chunks = (n + fixed_order_chunk_length - 1) / fixed_order_chunk_length;
    if (num_chunks <= 1) {
        return sequential_sum<T>(0, n, term);
    }
    T sum{};
    // Below parallel_sum_threshold the chunks are summed on this thread, without a parallel region and
    // without allocating: the same chunks added in the same order.
    if (runs_serially(n, parallel_sum_threshold)) {
        for (std::ptrdiff_t first = 0; first < num_chunks; first += chunks_side_by_side) {
            T group_sums[chunks_side_by_side];
            const auto last = std::min(num_chunks, first + chunks_side_by_side);
            sum_chunks(first, last, n, term, group_sums);
            for (std::ptrdiff_t chunk = 0; chunk < last - first; ++chunk) {
                sum += group_sums[chunk];
            }
        }
        return sum;
    }
    std::vector<T> chunk_sums(static_cast<std::size_t>(num_chunks));
#pragma omp parallel
    {
        // each thread sums a consecutive share of the chunks
        const std::ptrdiff_t threads = omp_get_num_threads();
        const std::ptrdiff_t thread = omp_get_thread_num();
        const auto first = num_chunks * thread / threads;
        sum_chunks(first, num_chunks * (thread + 1) / threads, n, term, chunk_sums.data() + first);
    }
    for (const auto chunk_sum : chunk_sums) {
        sum += chunk_sum;
    }
    return sum;
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
