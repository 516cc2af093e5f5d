// Row loops of the OpenMP kernels that run on the calling thread below a size where waking the team costs
// more than it saves: on the 2-core development machine (threads sleeping between regions, as with
// OMP_WAIT_POLICY=PASSIVE in the tests) an axpy of 500 rows took 17 us through a 2-thread parallel region and
// 1.7 us serially, i.e. a wake-up of 10-15 us; 32,768 rows of axpy take about 60 us on one core, where that
// wake-up is below a quarter. Results do not depend on the path: each row is computed the same way.
#pragma once

#include <omp.h>

#include <cstddef>

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Loops of fewer rows (or chunks of rows, counted in rows) run serially.
constexpr std::ptrdiff_t parallel_rows_threshold = 32768;

/// Whether a loop over `work` rows (or stored entries) runs on the calling thread: below the threshold, or
/// when OpenMP has a single thread to give (a parallel region of one thread still costs its start).
inline bool runs_serially(std::ptrdiff_t work)
{
    return work < parallel_rows_threshold || omp_get_max_threads() == 1;
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

/// body(row) for every row of a sparse matrix with `entries` stored entries: serially below
/// parallel_rows_threshold entries, otherwise in parallel with dynamic chunks of 64 rows, which keep the
/// threads busy where rows differ in length.
template <typename Body>
void for_each_sparse_row(std::ptrdiff_t rows, std::ptrdiff_t entries, Body&& body)
{
    if (runs_serially(entries)) {
        for (std::ptrdiff_t row = 0; row < rows; ++row) {
            body(row);
        }
        return;
    }
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        body(row);
    }
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
