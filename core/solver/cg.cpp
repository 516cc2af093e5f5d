// Cg<T>: generation and the preconditioned conjugate gradient iteration.
#include "larch/solver/cg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"

namespace larch {
namespace solver {

template <typename T>
Cg<T>::Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const LinOp> system_matrix)
    : IterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Cg"),
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
        return {stop::Reason::non_finite, "Cg: r^T M^{-1} r is NaN or Inf (check the preconditioner)"};
    }
    if (rho == 0) {
        return {stop::Reason::breakdown, "Cg: r^T M^{-1} r = 0 for a nonzero residual (singular preconditioner)"};
    }
    if (!std::isfinite(p_q)) {
        return {stop::Reason::non_finite, "Cg: p^T A p is NaN or Inf"};
    }
    return {stop::Reason::breakdown, "Cg: p^T A p = 0 (A is not definite)"};
}

/// The largest T not above `threshold`, so that a norm of type T meets it on the executor exactly when
/// its double value meets it on the host.
template <typename T>
T threshold_below(double threshold)
{
    auto value = static_cast<T>(threshold);
    while (static_cast<double>(value) > threshold) {
        value = std::nextafter(value, -std::numeric_limits<T>::infinity());
    }
    return value;
}

}  // namespace

template <typename T>
IterationOutcome Cg<T>::iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                                double residual_norm, IterationMonitor& monitor) const
{
    (void)b, (void)residual_norm;
    namespace state_field = kernels::cg_state;
    const auto& exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto k = parameters_.check_interval;
    // The state of one column (cg_state layout), prepared on the host and copied over once.
    array<T> host_state{exec->get_host(), state_field::norms + k};
    std::fill_n(host_state.get_data(), host_state.get_size(), T{});
    host_state.get_data()[state_field::threshold] = threshold_below<T>(monitor.get_threshold());
    host_state.get_data()[state_field::pause_above] = threshold_below<T>(monitor.get_divergence_bound());
    array<T> state{exec};
    state.copy_from(host_state);
    array<T> workspace{exec};
    auto rho = array<T>::view(exec, 1, state.get_data() + state_field::rho);
    auto p_q = array<T>::view(exec, 1, state.get_data() + state_field::p_q);
    auto z = this->create_vector();
    auto p = this->create_vector();
    auto q = this->create_vector();
    this->precondition(r, *z);
    p->copy_from(*z);
    r.compute_dot(*z, rho, workspace);
    while (true) {
        const auto steps = std::min(k, monitor.get_remaining_iterations());
        if (steps == 0) {
            return {monitor.budget_exhausted(), ""};
        }
        for (size_type slot = 0; slot < steps; ++slot) {
            a.apply(*p, *q);
            p->compute_dot(*q, p_q, workspace);
            LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *p, *q, x, r, slot, state, workspace);
            this->precondition(r, *z);
            r.compute_dot(*z, rho, workspace);
            LARCH_RUN_KERNEL(exec, dense::cg_step_direction, *z, *p, slot, state);
        }
        host_state.copy_from(state);
        const auto values = host_state.get_const_data();
        const auto stopped = static_cast<int>(values[state_field::stopped]);
        const auto stop_slot = static_cast<size_type>(values[state_field::stop_slot]);
        const auto checked = stopped == state_field::running ? steps : stop_slot + 1;
        for (size_type slot = 0; slot < checked; ++slot) {
            if (stopped == state_field::breakdown && slot == stop_slot) {
                return breakdown_outcome(values[state_field::rho], values[state_field::p_q]);
            }
            const auto reason = monitor.check(values[state_field::norms + slot]);
            if (reason != stop::Reason::none) {
                return {reason, ""};
            }
        }
        // The executor finishes a column only where the monitor stops it (the same threshold and
        // non-finite test), so a column that is not running here was paused above the divergence
        // bound and the monitor let it go on.
        LARCH_ENSURE(stopped == state_field::running || stopped == state_field::paused, Error,
                     "Cg: the executor stopped a column the monitor did not stop (internal error)");
        if (stopped == state_field::paused) {
            const T running{state_field::running};
            exec->copy_from(*exec->get_host(), sizeof(T), &running, state.get_data() + state_field::stopped);
        }
    }
}

#define LARCH_INSTANTIATE_CG(T) template class Cg<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_CG);

}  // namespace solver
}  // namespace larch
