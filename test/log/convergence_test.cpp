// The convergence logger attached through the factory or afterwards: iterations, residual history, stop
// reason, generate and solve times.
#include <gtest/gtest.h>

#include <sstream>

#include "larch/base/matrix_data.hpp"
#include "larch/generate/problems.hpp"
#include "larch/log/convergence.hpp"
#include "larch/log/stream.hpp"
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

TEST(StreamLogger, CountsIterationsInItsColumnLine)
{
    // A diagonal system: CG converges in one iteration, which the line counts in the singular.
    auto exec = larch::make_executor("reference");
    larch::matrix_data<double> diagonal{larch::dim2{2, 2}, {{0, 0, 2.0}, {1, 1, 2.0}}};
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, diagonal));
    std::ostringstream lines;
    auto solver = larch::solver::Cg<double>::build()
                      .with_criteria(larch::stop::max_iterations(10), larch::stop::relative_residual(1e-10))
                      .with_logger(larch::log::Stream::create(lines))
                      .on(exec)
                      ->generate(a);
    auto b = Dense::create(exec, larch::dim2{2, 1});
    b->fill(1.0);
    auto x = Dense::create(exec, larch::dim2{2, 1});
    x->fill(0.0);
    solver->apply(b, x);
    EXPECT_NE(lines.str().find("column 0 converged after 1 iteration: true residual"), std::string::npos)
        << lines.str();
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

TEST(ConvergenceLogger, ReceivesTheBlockJacobiFallbacks)
{
    // 8 rows in blocks {0..3, 4..7}: rows 0-3 a regular block; rows 4-7 singular (rows 4 and 5 equal, column 6
    // empty), split into {4, 5} and {6, 7}, both singular and split again into rows: row 6 has a zero
    // diagonal and falls back to scalar Jacobi; rows 4, 5 and 7 are regular 1 x 1 blocks
    auto exec = larch::make_executor("reference");
    larch::matrix_data<double, std::int32_t> data{larch::dim2{8}, {}};
    for (std::int32_t row = 0; row < 4; ++row) {
        for (std::int32_t col = 0; col < 4; ++col) {
            data.entries.push_back({row, col, row == col ? 4.0 : 1.0});
        }
    }
    data.entries.insert(data.entries.end(),
                        {{4, 4, 2.0}, {4, 5, 1.0}, {5, 4, 2.0}, {5, 5, 1.0}, {6, 7, 1.0}, {7, 7, 2.0}});
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, data));
    auto logger = larch::log::Convergence::create();
    std::ostringstream lines;
    auto solver = larch::solver::Bicgstab<double>::build()
                      .with_criteria(larch::stop::max_iterations(2))
                      .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build()
                                               .with_max_block_size(4)
                                               .with_block_pointers({0, 4, 8}))
                      .with_logger(logger)
                      .with_logger(larch::log::Stream::create(lines))
                      .on(exec)
                      ->generate(a);
    const auto jacobi = solver->get_preconditioner_as<larch::preconditioner::BlockJacobi<double>>();
    const auto& report = logger->get_preconditioner_report();
    EXPECT_EQ(report.type, jacobi->get_type_name());
    EXPECT_EQ(report.num_blocks, jacobi->get_num_blocks());
    EXPECT_EQ(report.num_fallback_blocks, jacobi->get_num_singular_blocks());
    EXPECT_EQ(report.num_blocks, 5u);
    EXPECT_EQ(report.num_fallback_blocks, 1u);
    EXPECT_EQ(report.num_split_blocks, 3u);
    EXPECT_EQ(report.num_split_blocks, jacobi->get_num_split_blocks());
    EXPECT_EQ(report.num_zero_diagonal_rows, 1u);
    EXPECT_NE(lines.str().find("blocks singular, applied as scalar Jacobi"), std::string::npos) << lines.str();
    // the stream's line is the one describe_fallbacks gives, which names the counts
    EXPECT_NE(lines.str().find(larch::log::describe_fallbacks(report) + "\n"), std::string::npos) << lines.str();
    EXPECT_EQ(larch::log::describe_fallbacks(report),
              report.type + ": 1 of 5 blocks singular, applied as scalar Jacobi (after 3 splits); 1 zero diagonal "
                            "entries, their rows left unscaled");
    // a logger added afterwards receives the report as well
    auto late = larch::log::Convergence::create(false);
    solver->add_logger(late);
    EXPECT_EQ(late->get_preconditioner_report().num_fallback_blocks, report.num_fallback_blocks);
}

TEST(PreconditionerReport, DescribesNothingWithoutFallbacks)
{
    larch::log::PreconditionerReport report;
    report.type = "BlockJacobi<double,int32>";
    report.num_blocks = 7;
    EXPECT_EQ(larch::log::describe_fallbacks(report), "");
    report.num_zero_diagonal_rows = 2;
    EXPECT_EQ(larch::log::describe_fallbacks(report),
              "BlockJacobi<double,int32>: 0 of 7 blocks singular, applied as scalar Jacobi (after 0 splits); 2 zero "
              "diagonal entries, their rows left unscaled");
}

}  // namespace
