// The paths for items larger than 32 x 32, which do not fit in one sub-warp's registers.
//
// Gauss-Jordan inversion of items up to 128 x 128: one thread block per item (blocked_invert_item), the
// register Gauss-Jordan of gauss_jordan.cuh on a thread block instead of a sub-warp (each of
// order^2 / 32 threads holds a 4 x 8 block of the working matrix, order = 64 or 128; pivot rows and
// columns through shared memory, the pivot search over the block through shared memory), the item read
// straight from global memory (consecutive threads read consecutive columns) and written back with its
// rows and columns permuted.
//
// Everything else (Gauss-Jordan above 128, Gauss-Huard above 32): one THREAD per item running the
// textbook algorithm in global memory (explicit swaps, which choose the same pivots as the implicit
// pivoting of the register kernels and the reference: among the rows / columns not yet pivoted, the
// largest magnitude, ties to the smaller ORIGINAL index). It is correct, not fast (O(n^3) sequential work
// per thread, uncoalesced). The workspace (`permutation`, `scratch`: one entry per item row, at the
// layout's row offsets) is allocated by the caller only when the batch has such items.
#pragma once

#include <cstdint>

#include "cuda/batch/gauss_jordan.cuh"
#include "cuda/batch/register_batch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// Largest item order of the thread-block Gauss-Jordan; larger items take the one-thread path.
constexpr int max_blocked_item_size = 128;

/// The thread-block Gauss-Jordan for items of order_/2 < n <= order_ (order_ = 64 or 128): its grid
/// (order^2 / 32 threads, 4 x 8 values each) and team.
template <int order_>
struct BlockedGaussJordan {
    using Grid = GaussJordanGrid<order_, order_ * order_ / 32, order_ / 8>;
    using Team = BlockTeam<Grid::threads>;
    static constexpr int threads = Grid::threads;
};

/// The maximum of `value` over the thread block, on every thread; `scratch` holds one value per warp and
/// may be used again after the call.
template <int threads, typename T>
__device__ __forceinline__ T block_all_reduce_max(T value, T (&scratch)[threads / 32])
{
    const T warp_max = warp::all_reduce_max<32>(value);
    if (warp::rank<32>() == 0) {
        scratch[threadIdx.x / 32] = warp_max;
    }
    __syncthreads();
    T result = scratch[0];
#pragma unroll
    for (int w = 1; w < threads / 32; ++w) {
        result = scratch[w] > result ? scratch[w] : result;
    }
    __syncthreads();
    return result;
}

/// What the thread block of blocked_invert_item shares.
template <int order, typename T>
struct BlockedInversionShared {
    using Blocked = BlockedGaussJordan<order>;
    GaussJordanBuffer<typename Blocked::Grid, typename Blocked::Team, T> buffer;
    T warp_values[Blocked::threads / 32];
    int row_of_step[order];
};

/**
 * Inverts the n x n item at `a` (n <= order) into `inverse` (when `write`; it may be `a`) with the whole
 * thread block; returns info and sets `norm` and `inverse_norm` (||A||_inf, ||A^-1||_inf; the latter
 * meaningless unless info is 0). All threads of the block must call it.
 */
template <int order, typename T>
__device__ __forceinline__ int blocked_invert_item(const T* a, T* inverse, int n, bool write,
                                                   BlockedInversionShared<order, T>& shared, T& norm,
                                                   T& inverse_norm)
{
    using Blocked = BlockedGaussJordan<order>;
    using Grid = typename Blocked::Grid;
    const int rank = static_cast<int>(threadIdx.x);
    const int tr = Grid::row_group(rank);
    const int tc = Grid::column_group(rank);
    GaussJordanPart<Grid, T> part;
#pragma unroll
    for (int i = 0; i < Grid::rows_per_thread; ++i) {
        const int r = tr + Grid::row_groups * i;
        part.pivot_step[i] = -1;
        part.pivot[i] = T{1};
#pragma unroll
        for (int j = 0; j < Grid::columns_per_thread; ++j) {
            const int c = tc + Grid::column_groups * j;
            part.values[i][j] = (r < n && c < n) ? a[std::int64_t{r} * n + c] : T{};
        }
    }
    norm = block_all_reduce_max<Blocked::threads>(largest_scaled_row_sum(rank, n, part),
                                                  shared.warp_values);
    const int info = eliminate_with(n, tiny_pivot_bound(n, norm), part, shared.buffer);
    inverse_norm = block_all_reduce_max<Blocked::threads>(largest_scaled_row_sum(rank, n, part),
                                                          shared.warp_values);
    if (info == 0 && write) {
        // The row that was the pivot of step k is row k of the inverse; working column c is column
        // row_of_step[c] of it.
        if (tc == 0) {
#pragma unroll
            for (int i = 0; i < Grid::rows_per_thread; ++i) {
                const int r = tr + Grid::row_groups * i;
                if (r < n) {
                    shared.row_of_step[part.pivot_step[i]] = r;
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < Grid::rows_per_thread; ++i) {
            const int r = tr + Grid::row_groups * i;
            if (r < n) {
                const T scale = T{1} / part.pivot[i];
                T* destination_row = inverse + std::int64_t{part.pivot_step[i]} * n;
#pragma unroll
                for (int j = 0; j < Grid::columns_per_thread; ++j) {
                    const int c = tc + Grid::column_groups * j;
                    if (c < n) {
                        destination_row[shared.row_of_step[c]] = part.values[i][j] * scale;
                    }
                }
            }
        }
    }
    return info;
}

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
        // warp::Max keeps a NaN row sum (a plain comparison would drop it and report a finite norm).
        norm = warp::Max{}(norm, row_sum);
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

/// Gauss-Huard factorization of the n x n item `a` into `f` (which may be `a`; explicit column swaps);
/// returns info.
template <typename T>
__device__ int gauss_huard_factorize_serial(const T* a, T* f, std::int32_t* pivots, int n,
                                            bool transposed_storage)
{
    if (f != a) {
        for (std::int64_t e = 0; e < std::int64_t{n} * n; ++e) {
            f[e] = a[e];
        }
    }
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
