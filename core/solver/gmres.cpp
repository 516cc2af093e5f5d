// Gmres<T>: generation and the restarted, right-preconditioned GMRES(m) iteration of several columns
// together (Arnoldi with classical Gram-Schmidt twice, CGS2, and each column's Givens rotations on the
// executor; the stop review every check_interval steps and the triangular solve of each cycle on the host).
#include "larch/solver/gmres.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/reduction_completion.hpp"
#include "core/components/instantiation.hpp"
#include "core/solver/column_state.hpp"
#include "core/solver/gmres_kernels.hpp"
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
    LARCH_ENSURE(parameters.check_interval >= 1, BadInput, "Gmres::generate: check_interval must be >= 1, got 0");
    // A Krylov space cannot grow past the system's order: a longer restart would only allocate memory (the
    // Hessenberg matrices grow with its square) for steps that never come.
    krylov_dim_ = std::min(parameters.restart, std::max<size_type>(this->rows_over_processes().total, 1));
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

/// The outcome of a column that the Givens step stopped with gmres_state::breakdown, by its cause. A lucky
/// breakdown ends the cycle with the exact Krylov solution: its step counts with the monitor (the loggers
/// see it) and the column converged whatever the monitor makes of the estimate.
IterationOutcome breakdown_outcome(int cause, double estimate, IterationMonitor& monitor)
{
    switch (cause) {
    case kernels::gmres_state::non_finite:
        return {stop::Reason::non_finite, "Gmres: the Arnoldi process produced NaN or Inf"};
    case kernels::gmres_state::singular:
        return {stop::Reason::breakdown, "Gmres: singular Hessenberg matrix (A M^{-1} v_j = 0)"};
    default:
        monitor.check(estimate);
        return {stop::Reason::converged, ""};
    }
}

/**
 * -y(0:solved) of column `col` into entries (i, col) of `minus_y` (row stride layout.cols), y = H^{-1} g
 * from the host's copy of the leading part of the cycle's least-squares problem (`problem`). The back
 * substitution takes the later entries of y as the combination receives them, rounded to T.
 */
template <typename T>
void solve_least_squares(const kernels::GmresLayout& layout, const double* problem, size_type col,
                         size_type solved, T* minus_y, std::vector<double>& y)
{
    y.assign(solved, 0.0);
    for (size_type i = solved; i-- > 0;) {
        double sum = problem[layout.rhs(i, col)];
        for (size_type l = i + 1; l < solved; ++l) {
            sum -= problem[layout.hessenberg(i, l, col)] * static_cast<double>(static_cast<T>(y[l]));
        }
        y[i] = sum / problem[layout.hessenberg(i, i, col)];
        minus_y[i * layout.cols + col] = -static_cast<T>(y[i]);
    }
}

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
    namespace state_field = kernels::gmres_state;
    const auto exec = this->get_executor();
    const auto host = exec->get_host();
    const auto& a = *this->get_system_matrix();
    const auto n = this->get_size().rows;
    const auto cols = monitors.size();
    const auto m = krylov_dim_;
    const kernels::GmresLayout layout{m, cols};
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
    // Everything an Arnoldi step writes lives on the executor from here to the end of the apply: its
    // reductions, each column's least-squares problem and stop state, the normalization factors.
    array<T> reductions{exec, layout.reductions_size()};
    auto norms = array<T>::view(exec, cols, reductions.get_data() + layout.subdiagonal(0));
    array<double> problem{exec, layout.problem_size()};
    ColumnState<double> columns{exec,
                                {state_field::threshold, state_field::pause_above, state_field::stopped,
                                 state_field::stop_slot, state_field::norms},
                                parameters_.check_interval,
                                monitors};
    auto& state = columns.get_device_state();
    array<T> workspace{exec};
    array<T> factors{exec, cols};
    array<T> minus_y{exec, m * cols};
    // The host's side: read or written once per cycle.
    std::vector<T> host_factors(cols);
    std::vector<double> initial_rhs(cols);
    std::vector<double> host_problem(layout.solve_prefix_size(m));
    std::vector<T> host_minus_y(m * cols);
    std::vector<double> y;
    std::vector<size_type> iterations_before(cols, 0);
    for (bool restarted = false;; restarted = true) {
        r.compute_norm2(norms, workspace);
        const auto residual_norms = norms.copy_to_host();
        for (size_type col = 0; col < cols; ++col) {
            const double residual_norm = residual_norms[col];
            if (columns.is_live(col) && restarted) {
                if (!std::isfinite(residual_norm)) {
                    columns.end(col, {stop::Reason::non_finite, "Gmres: the residual after a restart is NaN or Inf"});
                } else if (monitors[col]->meets_threshold(residual_norm)) {
                    columns.end(col, {stop::Reason::converged, ""});
                }
            }
            initial_rhs[col] = residual_norm;
            host_factors[col] = columns.is_live(col) ? static_cast<T>(1.0 / residual_norm) : T{};
            iterations_before[col] = monitors[col] ? monitors[col]->get_iterations() : 0;
        }
        if (!columns.any_live()) {
            return columns.get_outcomes();
        }
        columns.upload();
        array<double>::view(exec, cols, problem.get_data() + layout.rhs(0, 0))
            .copy_from(array<double>::view(host, cols, initial_rhs.data()));
        factors.copy_from(array<T>::view(host, cols, host_factors.data()));
        auto v0 = krylov_vectors(0);
        v0->copy_from(r);
        LARCH_RUN_KERNEL(exec, gram_schmidt::normalize, factors, *v0);
        // Blocks of steps without the host: the Givens step decides each column's stop on the executor,
        // the review hands the estimates to the monitors and freezes the columns that ended.
        for (size_type j = 0; j < m && columns.any_live();) {
            const auto steps = std::min(columns.next_block_steps(), m - j);
            for (size_type slot = 0; slot < steps; ++slot, ++j) {
                this->precondition(*krylov_vectors(j), *z);
                auto w = krylov_vectors(j + 1);
                a.apply(*z, *w);
                // CGS2: classical Gram-Schmidt twice, each pass one projection on the whole basis and one
                // update (Giraud, Langou, Rozloznik 2005: twice is enough for an orthogonal basis to working
                // accuracy), instead of a synchronizing dot per basis vector.
                const auto used = leading_vectors(j + 1);
                for (size_type pass = 0; pass < 2; ++pass) {
                    auto projection = Dense::create(
                        exec, dim2{j + 1, cols},
                        array<T>::view(exec, (j + 1) * cols, reductions.get_data() + layout.projection(pass, 0, 0)),
                        cols);
                    LARCH_RUN_KERNEL(exec, gram_schmidt::project, *used, *w, *projection, workspace);
                    detail::complete_sums(*exec, projection->get_values(), (j + 1) * cols);
                    LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *used, *projection, *w);
                }
                w->compute_norm2(norms, workspace);
                LARCH_RUN_KERNEL(exec, gmres::givens_step, layout, j, slot, reductions, problem, state, factors);
                LARCH_RUN_KERNEL(exec, gram_schmidt::normalize, factors, *w);
            }
            columns.review("Gmres", steps, [&](size_type col) {
                const auto stop_slot = static_cast<size_type>(columns.field(state_field::stop_slot, col));
                return breakdown_outcome(static_cast<int>(columns.field(state_field::cause, col)),
                                         columns.field(state_field::norms + stop_slot, col), *monitors[col]);
            });
        }
        // x += M^{-1} (V y) for every column over the steps its monitor counted in this cycle: a column that
        // the host stopped inside a block may have run on to the block's end on the executor, but those
        // steps change only columns of H beyond its own, so x is the one of its stopping step. y is zero
        // past a column's count (zero for columns that did not run): the combination as w = 0 - V (-y).
        size_type solved = 0;
        for (size_type col = 0; col < cols; ++col) {
            if (monitors[col]) {
                solved = std::max(solved, monitors[col]->get_iterations() - iterations_before[col]);
            }
        }
        if (solved > 0) {
            const auto prefix = layout.solve_prefix_size(solved);
            array<double>::view(host, prefix, host_problem.data())
                .copy_from(array<double>::view(exec, prefix, problem.get_data()));
            std::fill_n(host_minus_y.begin(), solved * cols, T{});
            for (size_type col = 0; col < cols; ++col) {
                if (monitors[col]) {
                    solve_least_squares(layout, host_problem.data(), col,
                                        monitors[col]->get_iterations() - iterations_before[col],
                                        host_minus_y.data(), y);
                }
            }
            auto y_values = array<T>::view(exec, solved * cols, minus_y.get_data());
            y_values.copy_from(array<T>::view(host, solved * cols, host_minus_y.data()));
            auto y_block = Dense::create(exec, dim2{solved, cols}, std::move(y_values), cols);
            // Basis vector `solved` (solved <= m) is not part of the combination and is not needed any more.
            auto combination = krylov_vectors(solved);
            combination->fill(T{});
            LARCH_RUN_KERNEL(exec, gram_schmidt::subtract, *leading_vectors(solved), *y_block, *combination);
            this->precondition(*combination, *z);
            x.add_scaled(T{1}, *z);
        }
        if (!columns.any_live()) {
            return columns.get_outcomes();
        }
        this->compute_residual(b, x, r);
    }
}

#define LARCH_INSTANTIATE_GMRES(T) template class Gmres<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_GMRES);

}  // namespace solver
}  // namespace larch
