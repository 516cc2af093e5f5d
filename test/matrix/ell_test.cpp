// matrix::Ell on every executor: hand-checked SpMV, layout and transpose, SpMV against the reference
// executor on random matrices (also with a stride larger than the rows), structure validation of user
// arrays, and the errors of bad operands.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::array;
using larch::dim2;
using larch::matrix::Dense;
using larch::matrix::Ell;
using larch::test::error_message_of;
using larch::test::expect_contains;

class EllOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

TEST_P(EllOnEveryExecutor, SpmvGivesHandCheckedValues)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_exact_small_apply<Ell<float>>(exec);
    larch::test::expect_exact_small_apply<Ell<double>>(exec);
}

TEST_P(EllOnEveryExecutor, StoresRowsColumnMajorWithPadding)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2; 0 0 0; 3 4 0]: two slots per row; slot k of row i at k * 3 + i.
    const larch::matrix_data<double> data{dim2{3, 3}, {{0, 0, 1}, {0, 2, 2}, {2, 0, 3}, {2, 1, 4}}};
    auto a = Ell<double>::create(exec, data);
    EXPECT_EQ(a->get_num_stored_per_row(), 2u);
    EXPECT_EQ(a->get_stride(), 3u);
    const auto host = a->clone_to(larch::make_executor("reference"));
    const auto& ell = dynamic_cast<const Ell<double>&>(*host);
    const std::vector<int> col_idxs(ell.get_const_col_idxs(), ell.get_const_col_idxs() + 6);
    const std::vector<double> values(ell.get_const_values(), ell.get_const_values() + 6);
    EXPECT_EQ(col_idxs, (std::vector<int>{0, -1, 0, 2, -1, 1}));
    EXPECT_EQ(values, (std::vector<double>{1, 0, 3, 2, 0, 4}));
}

TEST_P(EllOnEveryExecutor, CreatesFromArraysWithALargerStride)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2; 0 0 0; 3 4 0] with stride 4: the fourth slot of each column is unused (and left invalid).
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    auto a = Ell<double>::create(exec, dim2{3, 3}, array<double>{exec, {1, 0, 3, nan, 2, 0, 4, nan}},
                                 array<int>{exec, {0, -1, 0, 99, 2, -1, 1, 99}}, 2, 4);
    EXPECT_EQ(a->get_executor(), exec);
    larch::test::expect_dense_eq({{1, 0, 2}, {0, 0, 0}, {3, 4, 0}}, *a->to_dense());
    auto b = Dense<double>::create(exec, {{1}, {1}, {1}});
    auto x = Dense<double>::create(exec, dim2{3, 1});
    a->apply(b, x);
    larch::test::expect_dense_eq({{3}, {0}, {7}}, *x);
    EXPECT_EQ(Ell<double>::create(exec, dim2{4, 4})->get_num_stored_elements(), 0u);
}

TEST_P(EllOnEveryExecutor, TransposesHandCheckedMatrix)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const larch::matrix_data<double> data{
        dim2{3, 4}, {{0, 0, 1}, {0, 2, 2}, {1, 3, 5}, {2, 0, 3}, {2, 1, 4}}};
    auto transposed = Ell<double>::create(exec, data)->transpose();
    EXPECT_EQ(transposed->get_size(), dim2(4, 3));
    larch::test::expect_data_eq(
        larch::matrix_data<double>{dim2{4, 3}, {{0, 0, 1}, {0, 2, 3}, {1, 2, 4}, {2, 0, 2}, {3, 1, 5}}},
        transposed->to_data());
}

TEST_P(EllOnEveryExecutor, SpmvMatchesReferenceOnRandomMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_apply_matches_reference_on_random_matrices<Ell<float>>(exec, 260);
    larch::test::expect_apply_matches_reference_on_random_matrices<Ell<double>>(exec, 270);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, EllOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

/// The message of Ell::create on the reference executor with these arrays of a 2x3 matrix, 2 per row.
std::string creation_error(std::initializer_list<int> col_idxs, size_t stride = 2)
{
    const auto exec = larch::make_executor("reference");
    const std::vector<double> values(col_idxs.size(), 1.0);
    return error_message_of([&] {
        Ell<double>::create(exec, dim2{2, 3}, array<double>{exec, values.begin(), values.end()},
                            array<int>{exec, col_idxs}, 2, stride);
    });
}

TEST(EllValidation, NamesTheArrayPositionAndValueOfBadStructure)
{
    expect_contains(creation_error({0, 1, 3, -1}),
                    "Ell<double,int32>::create: col_idxs[2] (row 0, slot 1) is 3 but must lie in [0, 3)");
    expect_contains(creation_error({0, -1, 2, 1}),
                    "col_idxs[3] (row 1, slot 1) is 1 after a padding slot");
    expect_contains(creation_error({2, 0, 1, -1}),
                    "col_idxs[2] (row 0, slot 1) is 1 but the previous column of the row is 2");
    expect_contains(creation_error({0, -2, 1, -1}), "col_idxs[1] (row 1, slot 0) is -2");
    expect_contains(creation_error({0, 1, 2}), "values and col_idxs have 3 and 3 entries");
    expect_contains(creation_error({0, 1, 2, 1}, 1), "stride 1 is smaller than the 2 rows");
}

TEST(EllValidation, RejectsFiniteDuplicatesWhoseSumOverflowsNamingThePosition)
{
    const auto exec = larch::make_executor("reference");
    // each value is finite in float, the sum of the two at (1, 1) is not
    const larch::matrix_data<float> data{dim2{2, 2}, {{1, 1, 3e38f}, {1, 1, 3e38f}, {0, 0, 1.0f}}};
    expect_contains(error_message_of([&] { Ell<float>::create(exec, data); }),
                    "Ell<float,int32>::create: the duplicate entries at (1, 1) add up to a value too "
                    "large for float");
}

TEST(EllErrors, ApplyChecksSizesAndOperandTypes)
{
    const auto exec = larch::make_executor("reference");
    auto a = Ell<float>::create(exec, dim2{3, 2});
    auto b = Dense<float>::create(exec, dim2{4, 1});
    auto x = Dense<float>::create(exec, dim2{3, 1});
    const auto message = error_message_of([&] { a->apply(b, x); });
    expect_contains(message, "Ell<float,int32>::apply: b (Dense<float>, 4x1) has 4 rows");
    auto good_b = Dense<float>::create(exec, dim2{2, 1});
    auto double_x = Dense<double>::create(exec, dim2{3, 1});
    EXPECT_THROW(a->apply(good_b, double_x), larch::NotSupported);
    EXPECT_EQ(a->get_type_name(), "Ell<float,int32>");
}

}  // namespace
