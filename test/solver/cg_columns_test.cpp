// Cg iterating several right-hand sides together: every column ends with the x, iteration count and
// status of solving it alone, whether it converges early or late, has b = 0 or holds NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "larch/generate/problems.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;

/// Solves the columns together and each alone with `solver`; expects the same x (bitwise, NaN for NaN),
/// iteration count, restarts and status per column, and returns the statuses of the block solve.
std::vector<larch::stop::Status> expect_columns_as_alone(const std::shared_ptr<const larch::Executor>& exec,
                                                         larch::LinOp& solver,
                                                         const std::vector<std::vector<double>>& b_columns,
                                                         const std::vector<std::vector<double>>& x_columns)
{
    const auto n = b_columns.front().size();
    const auto cols = b_columns.size();
    auto block = [&](const std::vector<std::vector<double>>& columns) {
        auto result = Dense::create(exec->get_host(), dim2{n, cols});
        for (size_type row = 0; row < n; ++row) {
            for (size_type col = 0; col < cols; ++col) {
                result->get_values()[row * result->get_stride() + col] = columns[col][row];
            }
        }
        return result->clone_dense(exec);
    };
    auto& cg = dynamic_cast<larch::solver::Cg<double>&>(solver);
    auto b = block(b_columns);
    auto x = block(x_columns);
    cg.apply(b, x);
    const auto statuses = cg.get_statuses();
    EXPECT_EQ(statuses.size(), cols);
    const auto x_host = x->clone_dense(exec->get_host());
    for (size_type col = 0; col < cols && col < statuses.size(); ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        auto b_alone = Dense::create(exec, b_columns[col]);
        auto x_alone = Dense::create(exec, x_columns[col]);
        cg.apply(b_alone, x_alone);
        const auto alone = cg.get_status();
        EXPECT_EQ(statuses[col].reason, alone.reason);
        EXPECT_EQ(statuses[col].message, alone.message);
        EXPECT_EQ(statuses[col].iterations, alone.iterations);
        EXPECT_EQ(statuses[col].residual_replacements, alone.residual_replacements);
        const auto alone_host = x_alone->copy_to_host();
        for (size_type row = 0; row < n; ++row) {
            const auto value = x_host->at(row, col);
            if (std::isnan(alone_host[row])) {
                EXPECT_TRUE(std::isnan(value)) << "row " << row;
            } else {
                EXPECT_EQ(value, alone_host[row]) << "row " << row;
            }
        }
    }
    return statuses;
}

class CgColumns : public ::testing::TestWithParam<std::string> {};

TEST_P(CgColumns, EachColumnEndsAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const size_type n = 400;
    const size_type cols = 5;
    std::shared_ptr<const larch::LinOp> a =
        larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    // Column 0 smooth, 1 rough (converges later), 2 zero, 3 NaN in b, 4 NaN in the initial guess.
    std::vector<std::vector<double>> b_columns(cols, std::vector<double>(n, 0.0));
    std::vector<std::vector<double>> x_columns(cols, std::vector<double>(n, 0.0));
    for (size_type row = 0; row < n; ++row) {
        b_columns[0][row] = 1.0;
        b_columns[1][row] = std::sin(0.7 * static_cast<double>(row * row));
        b_columns[3][row] = 1.0;
        b_columns[4][row] = 1.0;
        x_columns[1][row] = 0.5;
    }
    b_columns[3][17] = nan;
    x_columns[4][5] = nan;
    for (const size_type interval : {1, 8}) {
        SCOPED_TRACE("check interval " + std::to_string(interval));
        // The divergence bound pauses early iterations, at different iterations in different columns.
        auto solver = larch::solver::Cg<double>::build()
                          .with_check_interval(interval)
                          .with_criteria(larch::stop::max_iterations(500), larch::stop::relative_residual(1e-10),
                                         larch::stop::divergence(1.0, 1000))
                          .on(exec)
                          ->generate(a);
        const auto statuses = expect_columns_as_alone(exec, *solver, b_columns, x_columns);
        ASSERT_EQ(statuses.size(), cols);
        std::vector<size_type> iterations;
        for (const auto& status : statuses) {
            iterations.push_back(status.iterations);
        }
        using larch::stop::Reason;
        EXPECT_EQ(statuses[0].reason, Reason::converged);
        EXPECT_EQ(statuses[1].reason, Reason::converged);
        EXPECT_GT(iterations[0], 10u);
        EXPECT_NE(iterations[0], iterations[1]);
        EXPECT_EQ(statuses[2].reason, Reason::converged);
        EXPECT_EQ(iterations[2], 0u);
        EXPECT_EQ(statuses[3].reason, Reason::non_finite);
        EXPECT_EQ(statuses[4].reason, Reason::non_finite);
    }
}

TEST_P(CgColumns, BreakdownRestartsAndOverflowStayInTheirColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Diagonal, indefinite (p^T A p = 0 for b = e0 + e1) and with a huge entry that overflows A p.
    std::shared_ptr<const larch::LinOp> a = larch::share(Dense::create(
        exec, {{1, 0, 0, 0, 0, 0, 0, 0},
               {0, -1, 0, 0, 0, 0, 0, 0},
               {0, 0, 2, 0, 0, 0, 0, 0},
               {0, 0, 0, 3, 0, 0, 0, 0},
               {0, 0, 0, 0, 4, 0, 0, 0},
               {0, 0, 0, 0, 0, 5, 0, 0},
               {0, 0, 0, 0, 0, 0, 1e308, 0},
               {0, 0, 0, 0, 0, 0, 0, 6}}));
    // Breaks down and restarts until it gives up, converges in 3, overflows, converges in 2.
    const std::vector<std::vector<double>> b_columns{{1, 1, 0, 0, 0, 0, 0, 0},
                                                     {0, 0, 1, 1, 1, 0, 0, 0},
                                                     {0, 0, 0, 0, 0, 0, 1e300, 0},
                                                     {0, 0, 0, 0, 0, 1, 0, 1}};
    const std::vector<std::vector<double>> x_columns(4, std::vector<double>(8, 0.0));
    auto solver = larch::solver::Cg<double>::build()
                      .with_check_interval(3)
                      .with_criteria(larch::stop::max_iterations(50), larch::stop::relative_residual(1e-12))
                      .on(exec)
                      ->generate(a);
    const auto statuses = expect_columns_as_alone(exec, *solver, b_columns, x_columns);
    ASSERT_EQ(statuses.size(), 4u);
    using larch::stop::Reason;
    EXPECT_EQ(statuses[0].reason, Reason::breakdown);
    EXPECT_EQ(statuses[0].residual_replacements, 5u);
    EXPECT_EQ(statuses[1].reason, Reason::converged);
    EXPECT_EQ(statuses[1].iterations, 3u);
    EXPECT_EQ(statuses[2].reason, Reason::non_finite);
    EXPECT_EQ(statuses[3].reason, Reason::converged);
    EXPECT_EQ(statuses[3].iterations, 2u);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CgColumns, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
