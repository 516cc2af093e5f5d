// Idr<T>: generation (the random orthonormal shadow space, on the executor) and the IDR(s) iteration of
// van Gijzen and Sonneveld's Algorithm 913 (bi-orthogonal variant), right-preconditioned.
#include "larch/solver/idr.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/reduction_completion.hpp"
#include "core/components/instantiation.hpp"
#include "core/solver/gram_schmidt_kernels.hpp"
#include "core/solver/shadow_space_kernels.hpp"

namespace larch {
namespace solver {


template <typename T>
Idr<T>::Idr(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
            std::shared_ptr<const LinOp> system_matrix)
    : IterativeSolver<T>(exec, std::move(system_matrix), parameters, "Idr"), parameters_{parameters}
{
    LARCH_ENSURE(parameters.subspace_dim >= 1, BadInput, "Idr::generate: subspace_dim must be >= 1, got 0");
    LARCH_ENSURE(parameters.kappa >= 0 && parameters.kappa <= 1, BadInput,
                 "Idr::generate: kappa must lie in [0, 1], got " + std::to_string(parameters.kappa));
    using Dense = matrix::Dense<T>;
    const auto n = this->get_size().rows;
    // On an operator spread over processes the shadow vectors span the whole vector: each process holds
    // their entries of its rows, and they are orthonormalized over all of them.
    const auto group = this->get_reduction_group();
    ReductionScope reductions{group};
    // This process's rows are [first_row, first_row + n) of global_rows: its block of the same random space
    // as on one process.
    size_type first_row = 0;
    auto global_rows = n;
    if (group) {
        std::vector<double> rows(static_cast<size_type>(group->get_num_processes()));
        const auto local_rows = static_cast<double>(n);
        group->allgather(&local_rows, 1, rows.data());
        global_rows = 0;
        for (int p = 0; p < group->get_num_processes(); ++p) {
            first_row += p < group->get_process() ? static_cast<size_type>(rows[p]) : 0;
            global_rows += static_cast<size_type>(rows[p]);
        }
    }
    const auto s = std::min(parameters.subspace_dim, global_rows);
    shadow_rows_ = Dense::create(exec, dim2{s, n});
    LARCH_RUN_KERNEL(exec, shadow_space::fill_random, parameters.seed, global_rows, first_row, *shadow_rows_);
    // Orthonormalized row by row with two classical Gram-Schmidt passes against the rows before (twice, so
    // the rows stay orthonormal to rounding even for s close to n).
    auto coefficients = Dense::create(exec, dim2{s, 1});
    Reductions<T> reduce{exec};
    for (size_type k = 0; k < s; ++k) {
        auto row = Dense::create(exec, dim2{n, 1}, array<T>::view(exec, n, shadow_rows_->get_values() + k * n), 1);
        if (k > 0) {
            const auto previous =
                Dense::create(exec, dim2{k, n}, array<T>::view(exec, k * n, shadow_rows_->get_values()), n);
            const auto projection =
                Dense::create(exec, dim2{k, 1}, array<T>::view(exec, k, coefficients->get_values()), 1);
            for (int pass = 0; pass < 2; ++pass) {
                LARCH_RUN_KERNEL(exec, gram_schmidt::project, *previous, *row, *projection);
                detail::complete_sums(*exec, projection->get_values(), k);
                LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *previous, *projection, *row);
            }
        }
        const double norm = reduce.norm2(*row);
        // k < s <= n random vectors are independent with probability one; a zero norm would mean a broken
        // generator, not bad input.
        LARCH_ENSURE(norm > 0 && std::isfinite(norm), NotSupported,
                     "Idr::generate: shadow vector " + std::to_string(k) + " has norm " + std::to_string(norm));
        row->scale(static_cast<T>(1.0 / norm));
        shadow_space_.push_back(std::move(row));
    }
}

template <typename T>
std::unique_ptr<Idr<T>> Idr<T>::create(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                                       std::shared_ptr<const LinOp> system_matrix)
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Idr> result{new Idr(std::move(exec), parameters, std::move(system_matrix))};
    result->finish_generate(start);
    return result;
}

template <typename T>
std::unique_ptr<LinOp> Idr<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return create(std::move(exec), parameters_, this->get_system_matrix());
}

template <typename T>
std::string Idr<T>::get_type_name() const
{
    return std::string{"Idr<"} + type_name<T>() + ">";
}

template <typename T>
IterationOutcome Idr<T>::iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                                 double residual_norm, IterationMonitor& monitor) const
{
    (void)b;
    const auto& a = *this->get_system_matrix();
    Reductions<T> reduce{this->get_executor()};
    const auto& p = shadow_space_;
    const auto s = p.size();
    std::vector<std::unique_ptr<matrix::Dense<T>>> g(s);
    std::vector<std::unique_ptr<matrix::Dense<T>>> u(s);
    for (size_type k = 0; k < s; ++k) {
        g[k] = this->create_vector();
        u[k] = this->create_vector();
        g[k]->fill(T{});
        u[k]->fill(T{});
    }
    auto v = this->create_vector();
    auto t = this->create_vector();
    // m(i, k) = p_i^T g_k, lower triangular by construction (g_k is bi-orthogonal to p_1..p_{k-1}).
    std::vector<double> m(s * s, 0.0);
    auto m_at = [&](size_type i, size_type k) -> double& { return m[i * s + k]; };
    for (size_type k = 0; k < s; ++k) {
        m_at(k, k) = 1;
    }
    std::vector<double> f(s);
    std::vector<double> c(s);
    double omega = 1;
    auto finite_or_stop = [](double value, const char* what) -> IterationOutcome {
        if (!std::isfinite(value)) {
            return {stop::Reason::non_finite, std::string{"Idr: "} + what + " is NaN or Inf"};
        }
        return {stop::Reason::none, ""};
    };
    while (true) {
        for (size_type i = 0; i < s; ++i) {
            f[i] = reduce.dot(*p[i], r);
        }
        for (size_type k = 0; k < s; ++k) {
            // Solve the lower triangular m(k:s, k:s) c = f(k:s).
            for (size_type i = k; i < s; ++i) {
                double sum = f[i];
                for (size_type j = k; j < i; ++j) {
                    sum -= m_at(i, j) * c[j];
                }
                if (m_at(i, i) == 0) {
                    return {stop::Reason::breakdown, "Idr: p_i^T g_i = 0 in the small triangular system"};
                }
                c[i] = sum / m_at(i, i);
            }
            // v = r - G(:, k:s) c;  u_k = omega M^{-1} v + U(:, k:s) c;  g_k = A u_k
            v->copy_from(r);
            for (size_type i = k; i < s; ++i) {
                v->add_scaled(static_cast<T>(-c[i]), *g[i]);
            }
            this->precondition(*v, *t);
            u[k]->scale(static_cast<T>(c[k]));
            u[k]->add_scaled(static_cast<T>(omega), *t);
            for (size_type i = k + 1; i < s; ++i) {
                u[k]->add_scaled(static_cast<T>(c[i]), *u[i]);
            }
            a.apply(*u[k], *g[k]);
            // Make g_k bi-orthogonal to p_1..p_{k-1} (modified Gram-Schmidt), keeping g_k = A u_k.
            for (size_type i = 0; i < k; ++i) {
                const double alpha = reduce.dot(*p[i], *g[k]) / m_at(i, i);
                g[k]->add_scaled(static_cast<T>(-alpha), *g[i]);
                u[k]->add_scaled(static_cast<T>(-alpha), *u[i]);
            }
            for (size_type i = k; i < s; ++i) {
                m_at(i, k) = reduce.dot(*p[i], *g[k]);
                auto outcome = finite_or_stop(m_at(i, k), "p_i^T g_k");
                if (outcome.reason != stop::Reason::none) {
                    return outcome;
                }
            }
            if (m_at(k, k) == 0) {
                return {stop::Reason::breakdown, "Idr: p_k^T g_k = 0"};
            }
            const double beta = f[k] / m_at(k, k);
            r.add_scaled(static_cast<T>(-beta), *g[k]);
            x.add_scaled(static_cast<T>(beta), *u[k]);
            residual_norm = reduce.norm2(r);
            const auto reason = monitor.check(residual_norm);
            if (reason != stop::Reason::none) {
                return {reason, ""};
            }
            for (size_type i = k + 1; i < s; ++i) {
                f[i] -= beta * m_at(i, k);
            }
        }
        // Dimension reduction: the step into the next Sonneveld space, omega minimizing ||r - omega t||
        // with the safeguard of Sleijpen and van der Vorst against a tiny |cos(t, r)|.
        this->precondition(r, *v);
        a.apply(*v, *t);
        const double t_norm = reduce.norm2(*t);
        const double t_r = reduce.dot(*t, r);
        for (auto outcome : {finite_or_stop(t_norm, "||A M^{-1} r||"), finite_or_stop(t_r, "t^T r")}) {
            if (outcome.reason != stop::Reason::none) {
                return outcome;
            }
        }
        if (t_norm == 0 || t_r == 0) {
            return {stop::Reason::breakdown, "Idr: omega = t^T r / t^T t is 0 or undefined"};
        }
        omega = t_r / (t_norm * t_norm);
        const double cosine = std::abs(t_r) / (t_norm * residual_norm);
        if (cosine < parameters_.kappa) {
            omega *= parameters_.kappa / cosine;
        }
        r.add_scaled(static_cast<T>(-omega), *t);
        x.add_scaled(static_cast<T>(omega), *v);
        residual_norm = reduce.norm2(r);
        const auto reason = monitor.check(residual_norm);
        if (reason != stop::Reason::none) {
            return {reason, ""};
        }
    }
}

#define LARCH_INSTANTIATE_IDR(T) template class Idr<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_IDR);

}  // namespace solver
}  // namespace larch
