// Cg<T>: generation and the preconditioned conjugate gradient iteration.
#include "larch/solver/cg.hpp"

#include <algorithm>
#include <cmath>

#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "core/solver/column_state.hpp"

namespace larch {
namespace solver {

template <typename T>
Cg<T>::Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const LinOp> system_matrix)
    : ColumnsTogetherSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Cg"),
      parameters_{parameters}
{
    LARCH_ENSURE(parameters.check_interval >= 1, BadInput, "Cg::generate: check_interval must be >= 1, got 0");
}

template <typename T>
std::unique_ptr<Cg<T>> Cg<T>::create(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                                     std::shared_ptr<const LinOp> system_matrix)
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Cg> result{new Cg(std::move(exec), parameters, std::move(system_matrix))};
    result->finish_generate(start);
    return result;
}

template <typename T>
std::unique_ptr<LinOp> Cg<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return create(std::move(exec), parameters_, this->get_system_matrix());
}

template <typename T>
std::string Cg<T>::get_type_name() const
{
    return std::string{"Cg<"} + type_name<T>() + ">";
}

namespace {

/// The reason and message of a column that broke down with these scalars (cg_rules::usable failed).
IterationOutcome breakdown_outcome(double rho, double p_q)
{
    if (!std::isfinite(rho)) {
        return {stop::Reason::non_finite,
                "Cg: r^T M^{-1} r is NaN or Inf (NaN or Inf from the preconditioner, or a residual above about "
                "1e154, whose squares overflow)"};
    }
    if (rho == 0) {
        return {stop::Reason::breakdown, "Cg: r^T M^{-1} r = 0 for a nonzero residual (a singular preconditioner, or a residual below about "
                "1e-154, whose squares underflow)"};
    }
    if (!std::isfinite(p_q)) {
        return {stop::Reason::non_finite, "Cg: p^T A p is NaN or Inf"};
    }
    return {stop::Reason::breakdown, "Cg: p^T A p = 0 (A is not definite)"};
}

}  // namespace

template <typename T>
std::vector<IterationOutcome> Cg<T>::iterate_columns(const matrix::Dense<T>&, matrix::Dense<T>& x,
                                                     matrix::Dense<T>& r,
                                                     const std::vector<IterationMonitor*>& monitors) const
{
    namespace state_field = kernels::cg_state;
    const auto& exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto cols = monitors.size();
    const auto rows = this->get_size().rows;
    ColumnState<T> columns{exec,
                           {state_field::threshold, state_field::pause_above, state_field::stopped,
                            state_field::stop_slot, state_field::norms},
                           parameters_.check_interval,
                           monitors};
    columns.upload();
    auto& state = columns.get_device_state();
    array<T> workspace{exec};
    auto rho = columns.view(state_field::rho);
    auto p_q = columns.view(state_field::p_q);
    auto p = matrix::Dense<T>::create(exec, dim2{rows, cols});
    auto q = matrix::Dense<T>::create(exec, dim2{rows, cols});
    this->precondition_and_dot(r, *p, rho, workspace);
    // Scalar Jacobi folds into the step kernels: the solution step forms the next rho = r^T D^{-1} r beside
    // r^T r and the direction step D^{-1} r itself, which saves z, a pass over r and z, and a launch.
    const auto* inverse_diagonal = this->get_scaling_diagonal();
    auto z = inverse_diagonal ? nullptr : matrix::Dense<T>::create(exec, dim2{rows, cols});
    // What the direction step scales (r, folded) or takes as it is (z).
    const auto& direction_source = inverse_diagonal ? r : *z;
    while (columns.any_live()) {
        const auto steps = columns.next_block_steps();
        for (size_type slot = 0; slot < steps; ++slot) {
            a.apply(*p, *q);
            p->compute_dot(*q, p_q, workspace);
            LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *p, *q, x, r, slot, state, workspace, inverse_diagonal);
            if (!inverse_diagonal) {
                this->precondition_and_dot(r, *z, rho, workspace);
            }
            LARCH_RUN_KERNEL(exec, dense::cg_step_direction, direction_source, *p, slot, state, inverse_diagonal);
        }
        columns.review("Cg", steps, [&](size_type col) {
            return breakdown_outcome(columns.field(state_field::rho, col), columns.field(state_field::p_q, col));
        });
    }
    return columns.get_outcomes();
}

#define LARCH_INSTANTIATE_CG(T) template class Cg<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_CG);

}  // namespace solver
}  // namespace larch
