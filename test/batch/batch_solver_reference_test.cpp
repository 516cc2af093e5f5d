// The batched Krylov solvers on the reference executor, what every method shares: the right-hand side's
// scaling rule, and the checks of operands and parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/base/right_hand_side_scale.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/solver/bicgstab.hpp"
#include "larch/batch/solver/cg.hpp"
#include "larch/batch/solver/gmres.hpp"
#include "test/batch/batch_solver_reference_helpers.hpp"
#include "test/utils/errors.hpp"

namespace {

using larch::matrix_data;
using larch::batch::ItemPreconditioner;
using larch::batch::Vector;
using larch::test::zeros;

const auto& ref = larch::test::reference_executor();
const double nan = std::numeric_limits<double>::quiet_NaN();

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
