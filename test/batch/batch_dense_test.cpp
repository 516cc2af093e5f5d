// Batched dense operations on every built executor against the reference backend: random variable-size
// batches (1..32 and items larger than a warp), diagonal blocks of real matrices, and the accuracy of the
// condition numbers against a long double oracle (Anzt et al. 2018, batched condition numbers, Figure 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include "core/batch/dense_item_algorithms.hpp"
#include "larch/batch/cond_estimator.hpp"
#include "larch/batch/gauss_huard.hpp"
#include "larch/batch/gauss_jordan.hpp"
#include "larch/batch/norms.hpp"
#include "larch/io/matrix_market.hpp"
#include "test/batch/batch_test_helpers.hpp"
#include "test/utils/executors.hpp"

namespace {

using larch::dim2;
using larch::size_type;
using larch::batch::Dense;
using larch::batch::Vector;

constexpr unsigned seed = 20260422;

template <typename T>
double eps()
{
    return std::numeric_limits<T>::epsilon();
}

/// Runs `check` for float and double on the executor named by the test parameter.
class BatchDense : public ::testing::TestWithParam<std::string> {
protected:
    std::shared_ptr<const larch::Executor> ref = larch::make_executor("reference");
};

template <typename T>
std::unique_ptr<Dense<T>> random_batch(std::shared_ptr<const larch::Executor> exec)
{
    std::mt19937 rng{seed};
    auto sizes = larch::test::mixed_square_sizes(rng, 200);
    auto values = larch::test::random_values<T>(rng, sizes);
    return Dense<T>::create(exec, sizes, values);
}

/// Reference condition numbers of every item (the oracle for the tolerances below).
template <typename T>
std::vector<T> reference_cond(const Dense<T>& a)
{
    auto ref = larch::make_executor("reference");
    return larch::batch::CondEstimator<T>::build().on(ref)->generate(a.clone_to(ref))
        ->get_condition_numbers()
        .copy_to_host();
}

template <typename T>
void check_inversion(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    auto a_ref = random_batch<T>(ref);
    auto a = a_ref->clone_to(exec);
    auto expected = a_ref->clone_to(ref);
    const auto expected_info = larch::batch::invert(*expected).copy_to_host();
    auto inverse = Dense<T>::create_with_layout_of(exec, *a);
    const auto info = larch::batch::invert(*a, *inverse).copy_to_host();
    const auto cond = reference_cond(*a_ref);
    const auto values = a_ref->copy_to_host();
    const auto result = inverse->copy_to_host();
    const auto oracle = expected->copy_to_host();
    const auto& layout = a_ref->get_layout();
    for (size_type item = 0; item < a->get_num_items(); ++item) {
        ASSERT_EQ(info[item], expected_info[item]) << "item " << item << ", seed " << seed;
        const auto n = layout.get_size(item).rows;
        const auto offset = layout.get_offset(item);
        // Inversion with partial pivoting is forward stable: errors of order n * eps * cond
        // (growth is small for random matrices, so 8 covers the constant).
        const double tolerance = 8 * n * eps<T>() * cond[item];
        EXPECT_LE(larch::test::relative_max_difference(n * n, &result[offset], &oracle[offset]),
                  tolerance)
            << "item " << item << " (" << n << "x" << n << "), seed " << seed;
        EXPECT_LE(larch::test::identity_defect(n, &values[offset], &result[offset]), tolerance)
            << "item " << item;
    }
    // in place gives the same as out of place
    auto in_place = a->clone_to(exec);
    larch::batch::invert(*in_place);
    EXPECT_EQ(in_place->copy_to_host(), result);
}

TEST_P(BatchDense, InvertsRandomVariableSizeBatchesLikeReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_inversion<float>(exec);
    check_inversion<double>(exec);
}

template <typename T>
void check_gauss_huard(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    auto a = random_batch<T>(exec);
    std::mt19937 rng{seed + 1};
    std::vector<size_type> rows;
    for (const auto& size : a->get_layout().get_sizes()) {
        rows.push_back(size.rows);
    }
    std::vector<dim2> vector_sizes;
    for (auto r : rows) {
        vector_sizes.emplace_back(r, 3);
    }
    auto b = Vector<T>::create(exec, rows, 3, larch::test::random_values<T>(rng, vector_sizes));
    const auto cond = reference_cond(*a);
    for (auto storage : {larch::batch::GaussHuardStorage::plain,
                         larch::batch::GaussHuardStorage::transposed}) {
        auto gh = larch::batch::GaussHuard<T>::build().with_storage(storage).on(exec)->generate(a);
        auto gh_ref =
            larch::batch::GaussHuard<T>::build().with_storage(storage).on(ref)->generate(a);
        auto x = Vector<T>::create_with_layout_of(exec, *b);
        auto x_ref = Vector<T>::create_with_layout_of(ref, *b);
        gh->solve(*b, *x);
        gh_ref->solve(*b->clone_to(ref), *x_ref);
        auto residual = Vector<T>::create_with_layout_of(ref, *b);
        a->clone_to(ref)->apply(*x->clone_to(ref), *residual);
        EXPECT_EQ(gh->get_info().copy_to_host(), gh_ref->get_info().copy_to_host());
        const auto& layout = b->get_layout();
        const auto bh = b->copy_to_host();
        const auto xh = x->copy_to_host();
        const auto xr = x_ref->copy_to_host();
        const auto rh = residual->copy_to_host();
        for (size_type item = 0; item < a->get_num_items(); ++item) {
            const auto n = rows[item];
            const auto begin = layout.get_offset(item);
            const auto count = n * 3;
            // Gauss-Huard with column pivoting is backward stable like LU: the residual is
            // n * eps * ||A|| ||x|| up to a small constant; x itself is accurate to n * eps * cond.
            double residual_norm = 0;
            double x_norm = 0;
            for (size_type i = 0; i < count; ++i) {
                residual_norm = std::max(residual_norm, std::abs(double(rh[begin + i] - bh[begin + i])));
                x_norm = std::max(x_norm, std::abs(double(xh[begin + i])));
            }
            EXPECT_LE(residual_norm, 8 * n * n * eps<T>() * x_norm) << "item " << item;
            EXPECT_LE(larch::test::relative_max_difference(count, &xh[begin], &xr[begin]),
                      8 * n * eps<T>() * cond[item])
                << "item " << item << ", seed " << seed;
        }
    }
}

TEST_P(BatchDense, GaussHuardSolvesRandomVariableSizeBatchesInBothStorages)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_gauss_huard<float>(exec);
    check_gauss_huard<double>(exec);
}

/// Regular items around singular ones ([[1, 2], [2, 4]] fails at step 2, a NaN item and a zero item at step
/// 1): a failed item's pivots are still a permutation of its columns, so the solve writes inside that item
/// (it wrote x at garbage pivots past the failing step: a segmentation fault) and its neighbours keep their
/// solutions.
template <typename T>
void check_gauss_huard_with_singular_items(const std::shared_ptr<const larch::Executor>& exec)
{
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const std::vector<dim2> sizes{dim2{2}, dim2{2}, dim2{3}, dim2{4}, dim2{1}};
    std::vector<T> values{2, 1, 1, 2, 1, 2, 2, 4, 1, nan, 0, 0, 1, 0, 0, 0, 1, 1};
    values.insert(values.end() - 1, 16, T{0});
    const auto a = larch::share(Dense<T>::create(exec, sizes, values));
    for (auto storage : {larch::batch::GaussHuardStorage::plain, larch::batch::GaussHuardStorage::transposed}) {
        auto gauss_huard = larch::batch::GaussHuard<T>::build().with_storage(storage).on(exec)->generate(a);
        EXPECT_EQ(gauss_huard->get_info().copy_to_host(), (std::vector<std::int32_t>{0, 2, 1, 1, 0}));
        const auto pivots = gauss_huard->get_pivots().copy_to_host();
        for (size_type item = 0; item < sizes.size(); ++item) {
            const auto first = a->get_layout().get_row_offset(item);
            std::vector<std::int32_t> item_pivots(pivots.begin() + first, pivots.begin() + first + sizes[item].rows);
            std::sort(item_pivots.begin(), item_pivots.end());
            for (size_type k = 0; k < item_pivots.size(); ++k) {
                EXPECT_EQ(item_pivots[k], static_cast<std::int32_t>(k)) << "item " << item;
            }
        }
        const std::vector<size_type> rows{2, 2, 3, 4, 1};
        auto b = Vector<T>::create(exec, rows, 2, std::vector<T>(24, T{3}));
        auto x = Vector<T>::create_with_layout_of(exec, *b);
        gauss_huard->solve(*b, *x);
        // [[2, 1], [1, 2]] x = (3, 3) and 1 x = 3, in both columns
        const auto first_item = x->copy_item_to_host(0);
        for (const auto value : first_item) {
            EXPECT_NEAR(value, T{1}, 4 * eps<T>());
        }
        EXPECT_EQ(x->copy_item_to_host(4), (std::vector<T>{3, 3}));
    }
}

TEST_P(BatchDense, GaussHuardSolveWithSingularItemsWritesOnlyInsideThem)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_gauss_huard_with_singular_items<float>(exec);
    check_gauss_huard_with_singular_items<double>(exec);
}

template <typename T>
void check_norms_and_cond(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    auto a = random_batch<T>(exec);
    // rectangular items for the norms
    std::mt19937 rng{seed + 2};
    std::vector<dim2> rect_sizes{dim2{1, 40}, dim2{33, 2}, dim2{5, 7}, dim2{64, 64}, dim2{3, 1}};
    auto rect = Dense<T>::create(exec, rect_sizes, larch::test::random_values<T>(rng, rect_sizes));
    for (const Dense<T>* batch : {a.get(), rect.get()}) {
        const auto norms = larch::batch::compute_infinity_norms(*batch).copy_to_host();
        const auto expected =
            larch::batch::compute_infinity_norms(*batch->clone_to(ref)).copy_to_host();
        for (size_type item = 0; item < norms.size(); ++item) {
            // a sum of cols nonnegative terms in another order: cols * eps relative
            const double cols = double(batch->get_item_size(item).cols);
            EXPECT_NEAR(norms[item], expected[item], cols * eps<T>() * expected[item]) << item;
        }
    }
    const auto expected = reference_cond(*a);
    for (auto algorithm :
         {larch::batch::CondAlgorithm::fused, larch::batch::CondAlgorithm::composed}) {
        for (bool keep : {false, true}) {
            auto cond = larch::batch::CondEstimator<T>::build()
                            .with_algorithm(algorithm)
                            .with_keep_inverse(keep)
                            .on(exec)
                            ->generate(a);
            const auto numbers = cond->get_condition_numbers().copy_to_host();
            EXPECT_EQ(cond->has_inverse(), keep);
            for (size_type item = 0; item < numbers.size(); ++item) {
                const double n = double(a->get_item_size(item).rows);
                EXPECT_NEAR(numbers[item], expected[item], 8 * n * eps<T>() * expected[item] * expected[item])
                    << "item " << item << ", seed " << seed;
            }
        }
    }
}

TEST_P(BatchDense, NormsAndConditionNumbersMatchReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_norms_and_cond<float>(exec);
    check_norms_and_cond<double>(exec);
}

/// Items of every size class (1..32, and 40 past the register kernels), each once regular, once with one
/// NaN entry and once with one Inf entry in a middle row: the kernels must flag the non-finite items, leave
/// their neighbours alone and never hang (a NaN row sum used to split a Gauss-Jordan sub-warp at a barrier).
template <typename T>
void check_non_finite_entries(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    std::mt19937 rng{seed + 3};
    std::vector<dim2> sizes;
    for (const size_type n : {1, 2, 3, 5, 8, 13, 16, 17, 24, 31, 32, 40}) {
        for (int variant = 0; variant < 3; ++variant) {
            sizes.emplace_back(n);
        }
    }
    auto values = larch::test::random_values<T>(rng, sizes);
    auto host = Dense<T>::create(ref, sizes, values);
    // diagonally dominant, so that every regular item is well conditioned
    for (size_type item = 0; item < sizes.size(); ++item) {
        const auto n = sizes[item].rows;
        auto* a = host->get_values() + host->get_layout().get_offset(item);
        for (size_type r = 0; r < n; ++r) {
            a[r * n + r] += static_cast<T>(n);
        }
        const T special =
            item % 3 == 1 ? std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::infinity();
        if (item % 3 != 0) {
            a[(n / 2) * n + (n - 1) / 3] = special;
        }
    }
    const auto a = host->clone_to(exec);
    const auto info = larch::batch::invert(*a->clone_to(exec)).copy_to_host();
    const auto expected_info = larch::batch::invert(*host->clone_to(ref)).copy_to_host();
    auto gauss_huard = larch::batch::GaussHuard<T>::build().on(exec)->generate(a);
    const auto gh_info = gauss_huard->get_info().copy_to_host();
    const auto norms = larch::batch::compute_infinity_norms(*a).copy_to_host();
    const auto cond =
        larch::batch::CondEstimator<T>::build().on(exec)->generate(a)->get_condition_numbers().copy_to_host();
    for (size_type item = 0; item < sizes.size(); ++item) {
        SCOPED_TRACE("item " + std::to_string(item) + " of order " + std::to_string(sizes[item].rows));
        if (item % 3 == 0) {
            EXPECT_EQ(info[item], 0);
            EXPECT_EQ(gh_info[item], 0);
            EXPECT_TRUE(std::isfinite(norms[item]));
            EXPECT_TRUE(std::isfinite(cond[item]));
        } else {
            EXPECT_NE(info[item], 0);
            EXPECT_NE(expected_info[item], 0);
            EXPECT_NE(gh_info[item], 0);
            EXPECT_FALSE(std::isfinite(cond[item]));
            if (item % 3 == 1) {
                EXPECT_TRUE(std::isnan(norms[item]));
            } else {
                EXPECT_EQ(norms[item], std::numeric_limits<T>::infinity());
            }
        }
    }
}

TEST_P(BatchDense, ItemsWithANanOrInfEntryAreFlaggedWithoutDisturbingTheOthers)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_non_finite_entries<float>(exec);
    check_non_finite_entries<double>(exec);
}

template <typename T>
void check_subnormal_items(const std::shared_ptr<const larch::Executor>& exec)
{
    auto ref = larch::make_executor("reference");
    // diag(s) of orders 1, 3 and 32 with s subnormal: 1 / s overflows, so each is numerically singular; a
    // regular item of order 3 between them keeps its result
    const T subnormal = std::numeric_limits<T>::denorm_min() * 1000;
    const std::vector<dim2> sizes{dim2{1}, dim2{3}, dim2{3}, dim2{32}};
    auto host = Dense<T>::create(ref, sizes);
    std::fill(host->get_values(), host->get_values() + host->get_layout().get_num_elements(), T{});
    for (size_type item = 0; item < sizes.size(); ++item) {
        const auto n = sizes[item].rows;
        for (size_type r = 0; r < n; ++r) {
            host->get_values()[host->get_layout().get_offset(item) + r * n + r] = item == 2 ? T{2} : subnormal;
        }
    }
    const auto a = host->clone_to(exec);
    const auto info = larch::batch::invert(*a->clone_to(exec)).copy_to_host();
    const auto gh_info = larch::batch::GaussHuard<T>::build().on(exec)->generate(a)->get_info().copy_to_host();
    const auto cond =
        larch::batch::CondEstimator<T>::build().on(exec)->generate(a)->get_condition_numbers().copy_to_host();
    for (size_type item = 0; item < sizes.size(); ++item) {
        SCOPED_TRACE("item " + std::to_string(item));
        if (item == 2) {
            EXPECT_EQ(info[item], 0);
            EXPECT_EQ(gh_info[item], 0);
            EXPECT_EQ(cond[item], T{1});
        } else {
            EXPECT_EQ(info[item], 1);
            EXPECT_EQ(gh_info[item], 1);
            EXPECT_FALSE(std::isfinite(cond[item]));
        }
    }
}

TEST_P(BatchDense, ItemsOfSubnormalEntriesAreFlaggedInsteadOfInvertedToInf)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_subnormal_items<float>(exec);
    check_subnormal_items<double>(exec);
}

/// Diagonal blocks of sizes cycling through 1..32 (and 40, 64) of a real matrix, densified.
std::unique_ptr<Dense<double>> diagonal_blocks(const std::string& path,
                                               std::shared_ptr<const larch::Executor> exec)
{
    auto data = larch::io::read_matrix_market_data<double, std::int32_t>(path);
    const size_type n = std::min(data.size.rows, data.size.cols);
    const std::vector<size_type> cycle{1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 31, 32, 40, 64};
    std::vector<size_type> starts;
    std::vector<dim2> sizes;
    for (size_type start = 0, i = 0; start < n; ++i) {
        const auto size = std::min(cycle[i % cycle.size()], n - start);
        starts.push_back(start);
        sizes.emplace_back(size);
        start += size;
    }
    auto host = Dense<double>::create(larch::make_executor("reference"), sizes);
    std::fill(host->get_values(), host->get_values() + host->get_layout().get_num_elements(), 0.0);
    size_type block = 0;
    data.sort_row_major();
    for (const auto& e : data.entries) {
        const auto r = static_cast<size_type>(e.row);
        const auto c = static_cast<size_type>(e.col);
        while (block + 1 < starts.size() && starts[block + 1] <= r) {
            ++block;
        }
        const auto size = sizes[block].rows;
        if (r < n && c >= starts[block] && c < starts[block] + size) {
            host->get_values()[host->get_layout().get_offset(block) +
                               (r - starts[block]) * size + (c - starts[block])] += e.value;
        }
    }
    return host->clone_to(exec);
}

TEST_P(BatchDense, ConditionNumbersOfDiagonalBlocksOfRealMatricesMatchReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const std::filesystem::path dir{LARCH_MATRICES_DIR};
    if (!std::filesystem::is_directory(dir)) {
        GTEST_SKIP() << "no matrix directory " << dir << "; real-matrix blocks not tested";
    }
    for (const std::string name : {"494_bus.mtx", "add32.mtx", "bayer10.mtx"}) {
        if (!std::filesystem::exists(dir / name)) {
            std::cout << "[ SKIPPED  ] " << name << " not in " << dir << "\n";
            continue;
        }
        auto a = diagonal_blocks((dir / name).string(), exec);
        auto cond = larch::batch::CondEstimator<double>::build().on(exec)->generate(a);
        const auto numbers = cond->get_condition_numbers().copy_to_host();
        const auto expected = reference_cond(*a);
        for (size_type item = 0; item < numbers.size(); ++item) {
            const double n = double(a->get_item_size(item).rows);
            if (std::isinf(expected[item]) || std::isinf(numbers[item])) {
                // one backend may call a block singular that the other finds barely regular: then
                // the finite value must be at the rounding level, >= 1 / (100 n eps)
                const double finite = std::isinf(expected[item]) ? numbers[item] : expected[item];
                EXPECT_TRUE(std::isinf(finite) || finite >= 0.01 / (n * eps<double>()))
                    << name << " block " << item;
                continue;
            }
            EXPECT_NEAR(numbers[item], expected[item], 8 * n * eps<double>() * expected[item] * expected[item])
                << name << " block " << item;
        }
    }
}

/// Anzt et al. 2018 (batched condition numbers), Figure 3: relative error of cond_inf against a long double
/// oracle, sizes 1..32.
template <typename T>
void check_cond_accuracy(const std::shared_ptr<const larch::Executor>& exec)
{
    std::mt19937 rng{seed + 3};
    constexpr size_type samples = 100;
    for (size_type n = 1; n <= 32; ++n) {
        const std::vector<dim2> sizes(samples, dim2{n});
        const auto values = larch::test::random_values<T>(rng, sizes);
        auto a = Dense<T>::create(exec, sizes, values);
        const auto cond = larch::batch::CondEstimator<T>::build().on(exec)->generate(a)
                              ->get_condition_numbers()
                              .copy_to_host();
        double mean_error = 0;
        for (size_type item = 0; item < samples; ++item) {
            std::vector<long double> item_values(values.begin() + item * n * n,
                                                 values.begin() + (item + 1) * n * n);
            std::vector<long double> inverse(n * n);
            std::vector<long double> work;
            ASSERT_EQ(larch::batch::item::invert(n, item_values.data(), inverse.data(), work), 0);
            const long double exact = larch::batch::item::infinity_norm(n, n, item_values.data()) *
                                      larch::batch::item::infinity_norm(n, n, inverse.data());
            const double error = double(std::abs((cond[item] - exact) / exact));
            // Bound: ||A||_inf is exact to n eps; the computed inverse X satisfies
            // ||X - A^-1|| <= c n eps cond(A) ||A^-1|| (forward stability of inversion with partial
            // pivoting), so |cond_hat - cond| / cond <= n eps (1 + c cond(A)); c = 4 covers the
            // growth of random matrices.
            const double bound = n * eps<T>() * (1 + 4 * double(exact));
            EXPECT_LE(error, bound) << "n = " << n << ", item " << item << ", cond " << double(exact);
            mean_error += error / samples;
        }
        ::testing::Test::RecordProperty("mean_relative_error_" + std::string{larch::type_name<T>()} + "_n" +
                           std::to_string(n),
                       std::to_string(mean_error));
    }
}

TEST_P(BatchDense, ConditionNumbersAreAccurateToTheirPrecision)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_cond_accuracy<float>(exec);
    check_cond_accuracy<double>(exec);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BatchDense,
                         ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
