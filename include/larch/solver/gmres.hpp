// solver::Gmres<T>: restarted GMRES(m) with right preconditioning, so the monitored residual is b - Ax.
#pragma once

#include <memory>
#include <string>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * GMRES(m) (Saad and Schultz) with Arnoldi by classical Gram-Schmidt twice (CGS2) and Givens rotations. The
 * Krylov basis is a Dense (m+1) x n on the executor whose rows are the basis vectors (contiguous); the
 * Hessenberg matrix, the rotations and the small triangular solve stay on the host. Per iteration j: one
 * apply of A and of the preconditioner, two passes over the j+1 basis vectors (each one projection kernel
 * h = V w and one update kernel w -= V^T h), one read-back of both passes' coefficients and one norm (two
 * host synchronizations instead of j+2); per cycle one GEMM for x += M^{-1} V y and a true residual. A zero subdiagonal (lucky breakdown) ends the cycle with the exact Krylov solution.
 */
template <typename T>
class Gmres : public IterativeSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {
        /// m, the Krylov dimension after which the method restarts (>= 1).
        size_type restart = 30;

        parameters_type& with_restart(size_type value)
        {
            restart = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<Gmres, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Gmres, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (restart 0, unbounded criteria, null operands), DimensionMismatch (non-square A).
    static std::unique_ptr<Gmres> create(std::shared_ptr<const Executor> exec,
                                         const parameters_type& parameters,
                                         std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Gmres(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const LinOp> system_matrix);

    IterationOutcome iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                             double residual_norm, IterationMonitor& monitor) const override;

private:
    parameters_type parameters_;
};

}  // namespace solver
}  // namespace larch
