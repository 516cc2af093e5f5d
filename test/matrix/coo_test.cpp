// matrix::Coo on every executor: hand-checked SpMV and transpose, SpMV against the reference executor on
// random matrices, structure validation of user arrays, and the errors of bad operands.
#include <gtest/gtest.h>

#include <string>

#include "larch/base/executor.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::array;
using larch::dim2;
using larch::matrix::Coo;
using larch::matrix::Dense;
using larch::test::error_message_of;
using larch::test::expect_contains;

class CooOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

TEST_P(CooOnEveryExecutor, SpmvGivesHandCheckedValues)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_exact_small_apply<Coo<float>>(exec);
    larch::test::expect_exact_small_apply<Coo<double>>(exec);
}

TEST_P(CooOnEveryExecutor, CreatesFromArraysAndData)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2; 0 0 0; 3 4 0]
    auto a = Coo<double>::create(exec, dim2{3, 3}, array<double>{exec, {1, 2, 3, 4}},
                                 array<int>{exec, {0, 2, 0, 1}}, array<int>{exec, {0, 0, 2, 2}});
    EXPECT_EQ(a->get_executor(), exec);
    larch::test::expect_dense_eq({{1, 0, 2}, {0, 0, 0}, {3, 4, 0}}, *a->to_dense());
    const larch::matrix_data<double> data{dim2{2, 3}, {{1, 2, 0.0}, {0, 1, 1.5}, {0, 1, 2.0}}};
    auto from_data = Coo<double>::create(exec, data);
    larch::test::expect_data_eq(larch::matrix_data<double>{dim2{2, 3}, {{0, 1, 3.5}, {1, 2, 0.0}}},
                                from_data->to_data());
    EXPECT_EQ(Coo<double>::create(exec, dim2{4, 4})->get_num_stored_elements(), 0u);
}

TEST_P(CooOnEveryExecutor, TransposesHandCheckedMatrix)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const larch::matrix_data<double> data{
        dim2{3, 4}, {{0, 0, 1}, {0, 2, 2}, {1, 3, 5}, {2, 0, 3}, {2, 1, 4}}};
    auto transposed = Coo<double>::create(exec, data)->transpose();
    EXPECT_EQ(transposed->get_size(), dim2(4, 3));
    larch::test::expect_data_eq(
        larch::matrix_data<double>{dim2{4, 3}, {{0, 0, 1}, {0, 2, 3}, {1, 2, 4}, {2, 0, 2}, {3, 1, 5}}},
        transposed->to_data());
}

TEST_P(CooOnEveryExecutor, SpmvMatchesReferenceOnRandomMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_apply_matches_reference_on_random_matrices<Coo<float>>(exec, 160);
    larch::test::expect_apply_matches_reference_on_random_matrices<Coo<double>>(exec, 170);
}

TEST_P(CooOnEveryExecutor, SpmvMatchesReferenceWhenOneRowHoldsAllEntries)
{
    // Every thread's share of the nonzeros lies in the same row: all of them add to it concurrently.
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto data = larch::test::generate_random_matrix_data<double>(dim2{1, 5000}, {5000, 5000}, 180);
    for (const auto& test_case : larch::test::standard_apply_cases(181)) {
        larch::test::expect_apply_matches_reference<Coo<double>>(exec, data, test_case);
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CooOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

/// The message of Coo::create on the reference executor with these arrays of a 3x3 matrix.
std::string creation_error(std::initializer_list<double> values, std::initializer_list<int> col_idxs,
                           std::initializer_list<int> row_idxs)
{
    const auto exec = larch::make_executor("reference");
    return error_message_of([&] {
        Coo<double>::create(exec, dim2{3, 3}, array<double>{exec, values},
                            array<int>{exec, col_idxs}, array<int>{exec, row_idxs});
    });
}

TEST(CooValidation, NamesTheArrayPositionAndValueOfBadStructure)
{
    expect_contains(creation_error({1, 2}, {0, 1}, {0, 3}),
                    "Coo<double,int32>::create: row_idxs[1] is 3 but must lie in [0, 3)");
    expect_contains(creation_error({1, 2}, {-2, 1}, {0, 1}), "col_idxs[0] is -2 but must lie in [0, 3)");
    expect_contains(creation_error({1, 2}, {0, 1}, {2, 1}),
                    "entry 1 at (1, 1) does not come after entry 0 at (2, 0)");
    expect_contains(creation_error({1, 2}, {1, 1}, {0, 0}), "without duplicates");
    expect_contains(creation_error({1, 2}, {0}, {0, 1}),
                    "must have the same length but have 2, 1 and 2 entries");
    const auto exec = larch::make_executor("reference");
    EXPECT_THROW(Coo<double>::create(exec, dim2{1, 1}, array<double>{exec, {1}},
                                     array<int>{exec, {1}}, array<int>{exec, {0}}),
                 larch::BadInput);
}

TEST(CooValidation, RejectsFiniteDuplicatesWhoseSumOverflowsNamingThePosition)
{
    const auto exec = larch::make_executor("reference");
    // each value is finite, the sum of the two at (0, 1) is not (-Inf, past the lowest double)
    const larch::matrix_data<double> data{dim2{2, 2}, {{0, 1, -1e308}, {1, 0, 1.0}, {0, 1, -1e308}}};
    expect_contains(error_message_of([&] { Coo<double>::create(exec, data); }),
                    "Coo<double,int32>::create: the duplicate entries at (0, 1) add up to a value too "
                    "large for double");
}

TEST(CooErrors, ApplyChecksSizesAndOperandTypes)
{
    const auto exec = larch::make_executor("reference");
    auto a = Coo<double>::create(exec, dim2{3, 2});
    auto b = Dense<double>::create(exec, dim2{2, 1});
    auto x = Dense<double>::create(exec, dim2{2, 1});
    const auto message = error_message_of([&] { a->apply(b, x); });
    expect_contains(message, "Coo<double,int32>::apply: x (Dense<double>, 2x1) must be 3x1");
    EXPECT_THROW(a->apply(b, x), larch::DimensionMismatch);
    auto good_x = Dense<double>::create(exec, dim2{3, 1});
    auto float_b = Dense<float>::create(exec, dim2{2, 1});
    EXPECT_THROW(a->apply(float_b, good_x), larch::NotSupported);
    EXPECT_EQ(a->get_type_name(), "Coo<double,int32>");
}

}  // namespace
