// The divergence and stagnation stops as the solvers apply them, on systems whose residual history is known
// in exact arithmetic: CG on an indefinite 2 x 2 system (its residual grows threefold at the first step) and
// GMRES on a cyclic shift (its residual stays ||b|| until the n-th step).
#include <gtest/gtest.h>

#include "larch/base/executor.hpp"
#include "test/solver/solver_test_utils.hpp"

namespace {

using larch::test::SolverKind;
using Dense = larch::matrix::Dense<double>;
using Csr = larch::matrix::Csr<double>;
using larch::stop::Reason;

class IndefiniteCg : public ::testing::Test {
protected:
    std::shared_ptr<const larch::Executor> exec = larch::make_executor("reference");
    // A = diag(1, -2), b = (1, 1): CG's first step takes alpha = r^T r / p^T A p = 2 / -1 = -2 and leaves
    // r = (3, -3), three times ||b||; its second step solves the system exactly.
    std::shared_ptr<Csr> a = larch::share(
        Csr::create(exec, larch::matrix_data<double, std::int32_t>{larch::dim2{2}, {{0, 0, 1.0}, {1, 1, -2.0}}}));
    std::unique_ptr<Dense> b = Dense::create(exec, {{1}, {1}});

    larch::stop::Status solve(std::vector<larch::stop::Criterion> extra)
    {
        larch::test::SolverSetup setup;
        setup.jacobi = false;
        setup.criteria = {larch::stop::max_iterations(10), larch::stop::relative_residual(1e-12)};
        setup.criteria.insert(setup.criteria.end(), extra.begin(), extra.end());
        auto solver = larch::test::make_solver<double>(SolverKind::cg, exec, a, setup);
        auto x = Dense::create(exec, {{0}, {0}});
        solver->apply(b, x);
        return solver->get_status();
    }
};

TEST_F(IndefiniteCg, ConvergesInTwoStepsWithoutADivergenceStop)
{
    const auto status = solve({});
    EXPECT_EQ(status.reason, Reason::converged) << status.message;
    EXPECT_EQ(status.iterations, 2u);
}

TEST_F(IndefiniteCg, StopsWithDivergenceWhenTheResidualGrowsBeyondTheFactor)
{
    const auto status = solve({larch::stop::divergence(2.0, 1)});
    EXPECT_EQ(status.reason, Reason::divergence) << status.message;
    EXPECT_EQ(status.iterations, 1u);
    // the true residual (3, -3) is reported, not the solver's estimate
    EXPECT_NEAR(status.residual_norm, 3 * std::sqrt(2.0), 1e-14);
}

TEST_F(IndefiniteCg, GoesOnWhenTheGrowthStaysBelowTheFactor)
{
    // 3 ||b|| stays below 4 ||b||
    const auto status = solve({larch::stop::divergence(4.0, 1)});
    EXPECT_EQ(status.reason, Reason::converged) << status.message;
}

class CyclicShiftGmres : public ::testing::Test {
protected:
    static constexpr larch::size_type n = 40;
    std::shared_ptr<const larch::Executor> exec = larch::make_executor("reference");
    std::shared_ptr<Csr> a;
    std::unique_ptr<Dense> b;

    void SetUp() override
    {
        // A e_i = e_{i+1 mod n}, b = e_1: the Krylov space of step k < n holds e_2 .. e_{k+1}, orthogonal to b,
        // so GMRES's residual stays exactly 1 until step n solves the system.
        larch::matrix_data<double, std::int32_t> data{larch::dim2{n}, {}};
        for (larch::size_type i = 0; i < n; ++i) {
            data.entries.push_back({static_cast<std::int32_t>((i + 1) % n), static_cast<std::int32_t>(i), 1.0});
        }
        a = larch::share(Csr::create(exec, data));
        std::vector<double> unit(n, 0.0);
        unit[0] = 1;
        b = Dense::create(exec, larch::dim2{n, 1}, larch::array<double>{exec, unit.begin(), unit.end()}, 1);
    }

    larch::stop::Status solve(std::vector<larch::stop::Criterion> extra)
    {
        larch::test::SolverSetup setup;
        setup.jacobi = false;
        setup.gmres_restart = 2 * n;
        setup.criteria = {larch::stop::max_iterations(3 * n), larch::stop::relative_residual(1e-10)};
        setup.criteria.insert(setup.criteria.end(), extra.begin(), extra.end());
        auto solver = larch::test::make_solver<double>(SolverKind::gmres, exec, a, setup);
        auto x = Dense::create(exec, larch::dim2{n, 1});
        x->fill(0.0);
        solver->apply(b, x);
        return solver->get_status();
    }
};

TEST_F(CyclicShiftGmres, ConvergesAtStepNWithoutAStagnationStop)
{
    const auto status = solve({});
    EXPECT_EQ(status.reason, Reason::converged) << status.message;
    EXPECT_EQ(status.iterations, n);
}

TEST_F(CyclicShiftGmres, StopsWithStagnationAfterTheWindow)
{
    const auto status = solve({larch::stop::stagnation(10)});
    EXPECT_EQ(status.reason, Reason::stagnation) << status.message;
    EXPECT_EQ(status.iterations, 10u);
    EXPECT_NEAR(status.residual_norm, 1.0, 1e-14);
}

TEST_F(CyclicShiftGmres, TheShortestOfSeveralStagnationWindowsStops)
{
    const auto status = solve({larch::stop::stagnation(25), larch::stop::stagnation(7, 0.5)});
    EXPECT_EQ(status.reason, Reason::stagnation) << status.message;
    EXPECT_EQ(status.iterations, 7u);
}

}  // namespace
