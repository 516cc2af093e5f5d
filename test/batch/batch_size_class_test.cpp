// The size classes of batch::ItemLayout (the per-class item lists that the register kernels launch on),
// its ids (which operators remember after checking operand sizes), and the infinity norms of uniform
// batches (their 16-byte-vector path) on every built executor.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "larch/batch/dense.hpp"
#include "larch/batch/item_layout.hpp"
#include "larch/batch/norms.hpp"
#include "larch/batch/vector.hpp"
#include "test/batch/batch_test_helpers.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"

namespace {

using larch::dim2;
using larch::size_type;
using larch::batch::Dense;
using larch::batch::ItemLayout;

TEST(ItemLayoutSizeClass, ClassesArePowersOfTwoUpTo32ThenOneForLargerItems)
{
    const std::vector<std::pair<size_type, int>> expected{
        {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {16, 4}, {17, 5}, {32, 5}, {33, 6},
        {1000, 6}};
    for (const auto& [extent, size_class] : expected) {
        EXPECT_EQ(ItemLayout::size_class_of(extent), size_class) << extent;
    }
}

TEST(ItemLayoutId, CopiesAndClonesKeepTheIdAndEveryConstructionDrawsANewOne)
{
    auto ref = larch::make_executor("reference");
    const ItemLayout layout{ref, {dim2{3}, dim2{1}}};
    ItemLayout assigned{ref};
    const ItemLayout same_sizes{ref, {dim2{3}, dim2{1}}};

    assigned = layout;

    EXPECT_NE(layout.get_id(), 0u);
    EXPECT_EQ(ItemLayout{layout}.get_id(), layout.get_id());
    EXPECT_EQ(assigned.get_id(), layout.get_id());
    EXPECT_NE(same_sizes.get_id(), layout.get_id());
    EXPECT_EQ(layout.clone_to(ref).get_id(), layout.get_id());
    EXPECT_TRUE(layout.same_sizes(same_sizes));
}

TEST(ItemLayoutOffsets, RejectsItemsWhoseEntriesAddUpToMoreThanTheOffsetsCount)
{
    // Items of (2^31 - 1)^2 = 2^62 - 2^32 + 1 entries: the third passes 2^63 - 1. Four of them and one of 2^34 made
    // 2^64 + 4, which wrapped to an array of 4 entries (item 4 at offset -2^34 + 4) for items of billions.
    std::vector<dim2> sizes(4, dim2{2147483647});
    sizes.push_back(dim2{131072});
    const auto ref = larch::make_executor("reference");

    const auto message = larch::test::error_message_of([&] { Dense<double>::create(ref, sizes); });

    larch::test::expect_contains(message, "batch::ItemLayout: items 0 to 2 hold more than 2^63-1 entries in all "
                                          "(item 2 is 2147483647x2147483647)");
}

TEST(ItemLayoutSizeClass, VariableLayoutListsItemsByClassOfTheirLargerDimension)
{
    auto ref = larch::make_executor("reference");
    const ItemLayout layout{ref, {dim2{3}, dim2{1}, dim2{40}, dim2{2, 5}, dim2{17}, dim2{1},
                                  dim2{32, 1}}};
    const std::vector<std::vector<std::int64_t>> expected{{1, 5}, {}, {0}, {3}, {}, {4, 6}, {2}};
    for (const auto& copy : {layout, layout.clone_to(ref)}) {
        for (int size_class = 0; size_class < ItemLayout::num_size_classes; ++size_class) {
            const auto& items = expected[size_class];
            ASSERT_EQ(copy.get_class_size(size_class), items.size()) << size_class;
            const auto* listed = copy.get_const_class_items(size_class);
            EXPECT_EQ(std::vector<std::int64_t>(listed, listed + items.size()), items) << size_class;
        }
    }
}

TEST(ItemLayoutSizeClass, UniformLayoutIsOneUnlistedClass)
{
    auto ref = larch::make_executor("reference");
    const ItemLayout layout{ref, std::vector<dim2>(5, dim2{6, 3})};
    for (int size_class = 0; size_class < ItemLayout::num_size_classes; ++size_class) {
        EXPECT_EQ(layout.get_class_size(size_class), size_class == 3 ? 5u : 0u) << size_class;
        EXPECT_EQ(layout.get_const_class_items(size_class), nullptr);
    }
}

class BatchSizeClasses : public ::testing::TestWithParam<std::string> {};

template <typename T>
void check_uniform_norms(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    std::mt19937 rng{20261122};
    for (const dim2 size : {dim2{1}, dim2{2}, dim2{3}, dim2{4}, dim2{8}, dim2{16}, dim2{32},
                            dim2{33}, dim2{5, 64}, dim2{64, 6}, dim2{7, 2}, dim2{2, 8}}) {
        const std::vector<dim2> sizes(1000, size);
        auto batch = Dense<T>::create(exec, sizes, larch::test::random_values<T>(rng, sizes));
        const auto norms = larch::batch::compute_infinity_norms(*batch).copy_to_host();
        const auto expected =
            larch::batch::compute_infinity_norms(*batch->clone_to(ref)).copy_to_host();
        ASSERT_EQ(norms.size(), expected.size());
        const double tolerance = double(size.cols) * std::numeric_limits<T>::epsilon();
        for (size_type item = 0; item < norms.size(); ++item) {
            EXPECT_NEAR(norms[item], expected[item], tolerance * expected[item])
                << to_string(size) << ", item " << item;
        }
    }
}

TEST_P(BatchSizeClasses, MatchReferenceForEveryRowLength)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_uniform_norms<float>(exec);
    check_uniform_norms<double>(exec);
}

/// x = A b on a variable batch with items of every size class (rectangular, and above 32) against the
/// reference backend: each class runs in its own launch on the device backends.
template <typename T>
void check_variable_apply(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    std::mt19937 rng{20261123};
    const std::vector<dim2> shapes{dim2{1},     dim2{3, 2},  dim2{2, 5}, dim2{17, 9}, dim2{40, 3},
                                   dim2{7, 33}, dim2{32},    dim2{5},    dim2{12, 16}};
    std::vector<dim2> sizes;
    std::vector<dim2> b_sizes;
    std::vector<size_type> b_rows;
    std::vector<size_type> x_rows;
    for (int copy = 0; copy < 40; ++copy) {
        for (const auto shape : shapes) {
            sizes.push_back(shape);
            b_sizes.emplace_back(shape.cols, 2);
            b_rows.push_back(shape.cols);
            x_rows.push_back(shape.rows);
        }
    }
    auto a = Dense<T>::create(exec, sizes, larch::test::random_values<T>(rng, sizes));
    auto b = larch::batch::Vector<T>::create(exec, b_rows, 2,
                                             larch::test::random_values<T>(rng, b_sizes));
    auto x = larch::batch::Vector<T>::create(exec, x_rows, 2);
    auto x_ref = larch::batch::Vector<T>::create(ref, x_rows, 2);
    a->apply(*b, *x);
    a->clone_to(ref)->apply(*b->clone_to(ref), *x_ref);
    const auto values = x->copy_to_host();
    const auto expected = x_ref->copy_to_host();
    ASSERT_EQ(values.size(), expected.size());
    for (size_type i = 0; i < values.size(); ++i) {
        // sums of at most 33 products of values in [-1, 1], in another order: below 33 * 33 * eps
        EXPECT_NEAR(values[i], expected[i], 1089 * std::numeric_limits<T>::epsilon()) << i;
    }
}

TEST_P(BatchSizeClasses, VariableApplyMatchesReferenceInEverySizeClass)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_variable_apply<float>(exec);
    check_variable_apply<double>(exec);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BatchSizeClasses,
                         ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
