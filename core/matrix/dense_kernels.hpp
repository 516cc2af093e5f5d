// Kernels of matrix::Dense, declared once for every backend (see core/base/kernel_dispatch.hpp).
// Reductions write one value per column into `result` (an array on the kernel's executor).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

/**
 * A scalar Jacobi pass fused into the BiCGSTAB update before it (preconditioner::DiagonalScaling): where
 * `inverse_diagonal` is given, the update kernel also writes scaled(i, j) = inverse_diagonal[i] * u(i, j)
 * for every entry of the updated vector u, columns left alone included, as the preconditioner's own pass
 * would. Without it the solver applies its preconditioner separately.
 */
template <typename T>
struct FusedScaling {
    const array<T>* inverse_diagonal = nullptr;
    matrix::Dense<T>* scaled = nullptr;

    bool is_fused() const { return inverse_diagonal != nullptr; }
};

/// Rows [field, field + rows) of a solver step's state array (one entry per column of `cols` in each row) as
/// a view: where a step's kernel stores the products its scalars come from.
template <typename T>
array<T> state_rows(array<T>& state, size_type field, size_type rows, size_type cols)
{
    return array<T>::view(state.get_executor(), rows * cols, state.get_data() + field * cols);
}

LARCH_DECLARE_KERNEL(namespace dense {
    template <typename T>
    void fill(const DefaultExecutor& exec, matrix::Dense<T>& x, T value);
    template <typename T>
    void copy(const DefaultExecutor& exec, const matrix::Dense<T>& source, matrix::Dense<T>& dest);
    template <typename T>
    void scale(const DefaultExecutor& exec, T alpha, matrix::Dense<T>& x);
    /// x = x + alpha * b
    template <typename T>
    void add_scaled(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b,
                    matrix::Dense<T>& x);
    /// x(i, j) = alphas[j] * x(i, j)
    template <typename T>
    void scale_columns(const DefaultExecutor& exec, const array<T>& alphas, matrix::Dense<T>& x);
    /// x(i, j) = x(i, j) + alphas[j] * b(i, j)
    template <typename T>
    void add_scaled_columns(const DefaultExecutor& exec, const array<T>& alphas, const matrix::Dense<T>& b,
                            matrix::Dense<T>& x);
    /// x = alpha * x + b
    template <typename T>
    void scale_add(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& b,
                   matrix::Dense<T>& x);
    /// x = (alpha * a + beta * b) + gamma * x, in this order, in one pass; gamma == 0 only writes x.
    template <typename T>
    void combine(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a, T beta,
                 const matrix::Dense<T>& b, T gamma, matrix::Dense<T>& x);
    /// `workspace`: scratch a backend may need (the GPU's partial sums), enlarged only when too small.
    template <typename T>
    void compute_dot(const DefaultExecutor& exec, const matrix::Dense<T>& a,
                     const matrix::Dense<T>& b, array<T>& result, array<T>& workspace);
    template <typename T>
    void compute_norm2(const DefaultExecutor& exec, const matrix::Dense<T>& a, array<T>& result,
                       array<T>& workspace);
    /// Two dot products per column that share an operand, in one pass where the backend gains from it:
    /// result[col] = a_col^T b_col and result[cols + col] = a_col^T c_col (each summed as compute_dot sums).
    template <typename T>
    void compute_dot_pair(const DefaultExecutor& exec, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                          const matrix::Dense<T>& c, array<T>& result, array<T>& workspace);
    /// One conjugate-gradient step on scalars that stay on the executor (`state`, cg_state layout, one
    /// entry per column of x): for each column not yet stopped, alpha = rho / p_q, x += alpha p,
    /// r -= alpha q and, in the same pass, the norm sqrt(r^T r) into the column's entry of norms slot
    /// `slot`, and rho_old = rho. A rho or p_q that is zero or not finite stops the column before the
    /// update (stopped = cg_state::breakdown); a norm at or below the threshold, or not finite, stops it
    /// after (stopped = cg_state::finished), and one above pause_above pauses it (stopped =
    /// cg_state::paused). `slot` goes into stop_slot; a stopped column does not change until the host
    /// sets it running again.
    /// `workspace` holds the partial sums where a backend needs them: the caller keeps it between steps
    /// and the kernel enlarges it only when it is too small (so a solve allocates once).
    /// `inverse_diagonal`: where a scalar Jacobi D^{-1} is folded into the step (else nullptr), the same pass
    /// also forms the next rho = r^T D^{-1} r of each column that ran and did not break down
    /// (cg_rules::finish_step_with_rho), so no preconditioner apply and dot follow.
    template <typename T>
    void cg_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p,
                          const matrix::Dense<T>& q, matrix::Dense<T>& x, matrix::Dense<T>& r,
                          size_type slot, array<T>& state, array<T>& workspace,
                          const array<T>* inverse_diagonal);
    /// The direction update of step `slot`, p = z + (rho / rho_old) p, for the running columns and those
    /// this step paused; with `inverse_diagonal` (a folded scalar Jacobi), z = D^{-1} r is formed here from
    /// r passed as `z`.
    template <typename T>
    void cg_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& z, matrix::Dense<T>& p,
                           size_type slot, const array<T>& state, const array<T>* inverse_diagonal);
    /// BiCGSTAB's direction update on scalars that stay on the executor (`state`, bicgstab_state layout,
    /// one entry per column of p): for each running column whose rho_new = r_hat^T r is finite and nonzero,
    /// beta = (rho_new / rho) (alpha / omega) and p = (r - omega beta v) + beta p in one pass, in this
    /// order (PETSc's). Other columns are left alone; bicgstab_step_half records a bad rho_new. `p_hat`:
    /// p_hat = D^{-1} p from the same pass where it is fused.
    template <typename T>
    void bicgstab_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& r,
                                 const matrix::Dense<T>& v, matrix::Dense<T>& p, const array<T>& state,
                                 const FusedScaling<T>& p_hat);
    /// BiCGSTAB's half step `slot`: shadow_v = r_hat^T v (`shadow` is r_hat) is formed first, for every
    /// column, into the state (over the process group in a distributed solve; on GPUs in the step's own
    /// launch where one block reduces a column). Then a running column whose rho_new or shadow_v is zero or
    /// not finite stops before any update (stopped = bicgstab_state::breakdown, the cause recorded); the
    /// others take alpha = rho_new / shadow_v, rho = rho_new and r -= alpha v (r holds s from here on) with
    /// ||s|| = sqrt(s^T s) from the same pass. A finite ||s|| at or below the threshold stops the column
    /// (stopped = bicgstab_state::half_finished, ||s|| in norm slot `slot`): the solution step of the same
    /// slot then adds alpha p_hat to x. `workspace` as for cg_step_solution. `s_hat`: s_hat = D^{-1} s from
    /// the same pass where it is fused.
    template <typename T>
    void bicgstab_step_half(const DefaultExecutor& exec, const matrix::Dense<T>& shadow, const matrix::Dense<T>& v,
                            matrix::Dense<T>& r, size_type slot, array<T>& state, array<T>& workspace,
                            const FusedScaling<T>& s_hat);
    /// BiCGSTAB's solution step `slot`: t_t = t^T t and t_s = t^T s (s held in r) are formed first, for
    /// every column, into the state (as shadow_v in the half step). Then a column the half step finished gets x += alpha p_hat (stopped =
    /// finished); a running column with t_t = t^T t and t_s = t^T s finite and nonzero takes omega =
    /// t_s / t_t, x = (alpha p_hat + omega s_hat) + x and r = s - omega t in one pass with ||r|| =
    /// sqrt(r^T r) into norm slot `slot`; a norm at or below the threshold, or not finite, stops it
    /// (finished), one above pause_above pauses it (paused). t_t or t_s not finite stops the column with
    /// no update, t_t or t_s zero after x += alpha p_hat (both stopped = breakdown). A stopped column
    /// does not change until the host sets it running again. The same pass forms the next rho_new =
    /// r_hat^T r with the shadow residual r_hat (`shadow`) for each column it fully updated
    /// (bicgstab_rules::finish_solution_step_with_rho), so the next direction step needs no dot of its own.
    template <typename T>
    void bicgstab_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p_hat,
                                const matrix::Dense<T>& s_hat, const matrix::Dense<T>& t,
                                const matrix::Dense<T>& shadow, matrix::Dense<T>& x, matrix::Dense<T>& r,
                                size_type slot, array<T>& state, array<T>& workspace);
    template <typename T>
    void transpose(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                   matrix::Dense<T>& dest);
    /// c = alpha * a * b + beta * c; with beta == 0, c is only written (NaN in c does not propagate).
    template <typename T>
    void gemm(const DefaultExecutor& exec, T alpha, const matrix::Dense<T>& a,
              const matrix::Dense<T>& b, T beta, matrix::Dense<T>& c);
    /// row_nnz[i] = number of nonzero entries of row i (for conversion to sparse formats); row_nnz has
    /// rows + 1 slots, the last one is left for prefix_sum.
    template <typename T, typename I>
    void count_nonzeros_per_row(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                                I* row_nnz);
    /// Fills the column indices and values of a Csr whose row pointers are already computed (the nonzero
    /// entries of each row, in column order).
    template <typename T, typename I>
    void convert_to_csr(const DefaultExecutor& exec, const matrix::Dense<T>& source,
                        matrix::Csr<T, I>& result);
})

/**
 * The values of the `stopped` field of every Krylov solver's per-column state (cg_state, bicgstab_state, and
 * GMRES's and IDR's in core/solver), which core/solver/column_state.hpp reviews: each state namespace takes
 * them from here.
 */
namespace column_stop {
constexpr int running = 0;
constexpr int breakdown = 1;
constexpr int finished = 2;
constexpr int paused = 3;
}  // namespace column_stop

/**
 * Where the conjugate-gradient kernels keep a solve's scalars: field f of column c is entry
 * f * cols + c of the state array (entries of type T, stop codes and slots stored as small integers),
 * and norm slot s of column c is entry (norms + s) * cols + c. The host writes the threshold and zeroes
 * the stop fields before the first step, and reads the whole array once per check.
 */
namespace cg_state {
constexpr size_type rho = 0;
constexpr size_type rho_old = 1;
constexpr size_type p_q = 2;
constexpr size_type threshold = 3;
constexpr size_type stopped = 4;
constexpr size_type stop_slot = 5;
/// A norm above this pauses the column (stopped = paused) until the host has looked at it.
constexpr size_type pause_above = 6;
constexpr size_type norms = 7;
/// Values of the stopped field.
using namespace column_stop;
}  // namespace cg_state

/**
 * Where the BiCGSTAB kernels keep a solve's scalars, laid out as cg_state: field f of column c is entry
 * f * cols + c, norm slot s of column c is entry (norms + s) * cols + c. The reductions write rho_new,
 * shadow_v, t_t and t_s; the step kernels keep rho, alpha and omega of the running iteration; the host
 * writes rho = alpha = omega = 1, the threshold, pause_above and the stop fields before the first step.
 */
namespace bicgstab_state {
/// r_hat^T r of this step.
constexpr size_type rho_new = 0;
/// r_hat^T r of the previous step.
constexpr size_type rho = 1;
constexpr size_type alpha = 2;
constexpr size_type omega = 3;
/// r_hat^T v, v = A M^{-1} p.
constexpr size_type shadow_v = 4;
/// t^T t and t^T s, t = A M^{-1} s.
constexpr size_type t_t = 5;
constexpr size_type t_s = 6;
static_assert(t_s == t_t + 1, "the solution step forms t^T t and t^T s as the two rows of one reduction");
constexpr size_type threshold = 7;
/// A residual norm above this pauses the column (stopped = paused) until the host has looked at it.
constexpr size_type pause_above = 8;
constexpr size_type stopped = 9;
constexpr size_type stop_slot = 10;
/// Which scalar broke down (one of the causes below), for a column stopped with breakdown.
constexpr size_type cause = 11;
/// s^T s of this step's half step, for the omega safeguard.
constexpr size_type s_s = 12;
/// The omega safeguard's threshold (Bicgstab's kappa; 0: off), the same in every step.
constexpr size_type kappa = 13;
constexpr size_type norms = 14;
/// Values of the stopped field.
using namespace column_stop;
/// ||s|| met the threshold in the half step; the solution step adds alpha p_hat to x and finishes it.
constexpr int half_finished = 4;
/// Values of the cause field.
constexpr int rho_not_finite = 0;
constexpr int rho_zero = 1;
constexpr int shadow_v_not_finite = 2;
constexpr int shadow_v_zero = 3;
constexpr int t_not_finite = 4;
constexpr int omega_zero = 5;
}  // namespace bicgstab_state

/// The explicit instantiations every backend's dense kernel file ends with, written once inside namespace
/// <backend>::dense as `LARCH_INSTANTIATE_DENSE_KERNELS();` (for every type in
/// core/components/instantiation.hpp).
#define LARCH_INSTANTIATE_DENSE_KERNELS()                                                    \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_DENSE_KERNELS_FOR);              \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_DENSE_CONVERSIONS_FOR)
#define LARCH_INSTANTIATE_DENSE_KERNELS_FOR(T)                                                     \
    template void fill<T>(const DefaultExecutor&, matrix::Dense<T>&, T);                           \
    template void copy<T>(const DefaultExecutor&, const matrix::Dense<T>&, matrix::Dense<T>&);     \
    template void scale<T>(const DefaultExecutor&, T, matrix::Dense<T>&);                          \
    template void add_scaled<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                \
                                matrix::Dense<T>&);                                                \
    template void scale_columns<T>(const DefaultExecutor&, const array<T>&, matrix::Dense<T>&);    \
    template void add_scaled_columns<T>(const DefaultExecutor&, const array<T>&,                   \
                                        const matrix::Dense<T>&, matrix::Dense<T>&);               \
    template void scale_add<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                 \
                               matrix::Dense<T>&);                                                 \
    template void combine<T>(const DefaultExecutor&, T, const matrix::Dense<T>&, T,                \
                             const matrix::Dense<T>&, T, matrix::Dense<T>&);                       \
    template void compute_dot<T>(const DefaultExecutor&, const matrix::Dense<T>&,                  \
                                 const matrix::Dense<T>&, array<T>&, array<T>&);                   \
    template void compute_norm2<T>(const DefaultExecutor&, const matrix::Dense<T>&, array<T>&,     \
                                   array<T>&);                                                     \
    template void compute_dot_pair<T>(const DefaultExecutor&, const matrix::Dense<T>&,             \
                                      const matrix::Dense<T>&, const matrix::Dense<T>&, array<T>&,  \
                                      array<T>&);                                                   \
    template void transpose<T>(const DefaultExecutor&, const matrix::Dense<T>&, matrix::Dense<T>&); \
    template void gemm<T>(const DefaultExecutor&, T, const matrix::Dense<T>&,                      \
                          const matrix::Dense<T>&, T, matrix::Dense<T>&)
/// The explicit instantiations of the fused Krylov steps, written once inside namespace <backend>::dense as
/// `LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS();` (a backend may keep them in a file of their own).
#define LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS_FOR)
#define LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS_FOR(T)                                               \
    template void cg_step_solution<T>(const DefaultExecutor&, const matrix::Dense<T>&,            \
                                      const matrix::Dense<T>&, matrix::Dense<T>&, matrix::Dense<T>&, \
                                      size_type, array<T>&, array<T>&, const array<T>*);          \
    template void cg_step_direction<T>(const DefaultExecutor&, const matrix::Dense<T>&,           \
                                       matrix::Dense<T>&, size_type, const array<T>&,             \
                                       const array<T>*);                                          \
    template void bicgstab_step_direction<T>(const DefaultExecutor&, const matrix::Dense<T>&,     \
                                             const matrix::Dense<T>&, matrix::Dense<T>&,          \
                                             const array<T>&, const FusedScaling<T>&);            \
    template void bicgstab_step_half<T>(const DefaultExecutor&, const matrix::Dense<T>&,          \
                                        const matrix::Dense<T>&, matrix::Dense<T>&, size_type,    \
                                        array<T>&, array<T>&, const FusedScaling<T>&);            \
    template void bicgstab_step_solution<T>(const DefaultExecutor&, const matrix::Dense<T>&,      \
                                            const matrix::Dense<T>&, const matrix::Dense<T>&,     \
                                            const matrix::Dense<T>&, matrix::Dense<T>&,           \
                                            matrix::Dense<T>&, size_type, array<T>&, array<T>&)
#define LARCH_INSTANTIATE_DENSE_CONVERSIONS_FOR(T, I)                                              \
    template void count_nonzeros_per_row<T, I>(const DefaultExecutor&, const matrix::Dense<T>&,    \
                                               I*);                                                \
    template void convert_to_csr<T, I>(const DefaultExecutor&, const matrix::Dense<T>&,            \
                                       matrix::Csr<T, I>&)

}  // namespace kernels
}  // namespace larch
