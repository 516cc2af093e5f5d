// The omp executor's dot products and norms do not depend on the number of threads: the same input gives
// bit-for-bit the same result with 1, 2, 3, 5 and 16 threads, so solvers iterate identically on any machine.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::dim2;

template <typename V>
void check_thread_count_independence(std::uint32_t seed)
{
    SCOPED_TRACE(larch::test::seed_trace(seed));
    const auto exec = larch::make_executor("omp");
    // Several chunks of the fixed-order sum, the last one partly filled; values of mixed signs and
    // magnitudes so that any change of the summation order changes the rounding.
    const dim2 size{50001, 2};
    auto values = larch::test::generate_random_values<V>(size, seed);
    for (std::size_t i = 0; i < values.size(); i += 7) {
        values[i] *= V(1e4);
    }
    const auto x = larch::test::create_dense(exec, size, values, 2);
    const auto y = larch::test::create_dense(exec, size, larch::test::generate_random_values<V>(size, seed + 1), 3);
    const int saved_threads = omp_get_max_threads();
    std::vector<std::vector<V>> dots;
    std::vector<std::vector<V>> norms;
    for (const int threads : {1, 2, 3, 5, 16}) {
        omp_set_num_threads(threads);
        dots.push_back(x->compute_dot(*y));
        norms.push_back(x->compute_norm2());
    }
    omp_set_num_threads(saved_threads);
    for (std::size_t run = 1; run < dots.size(); ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        EXPECT_EQ(dots[run], dots[0]);
        EXPECT_EQ(norms[run], norms[0]);
    }
}

TEST(OmpReductions, DotAndNormAreIdenticalForEveryThreadCount)
{
    check_thread_count_independence<double>(17);
    check_thread_count_independence<float>(18);
}

/// x^T y summed as the omp executor promises: 4,096 rows at a time; in each chunk, product i added to
/// partial sum i % 8, the partial sums combined pairwise (l += l + 4, then l += l + 2, then l += l + 1);
/// the chunk sums added in chunk order.
template <typename V>
V chunked_dot(const std::vector<V>& x, const std::vector<V>& y)
{
    constexpr std::size_t chunk_length = 4096;
    constexpr std::size_t lanes = 8;
    V sum{};
    for (std::size_t begin = 0; begin < x.size(); begin += chunk_length) {
        V lane_sums[lanes]{};
        for (std::size_t i = begin; i < std::min(x.size(), begin + chunk_length); ++i) {
            lane_sums[i % lanes] += x[i] * y[i];
        }
        for (std::size_t width = lanes / 2; width > 0; width /= 2) {
            for (std::size_t lane = 0; lane < width; ++lane) {
                lane_sums[lane] += lane_sums[lane + width];
            }
        }
        sum += lane_sums[0];
    }
    return sum;
}

TEST(OmpReductions, DotIsTheChunkedSumWrittenOut)
{
    const auto exec = larch::make_executor("omp");
    const int saved_threads = omp_get_max_threads();
    // 1, 3 and 9 chunks, the last ones partly filled (and not in whole groups of 8 rows); 9 chunks are
    // summed in parallel from 32,768 rows on
    for (const std::size_t rows : {4000, 3 * 4096 + 5, 9 * 4096 - 7}) {
        for (const int threads : {1, 2}) {
            SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(threads) + " threads");
            omp_set_num_threads(threads);
            const dim2 size{rows, 1};
            auto x_host = larch::test::generate_random_values<double>(size, 23);
            for (std::size_t i = 0; i < rows; i += 5) {
                x_host[i] *= 1e6;
            }
            const auto y_host = larch::test::generate_random_values<double>(size, 24);
            const auto x = larch::test::create_dense(exec, size, x_host);
            const auto y = larch::test::create_dense(exec, size, y_host);
            EXPECT_EQ(x->compute_dot(*y).front(), chunked_dot(x_host, y_host));
        }
    }
    omp_set_num_threads(saved_threads);
}

}  // namespace
