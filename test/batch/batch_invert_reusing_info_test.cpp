// batch::invert(a, inverse, info): the overload that reuses the caller's info array gives the same
// inverse and info as the one that allocates, on every executor, and resizes an info of the wrong size.
#include <gtest/gtest.h>

#include <vector>

#include "larch/base/array.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_jordan.hpp"
#include "test/utils/executors.hpp"

namespace {

using larch::dim2;

class InvertReusingInfo : public ::testing::TestWithParam<std::string> {};

TEST_P(InvertReusingInfo, GivesTheSameResultsAsTheAllocatingOverload)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Items: [[0, 2], [4, 0]] (needs a row exchange), [3], and a singular [[1, 2], [2, 4]] (info 2).
    const std::vector<dim2> sizes{dim2{2}, dim2{1}, dim2{2}};
    const std::vector<double> values{0, 2, 4, 0, 3, 1, 2, 2, 4};
    auto a = larch::batch::Dense<double>::create(exec, sizes, values);
    auto expected = larch::batch::Dense<double>::create_with_layout_of(exec, *a);
    const auto expected_info = larch::batch::invert(*a, *expected).copy_to_host();

    auto inverse = larch::batch::Dense<double>::create_with_layout_of(exec, *a);
    larch::array<std::int32_t> info{exec, 1};  // wrong size on purpose: must be resized
    for (int call = 0; call < 2; ++call) {
        larch::batch::invert(*a, *inverse, info);
        ASSERT_EQ(info.copy_to_host(), expected_info) << "call " << call;
        EXPECT_EQ(info.copy_to_host(), (std::vector<std::int32_t>{0, 0, 2}));
        for (larch::size_type item = 0; item < 2; ++item) {
            EXPECT_EQ(inverse->copy_item_to_host(item), expected->copy_item_to_host(item))
                << "item " << item << ", call " << call;
        }
    }
    // Exact: [[0, 2], [4, 0]]^-1 = [[0, 1/4], [1/2, 0]], [3]^-1 = [1/3].
    EXPECT_EQ(inverse->copy_item_to_host(0), (std::vector<double>{0, 0.25, 0.5, 0}));
    EXPECT_DOUBLE_EQ(inverse->copy_item_to_host(1)[0], 1.0 / 3.0);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, InvertReusingInfo,
                         ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
