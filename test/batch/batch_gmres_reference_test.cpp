// Batched GMRES on the reference executor: known solutions across restarts, items smaller than the Krylov
// dimension, and a batch whose items each get their own status.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/solver/gmres.hpp"
#include "test/batch/batch_solver_reference_helpers.hpp"

namespace {

using larch::matrix_data;
using larch::size_type;
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

TEST(BatchGmresReference, SolvesNonsymmetricItemsToTheirKnownSolutionsAcrossRestarts)
{
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(10, 0.3),
                                                 larch::test::tridiagonal<double>(25, -0.7),
                                                 larch::test::tridiagonal<double>(2, 0.9)};
    auto a = larch::share(larch::batch::Coo<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, larch::test::item_rows(items), 1, rhs_of_known_solution(items));
    for (const size_type krylov_dim : {5u, 30u}) {
        auto x = zeros(items);
        auto solver = larch::batch::Gmres<double>::build()
                          .with_krylov_dim(krylov_dim)
                          .with_max_iterations(500)
                          .with_tolerance(1e-12)
                          .on(ref)
                          ->generate(a);
        solver->apply(*b, *x);
        const auto result = solver->get_result();
        EXPECT_TRUE(result.all_converged()) << "m = " << krylov_dim;
        // Without restarts GMRES ends after at most n steps; the 2 x 2 item needs at most 2 either way.
        EXPECT_LE(result.get_iterations(2), 2u);
        if (krylov_dim == 30) {
            EXPECT_LE(result.get_iterations(0), 10u);
        }
        for (size_type item = 0; item < items.size(); ++item) {
            expect_known_solution(*x, item, 1e-9 * static_cast<double>(items[item].size.rows));
        }
    }
}

TEST(BatchGmresReference, KeepsTheSolutionOfAnItemOfFewerRowsThanTheKrylovDimension)
{
    // tridiag(-1, 2, -1) of order 3 with b = (1, 1, 1): x = (1.5, 2, 1.5). Its Krylov space is complete after 3
    // steps; a tolerance no true residual can meet (1e-100) must not drive GMRES(30) past them.
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(3)};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {3}, 1, {1.0, 1.0, 1.0});
    auto x = zeros(items);
    auto solver = larch::batch::Gmres<double>::build().with_tolerance(1e-100).on(ref)->generate(a);

    solver->apply(*b, *x);

    // cond(A) is 5.8, so rounding leaves errors of a few eps
    EXPECT_LE(solver->get_result().get_residual_norm(0), 1e-14);
    const std::vector<double> expected{1.5, 2.0, 1.5};
    const auto solution = x->copy_item_to_host(0);
    for (size_type r = 0; r < expected.size(); ++r) {
        EXPECT_NEAR(solution[r], expected[r], 1e-14) << "row " << r;
    }
}

TEST(BatchGmresReference, GivesEveryItemOfAMixedBatchItsOwnStatus)
{
    MixedBatch batch;
    const auto convection = larch::test::tridiagonal<double>(8, 0.5);
    batch.add(convection, std::vector<double>(8, 1.0), std::vector<double>(8, 0.0), ItemStatus::converged);
    // A = 0: the first Hessenberg column is zero, H is singular at every restart.
    batch.add(diagonal({0.0, 0.0}), {1.0, 1.0}, {0.0, 0.0}, ItemStatus::breakdown);
    batch.add(convection, {1.0, 1.0, nan, 1.0, 1.0, 1.0, 1.0, 1.0}, std::vector<double>(8, 0.0),
              ItemStatus::non_finite);
    batch.add(larch::test::tridiagonal<double>(100), wave(100), std::vector<double>(100, 0.0),
              ItemStatus::max_iterations);
    batch.add(convection, std::vector<double>(8, 0.0), std::vector<double>(8, 3.0), ItemStatus::converged);
    check_mixed<larch::batch::Gmres<double>>(batch, 12);
}

}  // namespace
