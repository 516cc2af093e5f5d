// Items with known properties for the batched solver tests: stencils (SPD), convection-diffusion
// (nonsymmetric), random diagonally dominant items, and the host-side true residual of a solution.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "larch/base/matrix_data.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace test {

/// tridiag(-1 - c, d, -1 + c) of order n: the 1D Laplacian for c = 0 and d = 2 (SPD), nonsymmetric for
/// c != 0, strictly diagonally dominant (well conditioned) for d > 2 and |c| <= 1.
template <typename T>
matrix_data<T> tridiagonal(size_type n, double c = 0.0, double d = 2.0)
{
    matrix_data<T> data{dim2{n, n}};
    for (size_type row = 0; row < n; ++row) {
        const auto r = static_cast<std::int32_t>(row);
        if (row > 0) {
            data.entries.push_back({r, r - 1, static_cast<T>(-1.0 - c)});
        }
        data.entries.push_back({r, r, static_cast<T>(d)});
        if (row + 1 < n) {
            data.entries.push_back({r, r + 1, static_cast<T>(-1.0 + c)});
        }
    }
    return data;
}

/// The 2D 5-point Laplacian on a k x k grid (order k^2, SPD).
template <typename T>
matrix_data<T> laplacian_2d(size_type k)
{
    matrix_data<T> data{dim2{k * k, k * k}};
    for (size_type i = 0; i < k; ++i) {
        for (size_type j = 0; j < k; ++j) {
            const auto row = static_cast<std::int32_t>(i * k + j);
            const auto w = static_cast<std::int32_t>(k);
            if (i > 0) data.entries.push_back({row, row - w, T{-1}});
            if (j > 0) data.entries.push_back({row, row - 1, T{-1}});
            data.entries.push_back({row, row, T{4}});
            if (j + 1 < k) data.entries.push_back({row, row + 1, T{-1}});
            if (i + 1 < k) data.entries.push_back({row, row + w, T{-1}});
        }
    }
    return data;
}

/// A random symmetric item of order n with about `row_nnz` off-diagonal entries per row in [-1, 1] and a
/// diagonal of (row sum of |a_ij|) * scale + 1: SPD and diagonally dominant for scale >= 1, with a
/// diagonal that varies across rows (so scalar Jacobi changes the iteration).
template <typename T>
matrix_data<T> random_spd(std::mt19937& rng, size_type n, size_type row_nnz, double scale = 1.0)
{
    std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(n) - 1);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::uniform_real_distribution<double> weight(1.0, 10.0);
    std::vector<double> row_sums(n, 0.0);
    matrix_data<T> data{dim2{n, n}};
    for (size_type row = 0; row < n; ++row) {
        const double w = weight(rng);
        for (size_type k = 0; k < row_nnz / 2; ++k) {
            const auto c = col(rng);
            if (static_cast<size_type>(c) == row) {
                continue;
            }
            const double v = value(rng) * w;
            data.entries.push_back({static_cast<std::int32_t>(row), c, static_cast<T>(v)});
            data.entries.push_back({c, static_cast<std::int32_t>(row), static_cast<T>(v)});
            row_sums[row] += std::abs(v);
            row_sums[static_cast<size_type>(c)] += std::abs(v);
        }
    }
    for (size_type row = 0; row < n; ++row) {
        const auto r = static_cast<std::int32_t>(row);
        data.entries.push_back({r, r, static_cast<T>(row_sums[row] * scale + 1.0)});
    }
    data.sum_duplicates();
    return data;
}

/// b = A x for host coordinate data.
template <typename T>
std::vector<T> multiply(const matrix_data<T>& a, const std::vector<T>& x)
{
    std::vector<double> y(a.size.rows, 0.0);
    for (const auto& e : a.entries) {
        y[static_cast<size_type>(e.row)] += static_cast<double>(e.value) *
                                            static_cast<double>(x[static_cast<size_type>(e.col)]);
    }
    return std::vector<T>(y.begin(), y.end());
}

/// ||b - A x|| in double for host coordinate data.
template <typename T>
double residual_norm(const matrix_data<T>& a, const T* b, const T* x)
{
    std::vector<double> r(a.size.rows);
    for (size_type row = 0; row < a.size.rows; ++row) {
        r[row] = static_cast<double>(b[row]);
    }
    for (const auto& e : a.entries) {
        r[static_cast<size_type>(e.row)] -=
            static_cast<double>(e.value) * static_cast<double>(x[static_cast<size_type>(e.col)]);
    }
    double sum = 0.0;
    for (const auto v : r) {
        sum += v * v;
    }
    return std::sqrt(sum);
}

/// The item row counts of square items.
template <typename T>
std::vector<size_type> item_rows(const std::vector<matrix_data<T>>& items)
{
    std::vector<size_type> rows;
    for (const auto& item : items) {
        rows.push_back(item.size.rows);
    }
    return rows;
}

}  // namespace test
}  // namespace larch
