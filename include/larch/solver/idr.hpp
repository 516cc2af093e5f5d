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
 * copy; s larger than n is reduced to n. Reproducibility: a solve repeated on one executor gives the same iterates and iteration
 * count (omp sums its reductions in fixed chunks, whatever the thread count), but executors differ in the
 * order of their sums (reference sequentially, omp by chunks, GPUs by blocks), so their iterates differ by
 * rounding, which IDR amplifies: iteration counts may differ between executors (by a few percent on
 * sherman1 at a relative residual of 1e-9). Per s+1 iterations: s+1 applies of A and of the preconditioner,
 * O(s^2) reductions and vector updates. omega uses the "maintaining the convergence" choice with `kappa` (default 0.7).
 * Breakdowns (p_k^T g_k = 0, A M^{-1} r = 0, omega = 0) stop the loop and the driver restarts from the
 * true residual.
 */
template <typename T>
class Idr : public IterativeSolver<T> {
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
    };
    class Factory : public EnableFactory<Idr, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Idr, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (subspace_dim 0, kappa outside [0, 1], unbounded criteria), DimensionMismatch.
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

    IterationOutcome iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                             double residual_norm, IterationMonitor& monitor) const override;

private:
    parameters_type parameters_;
    /// P^T: s x n on the executor, one shadow vector per row.
    std::unique_ptr<matrix::Dense<T>> shadow_rows_;
    /// The s orthonormal shadow vectors p_1..p_s, each an n x 1 view of a row of shadow_rows_.
    std::vector<std::unique_ptr<matrix::Dense<T>>> shadow_space_;
};

}  // namespace solver
}  // namespace larch
