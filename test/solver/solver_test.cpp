// Solvers on small systems with known solutions (reference executor), the apply variants, several
// right-hand sides, the stopping criteria as the solver applies them, and the errors of generation.
#include <gtest/gtest.h>

#include <limits>

#include "larch/base/executor.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/errors.hpp"

namespace {

using larch::test::SolverKind;
using Dense = larch::matrix::Dense<double>;
using Csr = larch::matrix::Csr<double>;

class SmallSystem : public ::testing::TestWithParam<SolverKind> {
protected:
    std::shared_ptr<const larch::Executor> exec = larch::make_executor("reference");
    // SPD and diagonally dominant (so every solver applies); its solution for b = A [1 2 3 4]^T is [1 2 3 4]^T.
    larch::matrix_data<double, std::int32_t> data{
        larch::dim2{4},
        {{0, 0, 4}, {0, 1, 1}, {1, 0, 1}, {1, 1, 5}, {1, 2, -1}, {2, 1, -1}, {2, 2, 6}, {2, 3, 2}, {3, 2, 2}, {3, 3, 7}}};
    std::shared_ptr<Csr> a = larch::share(Csr::create(exec, data));
    std::unique_ptr<Dense> b = Dense::create(exec, {{6}, {8}, {24}, {34}});

    larch::test::SolverSetup setup(double tolerance = 1e-13)
    {
        larch::test::SolverSetup result;
        result.criteria = {larch::stop::max_iterations(100), larch::stop::relative_residual(tolerance)};
        return result;
    }
};

TEST_P(SmallSystem, SolvesToTheKnownSolution)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto x = Dense::create(exec, {{0}, {0}, {0}, {0}});
    solver->apply(b, x);
    EXPECT_TRUE(solver->get_status().converged()) << solver->get_status().message;
    for (int i = 0; i < 4; ++i) {
        // tolerance 1e-13 relative to ||b|| ~ 41 and cond(A) < 4: errors ~1e-12 at most
        EXPECT_NEAR(x->at(i, 0), i + 1.0, 1e-11);
    }
    EXPECT_LE(solver->get_status().residual_norm, 1e-13 * solver->get_status().rhs_norm);
}

TEST_P(SmallSystem, UsesXAsInitialGuessAndStopsAtOnceWhenItIsExact)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto x = Dense::create(exec, {{1}, {2}, {3}, {4}});
    solver->apply(b, x);
    EXPECT_EQ(solver->get_status().reason, larch::stop::Reason::converged);
    EXPECT_EQ(solver->get_status().iterations, 0u);
    EXPECT_EQ(x->at(3, 0), 4.0);
}

TEST_P(SmallSystem, ZeroRightHandSideGivesZeroSolutionAtOnce)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto zero = Dense::create(exec, {{0}, {0}, {0}, {0}});
    auto x = Dense::create(exec, {{5}, {-1}, {std::numeric_limits<double>::quiet_NaN()}, {2}});
    solver->apply(zero, x);
    EXPECT_EQ(solver->get_status().reason, larch::stop::Reason::converged);
    EXPECT_EQ(solver->get_status().iterations, 0u);
    EXPECT_EQ(x->copy_to_host(), (std::vector<double>{0, 0, 0, 0}));
}

TEST_P(SmallSystem, SolvesSeveralRightHandSidesColumnByColumn)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    // columns: A [1 2 3 4]^T, zero, A [1 1 1 1]^T
    auto rhs = Dense::create(exec, {{6, 0, 5}, {8, 0, 5}, {24, 0, 7}, {34, 0, 9}});
    auto x = Dense::create(exec, larch::dim2{4, 3});
    x->fill(0.0);
    solver->apply(rhs, x);
    ASSERT_EQ(solver->get_statuses().size(), 3u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(x->at(i, 0), i + 1.0, 1e-11);
        EXPECT_EQ(x->at(i, 1), 0.0);
        EXPECT_NEAR(x->at(i, 2), 1.0, 1e-11);
    }
    EXPECT_EQ(solver->get_status(1).message, "zero right-hand side: x = 0");
}

TEST_P(SmallSystem, ApplyWithoutRightHandSidesRecordsNoStatus)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto x = Dense::create(exec, {{0}, {0}, {0}, {0}});
    solver->apply(b, x);
    auto no_columns = Dense::create(exec, larch::dim2{4, 0});
    auto no_solutions = Dense::create(exec, larch::dim2{4, 0});

    solver->apply(no_columns, no_solutions);

    // The empty apply replaces the first apply's record: no column, so no status for column 0.
    EXPECT_TRUE(solver->get_statuses().empty());
    const auto message = larch::test::error_message_of([&] { solver->get_status(); });
    larch::test::expect_contains(message, "::get_status: column 0 requested but no status is recorded");
    larch::test::expect_contains(message, "b with 0 columns");
    EXPECT_THROW(solver->get_status(), larch::BadInput);
}

TEST_P(SmallSystem, SolvesAnEmptySystemAtOnce)
{
    auto empty = larch::share(Csr::create(exec, larch::dim2{0}));
    auto solver = larch::test::make_solver<double>(GetParam(), exec, empty, setup());
    auto no_rows = Dense::create(exec, larch::dim2{0, 1});
    auto x = Dense::create(exec, larch::dim2{0, 1});

    solver->apply(no_rows, x);

    // b has norm 0, so x = 0 is exact: the status the benchmark's solver cases rely on for 0x0 matrices
    EXPECT_EQ(solver->get_status().reason, larch::stop::Reason::converged);
    EXPECT_EQ(solver->get_status().iterations, 0u);
    EXPECT_EQ(solver->get_status().residual_norm, 0.0);
}

TEST_P(SmallSystem, ScaledApplyAddsToX)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto x = Dense::create(exec, {{1}, {1}, {1}, {1}});
    solver->apply(2.0, b, -1.0, x);  // x = 2 A^{-1} b - x = [1 3 5 7]
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(x->at(i, 0), 2.0 * (i + 1) - 1.0, 1e-10);
    }
}

TEST_P(SmallSystem, StopsAtTheIterationLimitAndReportsTheTrueResidual)
{
    larch::test::SolverSetup limited;
    limited.criteria = {larch::stop::max_iterations(1), larch::stop::relative_residual(1e-15)};
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, limited);
    auto x = Dense::create(exec, {{0}, {0}, {0}, {0}});
    solver->apply(b, x);
    const auto& status = solver->get_status();
    EXPECT_EQ(status.reason, larch::stop::Reason::max_iterations) << status.message;
    EXPECT_EQ(status.iterations, 1u);
    std::vector<double> b_host{6, 8, 24, 34};
    // the same quantity computed in another order: equal to rounding
    const double oracle = larch::test::host_residual_norm(data, b_host, x->copy_to_host());
    EXPECT_NEAR(status.residual_norm, oracle, 1e-12 * oracle);
}

TEST_P(SmallSystem, ZeroTimeLimitStopsWithTimeLimit)
{
    larch::test::SolverSetup timed;
    timed.criteria = {larch::stop::time_limit(0.0), larch::stop::relative_residual(1e-15)};
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, timed);
    auto x = Dense::create(exec, {{0}, {0}, {0}, {0}});
    solver->apply(b, x);
    EXPECT_EQ(solver->get_status().reason, larch::stop::Reason::time_limit);
}

TEST_P(SmallSystem, RejectsCriteriaWithoutALimit)
{
    larch::test::SolverSetup unbounded;
    unbounded.criteria = {larch::stop::relative_residual(1e-9)};
    EXPECT_THROW(larch::test::make_solver<double>(GetParam(), exec, a, unbounded), larch::BadInput);
}

TEST_P(SmallSystem, RejectsANonSquareSystemMatrix)
{
    auto rectangular = larch::share(Dense::create(exec, {{1, 2, 3}, {4, 5, 6}}));
    auto s = setup();
    s.jacobi = false;
    EXPECT_THROW(larch::test::make_solver<double>(GetParam(), exec, rectangular, s), larch::DimensionMismatch);
}

TEST_P(SmallSystem, RejectsRightHandSideOfWrongSize)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto short_b = Dense::create(exec, {{1}, {2}});
    auto x = Dense::create(exec, {{0}, {0}});
    EXPECT_THROW(solver->apply(short_b, x), larch::DimensionMismatch);
}

TEST_P(SmallSystem, SeesSystemMatrixValuesChangedAfterGenerate)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    // A becomes 2 A: the solver shares it, so x = (2 A)^{-1} b = [1 2 3 4]^T / 2, while the block-Jacobi
    // preconditioner generated from A stays valid (1/2 of the exact inverse blocks)
    auto values = a->get_values();
    for (larch::size_type k = 0; k < a->get_num_stored_elements(); ++k) {
        values[k] *= 2;
    }
    auto x = Dense::create(exec, {{0}, {0}, {0}, {0}});
    solver->apply(b, x);
    EXPECT_TRUE(solver->get_status().converged()) << solver->get_status().message;
    for (int i = 0; i < 4; ++i) {
        // as SolvesToTheKnownSolution, with cond(2 A) = cond(A)
        EXPECT_NEAR(x->at(i, 0), (i + 1.0) / 2, 1e-11);
    }
}

TEST_P(SmallSystem, CloneToAnotherExecutorSolvesThere)
{
    auto solver = larch::test::make_solver<double>(GetParam(), exec, a, setup());
    auto omp = larch::make_executor("omp");
    auto clone = solver->clone_to(omp);
    auto x = Dense::create(omp, {{0}, {0}, {0}, {0}});
    clone->apply(b->clone_dense(omp), x);
    EXPECT_NEAR(x->at(2, 0), 3.0, 1e-11);
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, SmallSystem,
                         ::testing::Values(SolverKind::cg, SolverKind::bicgstab, SolverKind::idr, SolverKind::gmres),
                         [](const auto& info) { return larch::test::to_string(info.param); });

TEST(SolverParameters, BothPreconditionerKindsAtOnceAreRejected)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, larch::matrix_data<double, std::int32_t>{larch::dim2{1}, {{0, 0, 2}}}));
    auto factory = larch::solver::Cg<double>::build()
                       .with_criteria(larch::stop::max_iterations(10))
                       .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                       .with_generated_preconditioner(a)
                       .on(exec);
    EXPECT_THROW(factory->generate(a), larch::BadInput);
}

TEST(SolverParameters, DesignExampleBuildsAndSolves)
{
    auto exec = larch::make_executor("omp");
    auto a = larch::share(Csr::create(
        exec, larch::matrix_data<double, std::int32_t>{larch::dim2{2}, {{0, 0, 2}, {0, 1, 1}, {1, 1, 4}}}));
    auto solver = larch::solver::Idr<double>::build()
                      .with_subspace_dim(4)
                      .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build().with_max_block_size(1))
                      .with_criteria(larch::stop::max_iterations(50000), larch::stop::relative_residual(1e-9))
                      .on(exec)
                      ->generate(a);
    auto b = Dense::create(exec, {{3}, {4}});
    auto x = Dense::create(exec, {{0}, {0}});
    solver->apply(b, x);
    EXPECT_EQ(solver->get_subspace_dim(), 2u);  // s is capped at n
    EXPECT_NEAR(x->at(0, 0), 1.0, 1e-8);
    EXPECT_NEAR(x->at(1, 0), 1.0, 1e-8);
    EXPECT_NE(solver->get_preconditioner(), nullptr);
}

TEST(SolverParameters, GmresRestartLongerThanTheSystemRunsAsItsOrder)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(
        exec, larch::matrix_data<double, std::int32_t>{larch::dim2{2}, {{0, 0, 2}, {0, 1, 1}, {1, 1, 4}}}));
    // a restart of 10^9 asked for about 4 * 10^18 bytes of Hessenberg matrices before it was capped at n
    auto solver = larch::solver::Gmres<double>::build()
                      .with_restart(1000000000)
                      .with_criteria(larch::stop::max_iterations(10), larch::stop::relative_residual(1e-12))
                      .on(exec)
                      ->generate(a);
    EXPECT_EQ(solver->get_krylov_dim(), 2u);
    auto b = Dense::create(exec, {{3}, {4}});
    auto x = Dense::create(exec, {{0}, {0}});
    solver->apply(b, x);
    EXPECT_EQ(solver->get_status().reason, larch::stop::Reason::converged);
    EXPECT_NEAR(x->at(0, 0), 1.0, 1e-10);
    EXPECT_NEAR(x->at(1, 0), 1.0, 1e-10);
}

TEST(SolverParameters, InvalidSolverParametersThrowBadInput)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, larch::matrix_data<double, std::int32_t>{larch::dim2{1}, {{0, 0, 2}}}));
    EXPECT_THROW(larch::solver::Idr<double>::build().with_subspace_dim(0).with_criteria(larch::stop::max_iterations(1)).on(exec)->generate(a),
                 larch::BadInput);
    EXPECT_THROW(larch::solver::Gmres<double>::build().with_restart(0).with_criteria(larch::stop::max_iterations(1)).on(exec)->generate(a),
                 larch::BadInput);
    for (const double kappa : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
        EXPECT_THROW(larch::solver::Bicgstab<double>::build().with_kappa(kappa).with_criteria(larch::stop::max_iterations(1)).on(exec)->generate(a),
                     larch::BadInput)
            << kappa;
    }
    EXPECT_THROW(larch::stop::relative_residual(-1.0), larch::BadInput);
}

}  // namespace
