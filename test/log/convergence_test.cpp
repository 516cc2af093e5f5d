// The convergence logger attached through the factory or afterwards: iterations, residual history, stop
// reason, generate and solve times.
#include <gtest/gtest.h>

#include "larch/generate/problems.hpp"
#include "larch/log/convergence.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "larch/solver/bicgstab.hpp"
#include "larch/solver/cg.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;

TEST(ConvergenceLogger, RecordsIterationsHistoryReasonAndTimes)
{
    auto exec = larch::make_executor("omp");
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, larch::generate::laplace_2d<double>(10)));
    auto logger = larch::log::Convergence::create();
    auto solver = larch::solver::Cg<double>::build()
                      .with_criteria(larch::stop::max_iterations(1000), larch::stop::relative_residual(1e-10))
                      .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                      .with_logger(logger)
                      .on(exec)
                      ->generate(a);
    auto b = Dense::create(exec, larch::dim2{100, 1});
    b->fill(1.0);
    auto x = Dense::create(exec, larch::dim2{100, 1});
    x->fill(0.0);
    solver->apply(b, x);
    ASSERT_EQ(logger->get_num_columns(), 1u);
    EXPECT_EQ(logger->get_stop_reason(), larch::stop::Reason::converged);
    EXPECT_EQ(logger->get_num_iterations(), solver->get_status().iterations);
    EXPECT_GT(logger->get_num_iterations(), 5u);
    const auto& history = logger->get_residual_norms();
    ASSERT_EQ(history.size(), logger->get_num_iterations() + 1);
    EXPECT_DOUBLE_EQ(history.front(), 10.0);  // ||b - A 0|| = ||ones(100)||
    EXPECT_LE(history.back(), 1e-10 * 10.0);
    EXPECT_GE(logger->get_generate_time(), 0.0);
    EXPECT_GT(logger->get_solve_time(), 0.0);
    EXPECT_LE(logger->get_column_time(), logger->get_solve_time());
    EXPECT_THROW(logger->get_status(1), larch::BadInput);
}

TEST(ConvergenceLogger, AddedAfterGenerationReceivesTheGenerateTime)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, larch::generate::laplace_2d<double>(4)));
    auto solver = larch::solver::Bicgstab<double>::build()
                      .with_criteria(larch::stop::max_iterations(2))
                      .on(exec)
                      ->generate(a);
    auto logger = larch::log::Convergence::create(false);
    solver->add_logger(logger);
    EXPECT_EQ(logger->get_generate_time(), solver->get_generate_time());
    auto b = Dense::create(exec, larch::dim2{16, 2});
    b->fill(1.0);
    auto x = Dense::create(exec, larch::dim2{16, 2});
    x->fill(0.0);
    solver->apply(b, x);
    EXPECT_EQ(logger->get_num_columns(), 2u);
    EXPECT_EQ(logger->get_stop_reason(1), larch::stop::Reason::max_iterations);
    EXPECT_EQ(logger->get_num_iterations(1), 2u);
    EXPECT_TRUE(logger->get_residual_norms(1).empty());  // history recording was switched off
}

}  // namespace
