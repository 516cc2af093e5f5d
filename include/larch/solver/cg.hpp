// solver::Cg<T>: the preconditioned conjugate gradient method for symmetric positive definite systems.
#pragma once

#include <memory>
#include <string>

#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace solver {

/**
 * Preconditioned conjugate gradients (Hestenes-Stiefel) for symmetric positive definite A and M.
 * Per iteration: one apply of A, one of the preconditioner, 3 reductions and 3 vector updates.
 * Breakdowns: r^T M^{-1} r = 0 (singular preconditioner) or p^T A p = 0 (A not definite) stop the loop and
 * the driver restarts from the true residual (see IterativeSolver).
 *
 *     auto cg = solver::Cg<double>::build()
 *                   .with_criteria(stop::max_iterations(1000), stop::relative_residual(1e-9))
 *                   .on(exec)->generate(A);
 */
template <typename T>
class Cg : public IterativeSolver<T> {
public:
    class Factory;
    struct parameters_type : solver_parameters<parameters_type>,
                             enable_parameters<parameters_type, Factory> {};
    class Factory : public EnableFactory<Cg, parameters_type, SolverFactory<T>> {
    public:
        using EnableFactory<Cg, parameters_type, SolverFactory<T>>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /// Throws BadInput (unbounded criteria, null operands), DimensionMismatch (non-square A).
    static std::unique_ptr<Cg> create(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                                      std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// A solver with the same parameters generated anew on `exec`.
    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
       std::shared_ptr<const LinOp> system_matrix);

    IterationOutcome iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                             double residual_norm, IterationMonitor& monitor) const override;

private:
    parameters_type parameters_;
};

}  // namespace solver
}  // namespace larch
