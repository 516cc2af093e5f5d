// The batched Krylov solvers on the reference executor: known solutions, per-item criteria, and batches
// mixing converging, non-converging, singular and NaN items, each of which must get its own status.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "core/base/right_hand_side_scale.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/solver/bicgstab.hpp"
#include "larch/batch/solver/cg.hpp"
#include "larch/batch/solver/gmres.hpp"
#include "test/batch/batch_solver_test_helpers.hpp"
#include "test/utils/errors.hpp"

namespace {

using larch::matrix_data;
using larch::size_type;
using larch::batch::ItemPreconditioner;
using larch::batch::ItemStatus;
using larch::batch::Vector;

const auto ref = larch::make_executor("reference");
const double nan = std::numeric_limits<double>::quiet_NaN();

/// x_true(r) = r + 1 for every item; returns b = A x_true (all items concatenated).
std::vector<double> rhs_of_known_solution(const std::vector<matrix_data<double>>& items)
{
    std::vector<double> b;
    for (const auto& item : items) {
        std::vector<double> x(item.size.rows);
        for (size_type r = 0; r < x.size(); ++r) {
            x[r] = static_cast<double>(r + 1);
        }
        const auto bi = larch::test::multiply(item, x);
        b.insert(b.end(), bi.begin(), bi.end());
    }
    return b;
}

std::unique_ptr<Vector<double>> zeros(const std::vector<matrix_data<double>>& items)
{
    auto x = Vector<double>::create(ref, larch::test::item_rows(items));
    x->fill(0.0);
    return x;
}

/// Matrices with an explicit diagonal (zeros kept) and nothing else.
matrix_data<double> diagonal(const std::vector<double>& entries)
{
    matrix_data<double> data{larch::dim2{entries.size(), entries.size()}};
    for (size_type r = 0; r < entries.size(); ++r) {
        data.entries.push_back({static_cast<std::int32_t>(r), static_cast<std::int32_t>(r), entries[r]});
    }
    return data;
}

template <typename T>
void expect_scale_rule()
{
    using limits = std::numeric_limits<T>;
    using larch::detail::right_hand_side_scale;
    // unscaled: zero, non-finite, and everything within 2^(+-max_exponent / 4)
    for (const T m : {T{}, limits::quiet_NaN(), limits::infinity(), T{1}, T{1.875},
                      std::ldexp(T{1}, -limits::max_exponent / 4), std::ldexp(T{1.99}, limits::max_exponent / 4)}) {
        EXPECT_EQ(right_hand_side_scale(m), T{1}) << m;
    }
    // scaled into [1, 2) by a power of two, its inverse finite; a subnormal lands far inside the safe range
    for (const T m : {std::ldexp(T{1.5}, -limits::max_exponent / 4 - 1), std::ldexp(T{1}, limits::max_exponent / 4 + 1),
                      limits::min(), limits::max(), limits::denorm_min()}) {
        const T s = right_hand_side_scale(m);
        int exponent = 0;
        EXPECT_EQ(std::frexp(s, &exponent), T{0.5}) << m;  // a power of two
        EXPECT_TRUE(std::isfinite(T{1} / s)) << m;
        if (m >= limits::min()) {
            EXPECT_GE(s * m, T{1}) << m;
            EXPECT_LT(s * m, T{2}) << m;
        } else {
            EXPECT_EQ(right_hand_side_scale(s * m), T{1}) << m;
        }
    }
}

TEST(BatchSolverScaling, RightHandSideScaleIsAPowerOfTwoThatBringsTheLargestEntryIntoOneToTwo)
{
    expect_scale_rule<double>();
    expect_scale_rule<float>();
}

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
        for (size_type r = 0; r < xi.size(); ++r) {
            EXPECT_NEAR(xi[r], static_cast<double>(r + 1), 1e-9 * static_cast<double>(xi.size()))
                << "item " << item << " row " << r;
        }
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

/// b_r = sin(1.7 r): excites every eigenvector of a 1D Laplacian of order n, whose condition number
/// (about 0.4 n^2) then needs far more than 40 CG or 12 BiCGSTAB iterations for 1e-10 at n = 100.
std::vector<double> wave(size_type n)
{
    std::vector<double> b(n);
    for (size_type r = 0; r < n; ++r) {
        b[r] = std::sin(1.7 * static_cast<double>(r));
    }
    return b;
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
    const auto x0 = x->copy_item_to_host(0);
    for (size_type r = 0; r < 6; ++r) {
        EXPECT_NEAR(x0[r], static_cast<double>(r + 1), 1e-12);
    }
}

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
    const auto x0 = x->copy_item_to_host(0);
    for (size_type r = 0; r < 6; ++r) {
        EXPECT_NEAR(x0[r], static_cast<double>(r + 1), 1e-12);
    }
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
        const auto xi = x->copy_item_to_host(item);
        for (size_type r = 0; r < xi.size(); ++r) {
            EXPECT_NEAR(xi[r], static_cast<double>(r + 1), 1e-12) << item;
        }
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
struct MixedBatch {
    std::vector<matrix_data<double>> items;
    std::vector<double> b;
    std::vector<double> x0;
    std::vector<ItemStatus> expected;

    void add(matrix_data<double> item, std::vector<double> bi, std::vector<double> xi, ItemStatus status)
    {
        items.push_back(std::move(item));
        b.insert(b.end(), bi.begin(), bi.end());
        x0.insert(x0.end(), xi.begin(), xi.end());
        expected.push_back(status);
    }
};

template <typename Solver>
void check_mixed(const MixedBatch& batch, int max_iterations)
{
    auto a = larch::share(larch::batch::Csr<double>::create(ref, batch.items));
    const auto rows = larch::test::item_rows(batch.items);
    const auto b = Vector<double>::create(ref, rows, 1, batch.b);
    auto x = Vector<double>::create(ref, rows, 1, batch.x0);
    auto solver = Solver::build().with_max_iterations(max_iterations).with_tolerance(1e-10).on(ref)->generate(a);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    for (size_type item = 0; item < batch.items.size(); ++item) {
        EXPECT_EQ(result.get_status(item), batch.expected[item])
            << "item " << item << ": " << larch::batch::to_string(result.get_status(item));
        EXPECT_LE(result.get_iterations(item), static_cast<size_type>(max_iterations));
        if (batch.expected[item] == ItemStatus::converged) {
            const auto xi = x->copy_item_to_host(item);
            const auto bi = b->copy_item_to_host(item);
            EXPECT_LE(larch::test::residual_norm(batch.items[item], bi.data(), xi.data()),
                      1.01 * result.get_threshold(item))
                << "item " << item;
        }
    }
}

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
        const auto xi = x->copy_item_to_host(item);
        for (size_type r = 0; r < xi.size(); ++r) {
            // Condition numbers below 1e3 again: relative residual 1e-12 -> relative error < 1e-9.
            EXPECT_NEAR(xi[r], static_cast<double>(r + 1), 1e-9 * static_cast<double>(xi.size()));
        }
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
            const auto xi = x->copy_item_to_host(item);
            for (size_type r = 0; r < xi.size(); ++r) {
                EXPECT_NEAR(xi[r], static_cast<double>(r + 1), 1e-9 * static_cast<double>(xi.size()));
            }
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
TEST(BatchSolverReference, ChecksOperandSizesAgainAfterItsSystemMatrixIsAssigned)
{
    auto a = larch::share(larch::batch::Csr<double>::create(
        ref, {larch::test::tridiagonal<double>(4), larch::test::tridiagonal<double>(3)}));
    auto solver = larch::batch::Cg<double>::build().on(ref)->generate(a);
    const auto b = Vector<double>::create(ref, {4, 3}, 1, std::vector<double>(7, 1.0));
    auto x = Vector<double>::create(ref, {4, 3}, 1, std::vector<double>(7, 0.0));
    solver->apply(*b, *x);

    *a = *larch::batch::Csr<double>::create(
        ref, {larch::test::tridiagonal<double>(4), larch::test::tridiagonal<double>(5)});

    EXPECT_THROW(solver->apply(*b, *x), larch::DimensionMismatch);
}

TEST(BatchSolverReference, RejectsBadParametersAndOperandsNamingTheProblem)
{
    const std::vector<matrix_data<double>> items{larch::test::tridiagonal<double>(4)};
    auto a = larch::share(larch::batch::Csr<double>::create(ref, items));
    using Cg = larch::batch::Cg<double>;
    EXPECT_THROW(Cg::build().with_max_iterations(0).on(ref)->generate(a), larch::BadInput);
    EXPECT_THROW(Cg::build().with_preconditioner(ItemPreconditioner::block_jacobi).with_max_block_size(33).on(ref)->generate(a),
                 larch::BadInput);
    // as the single-system BlockJacobi: a row matching needs blocks
    EXPECT_THROW(Cg::build()
                     .with_preconditioner(ItemPreconditioner::block_jacobi)
                     .with_max_block_size(1)
                     .with_block_row_matching(larch::preconditioner::BlockJacobiRowMatching::maximum_product)
                     .on(ref)
                     ->generate(a),
                 larch::BadInput);
    EXPECT_THROW(Cg::build().with_tolerance(0.0).on(ref)->generate(a), larch::BadInput);
    EXPECT_THROW(Cg::build().with_tolerance(nan).on(ref)->generate(a), larch::BadInput);
    EXPECT_THROW(Cg::build().with_item_tolerances({1e-8, 1e-8}).on(ref)->generate(a), larch::DimensionMismatch);
    EXPECT_THROW(Cg::build().on(ref)->generate(nullptr), larch::BadInput);
    EXPECT_THROW(larch::batch::Gmres<double>::build().with_krylov_dim(0).on(ref)->generate(a), larch::BadInput);
    for (const double kappa : {-0.1, 1.5, nan}) {
        EXPECT_THROW(larch::batch::Bicgstab<double>::build().with_kappa(kappa).on(ref)->generate(a), larch::BadInput);
    }
    matrix_data<double> rectangular{larch::dim2{2, 3}, {{0, 0, 1.0}, {1, 2, 1.0}}};
    EXPECT_THROW(Cg::build().on(ref)->generate(larch::batch::Csr<double>::create(ref, {rectangular})),
                 larch::DimensionMismatch);
    EXPECT_THROW(Cg::build().on(ref)->generate(larch::batch::Dense<double>::create(ref, {larch::dim2{2, 2}})),
                 larch::NotSupported);
    auto solver = Cg::build().on(ref)->generate(a);
    const auto b2 = Vector<double>::create(ref, {4}, 2, std::vector<double>(8, 1.0));
    auto x2 = Vector<double>::create(ref, {4}, 2, std::vector<double>(8, 0.0));
    EXPECT_THROW(solver->apply(*b2, *x2), larch::NotSupported);
    const auto b = Vector<double>::create(ref, {4}, 1, std::vector<double>(4, 1.0));
    auto x = zeros(items);
    solver->add_logger(larch::batch::BatchConvergence::create({3}));
    EXPECT_THROW(solver->apply(*b, *x), larch::BadInput);
}

TEST(BatchSolverReference, NamesATolerancesOrKappasValueHoweverSmall)
{
    // std::to_string printed six decimals: a tolerance of -1e-10 read "-0.000000".
    auto a = larch::share(larch::batch::Csr<double>::create(ref, {larch::test::tridiagonal<double>(4)}));
    using Cg = larch::batch::Cg<double>;
    larch::test::expect_contains(
        larch::test::error_message_of([&] { Cg::build().with_tolerance(-1e-10).on(ref)->generate(a); }),
        "the tolerance is -1e-10");
    larch::test::expect_contains(
        larch::test::error_message_of([&] { Cg::build().with_item_tolerances({-2.5e-12}).on(ref)->generate(a); }),
        "the tolerance of item 0 is -2.5e-12");
    larch::test::expect_contains(larch::test::error_message_of([&] {
                                     larch::batch::Bicgstab<double>::build().with_kappa(-1e-7).on(ref)->generate(a);
                                 }),
                                 "got -1e-07");
}

}  // namespace
