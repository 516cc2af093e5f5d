// Gmres<T>: generation and the restarted, right-preconditioned GMRES(m) iteration (Arnoldi with classical
// Gram-Schmidt twice, CGS2, on the executor; Hessenberg matrix, Givens rotations and triangular solve on the
// host).
#include "larch/solver/gmres.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/reduction_completion.hpp"
#include "core/components/instantiation.hpp"
#include "core/solver/gram_schmidt_kernels.hpp"

namespace larch {
namespace solver {

template <typename T>
Gmres<T>::Gmres(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                std::shared_ptr<const LinOp> system_matrix)
    : IterativeSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Gmres"),
      parameters_{parameters}
{
    LARCH_ENSURE(parameters.restart >= 1, BadInput, "Gmres::generate: restart must be >= 1, got 0");
}

template <typename T>
std::unique_ptr<Gmres<T>> Gmres<T>::create(std::shared_ptr<const Executor> exec,
                                           const parameters_type& parameters,
                                           std::shared_ptr<const LinOp> system_matrix)
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Gmres> result{new Gmres(std::move(exec), parameters, std::move(system_matrix))};
    result->finish_generate(start);
    return result;
}

template <typename T>
std::unique_ptr<LinOp> Gmres<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return create(std::move(exec), parameters_, this->get_system_matrix());
}

template <typename T>
std::string Gmres<T>::get_type_name() const
{
    return std::string{"Gmres<"} + type_name<T>() + ">";
}

template <typename T>
IterationOutcome Gmres<T>::iterate(const matrix::Dense<T>& b, matrix::Dense<T>& x, matrix::Dense<T>& r,
                                   double residual_norm, IterationMonitor& monitor) const
{
    using Dense = matrix::Dense<T>;
    const auto exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    Reductions<T> reduce{this->get_executor()};
    const auto n = this->get_size().rows;
    const auto m = parameters_.restart;
    auto basis = Dense::create(exec, dim2{m + 1, n});
    // Row j of the basis as an n x 1 vector (a view: the basis keeps the memory).
    auto krylov_vector = [&](size_type j) {
        return Dense::create(exec, dim2{n, 1}, array<T>::view(exec, n, basis->get_values() + j * n), 1);
    };
    auto z = this->create_vector();
    auto w = this->create_vector();
    // The projection coefficients of the two Gram-Schmidt passes, one row each, read back together.
    auto passes = Dense::create(exec, dim2{2, m + 1});
    std::vector<double> h((m + 1) * m);
    auto h_at = [&](size_type i, size_type j) -> double& { return h[i * m + j]; };
    std::vector<double> cosines(m);
    std::vector<double> sines(m);
    std::vector<double> g(m + 1);
    while (true) {
        auto v0 = krylov_vector(0);
        v0->copy_from(r);
        v0->scale(static_cast<T>(1.0 / residual_norm));
        std::fill(g.begin(), g.end(), 0.0);
        g[0] = residual_norm;
        IterationOutcome outcome{stop::Reason::none, ""};
        size_type k = 0;  // number of basis vectors whose coefficients y are solved for
        while (k < m && outcome.reason == stop::Reason::none) {
            const auto j = k;
            auto v_j = krylov_vector(j);
            this->precondition(*v_j, *z);
            a.apply(*z, *w);
            // CGS2: classical Gram-Schmidt twice, each pass one projection on the whole basis and one update
            // (Giraud, Langou, Rozloznik 2005: twice is enough for an orthogonal basis to working
            // accuracy), one read-back for both instead of a synchronizing dot per basis vector.
            const auto used = Dense::create(exec, dim2{j + 1, n}, array<T>::view(exec, (j + 1) * n, basis->get_values()), n);
            for (size_type pass = 0; pass < 2; ++pass) {
                auto coefficients = Dense::create(
                    exec, dim2{j + 1, 1}, array<T>::view(exec, j + 1, passes->get_values() + pass * (m + 1)), 1);
                LARCH_RUN_KERNEL(exec, gram_schmidt::project, *used, *w, *coefficients);
                detail::complete_sums(*exec, coefficients->get_values(), j + 1);
                LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *used, *coefficients, *w);
            }
            const auto coefficients = passes->copy_to_host();
            for (size_type i = 0; i <= j; ++i) {
                h_at(i, j) = static_cast<double>(coefficients[i]) + static_cast<double>(coefficients[m + 1 + i]);
            }
            const double subdiagonal = reduce.norm2(*w);
            bool finite = std::isfinite(subdiagonal);
            for (size_type i = 0; i <= j; ++i) {
                finite = finite && std::isfinite(h_at(i, j));
            }
            if (!finite) {
                // The columns solved so far are still valid: x gets their update below.
                outcome = {stop::Reason::non_finite, "Gmres: the Arnoldi process produced NaN or Inf"};
                break;
            }
            for (size_type i = 0; i < j; ++i) {
                const double upper = cosines[i] * h_at(i, j) + sines[i] * h_at(i + 1, j);
                h_at(i + 1, j) = -sines[i] * h_at(i, j) + cosines[i] * h_at(i + 1, j);
                h_at(i, j) = upper;
            }
            const double radius = std::hypot(h_at(j, j), subdiagonal);
            if (radius == 0) {
                outcome = {stop::Reason::breakdown, "Gmres: singular Hessenberg matrix (A M^{-1} v_j = 0)"};
                break;
            }
            cosines[j] = h_at(j, j) / radius;
            sines[j] = subdiagonal / radius;
            h_at(j, j) = radius;
            g[j + 1] = -sines[j] * g[j];
            g[j] = cosines[j] * g[j];
            k = j + 1;
            if (subdiagonal == 0) {
                // Lucky breakdown: the Krylov space is invariant, its solution is exact.
                monitor.check(std::abs(g[k]));
                outcome = {stop::Reason::converged, ""};
                break;
            }
            auto v_next = krylov_vector(j + 1);
            v_next->copy_from(*w);
            v_next->scale(static_cast<T>(1.0 / subdiagonal));
            outcome.reason = monitor.check(std::abs(g[k]));
        }
        if (k > 0) {
            // y = H(0:k, 0:k)^{-1} g(0:k); x += M^{-1} (V(0:k)^T y), the sum as one GEMM y^T V.
            std::vector<T> y(k);
            for (size_type i = k; i-- > 0;) {
                double sum = g[i];
                for (size_type l = i + 1; l < k; ++l) {
                    sum -= h_at(i, l) * static_cast<double>(y[l]);
                }
                y[i] = static_cast<T>(sum / h_at(i, i));
            }
            auto y_row = Dense::create(exec, dim2{1, k}, array<T>{exec, y.begin(), y.end()}, k);
            auto basis_rows = Dense::create(exec, dim2{k, n}, array<T>::view(exec, k * n, basis->get_values()), n);
            auto combination_row = Dense::create(exec, dim2{1, n}, array<T>::view(exec, n, w->get_values()), n);
            y_row->apply(*basis_rows, *combination_row);
            this->precondition(*w, *z);
            x.add_scaled(T{1}, *z);
        }
        if (outcome.reason != stop::Reason::none) {
            return outcome;
        }
        this->compute_residual(b, x, r);
        residual_norm = reduce.norm2(r);
        if (!std::isfinite(residual_norm)) {
            return {stop::Reason::non_finite, "Gmres: the residual after a restart is NaN or Inf"};
        }
        if (monitor.meets_threshold(residual_norm)) {
            return {stop::Reason::converged, ""};
        }
    }
}

#define LARCH_INSTANTIATE_GMRES(T) template class Gmres<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GMRES);

}  // namespace solver
}  // namespace larch
