// Cg<T>: generation and the preconditioned conjugate gradient iteration.
#include "larch/solver/cg.hpp"

#include <cmath>

#include "core/components/instantiation.hpp"

namespace larch {
namespace solver {

template <typename T>
Cg<T>::Cg(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
          std::shared_ptr<const LinOp> system_matrix)
    : IterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Cg"),
      parameters_{parameters}
{}

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

template <typename T>
IterationOutcome Cg<T>::iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                                double residual_norm, IterationMonitor& monitor) const
{
    (void)b, (void)residual_norm;
    const auto& a = *this->get_system_matrix();
    Reductions<T> reduce{this->get_executor()};
    auto z = this->create_vector();
    auto p = this->create_vector();
    auto q = this->create_vector();
    this->precondition(r, *z);
    p->copy_from(*z);
    double rho = reduce.dot(r, *z);
    while (true) {
        if (!std::isfinite(rho)) {
            return {stop::Reason::non_finite, "Cg: r^T M^{-1} r is NaN or Inf (check the preconditioner)"};
        }
        if (rho == 0) {
            return {stop::Reason::breakdown,
                    "Cg: r^T M^{-1} r = 0 for a nonzero residual (singular preconditioner)"};
        }
        a.apply(*p, *q);
        const double p_q = reduce.dot(*p, *q);
        if (!std::isfinite(p_q)) {
            return {stop::Reason::non_finite, "Cg: p^T A p is NaN or Inf"};
        }
        if (p_q == 0) {
            return {stop::Reason::breakdown, "Cg: p^T A p = 0 (A is not definite)"};
        }
        const double alpha = rho / p_q;
        x.add_scaled(static_cast<T>(alpha), *p);
        r.add_scaled(static_cast<T>(-alpha), *q);
        const auto reason = monitor.check(reduce.norm2(r));
        if (reason != stop::Reason::none) {
            return {reason, ""};
        }
        this->precondition(r, *z);
        const double rho_next = reduce.dot(r, *z);
        p->scale_add(static_cast<T>(rho_next / rho), *z);
        rho = rho_next;
    }
}

#define LARCH_INSTANTIATE_CG(T) template class Cg<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_CG);

}  // namespace solver
}  // namespace larch
