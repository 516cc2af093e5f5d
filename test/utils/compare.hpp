// Comparisons for tests: exact equality of matrices and coordinate data, and entrywise closeness within a
// rounding-error bound (the tolerance of a result computed in another order is gamma_n times the
// magnitude |A||b| of the computation, not a fixed number).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace test {

/// The unit roundoff u of V: half its machine epsilon.
template <typename V>
constexpr double unit_roundoff()
{
    return std::numeric_limits<V>::epsilon() / 2;
}

/**
 * gamma_n = n u / (1 - n u): a sum or dot product of n terms computed in any order in V is within
 * gamma_n * (sum of the terms' magnitudes) of the exact value (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., section 3.1). Two such results differ by at most twice that.
 */
template <typename V>
double gamma(size_type n)
{
    const auto nu = static_cast<double>(n) * unit_roundoff<V>();
    return nu / (1 - nu);
}

/// Checks that `actual` and `expected` (row-major, size.rows x size.cols) hold exactly the same values.
template <typename V>
void expect_values_eq(const std::vector<V>& expected, const std::vector<V>& actual, dim2 size)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (size_type row = 0; row < size.rows; ++row) {
        for (size_type col = 0; col < size.cols; ++col) {
            const auto i = row * size.cols + col;
            EXPECT_EQ(actual[i], expected[i]) << "at (" << row << ", " << col << ")";
        }
    }
}

/// Checks that `actual` has the size and exactly the values of `expected`.
template <typename V>
void expect_dense_eq(const matrix::Dense<V>& expected, const matrix::Dense<V>& actual)
{
    ASSERT_EQ(actual.get_size(), expected.get_size());
    expect_values_eq(expected.copy_to_host(), actual.copy_to_host(), expected.get_size());
}

/// V as a non-deduced context, so that integer literals in expected values take the matrix's type.
template <typename V>
struct non_deduced {
    using type = V;
};

/// Checks that `actual` has exactly the values of the host rows `expected`.
template <typename V>
void expect_dense_eq(
    std::initializer_list<std::initializer_list<typename non_deduced<V>::type>> expected,
    const matrix::Dense<V>& actual)
{
    const dim2 size{expected.size(), expected.size() == 0 ? 0 : expected.begin()->size()};
    ASSERT_EQ(actual.get_size(), size);
    std::vector<V> values;
    for (const auto& row : expected) {
        values.insert(values.end(), row.begin(), row.end());
    }
    expect_values_eq(values, actual.copy_to_host(), size);
}

/// Checks that two coordinate matrices have the same size and the same entries in the same order.
template <typename V, typename I>
void expect_data_eq(const matrix_data<V, I>& expected, const matrix_data<V, I>& actual)
{
    ASSERT_EQ(actual.size, expected.size);
    ASSERT_EQ(actual.entries.size(), expected.entries.size());
    for (size_type k = 0; k < expected.entries.size(); ++k) {
        const auto& e = expected.entries[k];
        const auto& a = actual.entries[k];
        EXPECT_TRUE(a == e) << "entry " << k << ": expected (" << e.row << ", " << e.col << ") = "
                            << e.value << ", got (" << a.row << ", " << a.col << ") = " << a.value;
    }
}

/**
 * Checks |actual - expected| <= tolerance * magnitude entrywise (row-major, size.rows x size.cols), where
 * magnitude is what the rounding error of the computation scales with (e.g. |A||b|). A NaN in `actual`
 * fails. Reports the number of offending entries and the first few of them.
 */
template <typename V>
void expect_near_entrywise(const std::vector<V>& expected, const std::vector<V>& actual,
                           const std::vector<double>& magnitude, double tolerance, dim2 size)
{
    ASSERT_EQ(actual.size(), size.rows * size.cols);
    ASSERT_EQ(expected.size(), actual.size());
    ASSERT_EQ(magnitude.size(), actual.size());
    constexpr int max_reported = 5;
    int num_failures = 0;
    std::ostringstream report;
    report.precision(std::numeric_limits<V>::max_digits10);
    for (size_type row = 0; row < size.rows; ++row) {
        for (size_type col = 0; col < size.cols; ++col) {
            const auto i = row * size.cols + col;
            const auto difference =
                std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
            // The smallest normal number keeps a zero magnitude from demanding more than exactness.
            const auto allowed = tolerance * magnitude[i] +
                                 static_cast<double>(std::numeric_limits<V>::min());
            if (!(difference <= allowed)) {
                if (num_failures < max_reported) {
                    report << "\n  (" << row << ", " << col << "): expected " << expected[i]
                           << ", got " << actual[i] << ", difference " << difference
                           << " > allowed " << allowed;
                }
                ++num_failures;
            }
        }
    }
    EXPECT_EQ(num_failures, 0) << num_failures << " of " << actual.size()
                               << " entries differ by more than " << tolerance
                               << " x their magnitude:" << report.str();
}

}  // namespace test
}  // namespace larch
