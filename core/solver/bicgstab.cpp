// Bicgstab<T>: generation and van der Vorst's right-preconditioned BiCGSTAB iteration.
#include "larch/solver/bicgstab.hpp"

#include <algorithm>
#include <string>

#include "core/base/number_text.hpp"
#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "core/solver/column_state.hpp"

namespace larch {
namespace solver {

template <typename T>
Bicgstab<T>::Bicgstab(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                      std::shared_ptr<const LinOp> system_matrix)
    : ColumnsTogetherSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Bicgstab"),
      parameters_{parameters}
{
    LARCH_ENSURE(parameters.check_interval >= 1, BadInput,
                 "Bicgstab::generate: check_interval must be >= 1, got 0");
    LARCH_ENSURE(parameters.kappa >= 0 && parameters.kappa <= 1, BadInput,
                 "Bicgstab::generate: kappa must be in [0, 1], got " + detail::number_text(parameters.kappa));
}

template <typename T>
std::unique_ptr<Bicgstab<T>> Bicgstab<T>::create(std::shared_ptr<const Executor> exec,
                                                 const parameters_type& parameters,
                                                 std::shared_ptr<const LinOp> system_matrix)
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Bicgstab> result{new Bicgstab(std::move(exec), parameters, std::move(system_matrix))};
    result->finish_generate(start);
    return result;
}

template <typename T>
std::unique_ptr<LinOp> Bicgstab<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return create(std::move(exec), parameters_, this->get_system_matrix());
}

template <typename T>
std::string Bicgstab<T>::get_type_name() const
{
    return std::string{"Bicgstab<"} + type_name<T>() + ">";
}

namespace {

/// The reason and message of a column that broke down with this cause (bicgstab_state).
IterationOutcome breakdown_outcome(int cause)
{
    namespace state_field = kernels::bicgstab_state;
    switch (cause) {
    case state_field::rho_not_finite:
        return {stop::Reason::non_finite, "Bicgstab: rho = r_hat^T r is NaN or Inf"};
    case state_field::rho_zero:
        return {stop::Reason::breakdown, "Bicgstab: rho = r_hat^T r = 0"};
    case state_field::shadow_v_not_finite:
        return {stop::Reason::non_finite, "Bicgstab: r_hat^T A M^{-1} p is NaN or Inf"};
    case state_field::shadow_v_zero:
        return {stop::Reason::breakdown, "Bicgstab: r_hat^T A M^{-1} p = 0"};
    case state_field::t_not_finite:
        return {stop::Reason::non_finite, "Bicgstab: t = A M^{-1} s holds NaN or Inf"};
    default:
        return {stop::Reason::breakdown, "Bicgstab: omega = t^T s / t^T t is 0 or undefined"};
    }
}

}  // namespace

template <typename T>
std::vector<IterationOutcome> Bicgstab<T>::iterate_columns(const matrix::Dense<T>&, matrix::Dense<T>& x,
                                                           matrix::Dense<T>& r,
                                                           const std::vector<IterationMonitor*>& monitors) const
{
    namespace state_field = kernels::bicgstab_state;
    const auto& exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto cols = monitors.size();
    const auto rows = this->get_size().rows;
    ColumnState<T> columns{exec,
                           {state_field::threshold, state_field::pause_above, state_field::stopped,
                            state_field::stop_slot, state_field::norms},
                           parameters_.check_interval,
                           monitors};
    for (size_type col = 0; col < cols; ++col) {
        columns.field(state_field::rho, col) = T{1};
        columns.field(state_field::alpha, col) = T{1};
        columns.field(state_field::omega, col) = T{1};
        columns.field(state_field::kappa, col) = static_cast<T>(parameters_.kappa);
    }
    columns.upload();
    auto& state = columns.get_device_state();
    array<T> workspace{exec};
    auto rho_new = columns.view(state_field::rho_new);
    auto create_block = [&] { return matrix::Dense<T>::create(exec, dim2{rows, cols}); };
    auto shadow = create_block();
    auto p = create_block();
    auto v = create_block();
    auto p_hat = create_block();
    auto s_hat = create_block();
    auto t = create_block();
    shadow->copy_from(r);
    p->fill(T{});
    v->fill(T{});
    // Scalar Jacobi runs inside the updates of p and s, which saves a pass over each and two launches.
    const auto* inverse_diagonal = this->get_scaling_diagonal();
    const kernels::FusedScaling<T> p_scaling{inverse_diagonal, p_hat.get()};
    const kernels::FusedScaling<T> s_scaling{inverse_diagonal, s_hat.get()};
    while (columns.any_live()) {
        const auto steps = columns.next_block_steps();
        // Each solution step forms the next rho_new = r_hat^T r itself; a block starts from a dot, since
        // between blocks the host may have set columns running again.
        shadow->compute_dot(r, rho_new, workspace);
        for (size_type slot = 0; slot < steps; ++slot) {
            LARCH_RUN_KERNEL(exec, dense::bicgstab_step_direction, r, *v, *p, state, p_scaling);
            if (!p_scaling.is_fused()) {
                this->precondition(*p, *p_hat);
            }
            a.apply(*p_hat, *v);
            // forms r_hat^T v itself; r holds s from here on
            LARCH_RUN_KERNEL(exec, dense::bicgstab_step_half, *shadow, *v, r, slot, state, workspace, s_scaling);
            if (!s_scaling.is_fused()) {
                this->precondition(r, *s_hat);
            }
            a.apply(*s_hat, *t);
            // forms t^T t and t^T s itself
            LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *shadow, x, r, slot, state,
                             workspace);
        }
        columns.review("Bicgstab", steps, [&](size_type col) {
            return breakdown_outcome(static_cast<int>(columns.field(state_field::cause, col)));
        });
    }
    return columns.get_outcomes();
}

#define LARCH_INSTANTIATE_BICGSTAB(T) template class Bicgstab<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BICGSTAB);

}  // namespace solver
}  // namespace larch
