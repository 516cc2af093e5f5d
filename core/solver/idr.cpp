// Idr<T>: generation (the random orthonormal shadow space, on the executor) and the IDR(s) iteration of
// van Gijzen and Sonneveld's Algorithm 913 (bi-orthogonal variant), right-preconditioned, with each column's
// small shadow system on the executor and the stop review every check_interval iterations on the host.
#include "larch/solver/idr.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/number_text.hpp"
#include "core/base/reduction_completion.hpp"
#include "core/components/instantiation.hpp"
#include "core/solver/column_state.hpp"
#include "core/solver/gram_schmidt_kernels.hpp"
#include "core/solver/idr_kernels.hpp"
#include "core/solver/shadow_space_kernels.hpp"

namespace larch {
namespace solver {


template <typename T>
Idr<T>::Idr(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
            std::shared_ptr<const LinOp> system_matrix)
    : ColumnsTogetherSolver<T>(exec, std::move(system_matrix), parameters, "Idr"), parameters_{parameters}
{
    LARCH_ENSURE(parameters.subspace_dim >= 1, BadInput, "Idr::generate: subspace_dim must be >= 1, got 0");
    LARCH_ENSURE(parameters.check_interval >= 1, BadInput, "Idr::generate: check_interval must be >= 1, got 0");
    LARCH_ENSURE(parameters.kappa >= 0 && parameters.kappa <= 1, BadInput,
                 "Idr::generate: kappa must lie in [0, 1], got " + detail::number_text(parameters.kappa));
    using Dense = matrix::Dense<T>;
    const auto n = this->get_size().rows;
    // On an operator spread over processes the shadow vectors span the whole vector: each process holds
    // their entries of its rows, and they are orthonormalized over all of them.
    const auto group = this->get_reduction_group();
    ReductionScope reductions{group};
    // This process's rows are [first_row, first_row + n) of global_rows: its block of the same random space
    // as on one process.
    const auto rows = this->rows_over_processes();
    const auto first_row = rows.first_row;
    const auto global_rows = rows.total;
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
        const double norm = reduce.column_norms2(*row).front();
        // k < s <= n random vectors are independent with probability one; a zero norm would mean a broken
        // generator, not bad input.
        LARCH_ENSURE(norm > 0 && std::isfinite(norm), NotSupported,
                     "Idr::generate: shadow vector " + std::to_string(k) + " has norm " + detail::number_text(norm));
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

IterationOutcome non_finite_outcome(const char* what)
{
    return {stop::Reason::non_finite, std::string{"Idr: "} + what + " is NaN or Inf"};
}

/// The outcome of a column that a phase of the step kernel stopped with idr_state::breakdown, by its cause.
IterationOutcome breakdown_outcome(int cause)
{
    namespace state_field = kernels::idr_state;
    switch (cause) {
    case state_field::triangular_zero:
        return {stop::Reason::breakdown, "Idr: p_i^T g_i = 0 in the small triangular system"};
    case state_field::shadow_not_finite:
        return non_finite_outcome("p_i^T g_k");
    case state_field::shadow_zero:
        return {stop::Reason::breakdown, "Idr: p_k^T g_k = 0"};
    case state_field::t_norm_not_finite:
        return non_finite_outcome("||A M^{-1} r||");
    case state_field::t_r_not_finite:
        return non_finite_outcome("t^T r");
    case state_field::coefficient_not_finite:
        return {stop::Reason::breakdown, "Idr: a coefficient of m c = f is not finite (m nearly singular)"};
    case state_field::beta_not_finite:
        return {stop::Reason::breakdown, "Idr: beta = f_k / m(k, k) is not finite (m(k, k) nearly zero)"};
    case state_field::omega_not_finite:
        return {stop::Reason::breakdown, "Idr: omega = t^T r / t^T t is not finite (||t|| nearly zero)"};
    default:
        return {stop::Reason::breakdown, "Idr: omega = t^T r / t^T t is 0 or undefined"};
    }
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
    using kernels::IdrPhase;
    namespace state_field = kernels::idr_state;
    const auto& exec = this->get_executor();
    const auto& a = *this->get_system_matrix();
    const auto cols = monitors.size();
    const auto rows = this->get_size().rows;
    const auto s = shadow_space_.size();
    const kernels::IdrLayout layout{s, cols};
    // Every column's scalars and small system live on the executor from here to the end of the apply; the
    // host reads the state once per block of check_interval steps.
    ColumnState<double> columns{exec,
                                {state_field::threshold, state_field::pause_above, state_field::stopped,
                                 state_field::stop_slot, state_field::norms},
                                parameters_.check_interval,
                                monitors};
    for (size_type col = 0; col < cols; ++col) {
        columns.field(state_field::omega, col) = 1;
    }
    columns.upload();
    auto& state = columns.get_device_state();
    // m = I, f = c = 0.
    std::vector<double> initial_system(layout.system_size(), 0.0);
    for (size_type col = 0; col < cols; ++col) {
        for (size_type k = 0; k < s; ++k) {
            initial_system[layout.shadow_matrix(k, k, col)] = 1;
        }
    }
    array<double> system{exec, initial_system.begin(), initial_system.end()};
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
    // col), where the step kernel reads them; it writes the per-column scalars of the vector updates to
    // `updates`, one row of cols values per update.
    array<T> products{exec, layout.product_rows() * cols};
    array<T> updates{exec, layout.update_rows() * cols};
    array<T> workspace{exec};
    auto products_row = [&](size_type row) { return array<T>::view(exec, cols, products.get_data() + row * cols); };
    auto update_row = [&](size_type row) { return array<T>::view(exec, cols, updates.get_data() + row * cols); };
    auto run = [&](IdrPhase phase, size_type k, size_type index, size_type slot) {
        LARCH_RUN_KERNEL(exec, idr::step, layout, phase, k, index, slot, parameters_.kappa, products, system, state,
                         updates);
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
    };
    // r -= beta w and x += beta z (the update rows 0 and 1), x only in the running columns, so a stopped
    // column's x keeps its bits; then ||r|| and the residual phase (the end of an iteration).
    auto update_solution = [&](size_type k, size_type slot, const Dense& w, const Dense& z) {
        const auto minus_step = update_row(0);
        const auto step = update_row(1);
        r.add_scaled(minus_step, w);
        LARCH_RUN_KERNEL(exec, idr::add_scaled_running, step, state, z, x);
        auto norms = products_row(0);
        r.compute_norm2(norms, workspace);
        run(IdrPhase::residual, k, 0, slot);
    };
    // Step k < s of a cycle: u_k and g_k = A u_k, bi-orthogonal to p_1..p_{k-1}, and the update along them.
    auto step_into_g = [&](size_type k, size_type slot) {
        if (k == 0) {
            shadow_products(0, s, r);
            run(IdrPhase::shadow_rhs, 0, 0, slot);
        }
        run(IdrPhase::coefficients, k, 0, slot);
        // v = r - G(:, k:s) c;  u_k = omega M^{-1} v + U(:, k:s) c;  g_k = A u_k. Update rows: -c_k..-c_s,
        // then c_k, omega, c_{k+1}..c_s.
        const auto tail = s - k;
        v->copy_from(r);
        for (size_type i = k; i < s; ++i) {
            v->add_scaled(update_row(i - k), *g[i]);
        }
        this->precondition(*v, *t);
        u[k]->scale(update_row(tail));
        u[k]->add_scaled(update_row(tail + 1), *t);
        for (size_type i = k + 1; i < s; ++i) {
            u[k]->add_scaled(update_row(tail + 1 + i - k), *u[i]);
        }
        a.apply(*u[k], *g[k]);
        // Make g_k bi-orthogonal to p_1..p_{k-1} (modified Gram-Schmidt), keeping g_k = A u_k.
        for (size_type i = 0; i < k; ++i) {
            shadow_products(i, 1, *g[k]);
            run(IdrPhase::orthogonalize, k, i, slot);
            g[k]->add_scaled(update_row(0), *g[i]);
            u[k]->add_scaled(update_row(0), *u[i]);
        }
        shadow_products(k, tail, *g[k]);
        run(IdrPhase::shadow_column, k, 0, slot);
        update_solution(k, slot, *g[k], *u[k]);
    };
    // Dimension reduction: the step into the next Sonneveld space, omega minimizing ||r - omega t||
    // with the safeguard of Sleijpen and van der Vorst against a tiny |cos(t, r)|.
    auto reduce_dimension = [&](size_type slot) {
        this->precondition(r, *v);
        a.apply(*v, *t);
        auto t_norms = products_row(0);
        auto t_r_products = products_row(1);
        t->compute_norm2(t_norms, workspace);
        t->compute_dot(r, t_r_products, workspace);
        run(IdrPhase::omega, s, 0, slot);
        update_solution(s, slot, *t, *v);
    };
    // The vectors of a column that no longer iterates are cleared, so that NaN or Inf in them stay out of
    // the arithmetic of the later steps (its scalars are zero and its x is left alone by then).
    auto clear_vectors = [&](size_type col) {
        for (auto* block : {&r, v.get(), t.get()}) {
            block->create_column_view(col)->fill(T{});
        }
        for (size_type k = 0; k < s; ++k) {
            g[k]->create_column_view(col)->fill(T{});
            u[k]->create_column_view(col)->fill(T{});
        }
    };
    std::vector<bool> live(cols);
    for (size_type col = 0; col < cols; ++col) {
        live[col] = columns.is_live(col);
        if (!live[col]) {
            clear_vectors(col);
        }
    }
    // Blocks of iterations without the host (each iteration ends with an update of r and x): position k < s
    // of a cycle is a step into G, position s the dimension reduction. A column that meets the threshold or
    // breaks down stops itself in the step kernel; the review hands the norms to the monitors in order and
    // stops the columns they end.
    size_type position = 0;
    while (columns.any_live()) {
        const auto steps = columns.next_block_steps();
        for (size_type slot = 0; slot < steps; ++slot) {
            if (position < s) {
                step_into_g(position, slot);
                ++position;
            } else {
                reduce_dimension(slot);
                position = 0;
            }
        }
        columns.review("Idr", steps, [&](size_type col) {
            return breakdown_outcome(static_cast<int>(columns.field(state_field::cause, col)));
        });
        for (size_type col = 0; col < cols; ++col) {
            if (live[col] && !columns.is_live(col) && columns.any_live()) {
                clear_vectors(col);
            }
            live[col] = columns.is_live(col);
        }
    }
    return columns.get_outcomes();
}

#define LARCH_INSTANTIATE_IDR(T) template class Idr<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_IDR);

}  // namespace solver
}  // namespace larch
