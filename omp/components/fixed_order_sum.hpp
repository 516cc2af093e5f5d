// Sums whose result depends only on the input, not on the number of OpenMP threads or on scheduling:
// the index range is cut into chunks of a fixed length, each chunk is summed sequentially (in parallel
// over chunks), and the chunk sums are combined sequentially in chunk order. Solvers on the omp executor
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

/// sum of term(i) for i in [0, n), with the fixed chunking described above.
template <typename T, typename Term>
T fixed_order_sum(std::ptrdiff_t n, Term term)
{
    const auto num_chunks = (n + fixed_order_chunk_length - 1) / fixed_order_chunk_length;
    const auto chunk_end = [&](std::ptrdiff_t chunk) {
        return std::min(n, (chunk + 1) * fixed_order_chunk_length);
    };
    if (num_chunks <= 1) {
        return sequential_sum<T>(0, n, term);
    }
    // Below parallel_rows_threshold the chunks are summed on this thread, without a parallel region (whose
    // start costs more than these sums): the same chunks added in the same order, the same result.
    if (n < parallel_rows_threshold) {
        T sum{};
        for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
            sum += sequential_sum<T>(chunk * fixed_order_chunk_length, chunk_end(chunk), term);
        }
        return sum;
    }
    std::vector<T> chunk_sums(static_cast<std::size_t>(num_chunks));
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
        chunk_sums[static_cast<std::size_t>(chunk)] =
            sequential_sum<T>(chunk * fixed_order_chunk_length, chunk_end(chunk), term);
    }
    T sum{};
    for (const auto chunk_sum : chunk_sums) {
        sum += chunk_sum;
    }
    return sum;
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
