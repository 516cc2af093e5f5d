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
    : ColumnsTogetherSolver<T>(exec, std::move(system_matrix), parameters, "Idr"), parameters_{parameters}
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
    array<T> workspace{exec};
    Reductions<T> reduce{exec};
    for (size_type k = 0; k < s; ++k) {
        auto row = Dense::create(exec, dim2{n, 1}, array<T>::view(exec, n, shadow_rows_->get_values() + k * n), 1);
        if (k > 0) {
            const auto previous =
                Dense::create(exec, dim2{k, n}, array<T>::view(exec, k * n, shadow_rows_->get_values()), n);
            const auto projection =
                Dense::create(exec, dim2{k, 1}, array<T>::view(exec, k, coefficients->get_values()), 1);
            for (int pass = 0; pass < 2; ++pass) {
                LARCH_RUN_KERNEL(exec, gram_schmidt::project, *previous, *row, *projection, workspace);
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

namespace {

/// One column's small IDR(s) system on the host: m(i, k) = p_i^T g_k (lower triangular by construction: g_k
/// is bi-orthogonal to p_1..p_{k-1}), f = P^T r, the coefficients c and omega. A stopped column's are zero.
struct ShadowSystem {
    explicit ShadowSystem(size_type s) : s{s}, m(s * s, 0.0), f(s, 0.0), c(s, 0.0)
    {
        for (size_type k = 0; k < s; ++k) {
            m_at(k, k) = 1;
        }
    }
    double& m_at(size_type i, size_type k) { return m[i * s + k]; }
    void clear()
    {
        std::fill(m.begin(), m.end(), 0.0);
        std::fill(f.begin(), f.end(), 0.0);
        std::fill(c.begin(), c.end(), 0.0);
        omega = 0;
    }

    size_type s;
    std::vector<double> m;
    std::vector<double> f;
    std::vector<double> c;
    double omega = 1;
    /// The norm of the column's r after its last update (the cosine of the omega safeguard).
    double residual_norm = 0;
};

IterationOutcome non_finite_outcome(const char* what)
{
    return {stop::Reason::non_finite, std::string{"Idr: "} + what + " is NaN or Inf"};
}

}  // namespace

template <typename T>
size_type Idr<T>::get_max_columns_together() const
{
    return kernels::max_gram_schmidt_columns;
}

template <typename T>
std::vector<IterationOutcome> Idr<T>::iterate_columns(const matrix::Dense<T>&, matrix::Dense<T>& x,
                                                      matrix::Dense<T>& r,
                                                      const std::vector<IterationMonitor*>& monitors) const
{
    using Dense = matrix::Dense<T>;
    const auto& exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto cols = monitors.size();
    const auto rows = this->get_size().rows;
    const auto s = shadow_space_.size();
    std::vector<IterationOutcome> outcomes(cols, IterationOutcome{stop::Reason::none, ""});
    std::vector<ShadowSystem> systems(cols, ShadowSystem{s});
    std::vector<bool> live(cols, false);
    for (size_type col = 0; col < cols; ++col) {
        live[col] = monitors[col] != nullptr;
    }
    auto create_block = [&] { return Dense::create(exec, dim2{rows, cols}); };
    std::vector<std::unique_ptr<Dense>> g(s);
    std::vector<std::unique_ptr<Dense>> u(s);
    for (size_type k = 0; k < s; ++k) {
        g[k] = create_block();
        u[k] = create_block();
        g[k]->fill(T{});
        u[k]->fill(T{});
    }
    auto v = create_block();
    auto t = create_block();
    // The per-column reductions of a step land side by side in `products` (row j, column col at j * cols +
    // col) and come back to the host in one read; the per-column scalars of a step go to the executor in
    // one write to `coefficients`, one row of cols values per update.
    array<T> products{exec, std::max<size_type>(s, 2) * cols};
    array<T> workspace{exec};
    std::vector<T> products_host(products.get_size());
    array<T> coefficients{exec, (2 * s + 1) * cols};
    std::vector<T> coefficients_host(coefficients.get_size());
    auto products_row = [&](size_type row) { return array<T>::view(exec, cols, products.get_data() + row * cols); };
    auto read_products = [&](size_type count_rows) {
        exec->get_host()->copy_from(*exec, count_rows * cols * sizeof(T), products.get_const_data(),
                                    products_host.data());
        return [&](size_type row, size_type col) { return static_cast<double>(products_host[row * cols + col]); };
    };
    // coefficient(row, col) = value for the live columns, exactly 0 for the stopped ones.
    auto set_coefficient = [&](size_type row, size_type col, double value) {
        coefficients_host[row * cols + col] = live[col] ? static_cast<T>(value) : T{};
    };
    auto upload_coefficients = [&](size_type count_rows) {
        exec->copy_from(*exec->get_host(), count_rows * cols * sizeof(T), coefficients_host.data(),
                        coefficients.get_data());
    };
    auto coefficient_row = [&](size_type row) {
        return array<T>::view(exec, cols, coefficients.get_data() + row * cols);
    };
    // p_i^T w for i = first..first+count-1 and every column of w: one projection on the shared shadow
    // vectors (a parallel reduction per product, each column summed as when alone) into rows 0..count-1 of
    // `products`, completed over a distributed solve's processes.
    auto shadow_products = [&](size_type first, size_type count, const Dense& w) {
        const auto stride = shadow_rows_->get_stride();
        const auto first_row = shadow_rows_->get_values() + first * stride;
        const auto shadow = Dense::create(exec, dim2{count, rows},
                                          array<T>::view(exec, (count - 1) * stride + rows, first_row), stride);
        auto result = Dense::create(exec, dim2{count, cols},
                                    array<T>::view(exec, count * cols, products.get_data()), cols);
        LARCH_RUN_KERNEL(exec, gram_schmidt::project, *shadow, w, *result, workspace);
        detail::complete_sums(*exec, products.get_data(), count * cols);
        return read_products(count);
    };
    // A column that stopped keeps the x it has now: its scalars become zero and its vectors are cleared, so
    // NaN or Inf in them reach neither x nor the other columns. Its x is kept aside and put back at the
    // end, since x + 0 * 0 may still turn an entry -0 into +0 (and M^{-1} with an Inf entry makes NaN of a
    // cleared column).
    std::unique_ptr<Dense> x_kept;
    std::vector<size_type> kept_columns;
    std::vector<size_type> just_stopped;
    auto stop_column = [&](size_type col, IterationOutcome outcome) {
        live[col] = false;
        outcomes[col] = std::move(outcome);
        systems[col].clear();
        just_stopped.push_back(col);
    };
    for (size_type col = 0; col < cols; ++col) {
        if (!live[col]) {
            systems[col].clear();
            just_stopped.push_back(col);
        }
    }
    // After each host decision: freezes the columns that just stopped and says whether any still iterates
    // (with none left nothing changes x any more, so there is nothing to freeze).
    auto freeze_stopped = [&] {
        if (std::none_of(live.begin(), live.end(), [](bool value) { return value; })) {
            return false;
        }
        for (const auto col : just_stopped) {
            if (!x_kept) {
                x_kept = create_block();
            }
            x_kept->create_column_view(col)->copy_from(*x.create_column_view(col));
            kept_columns.push_back(col);
            for (auto* block : {&r, v.get(), t.get()}) {
                block->create_column_view(col)->fill(T{});
            }
            for (size_type k = 0; k < s; ++k) {
                g[k]->create_column_view(col)->fill(T{});
                u[k]->create_column_view(col)->fill(T{});
            }
        }
        just_stopped.clear();
        return true;
    };
    auto finish = [&] {
        for (const auto col : kept_columns) {
            x.create_column_view(col)->copy_from(*x_kept->create_column_view(col));
        }
        return outcomes;
    };
    // The residual norms of every column after an update of r, passed to the monitors in order.
    auto check_residuals = [&](auto&& after_check) {
        auto norms = products_row(0);
        r.compute_norm2(norms, workspace);
        const auto norm = read_products(1);
        for (size_type col = 0; col < cols; ++col) {
            if (!live[col]) {
                continue;
            }
            systems[col].residual_norm = norm(0, col);
            const auto reason = monitors[col]->check(systems[col].residual_norm);
            if (reason != stop::Reason::none) {
                stop_column(col, {reason, ""});
            } else {
                after_check(col);
            }
        }
    };
    if (!freeze_stopped()) {
        return finish();
    }
    while (true) {
        {
            const auto f = shadow_products(0, s, r);
            for (size_type col = 0; col < cols; ++col) {
                for (size_type i = 0; live[col] && i < s; ++i) {
                    systems[col].f[i] = f(i, col);
                }
            }
        }
        for (size_type k = 0; k < s; ++k) {
            // Solve the lower triangular m(k:s, k:s) c = f(k:s), per column.
            for (size_type col = 0; col < cols; ++col) {
                auto& system = systems[col];
                for (size_type i = k; live[col] && i < s; ++i) {
                    double sum = system.f[i];
                    for (size_type j = k; j < i; ++j) {
                        sum -= system.m_at(i, j) * system.c[j];
                    }
                    if (system.m_at(i, i) == 0) {
                        stop_column(col,
                                    {stop::Reason::breakdown, "Idr: p_i^T g_i = 0 in the small triangular system"});
                        break;
                    }
                    system.c[i] = sum / system.m_at(i, i);
                }
            }
            if (!freeze_stopped()) {
                return finish();
            }
            // v = r - G(:, k:s) c;  u_k = omega M^{-1} v + U(:, k:s) c;  g_k = A u_k. Coefficient rows:
            // -c_k..-c_s, then c_k, omega, c_{k+1}..c_s.
            const auto tail = s - k;
            for (size_type col = 0; col < cols; ++col) {
                const auto& system = systems[col];
                for (size_type i = k; i < s; ++i) {
                    set_coefficient(i - k, col, -system.c[i]);
                }
                set_coefficient(tail, col, system.c[k]);
                set_coefficient(tail + 1, col, system.omega);
                for (size_type i = k + 1; i < s; ++i) {
                    set_coefficient(tail + 1 + i - k, col, system.c[i]);
                }
            }
            upload_coefficients(2 * tail + 1);
            v->copy_from(r);
            for (size_type i = k; i < s; ++i) {
                v->add_scaled(coefficient_row(i - k), *g[i]);
            }
            this->precondition(*v, *t);
            u[k]->scale(coefficient_row(tail));
            u[k]->add_scaled(coefficient_row(tail + 1), *t);
            for (size_type i = k + 1; i < s; ++i) {
                u[k]->add_scaled(coefficient_row(tail + 1 + i - k), *u[i]);
            }
            a.apply(*u[k], *g[k]);
            // Make g_k bi-orthogonal to p_1..p_{k-1} (modified Gram-Schmidt), keeping g_k = A u_k.
            for (size_type i = 0; i < k; ++i) {
                const auto p_g = shadow_products(i, 1, *g[k]);
                for (size_type col = 0; col < cols; ++col) {
                    const double alpha = live[col] ? p_g(0, col) / systems[col].m_at(i, i) : 0.0;
                    set_coefficient(0, col, -alpha);
                }
                upload_coefficients(1);
                g[k]->add_scaled(coefficient_row(0), *g[i]);
                u[k]->add_scaled(coefficient_row(0), *u[i]);
            }
            {
                const auto p_g = shadow_products(k, tail, *g[k]);
                for (size_type col = 0; col < cols; ++col) {
                    auto& system = systems[col];
                    for (size_type i = k; live[col] && i < s; ++i) {
                        system.m_at(i, k) = p_g(i - k, col);
                        if (!std::isfinite(system.m_at(i, k))) {
                            stop_column(col, non_finite_outcome("p_i^T g_k"));
                        }
                    }
                    if (live[col] && system.m_at(k, k) == 0) {
                        stop_column(col, {stop::Reason::breakdown, "Idr: p_k^T g_k = 0"});
                    }
                }
            }
            if (!freeze_stopped()) {
                return finish();
            }
            std::vector<double> beta(cols, 0.0);
            for (size_type col = 0; col < cols; ++col) {
                if (live[col]) {
                    beta[col] = systems[col].f[k] / systems[col].m_at(k, k);
                }
                set_coefficient(0, col, -beta[col]);
                set_coefficient(1, col, beta[col]);
            }
            upload_coefficients(2);
            r.add_scaled(coefficient_row(0), *g[k]);
            x.add_scaled(coefficient_row(1), *u[k]);
            check_residuals([&](size_type col) {
                auto& system = systems[col];
                for (size_type i = k + 1; i < s; ++i) {
                    system.f[i] -= beta[col] * system.m_at(i, k);
                }
            });
            if (!freeze_stopped()) {
                return finish();
            }
        }
        // Dimension reduction: the step into the next Sonneveld space, omega minimizing ||r - omega t||
        // with the safeguard of Sleijpen and van der Vorst against a tiny |cos(t, r)|.
        this->precondition(r, *v);
        a.apply(*v, *t);
        auto t_norms = products_row(0);
        auto t_r_products = products_row(1);
        t->compute_norm2(t_norms, workspace);
        t->compute_dot(r, t_r_products, workspace);
        const auto t_products = read_products(2);
        for (size_type col = 0; col < cols; ++col) {
            if (!live[col]) {
                continue;
            }
            auto& system = systems[col];
            const double t_norm = t_products(0, col);
            const double t_r = t_products(1, col);
            if (!std::isfinite(t_norm)) {
                stop_column(col, non_finite_outcome("||A M^{-1} r||"));
            } else if (!std::isfinite(t_r)) {
                stop_column(col, non_finite_outcome("t^T r"));
            } else if (t_norm == 0 || t_r == 0) {
                stop_column(col, {stop::Reason::breakdown, "Idr: omega = t^T r / t^T t is 0 or undefined"});
            } else {
                system.omega = t_r / (t_norm * t_norm);
                const double cosine = std::abs(t_r) / (t_norm * system.residual_norm);
                if (cosine < parameters_.kappa) {
                    system.omega *= parameters_.kappa / cosine;
                }
            }
        }
        if (!freeze_stopped()) {
            return finish();
        }
        for (size_type col = 0; col < cols; ++col) {
            set_coefficient(0, col, -systems[col].omega);
            set_coefficient(1, col, systems[col].omega);
        }
        upload_coefficients(2);
        r.add_scaled(coefficient_row(0), *t);
        x.add_scaled(coefficient_row(1), *v);
        check_residuals([](size_type) {});
        if (!freeze_stopped()) {
            return finish();
        }
    }
}

#define LARCH_INSTANTIATE_IDR(T) template class Idr<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_IDR);

}  // namespace solver
}  // namespace larch
