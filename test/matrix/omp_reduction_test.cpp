// The omp executor's dot products and norms do not depend on the number of threads: the same input gives
// bit-for-bit the same result with 1, 2, 3, 5 and 16 threads, so solvers iterate identically on any machine.
#include <gtest/gtest.h>

#include <omp.h>

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

}  // namespace
