// Batched BiCGSTAB on the reference executor: known solutions of nonsymmetric items, block-Jacobi, the omega
// safeguard, and a batch mixing converging, non-converging, singular and NaN items.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/solver/bicgstab.hpp"
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

TEST(BatchBicgstabReference, BlockJacobiOfNonsymmetricBlocksSolvesABlockDiagonalItemInOneIteration)
{
    // Two nonsymmetric 3 x 3 blocks (full patterns, so each is one supervariable): with bound 3 the
    // preconditioner is A^-1 itself and BiCGSTAB finishes in its first iteration. A block applied
    // transposed (the inverses are stored column-major) would leave M^-1 A far from I and need more.
    matrix_data<double> item{larch::dim2{6, 6}};
    for (std::int32_t block = 0; block < 2; ++block) {
        const std::int32_t first = 3 * block;
        for (std::int32_t r = 0; r < 3; ++r) {
            for (std::int32_t c = 0; c < 3; ++c) {
                // strongly nonsymmetric: 5 on the diagonal, 4 above it, 0.5 below
                const double value = r == c ? 5.0 + block : (c > r ? 4.0 : 0.5);
                item.entries.push_back({first + r, first + c, value});
            }
        }
    }
    const std::vector<matrix_data<double>> items{item};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, {6}, 1, rhs_of_known_solution(items));
    auto x = zeros(items);
    auto solver = larch::batch::Bicgstab<double>::build()
                      .with_tolerance(1e-13)
                      .with_preconditioner(ItemPreconditioner::block_jacobi)
                      .with_max_block_size(3)
                      .on(ref)
                      ->generate(a);
    EXPECT_EQ(solver->get_num_blocks(), 2u);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    EXPECT_EQ(result.get_status(0), ItemStatus::converged);
    EXPECT_EQ(result.get_iterations(0), 1u);
    expect_known_solution(*x, 0, 1e-12);
}

TEST(BatchBicgstabReference, BlockJacobiMatchesTheRowsOfAnItemWithZeroDiagonalBlocks)
{
    // A = [[0, B], [C, 0]] with B = [[5, 1], [2, 6]] and C = [[4, 1], [1, 3]]: both 2 x 2 diagonal blocks of A
    // are zero. The maximum product matching takes rows 2, 3, 0, 1 (products 4 * 3 * 5 * 6), so P A =
    // [[C, 0], [0, B]], whose blocks of bound 2 are C and B: the preconditioner is (P A)^-1 P = A^-1 and
    // BiCGSTAB finishes in its first iteration. The second item (A's own diagonal is nonzero) is not matched.
    matrix_data<double> zero_diagonal{larch::dim2{4, 4}};
    for (const auto& [r, c, v] : std::vector<std::tuple<std::int32_t, std::int32_t, double>>{
             {0, 2, 5.0}, {0, 3, 1.0}, {1, 2, 2.0}, {1, 3, 6.0}, {2, 0, 4.0}, {2, 1, 1.0}, {3, 0, 1.0}, {3, 1, 3.0}}) {
        zero_diagonal.entries.push_back({r, c, v});
    }
    matrix_data<double> regular{larch::dim2{2, 2}, {{0, 0, 4.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 3.0}}};
    const std::vector<matrix_data<double>> items{zero_diagonal, regular};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, larch::test::item_rows(items), 1, rhs_of_known_solution(items));
    auto x = zeros(items);
    auto solver = larch::batch::Bicgstab<double>::build()
                      .with_tolerance(1e-13)
                      .with_preconditioner(ItemPreconditioner::block_jacobi)
                      .with_max_block_size(2)
                      .on(ref)
                      ->generate(a);
    EXPECT_EQ(solver->get_num_row_matched_items(), 1u);
    EXPECT_EQ(solver->get_num_blocks(), 3u);
    EXPECT_EQ(solver->get_num_singular_blocks(), 0u);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    for (size_type item = 0; item < 2; ++item) {
        EXPECT_EQ(result.get_status(item), ItemStatus::converged) << item;
        EXPECT_EQ(result.get_iterations(item), 1u) << item;
        expect_known_solution(*x, item, 1e-12);
    }
    // row_matching none: A's zero blocks are singular (split down to zero 1 x 1 blocks, scalar fallback),
    // and the item needs more than one iteration; maximum_product matches the regular item too (its
    // matching is the identity, so it still finishes in one).
    using larch::preconditioner::BlockJacobiRowMatching;
    for (const auto matching : {BlockJacobiRowMatching::none, BlockJacobiRowMatching::maximum_product}) {
        auto other = larch::batch::Bicgstab<double>::build()
                         .with_tolerance(1e-13)
                         .with_preconditioner(ItemPreconditioner::block_jacobi)
                         .with_max_block_size(2)
                         .with_block_row_matching(matching)
                         .on(ref)
                         ->generate(a);
        const bool none = matching == BlockJacobiRowMatching::none;
        EXPECT_EQ(other->get_num_row_matched_items(), none ? 0u : 2u);
        EXPECT_EQ(other->get_num_singular_blocks() > 0, none);
        auto y = zeros(items);
        other->apply(*b, *y);
        EXPECT_EQ(other->get_result().get_iterations(0) > 1, none);
        EXPECT_EQ(other->get_result().get_iterations(1), 1u);
    }
}

TEST(BatchBicgstabReference, GivesEveryItemOfAMixedBatchItsOwnStatus)
{
    MixedBatch batch;
    const auto convection = larch::test::tridiagonal<double>(8, 0.5);
    batch.add(convection, std::vector<double>(8, 1.0), std::vector<double>(8, 0.0), ItemStatus::converged);
    batch.add(diagonal({0.0, 0.0}), {1.0, 1.0}, {0.0, 0.0}, ItemStatus::breakdown);
    // diag(1, 0) with b = (1, 1): the second step's v = A p vanishes (r_hat^T v = 0), at every restart.
    batch.add(diagonal({1.0, 0.0}), {1.0, 1.0}, {0.0, 0.0}, ItemStatus::breakdown);
    batch.add(convection, {1.0, 1.0, 1.0, std::numeric_limits<double>::infinity(), 1.0, 1.0, 1.0, 1.0},
              std::vector<double>(8, 0.0), ItemStatus::non_finite);
    batch.add(larch::test::tridiagonal<double>(100), wave(100), std::vector<double>(100, 0.0),
              ItemStatus::max_iterations);
    batch.add(convection, std::vector<double>(8, 0.0), std::vector<double>(8, 3.0), ItemStatus::converged);
    check_mixed<larch::batch::Bicgstab<double>>(batch, 12);
}

TEST(BatchBicgstabReference, SolvesNonsymmetricItemsToTheirKnownSolutions)
{
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(10, 0.3),
                                                 larch::test::tridiagonal<double>(33, -0.7),
                                                 larch::test::tridiagonal<double>(2, 0.9)};
    auto a = larch::share(larch::batch::Ell<double>::create(ref, items));
    const auto b = Vector<double>::create(ref, larch::test::item_rows(items), 1, rhs_of_known_solution(items));
    auto x = zeros(items);
    auto solver = larch::batch::Bicgstab<double>::build()
                      .with_max_iterations(300)
                      .with_tolerance(1e-12)
                      .with_preconditioner(ItemPreconditioner::jacobi)
                      .on(ref)
                      ->generate(a);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    EXPECT_TRUE(result.all_converged());
    for (size_type item = 0; item < items.size(); ++item) {
        // Condition numbers below 1e3 again: relative residual 1e-12 -> relative error < 1e-9.
        expect_known_solution(*x, item, 1e-9 * static_cast<double>(items[item].size.rows));
    }
}

TEST(BatchBicgstabReference, SafeguardsOmegaWhereTAndSAreNearlyOrthogonal)
{
    // A = [[0.1, 1], [-1, 0.1]]: s^T A s = 0.1 |s|^2 for every s, so |cos(t, s)| = 0.1 / |A s| * |s| < 0.1,
    // below kappa = 0.7. One iteration from x = 0, written out: x = alpha p + omega s.
    const matrix_data<double> item{larch::dim2{2, 2}, {{0, 0, 0.1}, {0, 1, 1.0}, {1, 0, -1.0}, {1, 1, 0.1}}};
    const std::vector<double> b_values{1.0, 2.0};
    const auto multiply = [](const std::vector<double>& u) {
        return std::vector<double>{0.1 * u[0] + u[1], -u[0] + 0.1 * u[1]};
    };
    const auto dot = [](const std::vector<double>& u, const std::vector<double>& w) {
        return u[0] * w[0] + u[1] * w[1];
    };
    const auto v = multiply(b_values);  // p = r = r_hat = b
    const double alpha = dot(b_values, b_values) / dot(b_values, v);
    const std::vector<double> s{b_values[0] - alpha * v[0], b_values[1] - alpha * v[1]};
    const auto t = multiply(s);
    const double cosine = std::abs(dot(t, s)) / std::sqrt(dot(t, t) * dot(s, s));
    ASSERT_LT(cosine, 0.11);
    auto a = larch::share(larch::batch::Csr<double>::create(ref, {item}));
    const auto b = Vector<double>::create(ref, {2}, 1, b_values);
    for (const double kappa : {0.0, 0.7}) {
        const double omega = dot(t, s) / dot(t, t) * (kappa > cosine ? kappa / cosine : 1.0);
        auto x = zeros({item});
        auto solver =
            larch::batch::Bicgstab<double>::build().with_max_iterations(1).with_kappa(kappa).on(ref)->generate(a);
        solver->apply(*b, *x);
        EXPECT_EQ(solver->get_result().get_status(0), ItemStatus::max_iterations);
        const auto xi = x->copy_item_to_host(0);
        for (size_type r = 0; r < 2; ++r) {
            EXPECT_NEAR(xi[r], alpha * b_values[r] + omega * s[r], 1e-12 * std::abs(alpha * b_values[r]))
                << "kappa " << kappa;
        }
    }
}

}  // namespace
