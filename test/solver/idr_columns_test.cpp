// Idr iterating several right-hand sides together: every column ends with the x, iteration count and status
// of solving it alone, whether it converges early or late, has b = 0, holds NaN, breaks down (on omega or
// on p_k^T g_k) and restarts, or overflows.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "larch/generate/problems.hpp"
#include "test/solver/column_solves.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::size_type;
using larch::stop::Reason;

class IdrColumns : public ::testing::TestWithParam<std::string> {};

TEST_P(IdrColumns, EachColumnEndsAsWhenSolvedAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    std::shared_ptr<const larch::LinOp> a = larch::share(larch::matrix::Csr<double, std::int32_t>::create(
        exec, larch::generate::convection_diffusion_2d<double>(20, 0.5)));
    // (s = 2 happens to converge in columns 0 and 1 after the same count, which the helper rules out.)
    for (const size_type s : {1, 3, 4}) {
        SCOPED_TRACE("subspace dimension " + std::to_string(s));
        // The divergence criterion (1.0 x the initial residual) is checked on every iteration of every
        // column, at different iterations in different columns.
        auto solver = larch::solver::Idr<double>::build()
                          .with_subspace_dim(s)
                          .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                          .with_criteria(larch::stop::max_iterations(500), larch::stop::relative_residual(1e-10),
                                         larch::stop::divergence(1.0, 1000))
                          .on(exec)
                          ->generate(a);
        larch::test::expect_mixed_columns_as_alone(exec, *solver, GetParam());
    }
}

TEST_P(IdrColumns, BreakdownsAndOverflowStayInTheirColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Block diagonal: a skew-symmetric 2 x 2 block (t^T r = r^T A^T r = 0 exactly: every omega breaks
    // down), a huge entry that overflows A u (1e308 times b = 1e10; a larger b would be solved scaled into
    // [1, 2), see IterativeSolver), 4 I (the first step meets any tolerance: beta = 1/4 and r = 0
    // exactly), a diagonal block of 2 and 3, and a zero row (g = A u = 0 there: p_k^T g_k = 0).
    const size_type n = 8;
    std::vector<std::vector<double>> rows(n, std::vector<double>(n, 0.0));
    rows[0][1] = 1;
    rows[1][0] = -1;
    rows[2][2] = 1e308;
    rows[3][3] = 4;
    rows[4][4] = 4;
    rows[5][5] = 2;
    rows[6][6] = 3;
    const auto a = larch::test::dense_of_rows(exec, rows);
    auto column = [&](const std::vector<std::pair<size_type, double>>& entries) {
        return larch::test::sparse_column(n, entries);
    };
    const std::vector<std::vector<double>> b_columns{column({{0, 1}, {1, 2}}), column({{2, 1e10}}),
                                                     column({{3, 1}, {4, 3}}), column({{5, 1}, {6, 1}}),
                                                     column({{7, 1}})};
    const std::vector<std::vector<double>> x_columns(b_columns.size(), std::vector<double>(n, 0.0));
    for (const size_type s : {1, 2}) {
        SCOPED_TRACE("subspace dimension " + std::to_string(s));
        auto solver = larch::solver::Idr<double>::build()
                          .with_subspace_dim(s)
                          .with_criteria(larch::stop::max_iterations(50), larch::stop::relative_residual(1e-12))
                          .on(exec)
                          ->generate(a);
        const auto statuses = larch::test::expect_columns_as_alone(exec, *solver, b_columns, x_columns,
                                                                   larch::test::column_match_of(GetParam()));
        ASSERT_EQ(statuses.size(), 5u);
        // IDR(1) reaches omega with r still in the skew block and breaks down there after every restart;
        // IDR(2) spans the block's two dimensions before its first omega step and converges.
        if (s == 1) {
            EXPECT_EQ(statuses[0].reason, Reason::breakdown) << statuses[0].message;
            EXPECT_EQ(statuses[0].residual_replacements, 5u);
            EXPECT_EQ(statuses[0].message.rfind("Idr: omega = t^T r / t^T t is 0 or undefined", 0), 0u)
                << statuses[0].message;
        } else {
            EXPECT_EQ(statuses[0].reason, Reason::converged) << statuses[0].message;
        }
        EXPECT_EQ(statuses[1].reason, Reason::non_finite) << statuses[1].message;
        EXPECT_EQ(statuses[1].message.rfind("Idr: ", 0), 0u) << statuses[1].message;
        EXPECT_EQ(statuses[2].reason, Reason::converged);
        EXPECT_EQ(statuses[2].iterations, 1u);
        EXPECT_EQ(statuses[2].residual_norm, 0.0);
        EXPECT_EQ(statuses[3].reason, Reason::converged) << statuses[3].message;
        EXPECT_LE(statuses[3].iterations, 4u);
        EXPECT_EQ(statuses[4].reason, Reason::breakdown) << statuses[4].message;
        // at once, before the first iteration: a restart would repeat it
        EXPECT_EQ(statuses[4].residual_replacements, 0u);
        EXPECT_EQ(statuses[4].message.rfind("Idr: p_k^T g_k = 0", 0), 0u) << statuses[4].message;
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, IdrColumns, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
