// Gmres iterating several right-hand sides together: every column ends with the x, iteration count and
// status of solving it alone, whether it converges early or late, over restarts, has b = 0, holds NaN or
// breaks down; more than 32 columns are solved in groups.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/solver/gmres.hpp"
#include "test/solver/column_solves.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;

class GmresColumns : public ::testing::TestWithParam<std::string> {};

std::shared_ptr<const larch::LinOp> laplace_400(const std::shared_ptr<const larch::Executor>& exec)
{
    return larch::share(
        larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
}

TEST_P(GmresColumns, EachColumnEndsAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto a = laplace_400(exec);
    // A restart of 10 makes both converging columns go through several cycles.
    auto solver = larch::solver::Gmres<double>::build()
                      .with_restart(10)
                      .with_criteria(larch::stop::max_iterations(500), larch::stop::relative_residual(1e-10))
                      .on(exec)
                      ->generate(a);
    const auto statuses = larch::test::expect_mixed_columns_as_alone(exec, *solver, GetParam());
    EXPECT_GT(statuses[0].iterations, 10u);
}

TEST_P(GmresColumns, BreakdownsAndRestartsStayInTheirColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Diagonal with a zero: b = e0 gives A v0 = 0 (a singular Hessenberg matrix, breakdown); b with three or
    // five eigencomponents needs more than one cycle of GMRES(2); b with one converges at once (lucky
    // breakdown).
    std::shared_ptr<const larch::LinOp> a = larch::share(Dense::create(
        exec, {{0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 0, 3, 0, 0}, {0, 0, 0, 0, 4, 0},
               {0, 0, 0, 0, 0, 5}}));
    const std::vector<std::vector<double>> b_columns{
        {1, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 2}, {0, 1, 2, 3, 4, 5}};
    const std::vector<std::vector<double>> x_columns(4, std::vector<double>(6, 0.0));
    auto solver = larch::solver::Gmres<double>::build()
                      .with_restart(2)
                      .with_criteria(larch::stop::max_iterations(50), larch::stop::relative_residual(1e-12))
                      .on(exec)
                      ->generate(a);
    const auto statuses = larch::test::expect_columns_as_alone(exec, *solver, b_columns, x_columns,
                                                               larch::test::column_match_of(GetParam()));
    ASSERT_EQ(statuses.size(), 4u);
    using larch::stop::Reason;
    EXPECT_EQ(statuses[0].reason, Reason::breakdown);
    EXPECT_EQ(statuses[1].reason, Reason::converged);
    EXPECT_GT(statuses[1].iterations, 2u);
    EXPECT_EQ(statuses[2].reason, Reason::converged);
    EXPECT_EQ(statuses[2].iterations, 1u);
    EXPECT_EQ(statuses[3].reason, Reason::converged);
    EXPECT_GT(statuses[3].iterations, statuses[1].iterations);
}

TEST_P(GmresColumns, MoreColumnsThanOneGroupEndAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto a = laplace_400(exec);
    const size_type n = a->get_size().rows;
    // 40 columns: a group of 32 and one of 8; each b a different smooth mode plus a spike.
    std::vector<std::vector<double>> b_columns(40, std::vector<double>(n));
    for (size_type col = 0; col < b_columns.size(); ++col) {
        for (size_type row = 0; row < n; ++row) {
            b_columns[col][row] = std::cos(0.01 * static_cast<double>((col + 1) * row)) + (row == col ? 5.0 : 0.0);
        }
    }
    const std::vector<std::vector<double>> x_columns(b_columns.size(), std::vector<double>(n, 0.0));
    auto solver = larch::solver::Gmres<double>::build()
                      .with_restart(20)
                      .with_criteria(larch::stop::max_iterations(400), larch::stop::relative_residual(1e-8))
                      .on(exec)
                      ->generate(a);
    const auto statuses = larch::test::expect_columns_as_alone(exec, *solver, b_columns, x_columns,
                                                               larch::test::column_match_of(GetParam()));
    for (const auto& status : statuses) {
        EXPECT_EQ(status.reason, larch::stop::Reason::converged) << status.message;
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, GmresColumns, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
