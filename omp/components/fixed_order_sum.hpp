// Sums whose result depends only on the input, not on the number of OpenMP threads or on scheduling:
// the index range is cut into chunks of a fixed length, each chunk is summed sequentially (in parallel
// over chunks), and the chunk sums are combined sequentially in chunk order. Solvers on the omp executor
// therefore take the same iterations from run to run and on any machine.
#pragma once

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

/// sum of term(i) for i in [0, n), with the fixed chunking described above.
template <typename T, typename Term>
T fixed_order_sum(std::ptrdiff_t n, Term term)
{
    const auto num_chunks = (n + fixed_order_chunk_length - 1) / fixed_order_chunk_length;
    if (num_chunks <= 1) {
        T sum{};
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            sum += term(i);
        }
        return sum;
    }
    std::vector<T> chunk_sums(static_cast<std::size_t>(num_chunks));
    // below parallel_rows_threshold the chunks are summed on this thread: the same chunks, the same result
#pragma omp parallel for schedule(static) if (n >= parallel_rows_threshold)
    for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
        const auto begin = chunk * fixed_order_chunk_length;
        const auto end = begin + fixed_order_chunk_length < n ? begin + fixed_order_chunk_length : n;
        T sum{};
        for (std::ptrdiff_t i = begin; i < end; ++i) {
            sum += term(i);
        }
        chunk_sums[static_cast<std::size_t>(chunk)] = sum;
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
