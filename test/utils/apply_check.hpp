// The backend test of every matrix format's apply: the same x = alpha A b + beta x on an executor and on
// the reference executor, each checked against the product computed on the host in double precision
// and against each other, within the rounding-error bound of the computation.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/random.hpp"

namespace larch {
namespace test {

/// One apply to test: right-hand sides, scalars, extra stride of b and x (padding), seed of b and x.
struct apply_case {
    size_type num_rhs = 1;
    double alpha = 1.0;
    double beta = 0.0;
    size_type padding = 0;
    std::uint32_t seed = 0;

    /// The plain apply(b, x) is used for alpha = 1, beta = 0; the four-argument one otherwise.
    bool is_plain() const { return alpha == 1.0 && beta == 0.0; }

    std::string describe() const
    {
        std::ostringstream text;
        text << num_rhs << " right-hand side(s), alpha " << alpha << ", beta " << beta
             << ", padding " << padding << ", " << seed_trace(seed);
        return text.str();
    }
};

/**
 * Checks Matrix::create(exec, data)->apply against the reference executor for one apply_case. b and x
 * are random; with beta == 0, x starts as NaN, which must not reach the result. Both results must lie
 * within gamma_k * (|alpha| |A| |b| + |beta| |x|) of the product computed in double on the host, where k
 * is the longest row plus the two roundings of the alpha/beta update (Higham, section 3.1), and so
 * within twice that of each other.
 */
template <typename Matrix, typename V, typename I>
void expect_apply_matches_reference(const std::shared_ptr<const Executor>& exec,
                                    const matrix_data<V, I>& data, const apply_case& test_case)
{
    SCOPED_TRACE(test_case.describe());
    const auto reference = make_executor("reference");
    const auto rows = data.size.rows;
    const auto cols = data.size.cols;
    const auto num_rhs = test_case.num_rhs;
    const dim2 b_size{cols, num_rhs};
    const dim2 x_size{rows, num_rhs};
    const auto b_host = generate_random_values<V>(b_size, test_case.seed);
    auto x_host = generate_random_values<V>(x_size, test_case.seed + 1);
    if (test_case.beta == 0.0) {
        std::fill(x_host.begin(), x_host.end(), std::numeric_limits<V>::quiet_NaN());
    }

    // The exact product (up to double rounding) and the magnitude its rounding error scales with.
    std::vector<double> exact(rows * num_rhs, 0.0);
    std::vector<double> magnitude(rows * num_rhs, 0.0);
    std::vector<size_type> row_nnz(rows, 0);
    for (const auto& e : data.entries) {
        ++row_nnz[e.row];
        for (size_type j = 0; j < num_rhs; ++j) {
            const auto term = static_cast<double>(e.value) * b_host[e.col * num_rhs + j];
            exact[e.row * num_rhs + j] += term;
            magnitude[e.row * num_rhs + j] += std::abs(term);
        }
    }
    size_type max_row_nnz = 0;
    for (size_type row = 0; row < rows; ++row) {
        max_row_nnz = std::max(max_row_nnz, row_nnz[row]);
    }
    std::vector<V> exact_in_v(exact.size());
    for (size_type i = 0; i < exact.size(); ++i) {
        const auto x_term =
            test_case.beta == 0.0 ? 0.0 : test_case.beta * static_cast<double>(x_host[i]);
        exact_in_v[i] = static_cast<V>(test_case.alpha * exact[i] + x_term);
        magnitude[i] = std::abs(test_case.alpha) * magnitude[i] + std::abs(x_term);
    }
    const auto tolerance = gamma<V>(max_row_nnz + 2);

    std::vector<std::vector<V>> results;
    for (const auto& on : {reference, exec}) {
        SCOPED_TRACE("executor " + on->get_name());
        const auto a = Matrix::create(on, data);
        const auto b = create_dense(on, b_size, b_host, num_rhs + test_case.padding);
        auto x = create_dense(on, x_size, x_host, num_rhs + test_case.padding);
        if (test_case.is_plain()) {
            a->apply(b, x);
        } else {
            a->apply(test_case.alpha, b, test_case.beta, x);
        }
        results.push_back(x->copy_to_host());
        // The conversion of the double result to V adds up to one unit roundoff of its magnitude.
        expect_near_entrywise(exact_in_v, results.back(), magnitude, tolerance + unit_roundoff<V>(),
                              x_size);
    }
    SCOPED_TRACE("executor " + exec->get_name() + " against reference");
    expect_near_entrywise(results[0], results[1], magnitude, 2 * tolerance, x_size);
}

/// The alpha/beta combinations every format's apply is tested with: plain, scaled, accumulating, and
/// beta == 0 with NaN in x.
inline std::vector<apply_case> standard_apply_cases(std::uint32_t seed)
{
    return {{1, 1.0, 0.0, 0, seed},     {1, -1.5, 0.5, 0, seed + 2}, {3, 1.0, 0.0, 0, seed + 4},
            {3, 2.0, -1.0, 2, seed + 6}, {4, 0.5, 0.0, 1, seed + 8}, {1, 0.0, 2.0, 0, seed + 10}};
}

/**
 * The hand-checked apply every format must get exactly right (small integers: exact in any order):
 *     A = [1 0 2]   b = [1 -1]   A b = [ 7  1]   2 A b - [1 1; 1 1; 1 1] = [13  1]
 *         [0 0 0]       [2  0]         [ 0  0]                             [-1 -1]
 *         [3 4 0]       [3  1]         [11 -3]                             [21 -7]
 * The empty middle row must come out as zero even though x starts as NaN.
 */
template <typename Matrix>
void expect_exact_small_apply(const std::shared_ptr<const Executor>& exec)
{
    using V = typename Matrix::value_type;
    using I = typename Matrix::index_type;
    const matrix_data<V, I> data{dim2{3, 3}, {{0, 0, 1}, {0, 2, 2}, {2, 0, 3}, {2, 1, 4}}};
    const auto a = Matrix::create(exec, data);
    const auto b = matrix::Dense<V>::create(exec, {{1, -1}, {2, 0}, {3, 1}});
    auto x = matrix::Dense<V>::create(exec, dim2{3, 2});
    x->fill(std::numeric_limits<V>::quiet_NaN());
    a->apply(b, x);
    expect_dense_eq({{7, 1}, {0, 0}, {11, -3}}, *x);
    x->fill(1);
    a->apply(2.0, b, -1.0, x);
    expect_dense_eq({{13, 1}, {-1, -1}, {21, -7}}, *x);
    const auto column = b->create_const_column_view(1);
    auto x_column = x->create_column_view(0);
    a->apply(column, x_column);
    expect_dense_eq({{1, 1}, {0, -1}, {-3, -7}}, *x);
}

/// A random sparse test matrix and what makes it worth testing.
struct random_test_matrix {
    const char* name;
    dim2 size;
    random_sparsity sparsity;
};

/// The shapes every sparse format is tested on: empty, 1x1, square with empty rows and explicit zeros,
/// tall, wide, and rows of very different lengths (including one full row).
inline std::vector<random_test_matrix> standard_random_matrices()
{
    return {{"0x0", dim2{0, 0}, {}},
            {"1x1", dim2{1, 1}, {1, 1}},
            {"square with empty rows and explicit zeros", dim2{200, 200}, {0, 12, 0.2, 0.05}},
            {"tall", dim2{300, 40}, {1, 6}},
            {"wide", dim2{30, 500}, {0, 40, 0.1}},
            {"irregular rows up to a full one", dim2{150, 150}, {0, 150}},
            {"no entries", dim2{20, 10}, {0, 0}}};
}

/// expect_apply_matches_reference for every standard random matrix and every standard apply case.
template <typename Matrix>
void expect_apply_matches_reference_on_random_matrices(const std::shared_ptr<const Executor>& exec,
                                                        std::uint32_t seed)
{
    using value_type = typename Matrix::value_type;
    using index_type = typename Matrix::index_type;
    for (const auto& test_matrix : standard_random_matrices()) {
        SCOPED_TRACE(std::string{"matrix "} + test_matrix.name + ", " + seed_trace(seed));
        const auto data = generate_random_matrix_data<value_type, index_type>(
            test_matrix.size, test_matrix.sparsity, seed);
        for (const auto& test_case : standard_apply_cases(seed + 100)) {
            expect_apply_matches_reference<Matrix>(exec, data, test_case);
        }
        ++seed;
    }
}

}  // namespace test
}  // namespace larch
