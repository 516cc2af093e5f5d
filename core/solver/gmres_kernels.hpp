// Kernels of GMRES's small least-squares problems on the executor: after each Arnoldi step, the Givens
// rotation of every column's new Hessenberg column with its residual estimate and its stop, so that an
// Arnoldi step never waits for the host (core/solver/gmres.cpp reads the estimates every check_interval
// steps). The layouts of the step's reductions, of the least-squares problems and of the per-column state
// are defined here once for the solver, the kernels and the tests.
#pragma once

#include "core/base/host_device.hpp"
#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "larch/base/array.hpp"

namespace larch {
namespace kernels {

/**
 * Where GMRES(m) over `cols` columns keeps, on the executor, entry `col` of each quantity (entry (i, c) of a
 * quantity with rows at i * cols + c of its part):
 * - the reductions of an Arnoldi step (values of T): the projection coefficients of the two Gram-Schmidt
 *   passes, m + 1 rows each, then the norms of w (one row);
 * - the least-squares problem of a cycle (doubles): the rotated right-hand side g (m + 1 rows), the rotated
 *   Hessenberg matrix H (its upper triangle packed by columns: H(i, j) is row j (j + 1) / 2 + i), the
 *   cosines and the sines of the rotations (m rows each). g and the leading columns of H come first, so
 *   the end of a cycle reads them as one prefix.
 */
struct GmresLayout {
    size_type restart;
    size_type cols;

    LARCH_HOST_DEVICE size_type projection(size_type pass, size_type i, size_type col) const
    {
        return (pass * (restart + 1) + i) * cols + col;
    }
    LARCH_HOST_DEVICE size_type subdiagonal(size_type col) const { return 2 * (restart + 1) * cols + col; }
    LARCH_HOST_DEVICE size_type reductions_size() const { return (2 * (restart + 1) + 1) * cols; }

    LARCH_HOST_DEVICE size_type rhs(size_type i, size_type col) const { return i * cols + col; }
    LARCH_HOST_DEVICE size_type hessenberg(size_type i, size_type j, size_type col) const
    {
        return (restart + 1 + j * (j + 1) / 2 + i) * cols + col;
    }
    LARCH_HOST_DEVICE size_type cosine(size_type j, size_type col) const
    {
        return (restart + 1 + restart * (restart + 1) / 2 + j) * cols + col;
    }
    LARCH_HOST_DEVICE size_type sine(size_type j, size_type col) const { return cosine(restart + j, col); }
    LARCH_HOST_DEVICE size_type problem_size() const { return cosine(2 * restart, 0); }
    /// The entries of g and of the first `solved` columns of H: what the solve for y reads.
    LARCH_HOST_DEVICE size_type solve_prefix_size(size_type solved) const { return hessenberg(0, solved, 0); }
};

/**
 * Where GMRES keeps each column's stop state (doubles, one row of `cols` per field, as cg_state; the fields
 * that core/solver/column_state.hpp reviews): the host writes threshold, pause_above and stopped; the step
 * kernel writes the residual estimate |g(j + 1)| of the step in slot `slot` into norm row norms + slot and
 * stops a column with stopped, stop_slot and cause.
 */
namespace gmres_state {
constexpr size_type threshold = 0;
/// Set by the column state; unused by GMRES's step, which never pauses: x changes only at the end of a
/// cycle, from the steps the monitor accepted.
constexpr size_type pause_above = 1;
constexpr size_type stopped = 2;
constexpr size_type stop_slot = 3;
/// Why a column stopped with breakdown (one of the causes below).
constexpr size_type cause = 4;
constexpr size_type norms = 5;
/// Values of the stopped field.
using namespace column_stop;
/// Values of the cause field: NaN or Inf in the step's coefficients; a zero rotation radius (singular
/// Hessenberg matrix); a zero subdiagonal with a nonzero radius (lucky breakdown: the Krylov space is
/// invariant and the column's cycle ends with its exact solution).
constexpr int non_finite = 0;
constexpr int singular = 1;
constexpr int lucky = 2;
}  // namespace gmres_state

LARCH_DECLARE_KERNEL(namespace gmres {
    /**
     * Arnoldi step `step` (j) of every running column c (stopped == running in `state`): H(i, j) = first
     * pass + second pass coefficient (as doubles, for i <= j), the earlier rotations applied to it, the
     * rotation that eliminates the subdiagonal (the norm of w), g(j + 1) = -sin g(j), g(j) = cos g(j), and
     * the estimate |g(j + 1)| into norm slot `slot`. factors[c] becomes 1 / subdiagonal for a column that
     * goes on and 0 for every other one (for gram_schmidt::normalize). A column stops (stop_slot = slot):
     * with breakdown and its cause (NaN or Inf, zero radius, zero subdiagonal), or finished when the
     * estimate meets the threshold (or is 0, or not finite), the tests of IterationMonitor. A stopped column
     * does not change. Arithmetic in double whatever T, in the order of the host's former loop.
     */
    template <typename T>
    void givens_step(const DefaultExecutor& exec, const GmresLayout& layout, size_type step, size_type slot,
                     const array<T>& reductions, array<double>& problem, array<double>& state,
                     array<T>& factors);
})

/// The explicit instantiations every backend's GMRES kernel file ends with, written once inside namespace
/// <backend>::gmres as `LARCH_INSTANTIATE_GMRES_KERNELS();`.
#define LARCH_INSTANTIATE_GMRES_KERNELS() LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GMRES_KERNELS_FOR)
#define LARCH_INSTANTIATE_GMRES_KERNELS_FOR(T)                                                             \
    template void givens_step<T>(const DefaultExecutor&, const GmresLayout&, size_type, size_type,         \
                                 const array<T>&, array<double>&, array<double>&, array<T>&)

}  // namespace kernels
}  // namespace larch
