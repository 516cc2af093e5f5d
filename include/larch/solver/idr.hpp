// solver::Idr<T>: IDR(s), the induced dimension reduction method with bi-orthogonalization (van Gijzen and
// Sonneveld, ACM TOMS 38(1), Algorithm 913), right-preconditioned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * IDR(s) for general systems. The shadow space P (n x s) is generated on the executor: entries uniform in
 * [-1, 1) from a counter-based generator with the seed `seed` (the same bits on every backend), then
 * orthonormalized there by classical Gram-Schmidt twice, so every executor starts from the same P up to the
 * rounding of that orthonormalization, and generation costs a few passes over P instead of host work and a
 * copy; s larger than n is reduced to n. Reproducibility: a solve repeated on one executor gives the same
 * iterates and iteration count (omp sums its reductions in fixed chunks, whatever the thread count), but
 * executors differ in the order of their sums (reference sequentially, omp by chunks, GPUs by blocks), so
 * their iterates differ by rounding, which IDR amplifies: iteration counts may differ between executors (by
 * a few percent on sherman1 at a relative residual of 1e-9). Per s+1 iterations: s+1 applies of A and of
 * the preconditioner, O(s^2) vector updates and reductions; the products with the shadow space
 * (p_i^T g_k, i = k..s) are one projection kernel on P for every column (gram_schmidt::project: a parallel
 * reduction per product), the other reductions Dense's dots and norms.
 * omega uses the "maintaining the convergence" choice with `kappa` (default 0.7).
 * Several right-hand sides iterate together (up to 32, more in groups of 32): one apply of A and of the
 * preconditioner on the n x cols block per step, every update a Dense operation with one scalar per column, and
 * one P shared by all columns.
 *
 * What runs where: each column's s x s system (m = P^T G, f = P^T r, the coefficients c), omega, the
 * scalars of every update and the column's stop stay on the executor for the whole apply (allocated once
 * per apply), updated by one small kernel per phase of a step (core/solver/idr_kernels.hpp), so an
 * iteration never waits for the host. The host reads the residual norms every `check_interval` iterations
 * (one synchronization; an iteration is one update of r and x, s + 1 of them per cycle) and passes them to
 * each column's monitor in order. A column that meets the threshold, breaks down or turns NaN/Inf stops
 * itself on the executor in that very step: from then on its scalars are zero and its x is not written
 * again (x changes only in the running columns), so x, the iteration count and the status are those of
 * the stopping iteration whatever the interval, and each column ends with the x, iteration count and status
 * of solving it alone (bit for bit where A, M and the kernels treat columns independently, as larch's do on
 * reference and omp). Overshoot: a stop the host decides (divergence, stagnation, time limit) may let x run
 * on by at most check_interval - 1 further iterations (the count reported is the stopping one; IDR never
 * pauses a column, since a column cannot leave its cycle and rejoin it later). Once every column has
 * stopped, the executor may still run the rest of its block: work that changes no x. The iteration limit
 * is never overshot.
 * Breakdowns (p_k^T g_k = 0, A M^{-1} r = 0, omega = 0, or a coefficient c_i, beta or omega that overflows)
 * stop the column before it updates x, and the driver restarts it from the true residual; a NaN or Inf in
 * p_i^T g_k, ||A M^{-1} r|| or t^T r stops it as non_finite. omega is computed from the norms ||t|| and ||r||
 * rather than their squares, which underflow below 1e-154 (a matrix scaled by 2^-560 solves as unscaled).
 */
template <typename T>
class Idr : public ColumnsTogetherSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {
        /// s, the dimension of the shadow space (>= 1).
        size_type subspace_dim = 4;
        /// Seed of the random shadow space (same seed, same iterations).
        std::uint32_t seed = 42;
        /// Threshold of the omega safeguard in (0, 1]; 0 turns it off.
        double kappa = 0.7;
        /// k, the iterations between two reads of the residual norms by the host (>= 1): one read is a
        /// synchronization with the executor (about 10 us on a GPU); a stop decided on the host may let x
        /// run on by up to k - 1 iterations (see the class documentation).
        size_type check_interval = 8;

        parameters_type& with_subspace_dim(size_type value)
        {
            subspace_dim = value;
            return *this;
        }
        parameters_type& with_seed(std::uint32_t value)
        {
            seed = value;
            return *this;
        }
        parameters_type& with_kappa(double value)
        {
            kappa = value;
            return *this;
        }
        parameters_type& with_check_interval(size_type value)
        {
            check_interval = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<Idr, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Idr, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (subspace_dim 0, kappa outside [0, 1], check_interval 0, unbounded criteria),
    /// DimensionMismatch.
    static std::unique_ptr<Idr> create(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                                       std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// The subspace dimension in use (min(subspace_dim, n)).
    size_type get_subspace_dim() const noexcept { return shadow_space_.size(); }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Idr(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
        std::shared_ptr<const LinOp> system_matrix);

    /// All columns of x at once: one product with the n x cols block per step, each column with its own
    /// scalars on the executor.
    std::vector<IterationOutcome> iterate_columns(const matrix::Dense<T>& b, matrix::Dense<T>& x,
                                                  matrix::Dense<T>& r,
                                                  const std::vector<IterationMonitor*>& monitors) const override;
    /// The Gram-Schmidt kernels' limit: more columns iterate in groups of this many.
    size_type get_max_columns_together() const override;

private:
    parameters_type parameters_;
    /// P^T: s x n on the executor, one shadow vector per row.
    std::unique_ptr<matrix::Dense<T>> shadow_rows_;
    /// The s orthonormal shadow vectors p_1..p_s, each an n x 1 view of a row of shadow_rows_.
    std::vector<std::unique_ptr<matrix::Dense<T>>> shadow_space_;
};

}  // namespace solver
}  // namespace larch
