// Scalar Jacobi (BlockJacobi with max_block_size 1) on every executor: the inverted diagonal, the zero
// diagonal rule and its report, application to several columns and the scaled apply, parameter errors.
// (Larger blocks: block_jacobi_blocks_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "larch/preconditioner/block_jacobi.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"

namespace {

using Jacobi = larch::preconditioner::BlockJacobi<double>;
using Csr = larch::matrix::Csr<double>;
using Dense = larch::matrix::Dense<double>;
constexpr double infinity = std::numeric_limits<double>::infinity();

// diagonal 2, 0 (explicit zero), missing, -4, 0.5
larch::matrix_data<double, std::int32_t> matrix_with_zero_diagonal()
{
    return {larch::dim2{5},
            {{0, 0, 2}, {0, 4, 1}, {1, 0, 3}, {1, 1, 0}, {2, 3, 7}, {3, 3, -4}, {3, 4, 1}, {4, 0, 1}, {4, 4, 0.5}}};
}

/// The message of the BadInput that generating a preconditioner with `parameters` for `a` throws.
std::string generation_error(const Jacobi::parameters_type& parameters,
                             const std::shared_ptr<const larch::Executor>& exec, const std::shared_ptr<const Csr>& a)
{
    return larch::test::error_message_of<larch::BadInput>([&] { parameters.on(exec)->generate(a); });
}

class BlockJacobiTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockJacobiTest, InvertsTheDiagonalAndUsesOneForZeroEntries)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, matrix_with_zero_diagonal()));
    auto jacobi = Jacobi::build().on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_inverse_diagonal().copy_to_host(), (std::vector<double>{0.5, 1, 1, -0.25, 2}));
    EXPECT_EQ(jacobi->get_zero_diagonal_rows(), (std::vector<std::int32_t>{1, 2}));
    EXPECT_EQ(jacobi->get_num_zero_diagonal_rows(), 2u);
}

TEST_P(BlockJacobiTest, ReportsZeroDiagonalRowsAsSingularBlocksAndThrowsForThemWhenAsked)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, matrix_with_zero_diagonal()));
    // scalar Jacobi's blocks are the rows: rows 1 and 2 are singular 1 x 1 blocks, as with block pointers
    // {0, 1, 2, 3, 4, 5}; they were left out of get_singular_blocks(), and throw_error did not throw
    auto jacobi = Jacobi::build().on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_singular_blocks(), (std::vector<larch::size_type>{1, 2}));
    EXPECT_EQ(jacobi->get_condition_numbers(), (std::vector<double>{1, infinity, infinity, 1, 1}));
    auto rows_as_blocks = Jacobi::build().with_block_pointers({0, 1, 2, 3, 4, 5}).on(exec)->generate(a);
    EXPECT_EQ(rows_as_blocks->get_singular_blocks(), jacobi->get_singular_blocks());
    larch::test::expect_contains(
        generation_error(
            Jacobi::build().with_on_singular_block(larch::preconditioner::SingularBlockPolicy::throw_error), exec, a),
        "row 1 ");
}

TEST_P(BlockJacobiTest, LeavesRowsWithASubnormalDiagonalUnscaled)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 1 / 1e-310 overflows to Inf, which would reach every application
    auto a = larch::share(
        Csr::create(exec, larch::matrix_data<double, std::int32_t>{larch::dim2{3}, {{0, 0, 2}, {1, 1, 1e-310}, {2, 2, 4}}}));
    auto jacobi = Jacobi::build().on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_inverse_diagonal().copy_to_host(), (std::vector<double>{0.5, 1, 0.25}));
    EXPECT_EQ(jacobi->get_zero_diagonal_rows(), (std::vector<std::int32_t>{1}));
}

TEST_P(BlockJacobiTest, AppliesToSeveralColumnsAndScales)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto host = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, matrix_with_zero_diagonal()));
    auto jacobi = Jacobi::build().with_max_block_size(1).on(exec)->generate(a);
    auto b = Dense::create(host, {{2, 4}, {3, 1}, {5, 0}, {8, -8}, {1, 3}})->clone_dense(exec);
    auto x = Dense::create(exec, larch::dim2{5, 2});
    x->fill(std::numeric_limits<double>::quiet_NaN());  // x = D^{-1} b only writes x
    jacobi->apply(b, x);
    EXPECT_EQ(x->copy_to_host(), (std::vector<double>{1, 2, 3, 1, 5, 0, -2, 2, 2, 6}));
    jacobi->apply(2.0, b, -1.0, x);  // x = 2 D^{-1} b - x = D^{-1} b
    EXPECT_EQ(x->copy_to_host(), (std::vector<double>{1, 2, 3, 1, 5, 0, -2, 2, 2, 6}));
}

TEST_P(BlockJacobiTest, ApplyWithDotEqualsApplyThenDot)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto host = larch::make_executor("reference");
    // 7 rows stay below the omp parallel threshold, 50,000 rows are summed in chunks on omp and GPUs.
    for (larch::size_type rows : {7u, 50000u}) {
        for (larch::size_type cols : {1u, 3u}) {
            SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
            larch::matrix_data<double, std::int32_t> data{larch::dim2{rows}};
            std::vector<double> r_values(rows * cols);
            for (larch::size_type i = 0; i < rows; ++i) {
                data.entries.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(i),
                                        i % 11 == 3 ? 0.0 : 1.0 + static_cast<double>(i % 13) / 3});
                for (larch::size_type j = 0; j < cols; ++j) {
                    r_values[i * cols + j] = std::sin(static_cast<double>(3 * i + j));
                }
            }
            auto jacobi = Jacobi::build().on(exec)->generate(larch::share(Csr::create(exec, data)));
            ASSERT_TRUE(jacobi->has_apply_with_dot());
            const auto r = Dense::create(exec, larch::dim2{rows, cols}, larch::array<double>{exec, r_values.begin(), r_values.end()}, cols);
            auto z_expected = Dense::create(exec, larch::dim2{rows, cols});
            larch::array<double> expected{exec, cols};
            jacobi->apply(r, z_expected);
            r->compute_dot(*z_expected, expected);
            auto z = Dense::create(exec, larch::dim2{rows, cols});
            z->fill(std::numeric_limits<double>::quiet_NaN());
            larch::array<double> dots{exec, cols};
            larch::array<double> workspace{exec};
            jacobi->apply_with_dot(*r, *z, dots, workspace);
            EXPECT_EQ(z->copy_to_host(), z_expected->copy_to_host());
            // The same summation as compute_dot on every backend: the same bits.
            EXPECT_EQ(dots.copy_to_host(), expected.copy_to_host());
        }
    }
}

TEST_P(BlockJacobiTest, ApplyWithDotRejectsBlocksAndWrongSizes)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, matrix_with_zero_diagonal()));
    auto jacobi = Jacobi::build().on(exec)->generate(a);
    auto r = Dense::create(exec, larch::dim2{5, 2});
    r->fill(1.0);
    auto z = Dense::create(exec, larch::dim2{5, 2});
    auto short_z = Dense::create(exec, larch::dim2{4, 2});
    larch::array<double> dots{exec, 2};
    larch::array<double> one_dot{exec, 1};
    larch::array<double> workspace{exec};
    EXPECT_THROW(jacobi->apply_with_dot(*r, *short_z, dots, workspace), larch::DimensionMismatch);
    EXPECT_THROW(jacobi->apply_with_dot(*r, *z, one_dot, workspace), larch::DimensionMismatch);
    auto blocks = Jacobi::build().with_block_pointers({0, 2, 5}).on(exec)->generate(a);
    EXPECT_FALSE(blocks->has_apply_with_dot());
    EXPECT_THROW(blocks->apply_with_dot(*r, *z, dots, workspace), larch::NotSupported);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BlockJacobiTest, ::testing::ValuesIn(larch::test::executor_names()),
                         [](const auto& info) { return info.param; });

// Blocks above 32 rows run on the host executors only.
TEST(BlockJacobi, TakesABoundAboveTheNumberOfRowsAsThatNumber)
{
    for (const std::string name : {"reference", "omp"}) {
        SCOPED_TRACE(name);
        auto exec = larch::make_executor(name);
        auto a = larch::share(Csr::create(
            exec, larch::matrix_data<double, std::int32_t>{
                      larch::dim2{3}, {{0, 0, 4}, {0, 1, 1}, {1, 0, 1}, {1, 1, 4}, {1, 2, 1}, {2, 1, 1}, {2, 2, 4}}}));
        // 2^32 reached the blocking kernels as the int 0 and divided by it
        auto jacobi = Jacobi::build().with_max_block_size(larch::size_type{1} << 32).on(exec)->generate(a);
        EXPECT_EQ(jacobi->get_num_blocks(), 1u);
        EXPECT_EQ(jacobi->get_num_singular_blocks(), 0u);
    }
}

TEST(BlockJacobi, RejectsBadParametersNamingTheValue)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, matrix_with_zero_diagonal()));
    EXPECT_THROW(Jacobi::build().with_max_block_size(0).on(exec)->generate(a), larch::BadInput);
    larch::test::expect_contains(generation_error(Jacobi::build().with_block_pointers({0, 2, 2, 5}), exec, a),
                                 "strictly ascending");
    EXPECT_THROW(Jacobi::build().with_block_pointers({0, 2, 4}).on(exec)->generate(a), larch::BadInput);
    EXPECT_THROW(Jacobi::build().with_max_block_size(2).with_accuracy(0).on(exec)->generate(a), larch::BadInput);
    larch::test::expect_contains(
        generation_error(Jacobi::build().with_row_matching(larch::preconditioner::BlockJacobiRowMatching::maximum_product),
                         exec, a),
        "row_matching = maximum_product");
}

TEST(BlockJacobi, RejectsOtherMatrixTypesAndNonSquareMatrices)
{
    auto exec = larch::make_executor("reference");
    auto dense = larch::share(Dense::create(exec, {{1, 2}, {3, 4}}));
    EXPECT_THROW(Jacobi::build().on(exec)->generate(dense), larch::NotSupported);
    auto rectangular = larch::share(Csr::create(exec, larch::matrix_data<double, std::int32_t>{larch::dim2{2, 3}, {{0, 0, 1}}}));
    EXPECT_THROW(Jacobi::build().on(exec)->generate(rectangular), larch::DimensionMismatch);
}

}  // namespace
