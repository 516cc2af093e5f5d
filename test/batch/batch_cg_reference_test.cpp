// Batched CG on the reference executor: known solutions, scalar and block-Jacobi, per-item criteria and
// statuses, overflowing solutions, every format, and the logger.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/solver/cg.hpp"
#include "test/batch/batch_solver_reference_helpers.hpp"

namespace {

using larch::matrix_data;
using larch::size_type;
using larch::batch::ItemPreconditioner;
using larch::batch::ItemStatus;
using larch::batch::Vector;
using larch::test::expect_known_solution;
using larch::test::rhs_of_known_solution;
using larch::test::zeros;
using larch::test::diagonal;
using larch::test::wave;
using larch::test::MixedBatch;
using larch::test::check_mixed;

const auto& ref = larch::test::reference_executor();
const double nan = std::numeric_limits<double>::quiet_NaN();

TEST(BatchCgReference, SolvesLaplaciansOfDifferentSizesToTheirKnownSolutions)
{
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(1),
                                                 larch::test::tridiagonal<double>(5),
                                                 larch::test::tridiagonal<double>(40),
                                                 larch::test::laplacian_2d<double>(6)};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, larch::test::item_rows(items), 1, rhs_of_known_solution(items));
    auto x = zeros(items);
    auto solver = larch::batch::Cg<double>::build().with_max_iterations(200).with_tolerance(1e-12).on(ref)->generate(a);
    solver->apply(*b, *x);

    const auto result = solver->get_result();
    ASSERT_EQ(result.get_num_items(), 4u);
    for (size_type item = 0; item < items.size(); ++item) {
        EXPECT_EQ(result.get_status(item), ItemStatus::converged) << "item " << item;
        // CG ends after at most n iterations in exact arithmetic; a few more absorb rounding.
        EXPECT_LE(result.get_iterations(item), items[item].size.rows + 5) << "item " << item;
        const auto xi = x->copy_item_to_host(item);
        const auto bi = b->copy_item_to_host(item);
        EXPECT_LE(result.get_residual_norm(item), result.get_threshold(item));
        EXPECT_NEAR(result.get_residual_norm(item), larch::test::residual_norm(items[item], bi.data(), xi.data()),
                    1e-3 * result.get_threshold(item));
        // The Laplacians' condition numbers stay below 1e3: a relative residual of 1e-12 bounds the
        // relative error by 1e-9.
        expect_known_solution(*x, item, 1e-9 * static_cast<double>(xi.size()));
    }
    EXPECT_EQ(result.get_iterations(0), 1u);  // a 1 x 1 item is solved by the first step
}

TEST(BatchCgReference, ScalarJacobiSolvesADiagonalItemInOneIteration)
{
    const std::vector<matrix_data<double>> items{diagonal({1.0, 10.0, 100.0, 1000.0})};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {4}, 1, {1.0, 1.0, 1.0, 1.0});
    for (const auto preconditioner : {ItemPreconditioner::none, ItemPreconditioner::jacobi}) {
        auto x = zeros(items);
        auto solver = larch::batch::Cg<double>::build()
                          .with_tolerance(1e-14)
                          .with_preconditioner(preconditioner)
                          .on(ref)
                          ->generate(a);
        solver->apply(*b, *x);
        const auto result = solver->get_result();
        EXPECT_EQ(result.get_status(0), ItemStatus::converged);
        // M = A needs one iteration; unpreconditioned CG one per distinct eigenvalue (4) in exact
        // arithmetic, a few more in floating point at this tolerance.
        if (preconditioner == ItemPreconditioner::jacobi) {
            EXPECT_EQ(result.get_iterations(0), 1u);
        } else {
            EXPECT_GE(result.get_iterations(0), 4u);
        }
        EXPECT_NEAR(x->copy_item_to_host(0)[3], 1e-3, 1e-15);
    }
}

TEST(BatchCgReference, BlockJacobiOfTheExactBlocksSolvesABlockDiagonalItemInOneIteration)
{
    // Three 2 x 2 SPD blocks on the diagonal: each pair of rows is one supervariable, so blocks of at most
    // 2 rows are exactly these and M = A; scalar Jacobi needs more.
    matrix_data<double> item{larch::dim2{6, 6}};
    for (std::int32_t block = 0; block < 3; ++block) {
        const std::int32_t r = 2 * block;
        const double d = 2.0 + block;
        item.entries.push_back({r, r, d});
        item.entries.push_back({r, r + 1, 1.0});
        item.entries.push_back({r + 1, r, 1.0});
        item.entries.push_back({r + 1, r + 1, 3.0 * d});
    }
    const std::vector<matrix_data<double>> items{item, larch::test::tridiagonal<double>(9)};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {6, 9}, 1, rhs_of_known_solution(items));
    auto x = zeros(items);
    auto solver = larch::batch::Cg<double>::build()
                      .with_tolerance(1e-13)
                      .with_preconditioner(ItemPreconditioner::block_jacobi)
                      .with_max_block_size(2)
                      .on(ref)
                      ->generate(a);
    EXPECT_EQ(solver->get_num_blocks(), 3u + 5u);  // the 9 Laplacian rows: one supervariable each, paired
    EXPECT_EQ(solver->get_num_singular_blocks(), 0u);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    EXPECT_TRUE(result.all_converged());
    EXPECT_EQ(result.get_iterations(0), 1u);
    expect_known_solution(*x, 0, 1e-12);
}

TEST(BatchCgReference, BlockJacobiSplitsASingularBlockInHalves)
{
    // The first diagonal block [[1, 1], [1, 1]] (a supervariable of two rows) is singular: Gauss-Jordan
    // reports it, it is split into the regular 1 x 1 blocks [1] and [1] (as preconditioner::BlockJacobi
    // splits), and CG still solves the consistent system.
    matrix_data<double> item{larch::dim2{4, 4}};
    for (const auto& [r, c, v] : std::vector<std::tuple<std::int32_t, std::int32_t, double>>{
             {0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}, {2, 2, 4.0}, {2, 3, 1.0}, {3, 2, 1.0}, {3, 3, 4.0}}) {
        item.entries.push_back({r, c, v});
    }
    auto a = larch::share(larch::batch::Csr<double>::create(ref, {item}));
    const auto b = Vector<double>::create(ref, {4}, 1, {2.0, 2.0, 5.0, 5.0});
    auto x = Vector<double>::create(ref, {4}, 1, {0.0, 0.0, 0.0, 0.0});
    auto solver = larch::batch::Cg<double>::build()
                      .with_preconditioner(ItemPreconditioner::block_jacobi)
                      .with_max_block_size(2)
                      .on(ref)
                      ->generate(a);
    EXPECT_EQ(solver->get_num_blocks(), 3u);
    EXPECT_EQ(solver->get_num_split_blocks(), 1u);
    EXPECT_EQ(solver->get_num_singular_blocks(), 0u);
    EXPECT_EQ(solver->get_num_row_matched_items(), 0u);
    solver->apply(*b, *x);
    // b lies in the range of A (x = (1, 1, 1, 1) solves it): the singular block does not stop the item.
    EXPECT_EQ(solver->get_result().get_status(0), ItemStatus::converged);
}

TEST(BatchCgReference, BlockJacobiFallsBackToScalarJacobiOnAZeroRowLeftAfterTheMatching)
{
    // Row 1 is empty, so no matching gives A a nonzero diagonal: the blocks of P A (bound 2) are split until
    // the 1 x 1 block of the zero row is left, which falls back to scalar Jacobi with 1. x = 0 solves b = 0.
    matrix_data<double> item{larch::dim2{2, 2}, {{0, 0, 2.0}, {0, 1, 1.0}}};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, {item}));
    auto solver = larch::batch::Cg<double>::build()
                      .with_preconditioner(ItemPreconditioner::block_jacobi)
                      .with_max_block_size(2)
                      .on(ref)
                      ->generate(a);
    EXPECT_EQ(solver->get_num_row_matched_items(), 1u);
    EXPECT_EQ(solver->get_num_split_blocks(), 1u);
    EXPECT_EQ(solver->get_num_singular_blocks(), 1u);
    EXPECT_EQ(solver->get_num_blocks(), 2u);
}

/// A batch where every item fails or succeeds in its own way, with the expected status of each.

TEST(BatchCgReference, GivesEveryItemOfAMixedBatchItsOwnStatus)
{
    MixedBatch batch;
    const auto laplacian = larch::test::tridiagonal<double>(6);
    const std::vector<double> ones(6, 1.0);
    const std::vector<double> zero6(6, 0.0);
    batch.add(laplacian, ones, zero6, ItemStatus::converged);
    // A zero matrix: p^T A p = 0 at once, and again after every restart.
    batch.add(diagonal({0.0, 0.0}), {1.0, 1.0}, {0.0, 0.0}, ItemStatus::breakdown);
    batch.add(laplacian, {1.0, nan, 1.0, 1.0, 1.0, 1.0}, zero6, ItemStatus::non_finite);
    // Singular and inconsistent: alpha = 2, then p = (0, 2) lies in the null space (p^T A p = 0).
    batch.add(diagonal({1.0, 0.0}), {1.0, 1.0}, {0.0, 0.0}, ItemStatus::breakdown);
    batch.add(larch::test::tridiagonal<double>(100), wave(100), std::vector<double>(100, 0.0),
              ItemStatus::max_iterations);
    batch.add(laplacian, zero6, ones, ItemStatus::converged);  // b = 0: x = 0
    auto nan_matrix = larch::test::tridiagonal<double>(3);
    nan_matrix.entries[2].value = nan;
    batch.add(nan_matrix, {1.0, 1.0, 1.0}, {0.0, 0.0, 0.0}, ItemStatus::non_finite);
    // The exact solution as initial guess: converged before the first iteration.
    batch.add(diagonal({2.0, 4.0}), {2.0, 4.0}, {1.0, 1.0}, ItemStatus::converged);
    batch.add(larch::test::laplacian_2d<double>(5), std::vector<double>(25, 1.0), std::vector<double>(25, 0.0),
              ItemStatus::converged);
    check_mixed<larch::batch::Cg<double>>(batch, 40);
}

TEST(BatchCgReference, ReportsAnItemWhoseSolutionOverflowsInItsOwnScaleAsNonFinite)
{
    // b_i = (1e308, 1e308) is solved scaled down by a power of two; x_0 = b_0 / 0.5 = 2e308 exceeds the largest
    // double once scaled back, x_1 = b_1 / 2 = 5e307 does not.
    const std::vector<matrix_data<double>> items{diagonal({0.5, 0.5}), diagonal({2.0, 2.0})};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {2, 2}, 1, std::vector<double>(4, 1e308));
    auto x = zeros(items);
    auto solver = larch::batch::Cg<double>::build().with_tolerance(1e-10).on(ref)->generate(a);

    solver->apply(*b, *x);

    const auto result = solver->get_result();
    EXPECT_EQ(result.get_status(0), ItemStatus::non_finite);
    EXPECT_EQ(result.get_residual_norm(0), std::numeric_limits<double>::infinity());
    EXPECT_EQ(result.get_status(1), ItemStatus::converged);
    for (const double entry : x->copy_item_to_host(1)) {
        EXPECT_DOUBLE_EQ(entry, 5e307);
    }
}

TEST(BatchCgReference, ReportsTheAbsoluteToleranceOfAnItemSolvedScaledAsItsThreshold)
{
    // b_0 of 1e-300 is solved scaled up by 2^996, b_1 of 1e300 scaled down by 2^-997: the tolerances scaled with
    // them overflow (1e10 2^996) and underflow (1e-30 2^-997), the thresholds reported may not.
    const std::vector<matrix_data<double>> items{diagonal({2.0, 2.0}), diagonal({2.0, 2.0})};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {2, 2}, 1, {1e-300, 1e-300, 1e300, 1e300});
    auto x = zeros(items);
    auto solver = larch::batch::Cg<double>::build()
                      .with_tolerance_type(larch::batch::ToleranceType::absolute)
                      .with_item_tolerances({1e10, 1e-30})
                      .on(ref)
                      ->generate(a);

    solver->apply(*b, *x);

    const auto result = solver->get_result();
    EXPECT_EQ(result.get_threshold(0), 1e10);
    EXPECT_EQ(result.get_threshold(1), 1e-30);
    EXPECT_EQ(result.get_status(0), ItemStatus::converged);
}

TEST(BatchCgReference, HonoursOneToleranceOrOnePerItemRelativeOrAbsolute)
{
    const auto item = larch::test::laplacian_2d<double>(8);
    const std::vector<matrix_data<double>> items{item, item};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {64, 64}, 1, std::vector<double>(128, 1.0));
    for (const auto type : {larch::batch::ToleranceType::relative, larch::batch::ToleranceType::absolute}) {
        auto x = zeros(items);
        auto solver = larch::batch::Cg<double>::build()
                          .with_item_tolerances({1e-2, 1e-10})
                          .with_tolerance_type(type)
                          .on(ref)
                          ->generate(a);
        solver->apply(*b, *x);
        const auto result = solver->get_result();
        ASSERT_TRUE(result.all_converged());
        const double scale = type == larch::batch::ToleranceType::relative ? 8.0 : 1.0;  // ||b|| = 8
        EXPECT_DOUBLE_EQ(result.get_threshold(0), 1e-2 * scale);
        EXPECT_DOUBLE_EQ(result.get_threshold(1), 1e-10 * scale);
        EXPECT_LT(result.get_iterations(0), result.get_iterations(1));
        EXPECT_LE(result.get_residual_norm(1), 1e-10 * scale);
    }
}

TEST(BatchCgReference, RunsEveryFormatToTheSameIterates)
{
    std::mt19937 rng{20261123};
    std::vector<matrix_data<double>> items;
    for (const size_type n : {3u, 17u, 64u, 9u}) {
        items.push_back(larch::test::random_spd<double>(rng, n, 6));
    }
    const auto rows = larch::test::item_rows(items);
    const auto b = Vector<double>::create(ref, rows, 1, rhs_of_known_solution(items));
    std::vector<std::vector<double>> solutions;
    std::vector<std::vector<size_type>> iterations;
    auto solve = [&](std::shared_ptr<const larch::batch::BatchLinOp<double>> a) {
        auto x = zeros(items);
        auto solver = larch::batch::Cg<double>::build()
                          .with_preconditioner(ItemPreconditioner::jacobi)
                          .on(ref)
                          ->generate(a);
        solver->apply(*b, *x);
        EXPECT_TRUE(solver->get_result().all_converged());
        solutions.push_back(x->copy_to_host());
        iterations.push_back(solver->get_result().get_all_iterations());
    };
    solve(larch::batch::Csr<double>::create(ref, items));
    solve(larch::batch::Coo<double>::create(ref, items));
    solve(larch::batch::Ell<double>::create(ref, items));
    // Every format sums each row in column order, so the iterates agree to the last bit.
    EXPECT_EQ(iterations[1], iterations[0]);
    EXPECT_EQ(iterations[2], iterations[0]);
    EXPECT_EQ(solutions[1], solutions[0]);
    EXPECT_EQ(solutions[2], solutions[0]);
}

TEST(BatchCgReference, LoggerRecordsResultsAndTheResidualHistoryOfChosenItems)
{
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(12),
                                                 larch::test::tridiagonal<double>(20)};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {12, 20}, 1, std::vector<double>(32, 1.0));
    auto x = zeros(items);
    auto logger = larch::batch::BatchConvergence::create({1});
    auto solver = larch::batch::Cg<double>::build().with_logger(logger).on(ref)->generate(a);
    solver->apply(*b, *x);
    const auto result = logger->get_result();
    EXPECT_EQ(logger->get_num_solves(), 1u);
    EXPECT_TRUE(result.all_converged());
    EXPECT_FALSE(result.has_residual_history(0));
    EXPECT_THROW(result.get_residual_history(0), larch::BadInput);
    const auto& history = result.get_residual_history(1);
    ASSERT_EQ(history.size(), result.get_iterations(1) + 1);
    EXPECT_DOUBLE_EQ(history.front(), std::sqrt(20.0));  // x0 = 0: r0 = b
    EXPECT_LE(history.back(), result.get_threshold(1));
    EXPECT_GT(history[history.size() - 2], result.get_threshold(1));
}

// A solver's item sizes are its system matrix's: apply checks the operands again once that matrix is
// assigned other sizes, although the solver itself was not touched (detail::CheckedLayouts).

}  // namespace
