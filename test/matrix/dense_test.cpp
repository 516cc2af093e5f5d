// matrix::Dense on every executor: creation, views, BLAS-1, GEMM and transpose with hand-checked values
// (small integers, exact in any order of operations), the same operations against the reference
// executor on random inputs, and the errors of bad operands.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::dim2;
using larch::size_type;
using larch::matrix::Dense;

class DenseOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

template <typename V>
void check_creation(const std::shared_ptr<const larch::Executor>& exec)
{
    auto a = Dense<V>::create(exec, {{1, 2, 3}, {4, 5, 6}});
    EXPECT_EQ(a->get_size(), dim2(2, 3));
    EXPECT_EQ(a->get_stride(), 3u);
    larch::test::expect_dense_eq({{1, 2, 3}, {4, 5, 6}}, *a);

    auto column = Dense<V>::create(exec, {{1}, {2}});
    EXPECT_EQ(column->get_size(), dim2(2, 1));

    larch::matrix_data<V> data{dim2{2, 2}, {{0, 1, 2}, {1, 0, 3}, {0, 1, 5}}};
    larch::test::expect_dense_eq({{0, 7}, {3, 0}}, *Dense<V>::create(exec, data));

    auto strided = Dense<V>::create(exec, dim2{2, 2}, 5);
    EXPECT_EQ(strided->get_stride(), 5u);
    strided->fill(4);
    larch::test::expect_dense_eq({{4, 4}, {4, 4}}, *strided);
    EXPECT_EQ(Dense<V>::create(exec)->get_size(), dim2(0, 0));
}

TEST_P(DenseOnEveryExecutor, CreatesFromRowsDataAndSizes)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_creation<float>(exec);
    check_creation<double>(exec);
}

template <typename V>
void check_views(const std::shared_ptr<const larch::Executor>& exec)
{
    auto a = Dense<V>::create(exec, {{1, 2, 3}, {4, 5, 6}});
    auto middle = a->create_column_view(1);
    EXPECT_EQ(middle->get_size(), dim2(2, 1));
    larch::test::expect_dense_eq({{2}, {5}}, *middle);
    middle->scale(10);
    larch::test::expect_dense_eq({{1, 20, 3}, {4, 50, 6}}, *a);
    auto last_two = a->create_columns_view(1, 2);
    last_two->fill(0);
    larch::test::expect_dense_eq({{1, 0, 0}, {4, 0, 0}}, *a);
    const Dense<V>& const_a = *a;
    larch::test::expect_dense_eq({{1}, {4}}, *const_a.create_const_column_view(0));
    // A view's copy is compact and independent of the viewed matrix.
    auto copy = a->create_column_view(0)->clone_dense(exec);
    a->fill(9);
    larch::test::expect_dense_eq({{1}, {4}}, *copy);
}

TEST_P(DenseOnEveryExecutor, ColumnViewsShareTheMatrixMemory)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_views<float>(exec);
    check_views<double>(exec);
}

template <typename V>
void check_blas1(const std::shared_ptr<const larch::Executor>& exec)
{
    auto x = Dense<V>::create(exec, {{1, 2}, {3, 4}});
    auto b = Dense<V>::create(exec, {{5, 6}, {7, 8}});
    x->scale(2);
    larch::test::expect_dense_eq({{2, 4}, {6, 8}}, *x);
    x->add_scaled(-1, *b);
    larch::test::expect_dense_eq({{-3, -2}, {-1, 0}}, *x);
    x->scale_add(3, *b);
    larch::test::expect_dense_eq({{-4, 0}, {4, 8}}, *x);
    x->copy_from(*b);
    larch::test::expect_dense_eq({{5, 6}, {7, 8}}, *x);
    // Column 0: 5 * 1 + 7 * 3 = 26, column 1: 6 * 2 + 8 * 4 = 44.
    auto y = Dense<V>::create(exec, {{1, 2}, {3, 4}});
    EXPECT_EQ(x->compute_dot(*y), (std::vector<V>{26, 44}));
    // 3-4-5 and 5-12-13 triangles: exact square roots.
    auto z = Dense<V>::create(exec, {{3, 5}, {4, 12}});
    EXPECT_EQ(z->compute_norm2(), (std::vector<V>{5, 13}));
    larch::test::expect_dense_eq({{3, 4}, {5, 12}}, *z->transpose());
    auto wide = Dense<V>::create(exec, {{1, 2, 3}});
    larch::test::expect_dense_eq({{1}, {2}, {3}}, *wide->transpose());
    // combine: (2 b - y) + 3 c, e.g. (2 * 5 - 1) + 3 * 1 = 12; with gamma = 0 a NaN in c is not read.
    auto c = Dense<V>::create(exec, {{1, 2}, {3, 4}});
    c->combine(2, *b, -1, *y, 3);
    larch::test::expect_dense_eq({{12, 16}, {20, 24}}, *c);
    c->fill(std::numeric_limits<V>::quiet_NaN());
    c->combine(1, *b, 1, *y, 0);
    larch::test::expect_dense_eq({{6, 8}, {10, 12}}, *c);
    EXPECT_THROW(c->combine(1, *b, 1, *wide, 1), larch::DimensionMismatch);
}

TEST_P(DenseOnEveryExecutor, Blas1OperationsGiveExactValues)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_blas1<float>(exec);
    check_blas1<double>(exec);
}

template <typename V>
void check_per_column_scalars(const std::shared_ptr<const larch::Executor>& exec)
{
    // A strided x (stride 4 for 3 columns), so that a kernel indexing by column without the stride fails.
    auto x = Dense<V>::create(exec, dim2{2, 3}, 4);
    x->copy_from(*Dense<V>::create(exec, {{1, 2, 3}, {4, 5, 6}}));
    auto b = Dense<V>::create(exec, {{1, 1, 1}, {2, 2, 2}});
    larch::array<V> alphas{exec, {2, 0, -1}};
    x->scale(alphas);
    larch::test::expect_dense_eq({{2, 0, -3}, {8, 0, -6}}, *x);
    x->add_scaled(alphas, *b);
    larch::test::expect_dense_eq({{4, 0, -4}, {12, 0, -8}}, *x);
}

TEST_P(DenseOnEveryExecutor, PerColumnScalarsGiveExactValues)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_per_column_scalars<float>(exec);
    check_per_column_scalars<double>(exec);
}

template <typename V>
void check_norm2_edge_cases(const std::shared_ptr<const larch::Executor>& exec)
{
    // Squaring 3e30 (float) or 3e200 (double) overflows; the scaled norm does not.
    const V huge = std::is_same<V, float>::value ? V(1e30) : V(1e200);
    auto a = Dense<V>::create(exec, {{3 * huge, 0, 1}, {4 * huge, 0, 0}});
    const auto norms = a->compute_norm2();
    EXPECT_NEAR(norms[0] / huge, V{5}, 4 * std::numeric_limits<V>::epsilon());
    EXPECT_EQ(norms[1], V{0});
    EXPECT_EQ(norms[2], V{1});
    const auto nan = std::numeric_limits<V>::quiet_NaN();
    const auto inf = std::numeric_limits<V>::infinity();
    auto special = Dense<V>::create(exec, {{nan, inf, 0}, {1, 2, nan}});
    const auto special_norms = special->compute_norm2();
    EXPECT_TRUE(std::isnan(special_norms[0]));
    EXPECT_EQ(special_norms[1], inf);
    EXPECT_TRUE(std::isnan(special_norms[2]));
}

TEST_P(DenseOnEveryExecutor, Norm2NeitherOverflowsNorHidesNaN)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_norm2_edge_cases<float>(exec);
    check_norm2_edge_cases<double>(exec);
}

template <typename V>
void check_gemm(const std::shared_ptr<const larch::Executor>& exec)
{
    auto a = Dense<V>::create(exec, {{1, 2}, {3, 4}, {5, 6}});
    auto b = Dense<V>::create(exec, {{1, 0, 2}, {-1, 1, 0}});
    auto x = Dense<V>::create(exec, dim2{3, 3});
    x->fill(std::numeric_limits<V>::quiet_NaN());
    a->apply(b, x);
    larch::test::expect_dense_eq({{-1, 2, 2}, {-1, 4, 6}, {-1, 6, 10}}, *x);
    // x = 2 A b - x
    a->apply(2.0, b, -1.0, x);
    larch::test::expect_dense_eq({{-1, 2, 2}, {-1, 4, 6}, {-1, 6, 10}}, *x);
    a->apply(1.0, b, 1.0, x);
    larch::test::expect_dense_eq({{-2, 4, 4}, {-2, 8, 12}, {-2, 12, 20}}, *x);
}

TEST_P(DenseOnEveryExecutor, GemmGivesExactValuesAndIgnoresNaNWhenBetaIsZero)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_gemm<float>(exec);
    check_gemm<double>(exec);
}

TEST_P(DenseOnEveryExecutor, GemmHandlesMoreColumnsThanAGridDimensionHolds)
{
    // GMRES updates x (1 x n) from its basis; n = 2^21 columns are 131,072 tiles of 16, more than the
    // 65,535 blocks of a CUDA grid's second dimension. Small integers keep the products exact.
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const size_type n = size_type{1} << 21;
    auto a = Dense<double>::create(exec, {{2.0, 3.0}});
    std::vector<double> b_values(2 * n);
    for (size_type j = 0; j < n; ++j) {
        b_values[j] = static_cast<double>(j % 7);
        b_values[n + j] = static_cast<double>(j % 5);
    }
    auto b = Dense<double>::create(
        exec, dim2{2, n}, larch::array<double>{exec, b_values.begin(), b_values.end()}, n);
    auto c = Dense<double>::create(exec, dim2{1, n});
    a->apply(b, c);
    const auto result = c->copy_to_host();
    for (size_type j = 0; j < n; ++j) {
        ASSERT_EQ(result[j], 2.0 * static_cast<double>(j % 7) + 3.0 * static_cast<double>(j % 5))
            << "column " << j;
    }
}

TEST_P(DenseOnEveryExecutor, HandlesEmptyAndOneByOneMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto empty = Dense<double>::create(exec, dim2{0, 0});
    auto empty_x = Dense<double>::create(exec, dim2{0, 0});
    empty->apply(empty, empty_x);
    EXPECT_TRUE(empty->compute_norm2().empty());
    auto no_rows = Dense<double>::create(exec, dim2{0, 2});
    EXPECT_EQ(no_rows->compute_norm2(), (std::vector<double>{0, 0}));
    EXPECT_EQ(no_rows->compute_dot(*no_rows), (std::vector<double>{0, 0}));
    EXPECT_EQ(no_rows->transpose()->get_size(), dim2(2, 0));
    auto one = Dense<double>::create(exec, {{-3}});
    auto x = Dense<double>::create(exec, {{2}});
    one->apply(one, x);
    larch::test::expect_dense_eq({{9.0}}, *x);
    EXPECT_EQ(one->compute_norm2(), (std::vector<double>{3}));
}

template <typename V>
void check_random_against_reference(const std::shared_ptr<const larch::Executor>& exec,
                                    std::uint32_t seed, size_type cols, size_type padding, size_type rows = 257)
{
    using larch::test::gamma;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", rows padded by " +
                 std::to_string(padding));
    const auto reference = larch::make_executor("reference");
    const dim2 size{rows, cols};
    const auto x_host = larch::test::generate_random_values<V>(size, seed);
    const auto b_host = larch::test::generate_random_values<V>(size, seed + 1);
    std::vector<std::vector<V>> updated;
    std::vector<std::vector<V>> dots;
    std::vector<std::vector<V>> norms;
    for (const auto& on : {reference, exec}) {
        SCOPED_TRACE("executor " + on->get_name());
        auto x = larch::test::create_dense(on, size, x_host, cols + padding);
        auto b = larch::test::create_dense(on, size, b_host, cols + 2 * padding);
        x->add_scaled(V(0.75), *b);
        x->scale_add(V(-0.5), *b);
        x->scale(V(1.25));
        updated.push_back(x->copy_to_host());
        dots.push_back(x->compute_dot(*b));
        norms.push_back(x->compute_norm2());
        std::vector<V> transposed(updated.back().size());
        for (size_type row = 0; row < size.rows; ++row) {
            for (size_type col = 0; col < size.cols; ++col) {
                transposed[col * size.rows + row] = updated.back()[row * size.cols + col];
            }
        }
        larch::test::expect_values_eq(transposed, x->transpose()->copy_to_host(),
                                      dim2{size.cols, size.rows});
    }
    // Each entry goes through three updates of at most two roundings each; FMA contraction on one
    // backend and not on the other changes the rounding, not the bound of gamma_6 times the magnitudes.
    std::vector<double> magnitude(updated[0].size());
    for (size_type i = 0; i < magnitude.size(); ++i) {
        magnitude[i] = 2 * (std::abs(x_host[i]) + std::abs(b_host[i]));
    }
    larch::test::expect_near_entrywise(updated[0], updated[1], magnitude, 2 * gamma<V>(6), size);
    // A dot product of n terms in another order: within 2 gamma_n sum |x_i b_i| <= 2 gamma_n n max.
    std::vector<double> dot_magnitude(size.cols);
    for (size_type col = 0; col < size.cols; ++col) {
        for (size_type row = 0; row < size.rows; ++row) {
            dot_magnitude[col] += std::abs(static_cast<double>(updated[0][row * size.cols + col]) *
                                           b_host[row * size.cols + col]);
        }
    }
    larch::test::expect_near_entrywise(dots[0], dots[1], dot_magnitude,
                                       2 * gamma<V>(size.rows), dim2{1, size.cols});
    // The norms' relative error is that of the sum of squares (n terms), the scaling and the root.
    std::vector<double> norm_magnitude(norms[0].begin(), norms[0].end());
    larch::test::expect_near_entrywise(norms[0], norms[1], norm_magnitude,
                                       2 * gamma<V>(size.rows + 3), dim2{1, size.cols});
}

TEST_P(DenseOnEveryExecutor, Blas1MatchesReferenceOnRandomStridedMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 1 column, powers of two (read as row-major pairs on GPUs) and others, contiguous and strided rows.
    for (const size_type cols : {1, 2, 3, 8, 32, 33}) {
        for (const size_type padding : {0, 1}) {
            check_random_against_reference<float>(exec, 11, cols, padding);
            check_random_against_reference<double>(exec, 12, cols, padding);
        }
    }
}

TEST_P(DenseOnEveryExecutor, LongColumnReductionsMatchReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Columns longer than a GPU reduces in one block: a grid of blocks per column whose last block combines
    // the partial results, with more columns than the grid has rows (1100) once. Each size twice, so that
    // the second call finds the GPU's tickets left as the first should leave them.
    for (const size_type cols : {1, 3, 8, 33}) {
        for (int call = 0; call < 2; ++call) {
            check_random_against_reference<double>(exec, 13, cols, 1, 5000);
        }
    }
    check_random_against_reference<float>(exec, 14, 1100, 0, 4500);
    check_random_against_reference<double>(exec, 15, 1100, 0, 4500);
}

TEST_P(DenseOnEveryExecutor, ReductionsWithAReusedWorkspaceEqualTheAllocatingOnes)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<double> workspace{exec};
    // a small reduction first, then a larger one that needs the workspace enlarged, then the small one again
    for (const auto size : {dim2{100, 2}, dim2{70000, 3}, dim2{100, 2}}) {
        SCOPED_TRACE("size " + larch::to_string(size));
        auto a = larch::test::create_dense(exec, size, larch::test::generate_random_values<double>(size, 41), 4);
        auto b = larch::test::create_dense(exec, size, larch::test::generate_random_values<double>(size, 42), 3);
        larch::array<double> result{exec, size.cols};
        a->compute_dot(*b, result, workspace);
        EXPECT_EQ(result.copy_to_host(), a->compute_dot(*b));
        a->compute_norm2(result, workspace);
        EXPECT_EQ(result.copy_to_host(), a->compute_norm2());
    }
    auto a = Dense<double>::create(exec, {{1}, {2}});
    larch::array<double> result{exec, 1};
    auto view = larch::array<double>::view(exec, 1, result.get_data());
    EXPECT_THROW(a->compute_norm2(result, view), larch::NotSupported);
}

TEST_P(DenseOnEveryExecutor, GemmMatchesReferenceOnRandomMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Dense matrices are made from random sparse data with every row full (and one with empty rows).
    const larch::test::random_sparsity full{64, 64, 0.0, 0.0};
    const larch::test::random_sparsity holes{0, 10, 0.3, 0.1};
    for (const auto size : {dim2{1, 1}, dim2{40, 40}, dim2{65, 17}, dim2{9, 70}}) {
        SCOPED_TRACE("size " + larch::to_string(size));
        for (const auto& test_case : larch::test::standard_apply_cases(21)) {
            larch::test::expect_apply_matches_reference<Dense<float>>(
                exec, larch::test::generate_random_matrix_data<float>(size, full, 31), test_case);
            larch::test::expect_apply_matches_reference<Dense<double>>(
                exec, larch::test::generate_random_matrix_data<double>(size, holes, 32), test_case);
        }
    }
}

TEST_P(DenseOnEveryExecutor, CopiesAndClonesToAndFromTheReferenceExecutor)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto reference = larch::make_executor("reference");
    auto on_reference = Dense<double>::create(reference, {{1, 2}, {3, 4}});
    auto on_exec = Dense<double>::create(exec, dim2{2, 2}, 3);
    on_exec->copy_from(*on_reference);
    larch::test::expect_dense_eq(*on_reference, *on_exec);
    auto back = on_exec->clone_to(reference);
    EXPECT_EQ(back->get_executor(), reference);
    larch::test::expect_dense_eq(*on_reference, dynamic_cast<Dense<double>&>(*back));
    auto column_back = on_exec->create_column_view(1)->clone_dense(reference);
    larch::test::expect_dense_eq({{2.0}, {4.0}}, *column_back);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, DenseOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

using larch::test::error_message_of;
using larch::test::expect_contains;

TEST(DenseErrors, SizeMismatchNamesBothOperandsAndSizes)
{
    auto exec = larch::make_executor("reference");
    auto a = Dense<double>::create(exec, dim2{3, 2});
    auto b = Dense<double>::create(exec, dim2{3, 1});
    EXPECT_THROW(a->add_scaled(1.0, *b), larch::DimensionMismatch);
    const auto message = error_message_of([&] { a->add_scaled(1.0, *b); });
    expect_contains(message, "Dense<double>::add_scaled: b is 3x1 but this matrix is 3x2");
    EXPECT_THROW(a->compute_dot(*b), larch::DimensionMismatch);
    EXPECT_THROW(a->copy_from(*b), larch::DimensionMismatch);
    larch::array<double> three_alphas{exec, 3};
    expect_contains(error_message_of([&] { a->scale(three_alphas); }),
                    "Dense<double>::scale: the alphas array has 3 entries but this matrix has 2 columns");
    EXPECT_THROW(a->add_scaled(three_alphas, *a), larch::DimensionMismatch);

    auto x = Dense<double>::create(exec, dim2{3, 1});
    const auto apply_message = error_message_of([&] { a->apply(b, x); });
    expect_contains(apply_message, "has 3 rows but the operator (3x2) has 2 columns");
    auto ok_b = Dense<double>::create(exec, dim2{2, 1});
    auto wrong_x = Dense<double>::create(exec, dim2{2, 1});
    EXPECT_THROW(a->apply(ok_b, wrong_x), larch::DimensionMismatch);
}

TEST(DenseErrors, ApplyRejectsOperandsOfAnotherTypeOrPrecision)
{
    auto exec = larch::make_executor("reference");
    auto a = Dense<double>::create(exec, {{1, 0}, {0, 1}});
    auto sparse_b = larch::matrix::Csr<double>::create(exec, dim2{2, 1});
    auto float_x = Dense<float>::create(exec, dim2{2, 1});
    auto b = Dense<double>::create(exec, {{1}, {2}});
    auto x = Dense<double>::create(exec, dim2{2, 1});
    EXPECT_THROW(a->apply(sparse_b, x), larch::NotSupported);
    EXPECT_THROW(a->apply(b, float_x), larch::NotSupported);
}

TEST(DenseErrors, RejectsFiniteDuplicatesWhoseSumOverflowsNamingThePosition)
{
    const auto exec = larch::make_executor("reference");
    // each value is finite, the sum of the two at (1, 0) is not; a given Inf is the caller's and passes
    const larch::matrix_data<double> data{dim2{2, 2}, {{1, 0, 1e308}, {0, 1, 1.0}, {1, 0, 1e308}}};
    expect_contains(error_message_of([&] { Dense<double>::create(exec, data); }),
                    "Dense::create: the duplicate entries at (1, 0) add up to a value too large for double");
    const double inf = std::numeric_limits<double>::infinity();
    const larch::matrix_data<double> given_inf{dim2{1, 1}, {{0, 0, inf}, {0, 0, 1.0}}};
    EXPECT_EQ(Dense<double>::create(exec, given_inf)->copy_to_host()[0], inf);
}

TEST(DenseErrors, BadCreationArgumentsThrowBadInput)
{
    auto exec = larch::make_executor("reference");
    const auto ragged = error_message_of([&] { Dense<double>::create(exec, {{1, 2}, {3}}); });
    expect_contains(ragged, "row 1 has 1 entries but row 0 has 2");
    EXPECT_THROW(Dense<double>::create(exec, dim2{2, 3}, 2), larch::BadInput);
    EXPECT_THROW(Dense<double>::create(exec, dim2{2, 3}, larch::array<double>{exec, 5}, 3),
                 larch::BadInput);
    larch::matrix_data<double> outside{dim2{2, 2}, {{2, 0, 1.0}}};
    EXPECT_THROW(Dense<double>::create(exec, outside), larch::BadInput);
    auto a = Dense<double>::create(exec, dim2{2, 2});
    EXPECT_THROW(a->create_column_view(2), larch::BadInput);
    EXPECT_THROW(a->create_columns_view(1, 2), larch::BadInput);
    // first + count wrapped around in the message ("columns [1, 0)")
    const auto huge =
        error_message_of([&] { a->create_columns_view(1, std::numeric_limits<larch::size_type>::max()); });
    expect_contains(huge, "18446744073709551615 columns from column 1 do not lie inside the 2 columns");
    EXPECT_THROW(a->at(2, 0), larch::BadInput);
}

TEST(Dense, NamesItsTypeAndConvertsToData)
{
    auto exec = larch::make_executor("reference");
    EXPECT_EQ(Dense<double>::create(exec)->get_type_name(), "Dense<double>");
    EXPECT_EQ(Dense<float>::create(exec)->get_type_name(), "Dense<float>");
    auto a = Dense<double>::create(exec, {{1, 0}, {0, 2}});
    EXPECT_EQ(a->at(1, 1), 2.0);
    const auto data = a->to_data();
    larch::test::expect_data_eq(larch::matrix_data<double>{dim2{2, 2},
                                                           {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 1, 2}}},
                                data);
}

}  // namespace
