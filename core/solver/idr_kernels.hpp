// Kernels of IDR(s)'s small per-column systems on the executor: the s x s shadow system of every column
// (m = P^T G, f = P^T r, the coefficients c and omega), the scalars of each update and each column's stop,
// so that a step never waits for the host (core/solver/idr.cpp reads the state every check_interval steps).
// The layouts of the shadow systems and of the per-column state are defined here once for the solver, the
// kernels and the tests.
#pragma once

#include "core/base/host_device.hpp"
#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

/**
 * Where IDR(s) over `cols` columns keeps, on the executor, entry `col` of each quantity (doubles, entry
 * (i, c) of a quantity at i * cols + c of its part): the shadow matrix m (s x s, m(i, k) = p_i^T g_k, lower
 * triangular), the shadow right-hand side f (s rows) and the coefficients c (s rows).
 */
struct IdrLayout {
    size_type s;
    size_type cols;

    LARCH_HOST_DEVICE size_type shadow_matrix(size_type i, size_type k, size_type col) const
    {
        return (i * s + k) * cols + col;
    }
    LARCH_HOST_DEVICE size_type rhs(size_type i, size_type col) const { return (s * s + i) * cols + col; }
    LARCH_HOST_DEVICE size_type coefficient(size_type i, size_type col) const
    {
        return (s * s + s + i) * cols + col;
    }
    LARCH_HOST_DEVICE size_type system_size() const { return (s * s + 2 * s) * cols; }
    /// Rows of T the step's reductions (products) need: s shadow products, or ||t|| and t^T r.
    LARCH_HOST_DEVICE size_type product_rows() const { return s > 2 ? s : 2; }
    /// Rows of T of the scalars of one update: at most -c_k..-c_s, c_k, omega, c_{k+1}..c_s.
    LARCH_HOST_DEVICE size_type update_rows() const { return 2 * s + 1; }
};

/**
 * Where IDR keeps each column's stop state and scalars (doubles, one row of `cols` per field, as cg_state;
 * the fields that core/solver/column_state.hpp reviews): the host writes threshold, stopped (and omega = 1,
 * the first cycle's) once; the kernels write the rest.
 */
namespace idr_state {
constexpr size_type threshold = 0;
/// Set by the column state; unused by IDR, which never pauses (a column's cycle cannot wait for the host).
constexpr size_type pause_above = 1;
constexpr size_type stopped = 2;
constexpr size_type stop_slot = 3;
/// Why a column stopped with breakdown (one of the causes below).
constexpr size_type cause = 4;
constexpr size_type omega = 5;
/// ||r|| after the column's last update (the cosine of the omega safeguard).
constexpr size_type residual_norm = 6;
/// beta = f_k / m(k, k) of the current step.
constexpr size_type beta = 7;
constexpr size_type norms = 8;
/// Values of the stopped field.
using namespace column_stop;
/// Values of the cause field.
constexpr int triangular_zero = 0;
constexpr int shadow_not_finite = 1;
constexpr int shadow_zero = 2;
constexpr int t_norm_not_finite = 3;
constexpr int t_r_not_finite = 4;
constexpr int omega_zero = 5;
constexpr int coefficient_not_finite = 6;
constexpr int beta_not_finite = 7;
constexpr int omega_not_finite = 8;
}  // namespace idr_state

/**
 * The scalar parts of an IDR(s) step, in the order Idr runs them (k = 0..s-1 the steps into G, k = s the
 * dimension reduction). `products` holds the step's reductions (row i at i * cols), `updates` receives the
 * scalars of the vector updates (row i at i * cols, exactly 0 for a column that is not running).
 */
enum class IdrPhase {
    /// f(i) = products(i), i < s: f = P^T r at the start of a cycle.
    shadow_rhs,
    /// Solve m(k:s, k:s) c = f(k:s); updates: -c_k..-c_s, c_k, omega, c_{k+1}..c_s (2 (s - k) + 1 rows). A
    /// zero diagonal stops the column (triangular_zero), as does a c_i that is not finite
    /// (coefficient_not_finite).
    coefficients,
    /// Bi-orthogonalization of g_k against p_i (i = `index` < k): updates row 0 = -products(0) / m(i, i).
    orthogonalize,
    /// m(i, k) = products(i - k), i = k..s-1 (not finite: shadow_not_finite; m(k, k) = 0: shadow_zero);
    /// beta = f(k) / m(k, k) (not finite: beta_not_finite); updates -beta, beta.
    shadow_column,
    /// omega = t^T r / t^T t from products ||t||, t^T r with the safeguard |cos(t, r)| >= kappa (a zero ||t||
    /// or t^T r stops with omega_zero, an omega that is not finite with omega_not_finite); updates -omega,
    /// omega.
    omega,
    /// ||r|| = products(0) into norm slot `slot` and residual_norm; a norm at or below the threshold, zero
    /// or not finite finishes the column (IterationMonitor's tests), otherwise f(i) -= beta m(i, k) for
    /// i = k+1..s-1.
    residual,
};

LARCH_DECLARE_KERNEL(namespace idr {
    /**
     * Phase `phase` of step k of every running column (stopped == running in `state`); a column stops with
     * stop_slot = `slot` (and its cause for a breakdown), and a stopped column does not change. `index`: i
     * of orthogonalize. Arithmetic in double whatever T, in the order of the host's former loops.
     */
    template <typename T>
    void step(const DefaultExecutor& exec, const IdrLayout& layout, IdrPhase phase, size_type k, size_type index,
              size_type slot, double kappa, const array<T>& products, array<double>& system, array<double>& state,
              array<T>& updates);
    /// x(:, c) += alphas[c] b(:, c) for the running columns c (idr_state in `state`); the others keep x bit for
    /// bit (x + 0 b could still turn -0 into +0, or NaN in b into x).
    template <typename T>
    void add_scaled_running(const DefaultExecutor& exec, const array<T>& alphas, const array<double>& state,
                            const matrix::Dense<T>& b, matrix::Dense<T>& x);
})

/// The explicit instantiations every backend's IDR kernel file ends with, written once inside namespace
/// <backend>::idr as `LARCH_INSTANTIATE_IDR_KERNELS();`.
#define LARCH_INSTANTIATE_IDR_KERNELS() LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_IDR_KERNELS_FOR)
#define LARCH_INSTANTIATE_IDR_KERNELS_FOR(T)                                                                   \
    template void step<T>(const DefaultExecutor&, const IdrLayout&, IdrPhase, size_type, size_type, size_type, \
                          double, const array<T>&, array<double>&, array<double>&, array<T>&);                 \
    template void add_scaled_running<T>(const DefaultExecutor&, const array<T>&, const array<double>&,         \
                                        const matrix::Dense<T>&, matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
