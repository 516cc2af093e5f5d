// Cg iterating several right-hand sides together: every column ends with the x, iteration count and
// status of solving it alone, whether it converges early or late, has b = 0 or holds NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "larch/generate/problems.hpp"
#include "test/solver/column_solves.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;

class CgColumns : public ::testing::TestWithParam<std::string> {};

TEST_P(CgColumns, EachColumnEndsAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    std::shared_ptr<const larch::LinOp> a =
        larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
    for (const size_type interval : {1, 8}) {
        SCOPED_TRACE("check interval " + std::to_string(interval));
        // The divergence bound pauses early iterations, at different iterations in different columns.
        auto solver = larch::solver::Cg<double>::build()
                          .with_check_interval(interval)
                          .with_criteria(larch::stop::max_iterations(500), larch::stop::relative_residual(1e-10),
                                         larch::stop::divergence(1.0, 1000))
                          .on(exec)
                          ->generate(a);
        larch::test::expect_mixed_columns_as_alone(exec, *solver, GetParam());
    }
}

TEST_P(CgColumns, BreakdownRestartsAndOverflowStayInTheirColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Diagonal, indefinite (p^T A p = 0 for b = e0 + e1) and with a huge entry that overflows A p (1e308 times
    // b = 1e10; a larger b would be solved scaled into [1, 2), see IterativeSolver).
    std::shared_ptr<const larch::LinOp> a = larch::share(Dense::create(
        exec, {{1, 0, 0, 0, 0, 0, 0, 0},
               {0, -1, 0, 0, 0, 0, 0, 0},
               {0, 0, 2, 0, 0, 0, 0, 0},
               {0, 0, 0, 3, 0, 0, 0, 0},
               {0, 0, 0, 0, 4, 0, 0, 0},
               {0, 0, 0, 0, 0, 5, 0, 0},
               {0, 0, 0, 0, 0, 0, 1e308, 0},
               {0, 0, 0, 0, 0, 0, 0, 6}}));
    // Breaks down before its first iteration (a restart would repeat that, so it stops there), converges in 3,
    // overflows, converges in 2.
    const std::vector<std::vector<double>> b_columns{{1, 1, 0, 0, 0, 0, 0, 0},
                                                     {0, 0, 1, 1, 1, 0, 0, 0},
                                                     {0, 0, 0, 0, 0, 0, 1e10, 0},
                                                     {0, 0, 0, 0, 0, 1, 0, 1}};
    const std::vector<std::vector<double>> x_columns(4, std::vector<double>(8, 0.0));
    auto solver = larch::solver::Cg<double>::build()
                      .with_check_interval(3)
                      .with_criteria(larch::stop::max_iterations(50), larch::stop::relative_residual(1e-12))
                      .on(exec)
                      ->generate(a);
    const auto statuses = larch::test::expect_columns_as_alone(exec, *solver, b_columns, x_columns,
                                                               larch::test::column_match_of(GetParam()));
    ASSERT_EQ(statuses.size(), 4u);
    using larch::stop::Reason;
    EXPECT_EQ(statuses[0].reason, Reason::breakdown);
    EXPECT_EQ(statuses[0].residual_replacements, 0u);
    EXPECT_EQ(statuses[0].iterations, 0u);
    EXPECT_EQ(statuses[1].reason, Reason::converged);
    EXPECT_EQ(statuses[1].iterations, 3u);
    EXPECT_EQ(statuses[2].reason, Reason::non_finite);
    EXPECT_EQ(statuses[3].reason, Reason::converged);
    EXPECT_EQ(statuses[3].iterations, 2u);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CgColumns, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
