// The serial per-item algorithms of the batched dense kernels on raw row-major pointers: the
// "serial tier" that the reference backend loops over and the OpenMP backend runs in parallel over items.
// They read like the papers' listings (002 Figure 2, 003 Figure 1) and define the results every backend
// must reproduce (see core/batch/batch_dense_kernels.hpp for the contract).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "larch/base/types.hpp"

namespace larch {
namespace batch {
namespace item {

/// ||A||_inf = max_r sum_c |A(r, c)| of a rows x cols row-major item.
template <typename T>
T infinity_norm(size_type rows, size_type cols, const T* a)
{
    T norm{};
    for (size_type r = 0; r < rows; ++r) {
        T row_sum{};
        for (size_type c = 0; c < cols; ++c) {
            row_sum += std::abs(a[r * cols + c]);
        }
        // A NaN row sum makes the norm NaN (as LAPACK's xLANGE does), whatever the other rows hold.
        norm = (row_sum > norm || std::isnan(row_sum)) && !std::isnan(norm) ? row_sum : norm;
    }
    return norm;
}

/// True if `pivot` is unusable: zero, NaN, not above n * eps * ||A||_inf (the rounding level of the
/// item, below which the pivot is indistinguishable from a zero), or not above the smallest normal number
/// (a subnormal pivot's reciprocal can overflow, so an item of subnormal entries would pass with an
/// infinite inverse).
template <typename T>
bool is_tiny_pivot(T pivot, size_type n, T norm)
{
    const T tolerance = std::max(static_cast<T>(n) * std::numeric_limits<T>::epsilon() * norm,
                                 std::numeric_limits<T>::min());
    return !(std::abs(pivot) > tolerance);
}

/**
 * inverse = A^-1 of an n x n item by Gauss-Jordan elimination with implicit row pivoting
 * (Anzt et al. 2018, batched Gauss-Jordan, Figure 2). `work` holds n*n values; `inverse` may equal `a`.
 * Returns the info value
 * (0, or the 1-based step of a tiny pivot, leaving `inverse` unspecified).
 */
template <typename T>
std::int32_t invert(size_type n, const T* a, T* inverse, std::vector<T>& work)
{
    work.assign(a, a + n * n);
    const T norm = infinity_norm(n, n, a);
    auto d = [&](size_type i, size_type j) -> T& { return work[i * n + j]; };
    std::vector<size_type> pivot_row(n);  // pivot_row[k]: the row chosen at step k
    std::vector<bool> pivoted(n, false);
    for (size_type k = 0; k < n; ++k) {
        // implicit pivoting: the largest |D(i, k)| among rows not yet pivoted (first one on ties)
        size_type ipiv = n;
        for (size_type i = 0; i < n; ++i) {
            if (!pivoted[i] && (ipiv == n || std::abs(d(i, k)) > std::abs(d(ipiv, k)))) {
                ipiv = i;
            }
        }
        pivoted[ipiv] = true;
        pivot_row[k] = ipiv;
        const T pivot = d(ipiv, k);
        if (is_tiny_pivot(pivot, n, norm)) {
            return static_cast<std::int32_t>(k + 1);
        }
        // Jordan transformation: D(:, k) = -D(:, k) / d except the pivot row (SCAL) ...
        for (size_type i = 0; i < n; ++i) {
            d(i, k) = i == ipiv ? T{} : -d(i, k) / pivot;
        }
        // ... D = D + D(:, k) * D(ipiv, :) (GER; the pivot row is unchanged as D(ipiv, k) = 0) ...
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) {
                if (i != ipiv && j != k) {
                    d(i, j) += d(i, k) * d(ipiv, j);
                }
            }
        }
        // ... D(ipiv, :) = [D(ipiv, 1:k-1), 1, D(ipiv, k+1:n)] / d (SCAL)
        d(ipiv, k) = T{1};
        for (size_type j = 0; j < n; ++j) {
            d(ipiv, j) /= pivot;
        }
    }
    // undo the permutation: row r_i of D, with its columns j moved to r_j, is row i of the inverse
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            inverse[i * n + pivot_row[j]] = d(pivot_row[i], j);
        }
    }
    return 0;
}

/**
 * Gauss-Huard decomposition of an n x n item in place, with implicit column pivoting (Anzt et al. 2017,
 * batched Gauss-Huard,
 * Figure 1 with the column swaps replaced by a list of pivots). On success `factors` holds F in pivot
 * order (BGH), or with U transposed about the anti-diagonal (BGHT); pivots[k] is the original column
 * chosen at step k. Returns the info value (on failure `factors` are unspecified and `pivots` a
 * permutation of 0..n-1, so that a solve with them writes inside the item).
 */
template <typename T>
std::int32_t gauss_huard_factorize(size_type n, T* factors, std::int32_t* pivots,
                                   bool transposed_storage, std::vector<T>& work)
{
    work.assign(factors, factors + n * n);
    const T norm = infinity_norm(n, n, factors);
    auto d = [&](size_type i, size_type j) -> T& { return work[i * n + j]; };
    std::vector<bool> pivoted(n, false);
    for (size_type k = 0; k < n; ++k) {
        // row elimination (GEMV): D(k, j) -= D(k, p(0:k-1)) * D(0:k-1, j) for columns not pivoted
        for (size_type j = 0; j < n; ++j) {
            if (!pivoted[j]) {
                for (size_type t = 0; t < k; ++t) {
                    d(k, j) -= d(k, static_cast<size_type>(pivots[t])) * d(t, j);
                }
            }
        }
        // implicit column pivoting: the largest |D(k, j)| among columns not yet pivoted
        size_type jpiv = n;
        for (size_type j = 0; j < n; ++j) {
            if (!pivoted[j] && (jpiv == n || std::abs(d(k, j)) > std::abs(d(k, jpiv)))) {
                jpiv = j;
            }
        }
        pivoted[jpiv] = true;
        pivots[k] = static_cast<std::int32_t>(jpiv);
        const T pivot = d(k, jpiv);
        if (is_tiny_pivot(pivot, n, norm)) {
            // the steps not taken get the columns not yet pivoted, in order
            for (size_type j = 0, step = k + 1; j < n; ++j) {
                if (!pivoted[j]) {
                    pivots[step++] = static_cast<std::int32_t>(j);
                }
            }
            return static_cast<std::int32_t>(k + 1);
        }
        // diagonalization (SCAL): D(k, j) /= D(k, jpiv) for the remaining columns
        for (size_type j = 0; j < n; ++j) {
            if (!pivoted[j]) {
                d(k, j) /= pivot;
            }
        }
        // column elimination (GER): D(0:k-1, j) -= D(0:k-1, jpiv) * D(k, j) for the remaining columns
        for (size_type i = 0; i < k; ++i) {
            for (size_type j = 0; j < n; ++j) {
                if (!pivoted[j]) {
                    d(i, j) -= d(i, jpiv) * d(k, j);
                }
            }
        }
    }
    // write back in pivot order; BGHT moves U(i, j), j > i, to (n-1-j, n-1-i)
    for (size_type i = 0; i < n; ++i) {
        for (size_type k = 0; k < n; ++k) {
            const T value = d(i, static_cast<size_type>(pivots[k]));
            const bool upper = k > i;
            factors[upper && transposed_storage ? (n - 1 - k) * n + (n - 1 - i) : i * n + k] =
                value;
        }
    }
    return 0;
}

/**
 * Solves A x = b for `num_cols` columns (row-major n x num_cols) from the Gauss-Huard factors; x may
 * equal b. `work` holds n values.
 */
template <typename T>
void gauss_huard_solve(size_type n, const T* factors, const std::int32_t* pivots,
                       bool transposed_storage, size_type num_cols, const T* b, T* x,
                       std::vector<T>& work)
{
    auto lower = [&](size_type i, size_type j) { return factors[i * n + j]; };
    auto upper = [&](size_type i, size_type j) {
        return transposed_storage ? factors[(n - 1 - j) * n + (n - 1 - i)] : factors[i * n + j];
    };
    for (size_type col = 0; col < num_cols; ++col) {
        work.resize(n);
        for (size_type i = 0; i < n; ++i) {
            work[i] = b[i * num_cols + col];
        }
        for (size_type k = 0; k < n; ++k) {
            // row elimination (dot product) and diagonalization
            for (size_type j = 0; j < k; ++j) {
                work[k] -= lower(k, j) * work[j];
            }
            work[k] /= lower(k, k);
            // column elimination (AXPY)
            for (size_type i = 0; i < k; ++i) {
                work[i] -= upper(i, k) * work[k];
            }
        }
        for (size_type k = 0; k < n; ++k) {
            x[static_cast<size_type>(pivots[k]) * num_cols + col] = work[k];
        }
    }
}

/// x = A b for a rows x cols item and b of cols x num_cols (row-major); x is not b.
template <typename T>
void apply(size_type rows, size_type cols, const T* a, size_type num_cols, const T* b, T* x)
{
    for (size_type r = 0; r < rows; ++r) {
        for (size_type col = 0; col < num_cols; ++col) {
            T sum{};
            for (size_type c = 0; c < cols; ++c) {
                sum += a[r * cols + c] * b[c * num_cols + col];
            }
            x[r * num_cols + col] = sum;
        }
    }
}

/// cond = +inf for a failed item, the product of the norms otherwise.
template <typename T>
T condition_number(T norm, T inverse_norm, std::int32_t info)
{
    return info != 0 ? std::numeric_limits<T>::infinity() : norm * inverse_norm;
}

}  // namespace item
}  // namespace batch
}  // namespace larch
