// The path for items larger than 32 x 32, which do not fit in one sub-warp's registers: one THREAD per
// item running the textbook algorithm in global memory (explicit swaps, which choose the same pivots as
// the implicit pivoting of the register kernels and the reference: among the rows / columns not yet
// pivoted, the largest magnitude, ties to the smaller ORIGINAL index). It is correct, not fast (O(n^3)
// sequential work per thread, uncoalesced); large items are rare in block-Jacobi batches. The workspace
// (`permutation`, `scratch`: one entry per item row, at the layout's row offsets) is allocated by the
// caller only when the batch has such items.
#pragma once

#include <cstdint>

#include "cuda/batch/register_batch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// ||A||_inf of a rows x cols row-major item.
template <typename T>
__device__ T infinity_norm_serial(const T* item, int rows, int cols)
{
    T norm{};
    for (int r = 0; r < rows; ++r) {
        T row_sum{};
        for (int c = 0; c < cols; ++c) {
            row_sum += magnitude(item[std::int64_t{r} * cols + c]);
        }
        norm = row_sum > norm ? row_sum : norm;
    }
    return norm;
}

template <typename T>
__device__ void swap_values(T& a, T& b)
{
    const T t = a;
    a = b;
    b = t;
}

/// Overwrites the n x n item `w` by its inverse (Gauss-Jordan, explicit row swaps); returns info.
template <typename T>
__device__ int invert_serial(T* w, int n, std::int32_t* permutation, T* scratch)
{
    const auto at = [&](int r, int c) -> T& { return w[std::int64_t{r} * n + c]; };
    const T tiny_bound = tiny_pivot_bound(n, infinity_norm_serial(w, n, n));
    for (int r = 0; r < n; ++r) {
        permutation[r] = r;
    }
    for (int k = 0; k < n; ++k) {
        int pivot_row = k;
        for (int r = k + 1; r < n; ++r) {
            const T m = magnitude(at(r, k));
            const T best = magnitude(at(pivot_row, k));
            if (m > best || (m == best && permutation[r] < permutation[pivot_row])) {
                pivot_row = r;
            }
        }
        if (!(magnitude(at(pivot_row, k)) > tiny_bound)) {
            return k + 1;
        }
        for (int c = 0; c < n; ++c) {
            swap_values(at(k, c), at(pivot_row, c));
        }
        swap_values(permutation[k], permutation[pivot_row]);
        const T pivot = at(k, k);
        at(k, k) = T{1};
        for (int c = 0; c < n; ++c) {
            at(k, c) /= pivot;
        }
        for (int r = 0; r < n; ++r) {
            if (r != k) {
                const T multiplier = at(r, k);
                at(r, k) = T{};
                for (int c = 0; c < n; ++c) {
                    at(r, c) -= multiplier * at(k, c);
                }
            }
        }
    }
    // w = (P A)^-1 = A^-1 P^T, so column k of w is column permutation[k] of A^-1.
    for (int r = 0; r < n; ++r) {
        for (int k = 0; k < n; ++k) {
            scratch[permutation[k]] = at(r, k);
        }
        for (int c = 0; c < n; ++c) {
            at(r, c) = scratch[c];
        }
    }
    return 0;
}

/// Gauss-Huard factorization of the n x n item `f` in place (explicit column swaps); returns info.
template <typename T>
__device__ int gauss_huard_factorize_serial(T* f, std::int32_t* pivots, int n,
                                            bool transposed_storage)
{
    const auto at = [&](int r, int c) -> T& { return f[std::int64_t{r} * n + c]; };
    const T tiny_bound = tiny_pivot_bound(n, infinity_norm_serial(f, n, n));
    for (int c = 0; c < n; ++c) {
        pivots[c] = c;
    }
    for (int k = 0; k < n; ++k) {
        for (int c = k; c < n; ++c) {
            for (int j = 0; j < k; ++j) {
                at(k, c) -= at(k, j) * at(j, c);
            }
        }
        int pivot_column = k;
        for (int c = k + 1; c < n; ++c) {
            const T m = magnitude(at(k, c));
            const T best = magnitude(at(k, pivot_column));
            if (m > best || (m == best && pivots[c] < pivots[pivot_column])) {
                pivot_column = c;
            }
        }
        if (!(magnitude(at(k, pivot_column)) > tiny_bound)) {
            return k + 1;
        }
        for (int r = 0; r < n; ++r) {
            swap_values(at(r, k), at(r, pivot_column));
        }
        swap_values(pivots[k], pivots[pivot_column]);
        for (int c = k + 1; c < n; ++c) {
            at(k, c) /= at(k, k);
        }
        for (int i = 0; i < k; ++i) {
            for (int c = k + 1; c < n; ++c) {
                at(i, c) -= at(i, k) * at(k, c);
            }
        }
    }
    if (transposed_storage) {
        // U(i, j) <-> stored (n-1-j, n-1-i): an involution on the strict upper triangle; swap each pair once.
        for (int i = 0; i < n; ++i) {
            for (int j = i + 1; j < n; ++j) {
                const int ti = n - 1 - j;
                const int tj = n - 1 - i;
                if (i < ti || (i == ti && j < tj)) {
                    swap_values(at(i, j), at(ti, tj));
                }
            }
        }
    }
    return 0;
}

/// Solves with Gauss-Huard factors for every column of b (n x num_rhs) into x (may be b).
template <typename T>
__device__ void gauss_huard_solve_serial(const T* f, const std::int32_t* pivots, int n,
                                         bool transposed_storage, const T* b, T* x, int num_rhs,
                                         T* y)
{
    const auto at = [&](int r, int c) { return f[std::int64_t{r} * n + c]; };
    const auto upper = [&](int r, int c) {
        return transposed_storage ? at(n - 1 - c, n - 1 - r) : at(r, c);
    };
    for (int rhs = 0; rhs < num_rhs; ++rhs) {
        for (int k = 0; k < n; ++k) {
            y[k] = b[std::int64_t{k} * num_rhs + rhs];
        }
        for (int k = 0; k < n; ++k) {
            for (int j = 0; j < k; ++j) {
                y[k] -= at(k, j) * y[j];
            }
            y[k] /= at(k, k);
            for (int i = 0; i < k; ++i) {
                y[i] -= upper(i, k) * y[k];
            }
        }
        for (int k = 0; k < n; ++k) {
            x[std::int64_t{pivots[k]} * num_rhs + rhs] = y[k];
        }
    }
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
