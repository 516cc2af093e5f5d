// Row loops of the OpenMP kernels that run on the calling thread below a size where waking the team costs
// more than it saves: on the 2-core development machine (threads sleeping between regions, as with
// OMP_WAIT_POLICY=PASSIVE in the tests) an axpy of 500 rows took 17 us through a 2-thread parallel region and
// 1.7 us serially, i.e. a wake-up of 10-15 us; 32,768 rows of axpy take about 60 us on one core, where that
// wake-up is below a quarter. Results do not depend on the path: each row is computed the same way.
#pragma once

#include <cstddef>

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// Loops of fewer rows (or chunks of rows, counted in rows) run serially.
constexpr std::ptrdiff_t parallel_rows_threshold = 32768;

/// body(row) for every row in [0, rows): in parallel (static schedule) from parallel_rows_threshold rows on.
template <typename Body>
void for_each_row(std::ptrdiff_t rows, Body&& body)
{
    if (rows < parallel_rows_threshold) {
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

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
