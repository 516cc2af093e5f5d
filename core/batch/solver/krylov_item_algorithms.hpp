// The batched Krylov methods written once per item, over a handful of item-level building blocks, so that
// the reference backend runs them item after item, OpenMP items in parallel, and CUDA/HIP one thread block
// per item (the same source compiled as host and as device code).
//
// An `Item` provides (every call is collective on the device: all threads of the item's block make it,
// and it returns only once its result is visible to all of them):
//   int rows();                          T* vector(int k);   // workspace vector k (rows entries)
//   void for_rows(F f, ReadBy next);     // f(row) for every row (each thread its share), then a barrier
//   T dot(const T* a, const T* b);       // the same value on every thread
//   void spmv(const T* in, T* out, ReadBy next);   // out = A_i in
//   void precondition(const T* in, T* out, ReadBy next);   // out = M_i^{-1} in
//   void record(int iteration, T norm);  // residual history entry (ignored for untracked items)
//   T* scalars();                        // Method::num_scalars(krylov_dim) values of small dense work
//   void single(F f);                    // f() on one thread, then a barrier (writes to scalars())
// Scalars are computed redundantly by every thread from the same reduced values, so all threads of an
// item take the same branches and leave the loops together.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/base/host_device.hpp"
#include "core/matrix/bicgstab_omega.hpp"
#include "larch/batch/solver/solve_result.hpp"

namespace larch {
namespace batch {
namespace item {

/**
 * Who reads the rows a step (Item::for_rows, Item::precondition, Item::spmv) writes before the next
 * barrier: `any` (the default) may read any row, so a GPU team waits at a barrier after the step; `dot`, a
 * dot product only, which reads each row on the thread that wrote it (for_rows and dot share the rows out
 * the same way; an SpMV where its matrix computes each row on that thread, see TeamItem::spmv) and ends in
 * the team's all-reduce, which orders the step's writes before every later read, so the step needs no
 * barrier of its own. The step must itself follow a barrier or an all-reduce. Host items ignore it.
 */
enum class ReadBy { any, dot };

/// What one item must meet and may spend.
template <typename T>
struct ItemCriterion {
    T tolerance;
    bool absolute;
    int max_iterations;
    int max_residual_replacements;
    int krylov_dim;
    T kappa;  ///< BiCGSTAB's omega safeguard (core/matrix/bicgstab_omega.hpp); 0: none
};

/// How one item's solve ended (status as stored by the kernels; residual_norm: the true residual).
template <typename T>
struct ItemOutcome {
    ItemStatus status;
    int iterations;
    T residual_norm;
    T threshold;
};

/// False for NaN and +-Inf (v - v is exactly 0 for every finite v), on host and device alike.
template <typename T>
LARCH_HOST_DEVICE bool is_finite(T value)
{
    return value - value == T{};
}

/// 1 / d, or 1 for d = 0 (scalar Jacobi leaves a row without a diagonal entry unscaled).
template <typename T>
LARCH_HOST_DEVICE T jacobi_scale(T diagonal_entry)
{
    return diagonal_entry == T{} ? T{1} : T{1} / diagonal_entry;
}

/// The product of one row of a column-major block inverse (its entry j at inverse_row[j * order]) with the
/// block's part of a vector, rows first_row..first_row + order - 1 of `in`, or of P in where `gather` (the
/// item's row matching: row k of P in is row gather[k] of in) is not null; summed in column order. The
/// entries are loaded eight at a time before any is used: on a GPU, a loop bounded by the run-time order
/// keeps one load per thread in flight, and the inverses, read once per application, come from memory.
template <typename T>
LARCH_HOST_DEVICE T block_row_product(const T* inverse_row, const T* in, int first_row, const std::int32_t* gather,
                                      int order)
{
    constexpr int chunk = 8;
    T sum{};
    for (int first = 0; first < order; first += chunk) {
        T entries[chunk];
        for (int k = 0; k < chunk; ++k) {
            entries[k] = first + k < order ? inverse_row[static_cast<std::ptrdiff_t>(first + k) * order] : T{};
        }
        for (int k = 0; k < chunk && first + k < order; ++k) {
            const int row = first_row + first + k;
            sum += entries[k] * in[gather ? gather[row] : row];
        }
    }
    return sum;
}

/// r = b - A x; returns ||r||.
template <typename Item, typename T>
LARCH_HOST_DEVICE T true_residual(Item& item, const T* b, const T* x, T* r)
{
    item.spmv(x, r);
    item.for_rows([&](int row) { r[row] = b[row] - r[row]; });
    return std::sqrt(item.dot(r, r));
}

/**
 * Preconditioned CG (Hestenes-Stiefel) from r = b - A x (workspace vector 0) until the recursive residual
 * meets `threshold`, a breakdown, NaN/Inf or the iteration limit; `iterations` counts on. Vectors: r, z,
 * p, q (= A p).
 */
struct CgMethod {
    LARCH_HOST_DEVICE static int num_vectors(int) { return 4; }
    LARCH_HOST_DEVICE static int num_scalars(int) { return 0; }

    template <typename Item, typename T>
    LARCH_HOST_DEVICE static ItemStatus iterate(Item& item, const ItemCriterion<T>& criterion, T threshold,
                                                const T*, T* x, int& iterations)
    {
        const int max_iterations = criterion.max_iterations;
        T* r = item.vector(0);
        T* z = item.vector(1);
        T* p = item.vector(2);
        T* q = item.vector(3);
        item.precondition(r, z);
        item.for_rows([&](int row) { p[row] = z[row]; });
        T rho = item.dot(r, z);
        while (iterations < max_iterations) {
            if (rho == T{}) {
                return ItemStatus::breakdown;
            }
            item.spmv(p, q, ReadBy::dot);
            const T p_q = item.dot(p, q);
            if (p_q == T{}) {
                return ItemStatus::breakdown;
            }
            const T alpha = rho / p_q;
            item.for_rows(
                [&](int row) {
                    x[row] += alpha * p[row];
                    r[row] -= alpha * q[row];
                },
                ReadBy::dot);
            ++iterations;
            const T r_norm = std::sqrt(item.dot(r, r));
            item.record(iterations, r_norm);
            if (!is_finite(r_norm)) {
                return ItemStatus::non_finite;
            }
            if (r_norm <= threshold) {
                return ItemStatus::converged;
            }
            item.precondition(r, z, ReadBy::dot);
            const T rho_next = item.dot(r, z);
            const T beta = rho_next / rho;
            rho = rho_next;
            item.for_rows([&](int row) { p[row] = z[row] + beta * p[row]; });
        }
        return ItemStatus::max_iterations;
    }
};

/**
 * Preconditioned BiCGSTAB (van der Vorst 1992, right preconditioning) from r = b - A x, as CgMethod, with
 * omega safeguarded by criterion.kappa as in the single-system Bicgstab.
 * Vectors: r (also s), r_hat, p, v, p_hat (also s_hat), t. An iteration whose half step already meets the
 * threshold stops there (x was updated with alpha p_hat).
 */
struct BicgstabMethod {
    LARCH_HOST_DEVICE static int num_vectors(int) { return 6; }
    LARCH_HOST_DEVICE static int num_scalars(int) { return 0; }

    template <typename Item, typename T>
    LARCH_HOST_DEVICE static ItemStatus iterate(Item& item, const ItemCriterion<T>& criterion, T threshold,
                                                const T*, T* x, int& iterations)
    {
        const int max_iterations = criterion.max_iterations;
        T* r = item.vector(0);
        T* r_hat = item.vector(1);
        T* p = item.vector(2);
        T* v = item.vector(3);
        T* p_hat = item.vector(4);
        T* t = item.vector(5);
        item.for_rows([&](int row) {
            r_hat[row] = r[row];
            p[row] = T{};
            v[row] = T{};
        });
        T rho{1};
        T alpha{1};
        T omega{1};
        while (iterations < max_iterations) {
            const T rho_next = item.dot(r_hat, r);
            if (rho_next == T{}) {
                return ItemStatus::breakdown;
            }
            const T beta = (rho_next / rho) * (alpha / omega);
            rho = rho_next;
            item.for_rows([&](int row) { p[row] = r[row] + beta * (p[row] - omega * v[row]); });
            item.precondition(p, p_hat);
            item.spmv(p_hat, v, ReadBy::dot);
            const T r_hat_v = item.dot(r_hat, v);
            if (r_hat_v == T{}) {
                return ItemStatus::breakdown;
            }
            alpha = rho / r_hat_v;
            item.for_rows(
                [&](int row) {
                    x[row] += alpha * p_hat[row];
                    r[row] -= alpha * v[row];
                },
                ReadBy::dot);
            const T s_s = item.dot(r, r);
            const T s_norm = std::sqrt(s_s);
            if (!is_finite(s_norm) || s_norm <= threshold) {
                ++iterations;
                item.record(iterations, s_norm);
                return is_finite(s_norm) ? ItemStatus::converged : ItemStatus::non_finite;
            }
            item.precondition(r, p_hat);
            item.spmv(p_hat, t, ReadBy::dot);
            const T t_t = item.dot(t, t);
            if (t_t == T{}) {
                ++iterations;
                return ItemStatus::breakdown;
            }
            omega = bicgstab_omega::safeguarded(item.dot(t, r), t_t, s_s, criterion.kappa);
            item.for_rows(
                [&](int row) {
                    x[row] += omega * p_hat[row];
                    r[row] -= omega * t[row];
                },
                ReadBy::dot);
            ++iterations;
            const T r_norm = std::sqrt(item.dot(r, r));
            item.record(iterations, r_norm);
            if (!is_finite(r_norm)) {
                return ItemStatus::non_finite;
            }
            if (r_norm <= threshold) {
                return ItemStatus::converged;
            }
            if (omega == T{}) {
                return ItemStatus::breakdown;
            }
        }
        return ItemStatus::max_iterations;
    }
};

/**
 * Restarted GMRES(m) (Saad and Schultz 1986) with right preconditioning, so that its residual estimate
 * |g_{j+1}| is the norm of the unpreconditioned residual: modified Gram-Schmidt Arnoldi, Givens rotations
 * applied to the Hessenberg column as it is built, x updated at the end of every cycle, which restarts
 * from the true residual. Vectors: r, V_0..V_m, z, w; scalars: H ((m+1) x m, column-major), c, s (m
 * each) and g (m+1, overwritten by y). The small dense work runs on one thread (Item::single).
 */
struct GmresMethod {
    LARCH_HOST_DEVICE static int num_vectors(int krylov_dim) { return krylov_dim + 4; }
    LARCH_HOST_DEVICE static int num_scalars(int krylov_dim)
    {
        return (krylov_dim + 1) * krylov_dim + 3 * krylov_dim + 1;
    }

    template <typename Item, typename T>
    LARCH_HOST_DEVICE static ItemStatus iterate(Item& item, const ItemCriterion<T>& criterion, T threshold,
                                                const T* b, T* x, int& iterations)
    {
        const int m = criterion.krylov_dim;
        T* r = item.vector(0);
        T* z = item.vector(m + 2);
        T* w = item.vector(m + 3);
        T* hessenberg = item.scalars();
        T* cosines = hessenberg + (m + 1) * m;
        T* sines = cosines + m;
        T* g = sines + m;
        const auto basis = [&](int k) { return item.vector(1 + k); };
        const auto h = [&](int row, int col) -> T& { return hessenberg[row + col * (m + 1)]; };
        // A Krylov space cannot grow past the item's order: on an item smaller than m, the steps after the
        // n-th orthogonalize rounding noise, and their nearly singular H gave y of 1e31 whose sum cancelled
        // x back to 0 (tolerance 1e-100, order 3). The single-system Gmres caps its restart the same way.
        const int cycle_length = m < item.rows() ? m : item.rows();
        while (iterations < criterion.max_iterations) {
            const T beta = std::sqrt(item.dot(r, r));
            T* v0 = basis(0);
            item.for_rows([&](int row) { v0[row] = r[row] / beta; });
            item.single([&] {
                g[0] = beta;
            });
            int columns = 0;
            ItemStatus stop = ItemStatus::max_iterations;
            for (int j = 0; j < cycle_length && iterations < criterion.max_iterations; ++j) {
                item.precondition(basis(j), z);
                item.spmv(z, w, ReadBy::dot);
                for (int i = 0; i <= j; ++i) {
                    const T* vi = basis(i);
                    const T projection = item.dot(w, vi);
                    item.for_rows([&](int row) { w[row] -= projection * vi[row]; }, ReadBy::dot);
                    item.single([&] { h(i, j) = projection; });
                }
                const T next_norm = std::sqrt(item.dot(w, w));
                item.single([&] {
                    for (int i = 0; i < j; ++i) {
                        const T upper = cosines[i] * h(i, j) + sines[i] * h(i + 1, j);
                        h(i + 1, j) = -sines[i] * h(i, j) + cosines[i] * h(i + 1, j);
                        h(i, j) = upper;
                    }
                    const T a = h(j, j);
                    const T scale = (a < T{} ? -a : a) + next_norm;
                    const T rho = scale == T{} ? T{}
                                               : scale * std::sqrt((a / scale) * (a / scale) +
                                                                   (next_norm / scale) * (next_norm / scale));
                    cosines[j] = rho == T{} ? T{1} : a / rho;
                    sines[j] = rho == T{} ? T{} : next_norm / rho;
                    h(j, j) = rho;
                    g[j + 1] = -sines[j] * g[j];
                    g[j] = cosines[j] * g[j];
                });
                if (h(j, j) == T{}) {
                    stop = ItemStatus::breakdown;  // H is singular: the least-squares problem has no unique y
                    break;
                }
                columns = j + 1;
                ++iterations;
                const T estimate = g[j + 1] < T{} ? -g[j + 1] : g[j + 1];
                item.record(iterations, estimate);
                if (!is_finite(estimate)) {
                    stop = ItemStatus::non_finite;
                    break;
                }
                if (estimate <= threshold || next_norm == T{}) {
                    stop = ItemStatus::converged;
                    break;
                }
                T* next = basis(j + 1);
                item.for_rows([&](int row) { next[row] = w[row] / next_norm; });
            }
            // x += M^{-1} V y with H y = g (back substitution over the columns built in this cycle).
            item.single([&] {
                for (int i = columns - 1; i >= 0; --i) {
                    T sum = g[i];
                    for (int l = i + 1; l < columns; ++l) {
                        sum -= h(i, l) * g[l];
                    }
                    g[i] = sum / h(i, i);
                }
            });
            item.for_rows([&](int row) {
                T sum{};
                for (int i = 0; i < columns; ++i) {
                    sum += g[i] * basis(i)[row];
                }
                w[row] = sum;
            });
            item.precondition(w, z);
            item.for_rows([&](int row) { x[row] += z[row]; });
            if (stop == ItemStatus::converged || stop == ItemStatus::breakdown ||
                stop == ItemStatus::non_finite) {
                return stop;
            }
            // A cycle ended without meeting the threshold: restart from the true residual.
            const T r_norm = true_residual(item, b, x, r);
            if (!is_finite(r_norm) || r_norm <= threshold) {
                return is_finite(r_norm) ? ItemStatus::converged : ItemStatus::non_finite;
            }
        }
        return ItemStatus::max_iterations;
    }
};

/**
 * The per-item driver every backend runs: b_i = 0 gives x_i = 0; otherwise the method iterates from the
 * true residual, and whenever it stops the true residual decides: converged if it meets the threshold,
 * non_finite if it is NaN/Inf, max_iterations when the budget is spent, else a restart from it (at most
 * max_residual_replacements times; then breakdown or residual_gap). Vector 0 of the item holds r.
 */
template <typename Method, typename Item, typename T>
LARCH_HOST_DEVICE ItemOutcome<T> solve_item(Item& item, const ItemCriterion<T>& criterion, const T* b,
                                            T* x)
{
    const T b_norm = std::sqrt(item.dot(b, b));
    const T threshold = criterion.absolute ? criterion.tolerance : criterion.tolerance * b_norm;
    if (!is_finite(b_norm)) {
        return {ItemStatus::non_finite, 0, b_norm, threshold};
    }
    if (b_norm == T{}) {
        item.for_rows([&](int row) { x[row] = T{}; });
        item.record(0, T{});
        return {ItemStatus::converged, 0, T{}, threshold};
    }
    T* r = item.vector(0);
    T r_norm = true_residual(item, b, x, r);
    item.record(0, r_norm);
    int iterations = 0;
    ItemStatus last_stop = ItemStatus::converged;
    for (int restarts = 0;; ++restarts) {
        if (!is_finite(r_norm)) {
            return {ItemStatus::non_finite, iterations, r_norm, threshold};
        }
        if (r_norm <= threshold) {
            return {ItemStatus::converged, iterations, r_norm, threshold};
        }
        if (iterations >= criterion.max_iterations) {
            return {ItemStatus::max_iterations, iterations, r_norm, threshold};
        }
        if (restarts > criterion.max_residual_replacements) {
            return {last_stop == ItemStatus::breakdown ? ItemStatus::breakdown : ItemStatus::residual_gap,
                    iterations, r_norm, threshold};
        }
        last_stop = Method::iterate(item, criterion, threshold, b, x, iterations);
        r_norm = true_residual(item, b, x, r);
        item.record(iterations, r_norm);
    }
}

}  // namespace item
}  // namespace batch
}  // namespace larch
