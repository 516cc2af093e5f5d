// Row loops of the OpenMP kernels that run on the calling thread below a size where starting the team costs
// more than it saves. Measured on the 2-core development machine with nothing else running and OpenMP's
// default wait policy (threads spin a while between regions): a 2-thread region costs about 0.7 us, an axpy
// of 8,000 rows took 2.0 us in it against 2.5 us serially (16,000: 2.4 against 4.9), a CSR SpMV of 4,900
// entries 2.9 against 3.8 us (10,200: 5.6 against 8.0). But with sleeping threads (OMP_WAIT_POLICY=PASSIVE,
// as in the tests) a region costs 10-15 us, and where other processes keep the cores busy a region waits for
// a preempted thread: with other builds running (load 3-4), BiCGSTAB on 2 threads with the thresholds at
// 8,192 took 2.5-4.7x as long per iteration as at 32,768 on matrices of 1,856-10,000 rows (watt_1 149 against
// 36 us, bentpipe2d100 624 against 133 us), for at most 20% gained on an idle machine. So only loops of
// 32,768 rows or entries and more, where a region's cost is small in every case, use the threads. Results
// do not depend on the path: each row is computed the same way.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Loops over fewer rows (entries of a row-major block, or a sparse matrix's stored entries) run serially.
constexpr std::ptrdiff_t parallel_rows_threshold = 32768;

/// Whether a loop over `work` rows (or entries) runs on the calling thread: below `threshold`, or when
/// OpenMP has a single thread to give (a parallel region of one thread still costs its start).
inline bool runs_serially(std::ptrdiff_t work, std::ptrdiff_t threshold = parallel_rows_threshold)
{
    return work < threshold || omp_get_max_threads() == 1;
}

/// body(row) for every row in [0, rows): in parallel (static schedule) from parallel_rows_threshold rows on.
template <typename Body>
void for_each_row(std::ptrdiff_t rows, Body&& body)
{
    if (runs_serially(rows)) {
        for (std::ptrdiff_t row = 0; row < rows; ++row) {
            body(row);
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        body(row);
    }
}

/// body(begin, end) on consecutive ranges covering [0, count): one range on the calling thread below
/// parallel_rows_threshold, one range per thread from there on. For entries that lie contiguously: a plain
/// loop over a range vectorizes, where a body per row with a loop over its columns does not.
template <typename Body>
void for_each_range(std::ptrdiff_t count, Body&& body)
{
    if (runs_serially(count)) {
        body(std::ptrdiff_t{0}, count);
        return;
    }
#pragma omp parallel
    {
        const std::ptrdiff_t threads = omp_get_num_threads();
        const std::ptrdiff_t thread = omp_get_thread_num();
        body(count * thread / threads, count * (thread + 1) / threads);
    }
}

/// body(begin, end) on consecutive ranges covering the items [0, count), where item i spans
/// [offsets[i], offsets[i + 1]) (a CSR matrix's rows over its stored entries, or block-Jacobi's blocks over
/// the rows): one range on the calling thread below parallel_rows_threshold `work`, otherwise one range per
/// thread, cut where the span is shared evenly. Each thread gets the same items on every call, so that in a
/// solver's loop its part of the matrix stays in its core's cache. Ranges of 64 rows handed out dynamically
/// sent them to whichever thread came first, and each range cost a shared counter's cache line. BiCGSTAB +
/// Jacobi on the 2-core development VM, 2 threads (examples/solve): bentpipe2d100 (49,600 entries) 211-218 ->
/// 116-139 us per iteration (one thread: 115-121), a 2D Laplacian of 160,000 rows 2.14 -> 0.79-0.80 ms (one
/// thread: 1.6-2.0).
template <typename I, typename Body>
void for_each_range_by_offsets(std::ptrdiff_t count, const I* offsets, std::ptrdiff_t work, Body&& body)
{
    if (runs_serially(work)) {
        body(std::ptrdiff_t{0}, count);
        return;
    }
#pragma omp parallel
    {
        const std::int64_t threads = omp_get_num_threads();
        const std::int64_t thread = omp_get_thread_num();
        const std::int64_t first = offsets[0];
        const std::int64_t span = static_cast<std::int64_t>(offsets[count]) - first;
        // The first item that starts at or after thread t's share of the span.
        const auto first_item = [&](std::int64_t t) {
            if (t == threads) {
                return count;
            }
            const auto start = static_cast<I>(first + span * t / threads);
            return static_cast<std::ptrdiff_t>(std::lower_bound(offsets, offsets + count, start) - offsets);
        };
        body(first_item(thread), first_item(thread + 1));
    }
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
