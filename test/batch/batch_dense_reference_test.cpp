// Batched dense operations on the reference backend against hand-checked values: inversion, Gauss-Huard,
// infinity norms, condition numbers, per-item status and input validation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "larch/batch/cond_estimator.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_huard.hpp"
#include "larch/batch/gauss_jordan.hpp"
#include "larch/batch/norms.hpp"
#include "larch/batch/status.hpp"

namespace {

using larch::dim2;
using larch::batch::Dense;
using larch::batch::Vector;

template <typename T>
class BatchDenseReference : public ::testing::Test {
protected:
    std::shared_ptr<const larch::Executor> exec = larch::make_executor("reference");
    // Results of a few operations on exactly representable inputs; rounding of the intermediate
    // divisions allows a few units in the last place.
    const T tolerance = 8 * std::numeric_limits<T>::epsilon();
    const T inf = std::numeric_limits<T>::infinity();

    /// Items: [[0,1],[1,0]] (permutation), [[1,2],[3,4]] (pivots on row 2 first),
    /// [[0,0,2],[1,0,0],[0,4,0]] (zero diagonal, pivoting at every step), [5] (1x1).
    std::unique_ptr<Dense<T>> regular_batch() const
    {
        return Dense<T>::create(exec, {dim2{2}, dim2{2}, dim2{3}, dim2{1}},
                                {0, 1, 1, 0, 1, 2, 3, 4, 0, 0, 2, 1, 0, 0, 0, 4, 0, 5});
    }
    const std::vector<T> regular_inverse{0, 1, 1, 0,                   // permutation
                                         -2, 1, 1.5, -0.5,             // [[1,2],[3,4]]
                                         0, 1, 0, 0, 0, 0.25, 0.5, 0, 0,  // zero diagonal
                                         0.2};

    void expect_values_near(const std::vector<T>& actual, const std::vector<T>& expected) const
    {
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < actual.size(); ++i) {
            EXPECT_NEAR(actual[i], expected[i], tolerance * (1 + std::abs(expected[i])))
                << "entry " << i;
        }
    }
};

using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchDenseReference, ValueTypes);

TYPED_TEST(BatchDenseReference, InvertsItemsThatNeedPivotingAtEveryStep)
{
    using T = TypeParam;
    auto a = this->regular_batch();
    auto inverse = Dense<T>::create_with_layout_of(this->exec, *a);
    auto info = larch::batch::invert(*a, *inverse);
    EXPECT_EQ(info.copy_to_host(), (std::vector<std::int32_t>{0, 0, 0, 0}));
    this->expect_values_near(inverse->copy_to_host(), this->regular_inverse);
}

TYPED_TEST(BatchDenseReference, InvertsInPlace)
{
    auto a = this->regular_batch();
    auto info = larch::batch::invert(*a);
    EXPECT_EQ(info.copy_to_host(), (std::vector<std::int32_t>{0, 0, 0, 0}));
    this->expect_values_near(a->copy_to_host(), this->regular_inverse);
}

TYPED_TEST(BatchDenseReference, InverseOfPermutationIsItsTranspose)
{
    using T = TypeParam;
    // P e_0 = e_2, P e_1 = e_0, P e_2 = e_3, P e_3 = e_1
    auto p = Dense<T>::create(this->exec, {dim2{4}},
                              {0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0});
    auto info = larch::batch::invert(*p);
    EXPECT_EQ(info.copy_to_host()[0], 0);
    EXPECT_EQ(p->copy_to_host(), (std::vector<T>{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}));
}

TYPED_TEST(BatchDenseReference, ReportsSingularItemsWithTheirFailingStep)
{
    using T = TypeParam;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    // [[1,2],[2,4]] fails at step 2; the zero 3x3 and [0] at step 1; NaN at step 1; [[2,0],[0,3]] is fine
    auto a = Dense<T>::create(this->exec, {dim2{2}, dim2{3}, dim2{1}, dim2{1}, dim2{2}},
                              {1, 2, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, nan, 2, 0, 0, 3});
    auto info = larch::batch::invert(*a);
    EXPECT_EQ(info.copy_to_host(), (std::vector<std::int32_t>{2, 1, 1, 1, 0}));
    EXPECT_EQ(larch::batch::find_failed_items(info), (std::vector<larch::size_type>{0, 1, 2, 3}));
    try {
        larch::batch::throw_if_any_failed(info, "block inversion");
        FAIL() << "no exception";
    } catch (const larch::batch::SingularItems& e) {
        EXPECT_EQ(e.get_items(), (std::vector<larch::size_type>{0, 1, 2, 3}));
        EXPECT_NE(std::string{e.what()}.find("block inversion: 4 of 5 items"), std::string::npos)
            << e.what();
    }
}

TYPED_TEST(BatchDenseReference, TinyPivotThresholdIsNTimesEpsTimesNorm)
{
    using T = TypeParam;
    const T eps = std::numeric_limits<T>::epsilon();
    // [[1,1],[1,1+d]]: the second pivot is d, the threshold 2 * eps * (2 + d).
    auto a = Dense<T>::create(this->exec, {dim2{2}, dim2{2}},
                              {1, 1, 1, 1 + 4 * eps, 1, 1, 1, 1 + 16 * eps});
    auto cond = larch::batch::CondEstimator<T>::build().on(this->exec)->generate(a);
    EXPECT_EQ(cond->get_info().copy_to_host(), (std::vector<std::int32_t>{2, 0}));
    const auto numbers = cond->get_condition_numbers().copy_to_host();
    EXPECT_EQ(numbers[0], this->inf);
    // cond = (2 + 16 eps)^2 / (16 eps); the inverse's entries carry a relative error of about
    // cond * eps = 1/16, so only a loose check is meaningful.
    const T expected = (2 + 16 * eps) * (2 + 16 * eps) / (16 * eps);
    EXPECT_NEAR(numbers[1] / expected, 1, 0.25);
}

TYPED_TEST(BatchDenseReference, ComputesInfinityNormsOfRectangularItems)
{
    using T = TypeParam;
    auto a = Dense<T>::create(this->exec, {dim2{2, 2}, dim2{2, 3}, dim2{1, 1}, dim2{3, 1}},
                              {1, -2, 3, 4, 1, 2, 3, -4, 0, 0, -3, 1, -5, 2});
    EXPECT_EQ(larch::batch::compute_infinity_norms(*a).copy_to_host(),
              (std::vector<T>{7, 6, 3, 5}));
}

TYPED_TEST(BatchDenseReference, FusedAndComposedConditionNumbersAreExact)
{
    using T = TypeParam;
    // diag(2, 1/2): 2 * 2 = 4; the permutation: 1; [[1,2],[3,4]]: 7 * 3 = 21; [[1,2],[2,4]]: inf
    auto a = Dense<T>::create(this->exec, {dim2{2}, dim2{2}, dim2{2}, dim2{2}},
                              {2, 0, 0, 0.5, 0, 1, 1, 0, 1, 2, 3, 4, 1, 2, 2, 4});
    for (auto algorithm : {larch::batch::CondAlgorithm::fused, larch::batch::CondAlgorithm::composed}) {
        auto cond = larch::batch::CondEstimator<T>::build()
                        .with_algorithm(algorithm)
                        .on(this->exec)
                        ->generate(a);
        const auto numbers = cond->get_condition_numbers().copy_to_host();
        EXPECT_EQ(numbers[0], 4);
        EXPECT_EQ(numbers[1], 1);
        EXPECT_NEAR(numbers[2], 21, 21 * this->tolerance);
        EXPECT_EQ(numbers[3], this->inf);
        EXPECT_EQ(cond->get_info().copy_to_host(), (std::vector<std::int32_t>{0, 0, 0, 2}));
        EXPECT_FALSE(cond->has_inverse());
    }
}

TYPED_TEST(BatchDenseReference, KeptInverseAppliesTheInverses)
{
    using T = TypeParam;
    auto a = this->regular_batch();
    auto cond = larch::batch::CondEstimator<T>::build().with_keep_inverse(true).on(this->exec)->generate(a);
    ASSERT_TRUE(cond->has_inverse());
    this->expect_values_near(cond->get_inverse()->copy_to_host(), this->regular_inverse);
    // A^-1 (A e) = e for e = ones: b = row sums of A
    auto b = Vector<T>::create(this->exec, {2, 2, 3, 1}, 1, {1, 1, 3, 7, 2, 1, 4, 5});
    auto x = Vector<T>::create_with_layout_of(this->exec, *b);
    cond->get_inverse()->apply(*b, *x);
    this->expect_values_near(x->copy_to_host(), std::vector<T>(8, 1));
}

TYPED_TEST(BatchDenseReference, GaussHuardFactorsMatchTheHandComputedOnes)
{
    using T = TypeParam;
    // [[1,2],[3,4]]: step 1 picks column 2 (|2| > |1|), F = [[2, 1/2], [4, 1]], pivots {1, 0}
    auto a = Dense<T>::create(this->exec, {dim2{2}}, {1, 2, 3, 4});
    auto gh = larch::batch::GaussHuard<T>::build().on(this->exec)->generate(a);
    EXPECT_EQ(gh->get_info().copy_to_host(), (std::vector<std::int32_t>{0}));
    EXPECT_EQ(gh->get_pivots().copy_to_host(), (std::vector<std::int32_t>{1, 0}));
    EXPECT_EQ(gh->get_factors().copy_to_host(), (std::vector<T>{2, 0.5, 4, 1}));
}

TYPED_TEST(BatchDenseReference, GaussHuardSolvesKnownSystemsInBothStorages)
{
    using T = TypeParam;
    // A1 x1 = b1 with x1 = [1, -1, 2]; A2 (zero diagonal) with x2 = [3, -2, 0.5]; [4] x = [2] with x = 0.5
    auto a = Dense<T>::create(this->exec, {dim2{3}, dim2{3}, dim2{1}},
                              {2, 1, 1, 4, 3, 3, 8, 7, 9, 0, 0, 2, 1, 0, 0, 0, 4, 0, 4});
    // two right-hand sides per item: x and 2x
    auto b = Vector<T>::create(this->exec, {3, 3, 1}, 2,
                               {3, 6, 7, 14, 19, 38, 1, 2, 3, 6, -8, -16, 2, 4});
    const std::vector<T> expected{1, 2, -1, -2, 2, 4, 3, 6, -2, -4, 0.5, 1, 0.5, 1};
    for (auto storage : {larch::batch::GaussHuardStorage::plain,
                         larch::batch::GaussHuardStorage::transposed}) {
        auto gh = larch::batch::GaussHuard<T>::build().with_storage(storage).on(this->exec)->generate(a);
        EXPECT_EQ(gh->get_info().copy_to_host(), (std::vector<std::int32_t>{0, 0, 0}));
        auto x = Vector<T>::create_with_layout_of(this->exec, *b);
        gh->solve(*b, *x);
        // 3x3 elimination with cond(A1) ~ 10^2: a few hundred ulps at most
        for (size_t i = 0; i < expected.size(); ++i) {
            EXPECT_NEAR(x->copy_to_host()[i], expected[i], 256 * this->tolerance) << i;
        }
        auto in_place = b->clone_to(this->exec);
        gh->solve(*in_place, *in_place);
        EXPECT_EQ(in_place->copy_to_host(), x->copy_to_host());
    }
}

TYPED_TEST(BatchDenseReference, TransposedStorageMirrorsUAboutTheAntiDiagonal)
{
    using T = TypeParam;
    auto a = Dense<T>::create(this->exec, {dim2{3}}, {2, 1, 1, 4, 3, 3, 8, 7, 9});
    auto plain = larch::batch::GaussHuard<T>::build().on(this->exec)->generate(a);
    auto mirrored = larch::batch::GaussHuard<T>::build()
                        .with_storage(larch::batch::GaussHuardStorage::transposed)
                        .on(this->exec)
                        ->generate(a);
    const auto f = plain->get_factors().copy_to_host();
    const auto g = mirrored->get_factors().copy_to_host();
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const T expected = j <= i ? f[i * 3 + j] : f[(2 - j) * 3 + (2 - i)];
            EXPECT_EQ(g[i * 3 + j], expected) << i << "," << j;
        }
    }
}

TYPED_TEST(BatchDenseReference, RejectsInvalidInputBeforeAnyKernel)
{
    using T = TypeParam;
    EXPECT_THROW(Dense<T>::create(this->exec, {dim2{2}, dim2{0, 3}}), larch::BadInput);
    EXPECT_THROW(Dense<T>::create(this->exec, {dim2{2}}, std::vector<T>{1, 2, 3}),
                 larch::DimensionMismatch);
    auto rectangular = Dense<T>::create(this->exec, {dim2{2}, dim2{2, 3}});
    EXPECT_THROW(larch::batch::invert(*rectangular), larch::DimensionMismatch);
    EXPECT_THROW(larch::batch::CondEstimator<T>::build().on(this->exec)->generate(rectangular),
                 larch::DimensionMismatch);
    auto a = this->regular_batch();
    auto b = Vector<T>::create(this->exec, {2, 2, 2, 1});
    auto x = Vector<T>::create(this->exec, {2, 2, 3, 1});
    try {
        a->apply(*b, *x);
        FAIL() << "no exception";
    } catch (const larch::DimensionMismatch& e) {
        EXPECT_NE(std::string{e.what()}.find("item 2"), std::string::npos) << e.what();
    }
    // a batch of other item sizes names its first differing item
    const auto message_of = [](auto&& call) {
        try {
            call();
        } catch (const larch::DimensionMismatch& e) {
            return std::string{e.what()};
        }
        return std::string{"no exception"};
    };
    auto other_sizes = Dense<T>::create(this->exec, {dim2{2}, dim2{3}, dim2{2}});
    auto three = Dense<T>::create(this->exec, {dim2{2}, dim2{2}, dim2{2}});
    EXPECT_NE(message_of([&] { three->copy_from(*other_sizes); }).find("item 1 is 3x3, not 2x2"),
              std::string::npos);
    auto two = Dense<T>::create(this->exec, {dim2{2}, dim2{2}});
    EXPECT_NE(message_of([&] { larch::batch::invert(*three, *two); }).find("the inverse must have the item sizes "
                                                                         "of the input: 2 items, not 3"),
              std::string::npos);
}

TYPED_TEST(BatchDenseReference, EmptyBatchRunsNoKernel)
{
    using T = TypeParam;
    auto a = Dense<T>::create(this->exec, std::vector<dim2>{});
    EXPECT_EQ(larch::batch::invert(*a).get_size(), 0u);
    EXPECT_EQ(larch::batch::CondEstimator<T>::build().on(this->exec)->generate(a)->get_num_items(),
              0u);
}

}  // namespace
