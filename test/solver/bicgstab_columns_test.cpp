// Bicgstab iterating several right-hand sides together: every column ends with the x, iteration count and
// status of solving it alone, whether it converges early or late (at a half or a full step), has b = 0,
// holds NaN, breaks down and restarts, or overflows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "larch/generate/problems.hpp"
#include "test/solver/column_solves.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::size_type;
using larch::stop::Reason;

class BicgstabColumns : public ::testing::TestWithParam<std::string> {};

TEST_P(BicgstabColumns, EachColumnEndsAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    std::shared_ptr<const larch::LinOp> a = larch::share(
        larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::convection_diffusion_2d<double>(20, 0.5)));
    for (const size_type interval : {1, 8}) {
        SCOPED_TRACE("check interval " + std::to_string(interval));
        // The divergence bound (1.0 x the initial residual) pauses the iterations whose residual rises
        // above it, at different iterations in different columns.
        auto solver = larch::solver::Bicgstab<double>::build()
                          .with_check_interval(interval)
                          .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                          .with_criteria(larch::stop::max_iterations(500), larch::stop::relative_residual(1e-10),
                                         larch::stop::divergence(1.0, 1000))
                          .on(exec)
                          ->generate(a);
        larch::test::expect_mixed_columns_as_alone(exec, *solver, GetParam());
    }
}

TEST_P(BicgstabColumns, BreakdownsHalfStepsAndOverflowStayInTheirColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Block diagonal: the 3 x 3 blocks of the exact rho and omega breakdowns of breakdown_test.cpp (found in
    // dyadic arithmetic, so exact in floating point), a huge entry that overflows A p (1e308 times b = 1e10;
    // a larger b would be solved scaled into [1, 2), see IterativeSolver, and r^T r itself can then no longer
    // overflow), 4 I (the first
    // half step meets any tolerance: alpha = 1/4 and s = 0 exactly) and a diagonal block of 2 and 3.
    const std::vector<std::vector<double>> blocks{{-1, 2, 1}, {-1, -2, 1}, {2, 2, 1}, {1, 2, 0}, {2, 0, -2}, {-2, 1, 1}};
    const size_type n = 11;
    std::vector<std::vector<double>> rows(n, std::vector<double>(n, 0.0));
    for (size_type i = 0; i < 3; ++i) {
        for (size_type j = 0; j < 3; ++j) {
            rows[i][j] = blocks[i][j];
            rows[3 + i][3 + j] = blocks[3 + i][j];
        }
    }
    rows[6][6] = 1e308;
    rows[7][7] = 4;
    rows[8][8] = 4;
    rows[9][9] = 2;
    rows[10][10] = 3;
    const auto a = larch::test::dense_of_rows(exec, rows);
    auto column = [&](const std::vector<std::pair<size_type, double>>& entries) {
        return larch::test::sparse_column(n, entries);
    };
    const std::vector<std::vector<double>> b_columns{column({{0, -2}}), column({{5, 2}}), column({{6, 1e10}}),
                                                     column({{7, 1}, {8, 3}}), column({{9, 1}, {10, 1}})};
    const std::vector<std::vector<double>> x_columns(b_columns.size(), std::vector<double>(n, 0.0));
    for (const size_type interval : {1, 8}) {
        SCOPED_TRACE("check interval " + std::to_string(interval));
        auto solver = larch::solver::Bicgstab<double>::build()
                          .with_check_interval(interval)
                          .with_criteria(larch::stop::max_iterations(50), larch::stop::relative_residual(1e-12))
                          .on(exec)
                          ->generate(a);
        const auto statuses = larch::test::expect_columns_as_alone(exec, *solver, b_columns, x_columns,
                                                                   larch::test::column_match_of(GetParam()));
        ASSERT_EQ(statuses.size(), 5u);
        // The rho breakdown restarts from the true residual and converges. The omega breakdown (alpha = 1,
        // s = (0, 4, 0), t^T s = 0) leaves r = s, whose restart breaks down at once on r_hat^T A r = 0; a
        // further restart would begin from that same residual, so the column stops there.
        EXPECT_EQ(statuses[0].reason, Reason::converged) << statuses[0].message;
        EXPECT_GE(statuses[0].residual_replacements, 1u);
        EXPECT_EQ(statuses[1].reason, Reason::breakdown) << statuses[1].message;
        EXPECT_EQ(statuses[1].residual_replacements, 1u);
        EXPECT_EQ(statuses[1].message.rfind("Bicgstab: r_hat^T A M^{-1} p = 0", 0), 0u) << statuses[1].message;
        EXPECT_EQ(statuses[2].reason, Reason::non_finite);
        EXPECT_EQ(statuses[2].message, "Bicgstab: r_hat^T A M^{-1} p is NaN or Inf");
        EXPECT_EQ(statuses[2].iterations, 0u);
        EXPECT_EQ(statuses[3].reason, Reason::converged);
        EXPECT_EQ(statuses[3].iterations, 1u);
        EXPECT_EQ(statuses[3].residual_norm, 0.0);
        EXPECT_EQ(statuses[4].reason, Reason::converged);
        EXPECT_LE(statuses[4].iterations, 3u);
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BicgstabColumns, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
