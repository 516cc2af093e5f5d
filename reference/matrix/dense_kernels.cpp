// Reference kernels of matrix::Dense: the plainest loops over rows and columns, the specification the other
// backends are tested against.
#include "core/matrix/dense_kernels.hpp"
#include "core/base/reduction_completion.hpp"
#include "core/matrix/bicgstab_step_rules.hpp"
#include "core/matrix/cg_step_rules.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"

#include <cmath>

namespace larch {
namespace kernels {
namespace reference {
namespace dense {

template <typename T>
void fill(const DefaultExecutor&, matrix::Dense<T>& x, T value)
{
    const auto stride = x.get_stride();
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            x.get_values()[row * stride + col] = value;
        }
    }
}

template <typename T>
void copy(const DefaultExecutor&, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        for (size_type col = 0; col < source.get_size().cols; ++col) {
            dest.get_values()[row * dest.get_stride() + col] =
                source.get_const_values()[row * source.get_stride() + col];
        }
    }
}

template <typename T>
void scale(const DefaultExecutor&, T alpha, matrix::Dense<T>& x)
{
    const auto stride = x.get_stride();
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            x.get_values()[row * stride + col] *= alpha;
        }
    }
}

template <typename T>
void add_scaled(const DefaultExecutor&, T alpha, const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            x.get_values()[row * x.get_stride() + col] +=
                alpha * b.get_const_values()[row * b.get_stride() + col];
        }
    }
}

template <typename T>
void scale_columns(const DefaultExecutor&, const array<T>& alphas, matrix::Dense<T>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            x.get_values()[row * x.get_stride() + col] *= alphas.get_const_data()[col];
        }
    }
}

template <typename T>
void add_scaled_columns(const DefaultExecutor&, const array<T>& alphas, const matrix::Dense<T>& b,
                        matrix::Dense<T>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            x.get_values()[row * x.get_stride() + col] +=
                alphas.get_const_data()[col] * b.get_const_values()[row * b.get_stride() + col];
        }
    }
}

template <typename T>
void scale_add(const DefaultExecutor&, T alpha, const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            auto& entry = x.get_values()[row * x.get_stride() + col];
            entry = alpha * entry + b.get_const_values()[row * b.get_stride() + col];
        }
    }
}

template <typename T>
void combine(const DefaultExecutor&, T alpha, const matrix::Dense<T>& a, T beta, const matrix::Dense<T>& b,
             T gamma, matrix::Dense<T>& x)
{
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            auto& entry = x.get_values()[row * x.get_stride() + col];
            const auto sum = alpha * a.get_const_values()[row * a.get_stride() + col] +
                             beta * b.get_const_values()[row * b.get_stride() + col];
            entry = gamma == T{} ? sum : sum + gamma * entry;
        }
    }
}

template <typename T>
void compute_dot(const DefaultExecutor&, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                 array<T>& result, array<T>&)
{
    for (size_type col = 0; col < a.get_size().cols; ++col) {
        T sum{};
        for (size_type row = 0; row < a.get_size().rows; ++row) {
            sum += a.get_const_values()[row * a.get_stride() + col] *
                   b.get_const_values()[row * b.get_stride() + col];
        }
        result.get_data()[col] = sum;
    }
}

template <typename T>
void compute_dot_pair(const DefaultExecutor& exec, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                      const matrix::Dense<T>& c, array<T>& result, array<T>& workspace)
{
    const auto cols = a.get_size().cols;
    auto first = array<T>::view(result.get_executor(), cols, result.get_data());
    auto second = array<T>::view(result.get_executor(), cols, result.get_data() + cols);
    compute_dot(exec, a, b, first, workspace);
    compute_dot(exec, a, c, second, workspace);
}

template <typename T>
void compute_norm2(const DefaultExecutor&, const matrix::Dense<T>& a, array<T>& result, array<T>&)
{
    // LAPACK's scaled sum of squares: norm = scale * sqrt(sum_of_squares) with every |a_i| / scale <= 1,
    // so no square overflows or underflows; NaN propagates, a single inf gives inf.
    for (size_type col = 0; col < a.get_size().cols; ++col) {
        T scale{};
        T sum_of_squares{1};
        for (size_type row = 0; row < a.get_size().rows; ++row) {
            const auto value = a.get_const_values()[row * a.get_stride() + col];
            if (value == T{}) {
                continue;
            }
            const auto magnitude = std::abs(value);
            if (scale < magnitude) {
                const auto ratio = scale / magnitude;
                sum_of_squares = T{1} + sum_of_squares * ratio * ratio;
                scale = magnitude;
            } else {
                // magnitude == scale is spelled out so that two infinities give inf, not inf / inf.
                const auto ratio = magnitude == scale ? T{1} : magnitude / scale;
                sum_of_squares += ratio * ratio;
            }
        }
        result.get_data()[col] = scale * std::sqrt(sum_of_squares);
    }
}

template <typename T>
void cg_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p, const matrix::Dense<T>& q,
                      matrix::Dense<T>& x, matrix::Dense<T>& r, size_type slot, array<T>& state,
                      array<T>&, const array<T>* inverse_diagonal)
{
    const auto cols = x.get_size().cols;
    // sums[col]: r^T r; sums[cols + col]: r^T D^{-1} r where the scaling is folded in.
    std::vector<T> sums(inverse_diagonal ? 2 * cols : cols);
    for (size_type col = 0; col < cols; ++col) {
        if (!cg_rules::is_running(state.get_const_data(), cols, col)) {
            continue;
        }
        const auto alpha = cg_rules::step_length(state.get_const_data(), cols, col);
        for (size_type row = 0; row < x.get_size().rows; ++row) {
            auto& r_entry = r.get_values()[row * r.get_stride() + col];
            x.get_values()[row * x.get_stride() + col] += alpha * p.get_const_values()[row * p.get_stride() + col];
            r_entry -= alpha * q.get_const_values()[row * q.get_stride() + col];
            sums[col] += r_entry * r_entry;
            if (inverse_diagonal) {
                sums[cols + col] += r_entry * (inverse_diagonal->get_const_data()[row] * r_entry);
            }
        }
    }
    // Over every process's rows in a distributed solve, before any column decides to stop.
    ::larch::detail::complete_sums(exec, sums.data(), sums.size());
    for (size_type col = 0; col < cols; ++col) {
        if (inverse_diagonal) {
            cg_rules::finish_step_with_rho(state.get_data(), cols, col, slot, sums[col], sums[cols + col]);
        } else {
            cg_rules::finish_step(state.get_data(), cols, col, slot, sums[col]);
        }
    }
}

template <typename T>
void cg_step_direction(const DefaultExecutor&, const matrix::Dense<T>& z, matrix::Dense<T>& p,
                       size_type slot, const array<T>& state, const array<T>* inverse_diagonal)
{
    const auto cols = p.get_size().cols;
    for (size_type col = 0; col < cols; ++col) {
        if (!cg_rules::updates_direction(state.get_const_data(), cols, col, slot)) {
            continue;
        }
        const auto beta = cg_rules::direction_ratio(state.get_const_data(), cols, col);
        for (size_type row = 0; row < p.get_size().rows; ++row) {
            auto& p_entry = p.get_values()[row * p.get_stride() + col];
            const auto z_entry = z.get_const_values()[row * z.get_stride() + col];
            p_entry = (inverse_diagonal ? inverse_diagonal->get_const_data()[row] * z_entry : z_entry) + beta * p_entry;
        }
    }
}

/// scaling.scaled = D^{-1} updated, every entry, where the scaling is fused into the step (FusedScaling): the
/// preconditioner's own scalar Jacobi kernel (1 * d exactly d, so its bits).
template <typename T>
void apply_fused_scaling(const DefaultExecutor& exec, const FusedScaling<T>& scaling, const matrix::Dense<T>& updated)
{
    if (scaling.is_fused()) {
        block_jacobi::apply_inverse_diagonal(exec, T{1}, *scaling.inverse_diagonal, updated, T{0}, *scaling.scaled);
    }
}

template <typename T>
void bicgstab_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& r, const matrix::Dense<T>& v,
                             matrix::Dense<T>& p, const array<T>& state, const FusedScaling<T>& p_hat)
{
    const auto cols = p.get_size().cols;
    for (size_type col = 0; col < cols; ++col) {
        T beta{};
        T v_coefficient{};
        if (!bicgstab_rules::direction_coefficients(state.get_const_data(), cols, col, beta, v_coefficient)) {
            continue;
        }
        for (size_type row = 0; row < p.get_size().rows; ++row) {
            bicgstab_rules::update_direction_entry(beta, v_coefficient,
                                                   r.get_const_values()[row * r.get_stride() + col],
                                                   v.get_const_values()[row * v.get_stride() + col],
                                                   p.get_values()[row * p.get_stride() + col]);
        }
    }
    apply_fused_scaling(exec, p_hat, p);
}

template <typename T>
void bicgstab_step_half(const DefaultExecutor& exec, const matrix::Dense<T>& shadow, const matrix::Dense<T>& v,
                        matrix::Dense<T>& r, size_type slot, array<T>& state, array<T>& workspace,
                        const FusedScaling<T>& s_hat)
{
    // shadow_v = r_hat^T v, over the process group, before any column decides
    auto shadow_v = state_rows(state, bicgstab_state::shadow_v, 1, r.get_size().cols);
    compute_dot(exec, shadow, v, shadow_v, workspace);
    ::larch::detail::complete_sums(exec, shadow_v.get_data(), shadow_v.get_size());
    const auto cols = r.get_size().cols;
    std::vector<T> sums_of_squares(cols);
    for (size_type col = 0; col < cols; ++col) {
        if (!bicgstab_rules::half_step_updates(state.get_const_data(), cols, col)) {
            continue;
        }
        const auto alpha = bicgstab_rules::half_step_length(state.get_const_data(), cols, col);
        for (size_type row = 0; row < r.get_size().rows; ++row) {
            sums_of_squares[col] += bicgstab_rules::update_half_step_entry(
                alpha, v.get_const_values()[row * v.get_stride() + col], r.get_values()[row * r.get_stride() + col]);
        }
    }
    apply_fused_scaling(exec, s_hat, r);
    // Over every process's rows in a distributed solve, before any column decides to stop.
    ::larch::detail::complete_sums(exec, sums_of_squares.data(), cols);
    for (size_type col = 0; col < cols; ++col) {
        bicgstab_rules::finish_half_step(state.get_data(), cols, col, slot, sums_of_squares[col]);
    }
}

template <typename T>
void bicgstab_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p_hat, const matrix::Dense<T>& s_hat,
                            const matrix::Dense<T>& t, const matrix::Dense<T>& shadow, matrix::Dense<T>& x,
                            matrix::Dense<T>& r, size_type slot, array<T>& state, array<T>& workspace)
{
    // t^T t and t^T s (s is still in r), over the process group, before any column decides
    auto t_products = state_rows(state, bicgstab_state::t_t, 2, x.get_size().cols);
    compute_dot_pair(exec, t, t, r, t_products, workspace);
    ::larch::detail::complete_sums(exec, t_products.get_data(), t_products.get_size());
    using bicgstab_rules::SolutionUpdate;
    const auto cols = x.get_size().cols;
    // sums[col]: r^T r; sums[cols + col]: r_hat^T r.
    std::vector<T> sums(2 * cols);
    for (size_type col = 0; col < cols; ++col) {
        const auto update = bicgstab_rules::solution_update(state.get_const_data(), cols, col);
        if (update == SolutionUpdate::none) {
            continue;
        }
        const auto alpha = bicgstab_rules::value(state.get_const_data(), cols, bicgstab_state::alpha, col);
        const auto omega =
            update == SolutionUpdate::full ? bicgstab_rules::solution_omega(state.get_const_data(), cols, col) : T{};
        for (size_type row = 0; row < x.get_size().rows; ++row) {
            auto& r_entry = r.get_values()[row * r.get_stride() + col];
            sums[col] += bicgstab_rules::update_solution_entry(
                update, alpha, omega, p_hat.get_const_values()[row * p_hat.get_stride() + col],
                s_hat.get_const_values()[row * s_hat.get_stride() + col],
                t.get_const_values()[row * t.get_stride() + col], x.get_values()[row * x.get_stride() + col],
                r_entry);
            sums[cols + col] += shadow.get_const_values()[row * shadow.get_stride() + col] * r_entry;
        }
    }
    ::larch::detail::complete_sums(exec, sums.data(), sums.size());
    for (size_type col = 0; col < cols; ++col) {
        bicgstab_rules::finish_solution_step_with_rho(state.get_data(), cols, col, slot, sums[col], sums[cols + col]);
    }
}

template <typename T>
void transpose(const DefaultExecutor&, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        for (size_type col = 0; col < source.get_size().cols; ++col) {
            dest.get_values()[col * dest.get_stride() + row] =
                source.get_const_values()[row * source.get_stride() + col];
        }
    }
}

template <typename T>
void gemm(const DefaultExecutor&, T alpha, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
          T beta, matrix::Dense<T>& c)
{
    for (size_type row = 0; row < c.get_size().rows; ++row) {
        for (size_type col = 0; col < c.get_size().cols; ++col) {
            T sum{};
            for (size_type k = 0; k < a.get_size().cols; ++k) {
                sum += a.get_const_values()[row * a.get_stride() + k] *
                       b.get_const_values()[k * b.get_stride() + col];
            }
            auto& entry = c.get_values()[row * c.get_stride() + col];
            entry = beta == T{} ? alpha * sum : alpha * sum + beta * entry;
        }
    }
}

template <typename T, typename I>
void count_nonzeros_per_row(const DefaultExecutor&, const matrix::Dense<T>& source, I* row_nnz)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        I count{};
        for (size_type col = 0; col < source.get_size().cols; ++col) {
            count += source.get_const_values()[row * source.get_stride() + col] != T{} ? 1 : 0;
        }
        row_nnz[row] = count;
    }
}

template <typename T, typename I>
void convert_to_csr(const DefaultExecutor&, const matrix::Dense<T>& source,
                    matrix::Csr<T, I>& result)
{
    for (size_type row = 0; row < source.get_size().rows; ++row) {
        auto k = result.get_const_row_ptrs()[row];
        for (size_type col = 0; col < source.get_size().cols; ++col) {
            const auto value = source.get_const_values()[row * source.get_stride() + col];
            if (value != T{}) {
                result.get_col_idxs()[k] = static_cast<I>(col);
                result.get_values()[k] = value;
                ++k;
            }
        }
    }
}

LARCH_INSTANTIATE_DENSE_KERNELS();
LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS();

}  // namespace dense
}  // namespace reference
}  // namespace kernels
}  // namespace larch
