// Gmres<T>: generation and the restarted, right-preconditioned GMRES(m) iteration of several columns
// together (Arnoldi with classical Gram-Schmidt twice, CGS2, on the executor; per column Hessenberg matrix,
// Givens rotations and triangular solve on the host).
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
    : ColumnsTogetherSolver<T>(std::move(exec), std::move(system_matrix), parameters, "Gmres"),
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

namespace {

/// The host's part of one column's Arnoldi cycle: Hessenberg matrix (rotated), rotations, right-hand side.
struct ArnoldiColumn {
    ArnoldiColumn(size_type restart, double residual_norm)
        : h((restart + 1) * restart), cosines(restart), sines(restart), g(restart + 1), restart{restart}
    {
        g[0] = residual_norm;
    }

    double& h_at(size_type i, size_type j) { return h[i * restart + j]; }

    /**
     * Takes column j of the Hessenberg matrix (entries 0..j in `coefficients`, the subdiagonal apart) and
     * rotates it; on success `solved` becomes j + 1 and g[j + 1] is the residual norm of the column. Returns
     * the reason that ends this column's cycle (none: go on).
     */
    IterationOutcome add_column(size_type j, const std::vector<double>& coefficients, double subdiagonal,
                                IterationMonitor& monitor)
    {
        bool finite = std::isfinite(subdiagonal);
        for (size_type i = 0; i <= j; ++i) {
            h_at(i, j) = coefficients[i];
            finite = finite && std::isfinite(coefficients[i]);
        }
        if (!finite) {
            // The columns solved so far are still valid: x gets their update at the end of the cycle.
            return {stop::Reason::non_finite, "Gmres: the Arnoldi process produced NaN or Inf"};
        }
        for (size_type i = 0; i < j; ++i) {
            const double upper = cosines[i] * h_at(i, j) + sines[i] * h_at(i + 1, j);
            h_at(i + 1, j) = -sines[i] * h_at(i, j) + cosines[i] * h_at(i + 1, j);
            h_at(i, j) = upper;
        }
        const double radius = std::hypot(h_at(j, j), subdiagonal);
        if (radius == 0) {
            return {stop::Reason::breakdown, "Gmres: singular Hessenberg matrix (A M^{-1} v_j = 0)"};
        }
        cosines[j] = h_at(j, j) / radius;
        sines[j] = subdiagonal / radius;
        h_at(j, j) = radius;
        g[j + 1] = -sines[j] * g[j];
        g[j] = cosines[j] * g[j];
        solved = j + 1;
        if (subdiagonal == 0) {
            // Lucky breakdown: the Krylov space is invariant, its solution is exact.
            monitor.check(std::abs(g[solved]));
            return {stop::Reason::converged, ""};
        }
        return {monitor.check(std::abs(g[solved])), ""};
    }

    /// y(0:solved) = H(0:solved, 0:solved)^{-1} g(0:solved), into entries (i, col) of `y` (row stride cols).
    template <typename T>
    void solve_into(T* y, size_type col, size_type cols)
    {
        std::vector<double> values(solved);
        for (size_type i = solved; i-- > 0;) {
            double sum = g[i];
            for (size_type l = i + 1; l < solved; ++l) {
                sum -= h_at(i, l) * static_cast<double>(static_cast<T>(values[l]));
            }
            values[i] = sum / h_at(i, i);
            y[i * cols + col] = static_cast<T>(values[i]);
        }
    }

    std::vector<double> h;
    std::vector<double> cosines;
    std::vector<double> sines;
    std::vector<double> g;
    size_type restart;
    /// The basis vectors whose coefficients y are solved for.
    size_type solved = 0;
};

}  // namespace

template <typename T>
size_type Gmres<T>::get_max_columns_together() const
{
    static_assert(max_columns_together <= kernels::max_gram_schmidt_columns,
                  "a group of columns must fit the Gram-Schmidt kernels");
    return max_columns_together;
}

template <typename T>
std::vector<IterationOutcome> Gmres<T>::iterate_columns(const matrix::Dense<T>& b, matrix::Dense<T>& x,
                                                      matrix::Dense<T>& r,
                                                      const std::vector<IterationMonitor*>& monitors) const
{
    using Dense = matrix::Dense<T>;
    const auto exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto n = this->get_size().rows;
    const auto cols = monitors.size();
    const auto m = parameters_.restart;
    auto basis = Dense::create(exec, dim2{m + 1, n * cols});
    // Basis vector j of every column as an n x cols block (a view: the basis keeps the memory).
    auto krylov_vectors = [&](size_type j) {
        return Dense::create(exec, dim2{n, cols}, array<T>::view(exec, n * cols, basis->get_values() + j * n * cols),
                             cols);
    };
    // The first j + 1 basis vectors, the operand of the Gram-Schmidt kernels.
    auto leading_vectors = [&](size_type count) {
        return Dense::create(exec, dim2{count, n * cols}, array<T>::view(exec, count * n * cols, basis->get_values()),
                             n * cols);
    };
    auto z = Dense::create(exec, dim2{n, cols});
    // The projection coefficients of both Gram-Schmidt passes ((m + 1) x cols each) and the norms of w (one
    // row), read back together once per iteration.
    const auto pass_size = (m + 1) * cols;
    array<T> arnoldi{exec, 2 * pass_size + cols};
    auto norms = array<T>::view(exec, cols, arnoldi.get_data() + 2 * pass_size);
    array<T> workspace{exec};
    std::vector<T> host_factors(cols);
    array<T> factors{exec, cols};
    // Scales the columns of v by host_factors (0 clears a column that does not go on).
    auto normalize = [&](Dense& v) {
        factors.copy_from(array<T>::view(exec->get_host(), cols, host_factors.data()));
        LARCH_RUN_KERNEL(exec, gram_schmidt::normalize, factors, v);
    };
    std::vector<IterationOutcome> outcomes(cols, IterationOutcome{stop::Reason::none, ""});
    std::vector<bool> live(cols);
    for (size_type col = 0; col < cols; ++col) {
        live[col] = monitors[col] != nullptr;
    }
    for (bool restarted = false;; restarted = true) {
        r.compute_norm2(norms, workspace);
        const auto residual_norms = norms.copy_to_host();
        std::vector<ArnoldiColumn> columns;
        std::vector<bool> running(cols, false);
        for (size_type col = 0; col < cols; ++col) {
            const double residual_norm = residual_norms[col];
            columns.emplace_back(m, residual_norm);
            if (live[col] && restarted) {
                if (!std::isfinite(residual_norm)) {
                    outcomes[col] = {stop::Reason::non_finite, "Gmres: the residual after a restart is NaN or Inf"};
                } else if (monitors[col]->meets_threshold(residual_norm)) {
                    outcomes[col] = {stop::Reason::converged, ""};
                }
                live[col] = outcomes[col].reason == stop::Reason::none;
            }
            running[col] = live[col];
            host_factors[col] = running[col] ? static_cast<T>(1.0 / residual_norm) : T{};
        }
        if (std::find(live.begin(), live.end(), true) == live.end()) {
            return outcomes;
        }
        auto v0 = krylov_vectors(0);
        v0->copy_from(r);
        normalize(*v0);
        std::vector<double> coefficients;
        for (size_type j = 0; j < m && std::find(running.begin(), running.end(), true) != running.end(); ++j) {
            this->precondition(*krylov_vectors(j), *z);
            auto w = krylov_vectors(j + 1);
            a.apply(*z, *w);
            // CGS2: classical Gram-Schmidt twice, each pass one projection on the whole basis and one update
            // (Giraud, Langou, Rozloznik 2005: twice is enough for an orthogonal basis to working
            // accuracy), one read-back for both passes and the norms instead of a synchronizing dot per basis
            // vector.
            const auto used = leading_vectors(j + 1);
            for (size_type pass = 0; pass < 2; ++pass) {
                auto projection =
                    Dense::create(exec, dim2{j + 1, cols},
                                  array<T>::view(exec, (j + 1) * cols, arnoldi.get_data() + pass * pass_size), cols);
                LARCH_RUN_KERNEL(exec, gram_schmidt::project, *used, *w, *projection, workspace);
                detail::complete_sums(*exec, projection->get_values(), (j + 1) * cols);
                LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *used, *projection, *w);
            }
            w->compute_norm2(norms, workspace);
            const auto values = arnoldi.copy_to_host();
            for (size_type col = 0; col < cols; ++col) {
                host_factors[col] = T{};
                if (!running[col]) {
                    continue;
                }
                coefficients.assign(j + 1, 0.0);
                for (size_type i = 0; i <= j; ++i) {
                    coefficients[i] = static_cast<double>(values[i * cols + col]) +
                                      static_cast<double>(values[pass_size + i * cols + col]);
                }
                const double subdiagonal = values[2 * pass_size + col];
                outcomes[col] = columns[col].add_column(j, coefficients, subdiagonal, *monitors[col]);
                running[col] = outcomes[col].reason == stop::Reason::none;
                if (running[col]) {
                    host_factors[col] = static_cast<T>(1.0 / subdiagonal);
                }
            }
            normalize(*w);
        }
        // x += M^{-1} (V y) for every column, y zero past a column's own solved count (zero for columns that
        // did not run): the combination as w = 0 - V (-y).
        size_type solved = 0;
        for (const auto& column : columns) {
            solved = std::max(solved, column.solved);
        }
        if (solved > 0) {
            std::vector<T> minus_y(solved * cols, T{});
            for (size_type col = 0; col < cols; ++col) {
                columns[col].solve_into(minus_y.data(), col, cols);
            }
            for (auto& value : minus_y) {
                value = -value;
            }
            auto y = Dense::create(exec, dim2{solved, cols}, array<T>{exec, minus_y.begin(), minus_y.end()}, cols);
            // Basis vector `solved` (solved <= m) is not part of the combination and is not needed any more.
            auto combination = krylov_vectors(solved);
            combination->fill(T{});
            LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *leading_vectors(solved), *y, *combination);
            this->precondition(*combination, *z);
            x.add_scaled(T{1}, *z);
        }
        for (size_type col = 0; col < cols; ++col) {
            live[col] = live[col] && outcomes[col].reason == stop::Reason::none;
        }
        if (std::find(live.begin(), live.end(), true) == live.end()) {
            return outcomes;
        }
        this->compute_residual(b, x, r);
    }
}

#define LARCH_INSTANTIATE_GMRES(T) template class Gmres<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GMRES);

}  // namespace solver
}  // namespace larch
