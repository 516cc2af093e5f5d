// The classical Gram-Schmidt kernels of GMRES (projection on every basis vector, removal of the projection)
// on every executor: exact values on small integers, and random bases compared with long double sums.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/solver/gram_schmidt_kernels.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;

class GramSchmidtKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GramSchmidtKernels, ProjectAndSubtractGiveExactValuesOnIntegers)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<double> workspace{exec};
    // basis rows (1 0 2), (0 3 1); w = (4 5 6): coefficients 1*4 + 2*6 = 16 and 3*5 + 6 = 21;
    // w - 16 (1 0 2) - 21 (0 3 1) = (-12, -58, -47). The basis has a stride of 4 (NaN padding).
    auto basis = larch::test::create_dense<double>(exec, dim2{2, 3}, {1, 0, 2, 0, 3, 1}, 4);
    auto w = Dense::create(exec, {{4}, {5}, {6}});
    auto coefficients = Dense::create(exec, dim2{2, 1});
    LARCH_RUN_KERNEL(exec, gram_schmidt::project, *basis, *w, *coefficients, workspace);
    larch::test::expect_dense_eq({{16}, {21}}, *coefficients);
    LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *basis, *coefficients, *w);
    larch::test::expect_dense_eq({{-12}, {-58}, {-47}}, *w);
}

TEST_P(GramSchmidtKernels, ProjectOnABasisSharedByEveryColumn)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<double> workspace{exec};
    // basis rows (1 0 2), (0 3 1) for both columns of w = (4 5 6 | 1 1 1): (16, 21) and (3, 4).
    auto basis = larch::test::create_dense<double>(exec, dim2{2, 3}, {1, 0, 2, 0, 3, 1}, 4);
    auto w = Dense::create(exec, {{4, 1}, {5, 1}, {6, 1}});
    auto coefficients = Dense::create(exec, dim2{2, 2});
    LARCH_RUN_KERNEL(exec, gram_schmidt::project, *basis, *w, *coefficients, workspace);
    larch::test::expect_dense_eq({{16, 3}, {21, 4}}, *coefficients);
}

TEST_P(GramSchmidtKernels, MatchLongDoubleSumsOnARandomBasis)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<double> workspace{exec};
    constexpr std::uint32_t seed = 7;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    // 9,000 rows: more than two of the omp reduction's 4,096-row chunks, and many GPU blocks per vector.
    const dim2 size{5, 9000};
    const auto basis_host = larch::test::generate_random_values<double>(size, seed);
    const auto w_host = larch::test::generate_random_values<double>(dim2{size.cols, 1}, seed + 1);
    auto basis = larch::test::create_dense(exec, size, basis_host);
    auto w = larch::test::create_dense(exec, dim2{size.cols, 1}, w_host);
    auto coefficients = Dense::create(exec, dim2{size.rows, 1});
    LARCH_RUN_KERNEL(exec, gram_schmidt::project, *basis, *w, *coefficients, workspace);
    LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *basis, *coefficients, *w);
    const auto computed = coefficients->copy_to_host();
    const auto updated = w->copy_to_host();
    // Any summation order of n products is within n u sum |a_k b_k| of the exact sum (Higham, Accuracy and
    // Stability, 3.1); the update adds 5 products per entry, its bound is computed the same way.
    const double u = std::ldexp(1.0, -53);
    for (size_type i = 0; i < size.rows; ++i) {
        long double exact = 0, magnitude = 0;
        for (size_type k = 0; k < size.cols; ++k) {
            exact += static_cast<long double>(basis_host[i * size.cols + k]) * w_host[k];
            magnitude += std::abs(basis_host[i * size.cols + k] * w_host[k]);
        }
        EXPECT_NEAR(computed[i], static_cast<double>(exact), size.cols * u * static_cast<double>(magnitude))
            << "coefficient " << i;
    }
    for (size_type k = 0; k < size.cols; ++k) {
        long double exact = w_host[k], magnitude = std::abs(w_host[k]);
        for (size_type i = 0; i < size.rows; ++i) {
            exact -= static_cast<long double>(computed[i]) * basis_host[i * size.cols + k];
            magnitude += std::abs(computed[i] * basis_host[i * size.cols + k]);
        }
        ASSERT_NEAR(updated[k], static_cast<double>(exact), (size.rows + 1) * u * static_cast<double>(magnitude))
            << "entry " << k;
    }
}

TEST_P(GramSchmidtKernels, TreatEachOfSeveralColumnsAsAColumnAlone)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<double> workspace{exec};
    constexpr std::uint32_t seed = 9;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    // 3 columns (no power of two) and 9 basis vectors (two GPU chunks of 8); w with a stride above its width.
    const size_type n = 5000;
    const size_type cols = 3;
    const size_type count = 9;
    const auto basis_host = larch::test::generate_random_values<double>(dim2{count, n * cols}, seed);
    const auto w_host = larch::test::generate_random_values<double>(dim2{n, cols}, seed + 1);
    auto basis = larch::test::create_dense(exec, dim2{count, n * cols}, basis_host);
    auto w = larch::test::create_dense(exec, dim2{n, cols}, w_host, cols + 2);
    auto coefficients = Dense::create(exec, dim2{count, cols});
    LARCH_RUN_KERNEL(exec, gram_schmidt::project, *basis, *w, *coefficients, workspace);
    LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *basis, *coefficients, *w);
    const auto computed = coefficients->copy_to_host();
    const auto updated = w->copy_to_host();
    // Each column against the same kernels on that column alone (its basis rows gathered, w as n x 1): the
    // same value on reference and omp, the long double bound of the test above on every executor.
    const double u = std::ldexp(1.0, -53);
    for (size_type c = 0; c < cols; ++c) {
        SCOPED_TRACE("column " + std::to_string(c));
        std::vector<double> alone_basis(count * n);
        std::vector<double> alone_w(n);
        for (size_type k = 0; k < n; ++k) {
            alone_w[k] = w_host[k * cols + c];
            for (size_type i = 0; i < count; ++i) {
                alone_basis[i * n + k] = basis_host[i * n * cols + k * cols + c];
            }
        }
        auto basis_alone = larch::test::create_dense(exec, dim2{count, n}, alone_basis);
        auto w_alone = larch::test::create_dense(exec, dim2{n, 1}, alone_w);
        auto coefficients_alone = Dense::create(exec, dim2{count, 1});
        LARCH_RUN_KERNEL(exec, gram_schmidt::project, *basis_alone, *w_alone, *coefficients_alone, workspace);
        LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *basis_alone, *coefficients_alone, *w_alone);
        const auto computed_alone = coefficients_alone->copy_to_host();
        const auto updated_alone = w_alone->copy_to_host();
        const bool bitwise = GetParam() == "reference" || GetParam() == "omp";
        for (size_type i = 0; i < count; ++i) {
            long double exact = 0, magnitude = 0;
            for (size_type k = 0; k < n; ++k) {
                exact += static_cast<long double>(alone_basis[i * n + k]) * alone_w[k];
                magnitude += std::abs(alone_basis[i * n + k] * alone_w[k]);
            }
            EXPECT_NEAR(computed[i * cols + c], static_cast<double>(exact), n * u * static_cast<double>(magnitude))
                << "coefficient " << i;
            if (bitwise) {
                EXPECT_EQ(computed[i * cols + c], computed_alone[i]) << "coefficient " << i;
            }
        }
        for (size_type k = 0; k < n; ++k) {
            long double exact = alone_w[k], magnitude = std::abs(alone_w[k]);
            for (size_type i = 0; i < count; ++i) {
                exact -= static_cast<long double>(computed[i * cols + c]) * alone_basis[i * n + k];
                magnitude += std::abs(computed[i * cols + c] * alone_basis[i * n + k]);
            }
            ASSERT_NEAR(updated[k * cols + c], static_cast<double>(exact), (count + 1) * u * static_cast<double>(magnitude))
                << "entry " << k;
            if (bitwise) {
                ASSERT_EQ(updated[k * cols + c], updated_alone[k]) << "entry " << k;
            }
        }
    }
}

TEST_P(GramSchmidtKernels, NormalizeScalesColumnsAndClearsThoseWithAZeroFactor)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    const auto inf = std::numeric_limits<double>::infinity();
    auto v = larch::test::create_dense<double>(exec, dim2{2, 3}, {1, nan, 4, -2, inf, 8}, 4);
    const larch::array<double> factors{exec, {0.5, 0, 0.25}};
    LARCH_RUN_KERNEL(exec, gram_schmidt::normalize, factors, *v);
    larch::test::expect_dense_eq({{0.5, 0, 1}, {-1, 0, 2}}, *v);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, GramSchmidtKernels, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
