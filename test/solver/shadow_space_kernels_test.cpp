// The random fill of IDR's shadow space: every executor writes exactly the counter-based values the host
// computes (same seed, same bits), different seeds give different spaces, and the values lie in [-1, 1).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/components/counter_random.hpp"
#include "core/solver/shadow_space_kernels.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;

class ShadowSpaceKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(ShadowSpaceKernels, FillRandomWritesTheCounterBasedValuesOfTheSeed)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const dim2 size{3, 1001};
    // a stride beyond the columns: the padding must stay untouched
    auto space = Dense::create(exec, size, larch::array<double>{exec, size.rows * 1003}, 1003);
    space->fill(0.0);
    LARCH_RUN_KERNEL(exec, shadow_space::fill_random, std::uint64_t{42}, size.cols, size_type{0}, *space);
    const auto values = space->copy_to_host();
    double sum = 0;
    for (size_type i = 0; i < size.rows * size.cols; ++i) {
        const double expected = larch::kernels::components::counter_random_uniform(42, i);
        ASSERT_EQ(values[i], expected) << "entry " << i;
        ASSERT_GE(values[i], -1.0);
        ASSERT_LT(values[i], 1.0);
        sum += values[i];
    }
    // the mean of 3,003 uniform values on [-1, 1) has standard deviation 0.011: 0.05 is 4.7 of them
    EXPECT_LT(std::abs(sum / (size.rows * size.cols)), 0.05);
    LARCH_RUN_KERNEL(exec, shadow_space::fill_random, std::uint64_t{43}, size.cols, size_type{0}, *space);
    EXPECT_NE(space->copy_to_host(), values);
}

TEST_P(ShadowSpaceKernels, FillRandomWritesAColumnBlockOfTheWholeSpace)
{
    // Columns [400, 700) of the 3 x 1001 space, as a process holding those rows of the shadow vectors.
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto block = Dense::create(exec, dim2{3, 300});
    LARCH_RUN_KERNEL(exec, shadow_space::fill_random, std::uint64_t{42}, size_type{1001}, size_type{400}, *block);
    const auto values = block->copy_to_host();
    for (size_type row = 0; row < 3; ++row) {
        for (size_type col = 0; col < 300; ++col) {
            ASSERT_EQ(values[row * 300 + col],
                      larch::kernels::components::counter_random_uniform(42, row * 1001 + 400 + col))
                << row << ", " << col;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, ShadowSpaceKernels, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
