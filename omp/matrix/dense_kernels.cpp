// OpenMP kernels of matrix::Dense: element-wise operations in parallel over rows (over flat ranges, which
// vectorize, where the operands have no gaps), reductions in parallel over the rows of one column at a time,
// in a fixed order (the same result on any number of threads); all serial below the parallel threshold.
#include "core/matrix/dense_kernels.hpp"
#include "core/base/reduction_completion.hpp"
#include "core/base/two_sums.hpp"
#include "core/matrix/bicgstab_step_rules.hpp"
#include "core/matrix/cg_step_rules.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"

#include "omp/components/contiguous.hpp"
#include "omp/components/dense_column.hpp"
#include "omp/components/column_sums.hpp"
#include "omp/components/fixed_order_sum.hpp"
#include "omp/components/parallel_rows.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace larch {
namespace kernels {
namespace omp {
namespace dense {
namespace {

/// x(row, col) = op(x(row, col), b(row, col)) for every entry, in parallel over rows (over flat ranges
/// where the operands have no gaps).
template <typename T, typename Op>
void update_entries(matrix::Dense<T>& x, const matrix::Dense<T>* b, Op op)
{
    const auto cols = x.get_size().cols;
    if (b ? components::are_contiguous(x, *b) : components::are_contiguous(x)) {
        const auto x_values = x.get_values();
        const T* b_values = b ? b->get_const_values() : nullptr;
        components::for_each_range(static_cast<std::ptrdiff_t>(x.get_size().rows * cols),
                                   [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                       for (auto i = begin; i < end; ++i) {
                                           x_values[i] = op(x_values[i], b_values ? b_values[i] : T{});
                                       }
                                   });
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(x.get_size().rows), [&](std::ptrdiff_t row) {
        auto x_row = x.get_values() + row * x.get_stride();
        const T* b_row = b ? b->get_const_values() + row * b->get_stride() : nullptr;
        for (size_type col = 0; col < cols; ++col) {
            x_row[col] = op(x_row[col], b_row ? b_row[col] : T{});
        }
    });
}

/// x(row, col) = op(x(row, col), b(row, col), alphas[col]) for every entry, in parallel over rows: the
/// updates with a scalar per column.
template <typename T, typename Op>
void update_columns(matrix::Dense<T>& x, const matrix::Dense<T>* b, const array<T>& alphas, Op op)
{
    const auto cols = x.get_size().cols;
    const auto alpha_values = alphas.get_const_data();
    components::for_each_row(static_cast<std::ptrdiff_t>(x.get_size().rows), [&](std::ptrdiff_t row) {
        auto x_row = x.get_values() + row * x.get_stride();
        const T* b_row = b ? b->get_const_values() + row * b->get_stride() : nullptr;
        for (size_type col = 0; col < cols; ++col) {
            x_row[col] = op(x_row[col], b_row ? b_row[col] : T{}, alpha_values[col]);
        }
    });
}

/// x[i] = alpha a[i] + beta b[i] + gamma x[i] for i in [begin, end) (x is not read if gamma is 0). The
/// scalars are parameters, not captured references, and gamma is tested outside the loops: both vectorize.
template <typename T>
void combine_range(T alpha, const T* a, T beta, const T* b, T gamma, T* x, std::ptrdiff_t begin,
                   std::ptrdiff_t end)
{
    if (gamma == T{}) {
        for (auto i = begin; i < end; ++i) {
            x[i] = alpha * a[i] + beta * b[i];
        }
        return;
    }
    for (auto i = begin; i < end; ++i) {
        x[i] = alpha * a[i] + beta * b[i] + gamma * x[i];
    }
}

/// The first sums of every column, then the second ones: the layout that complete_sums completes in one
/// message, and the reference kernels keep.
template <typename T>
std::vector<T> first_sums_then_second(const std::vector<TwoSums<T>>& column_sums)
{
    const auto cols = column_sums.size();
    std::vector<T> sums(2 * cols);
    for (size_type col = 0; col < cols; ++col) {
        sums[col] = column_sums[col].first;
        sums[cols + col] = column_sums[col].second;
    }
    return sums;
}

/// CG's direction update p[i] = z[i] + beta p[i] for i in [begin, end), with z[i] scaled by inverse_diagonal[i]
/// first where that is given (a folded scalar Jacobi); two loops, so that each vectorizes.
template <typename T>
void update_cg_directions(T beta, const T* z, const T* inverse_diagonal, T* p, std::ptrdiff_t begin,
                          std::ptrdiff_t end)
{
    if (inverse_diagonal != nullptr) {
        for (auto i = begin; i < end; ++i) {
            p[i] = inverse_diagonal[i] * z[i] + beta * p[i];
        }
        return;
    }
    for (auto i = begin; i < end; ++i) {
        p[i] = z[i] + beta * p[i];
    }
}

/// BiCGSTAB's direction update p[i] = (r[i] + v_coefficient v[i]) + beta p[i] for i in [begin, end), and
/// p_hat[i] = inverse_diagonal[i] p[i] in the same loop unless p_hat is null (a fused scalar Jacobi).
template <typename T>
void update_directions(T beta, T v_coefficient, const T* r, const T* v, T* p, const T* inverse_diagonal, T* p_hat,
                       std::ptrdiff_t begin, std::ptrdiff_t end)
{
    for (auto i = begin; i < end; ++i) {
        bicgstab_rules::update_direction_entry(beta, v_coefficient, r[i], v[i], p[i]);
        if (p_hat != nullptr) {
            p_hat[i] = inverse_diagonal[i] * p[i];
        }
    }
}

/// scaling.scaled = D^{-1} updated for column `col` (or every column), where a step kernel leaves the
/// column's entries alone but its fused scaling must still be written: the preconditioner's own scalar Jacobi
/// kernel, which gives the bits of the fused pass (1 * d is exactly d).
template <typename T>
void apply_fused_scaling(const DefaultExecutor& exec, const FusedScaling<T>& scaling, const matrix::Dense<T>& updated)
{
    block_jacobi::apply_inverse_diagonal(exec, T{1}, *scaling.inverse_diagonal, updated, T{0}, *scaling.scaled);
}

template <typename T>
void apply_fused_scaling(const DefaultExecutor& exec, const FusedScaling<T>& scaling, const matrix::Dense<T>& updated,
                         size_type col)
{
    auto scaled_column = scaling.scaled->create_column_view(col);
    block_jacobi::apply_inverse_diagonal(exec, T{1}, *scaling.inverse_diagonal, *updated.create_const_column_view(col),
                                         T{0}, *scaled_column);
}

/// The larger of two magnitudes, NaN if either is NaN (std::max would drop a NaN in one argument).
template <typename T>
T max_propagating_nan(T a, T b)
{
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) ? a : b;
    }
    return a > b ? a : b;
}

}  // namespace

template <typename T>
void fill(const DefaultExecutor&, matrix::Dense<T>& x, T value)
{
    // Written apart from update_entries so that the (possibly uninitialized) old entries are never read.
    if (components::are_contiguous(x)) {
        components::for_each_range(static_cast<std::ptrdiff_t>(x.get_size().rows * x.get_size().cols),
                                   [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                       std::fill(x.get_values() + begin, x.get_values() + end, value);
                                   });
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(x.get_size().rows), [&](std::ptrdiff_t row) {
        std::fill_n(x.get_values() + row * x.get_stride(), x.get_size().cols, value);
    });
}

template <typename T>
void copy(const DefaultExecutor&, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    if (components::are_contiguous(dest, source)) {
        components::for_each_range(static_cast<std::ptrdiff_t>(dest.get_size().rows * dest.get_size().cols),
                                   [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                       std::copy(source.get_const_values() + begin, source.get_const_values() + end,
                                                 dest.get_values() + begin);
                                   });
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(dest.get_size().rows), [&](std::ptrdiff_t row) {
        std::copy_n(source.get_const_values() + row * source.get_stride(), dest.get_size().cols,
                    dest.get_values() + row * dest.get_stride());
    });
}

template <typename T>
void scale(const DefaultExecutor&, T alpha, matrix::Dense<T>& x)
{
    update_entries<T>(x, nullptr, [alpha](T x_entry, T) { return alpha * x_entry; });
}

template <typename T>
void add_scaled(const DefaultExecutor&, T alpha, const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    update_entries(x, &b, [alpha](T x_entry, T b_entry) { return x_entry + alpha * b_entry; });
}

template <typename T>
void scale_columns(const DefaultExecutor&, const array<T>& alphas, matrix::Dense<T>& x)
{
    update_columns<T>(x, nullptr, alphas, [](T x_entry, T, T alpha) { return alpha * x_entry; });
}

template <typename T>
void add_scaled_columns(const DefaultExecutor&, const array<T>& alphas, const matrix::Dense<T>& b,
                        matrix::Dense<T>& x)
{
    update_columns(x, &b, alphas, [](T x_entry, T b_entry, T alpha) { return x_entry + alpha * b_entry; });
}

template <typename T>
void scale_add(const DefaultExecutor&, T alpha, const matrix::Dense<T>& b, matrix::Dense<T>& x)
{
    update_entries(x, &b, [alpha](T x_entry, T b_entry) { return alpha * x_entry + b_entry; });
}

template <typename T>
void combine(const DefaultExecutor&, T alpha, const matrix::Dense<T>& a, T beta, const matrix::Dense<T>& b,
             T gamma, matrix::Dense<T>& x)
{
    const auto cols = x.get_size().cols;
    if (components::are_contiguous(x, a, b)) {
        const auto x_values = x.get_values();
        const auto a_values = a.get_const_values();
        const auto b_values = b.get_const_values();
        components::for_each_range(static_cast<std::ptrdiff_t>(x.get_size().rows * cols),
                                   [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                       combine_range(alpha, a_values, beta, b_values, gamma, x_values, begin, end);
                                   });
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(x.get_size().rows), [&](std::ptrdiff_t row) {
        combine_range(alpha, a.get_const_values() + row * a.get_stride(), beta,
                      b.get_const_values() + row * b.get_stride(), gamma, x.get_values() + row * x.get_stride(),
                      0, static_cast<std::ptrdiff_t>(cols));
    });
}

template <typename T>
void compute_dot(const DefaultExecutor&, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                 array<T>& result, array<T>&)
{
    components::fixed_order_column_sums<T>(
        static_cast<std::ptrdiff_t>(a.get_size().rows), components::all_columns(a.get_size().cols),
        result.get_data(),
        [](size_type, auto a_column, auto b_column) {
            return [=](std::ptrdiff_t row) { return a_column[row] * b_column[row]; };
        },
        a, b);
}

/// Two sums carried through one fixed-order sum: each component is added in the order a single sum adds.
template <typename T>
struct SumPair {
    T first{};
    T second{};
    SumPair& operator+=(const SumPair& other)
    {
        first += other.first;
        second += other.second;
        return *this;
    }
};

template <typename T>
void compute_dot_pair(const DefaultExecutor&, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
                      const matrix::Dense<T>& c, array<T>& result, array<T>&)
{
    // Both sums in one pass over a (read once, not twice), each term and each addition as compute_dot's: the
    // same bits as two compute_dot calls.
    const auto cols = a.get_size().cols;
    std::vector<SumPair<T>> sums(cols);
    components::fixed_order_column_sums<SumPair<T>>(
        static_cast<std::ptrdiff_t>(a.get_size().rows), components::all_columns(cols), sums.data(),
        [](size_type, auto a_column, auto b_column, auto c_column) {
            return [=](std::ptrdiff_t row) {
                const auto a_entry = a_column[row];
                return SumPair<T>{a_entry * b_column[row], a_entry * c_column[row]};
            };
        },
        a, b, c);
    for (size_type col = 0; col < cols; ++col) {
        result.get_data()[col] = sums[col].first;
        result.get_data()[cols + col] = sums[col].second;
    }
}

template <typename T>
void compute_norm2(const DefaultExecutor&, const matrix::Dense<T>& a, array<T>& result, array<T>&)
{
    // Two passes: the largest magnitude of each column, then the sums of squares of the entries divided by
    // it, so no square overflows or underflows (the reference does the same in one LAPACK-style pass). Each
    // pass takes a row's columns together.
    const auto cols = a.get_size().cols;
    const auto rows = static_cast<std::ptrdiff_t>(a.get_size().rows);
    const auto stride = a.get_stride();
    const auto values = a.get_const_values();
    const auto largest_in = [&](std::ptrdiff_t begin, std::ptrdiff_t end, T* largest) {
        for (auto row = begin; row < end; ++row) {
            for (size_type col = 0; col < cols; ++col) {
                largest[col] = max_propagating_nan(largest[col], std::abs(values[row * stride + col]));
            }
        }
    };
    // the maxima do not depend on the order, so threads may take any share of the rows
    std::vector<T> scales(cols);
    if (components::runs_serially(rows * static_cast<std::ptrdiff_t>(cols))) {
        largest_in(0, rows, scales.data());
    } else {
#pragma omp parallel
        {
            const std::ptrdiff_t threads = omp_get_num_threads();
            const std::ptrdiff_t thread = omp_get_thread_num();
            std::vector<T> local_scales(cols);
            largest_in(rows * thread / threads, rows * (thread + 1) / threads, local_scales.data());
#pragma omp critical
            for (size_type col = 0; col < cols; ++col) {
                scales[col] = max_propagating_nan(scales[col], local_scales[col]);
            }
        }
    }
    std::vector<size_type> finite_nonzero;
    for (size_type col = 0; col < cols; ++col) {
        if (scales[col] == T{} || std::isnan(scales[col]) || std::isinf(scales[col])) {
            result.get_data()[col] = scales[col];
        } else {
            finite_nonzero.push_back(col);
        }
    }
    std::vector<T> sums_of_squares(cols);
    components::fixed_order_column_sums<T>(
        rows, finite_nonzero, sums_of_squares.data(),
        [&scales](size_type col, auto a_column) {
            const auto scale = scales[col];
            return [=](std::ptrdiff_t row) {
                const auto ratio = a_column[row] / scale;
                return ratio * ratio;
            };
        },
        a);
    for (const auto col : finite_nonzero) {
        result.get_data()[col] = scales[col] * std::sqrt(sums_of_squares[col]);
    }
}

template <typename T>
void cg_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p, const matrix::Dense<T>& q,
                      matrix::Dense<T>& x, matrix::Dense<T>& r, size_type slot, array<T>& state,
                      array<T>&, const array<T>* inverse_diagonal)
{
    // The updates run inside the fixed-order sum's terms (each row's term is evaluated exactly once), so x
    // and r are read and written in the same pass as the residual's sum of squares (and, with a folded
    // scalar Jacobi, r^T D^{-1} r).
    const auto cols = x.get_size().cols;
    const auto rows = static_cast<std::ptrdiff_t>(x.get_size().rows);
    const auto state_values = state.get_const_data();
    std::vector<size_type> running;
    for (size_type col = 0; col < cols; ++col) {
        if (cg_rules::is_running(state_values, cols, col)) {
            running.push_back(col);
        }
    }
    // x += alpha p, r -= alpha q in row `row` of column `col`, giving the new r entry.
    const auto update = [state_values, cols](size_type col, auto p_column, auto q_column, auto x_column,
                                             auto r_column) {
        const auto alpha = cg_rules::step_length(state_values, cols, col);
        return [=](std::ptrdiff_t row) {
            auto& r_entry = r_column[row];
            x_column[row] += alpha * p_column[row];
            r_entry -= alpha * q_column[row];
            return T{r_entry};
        };
    };
    // sums[col]: r^T r; sums[cols + col]: r^T D^{-1} r where the scaling is folded in (the layout that
    // complete_sums completes in one message).
    std::vector<T> sums;
    if (inverse_diagonal) {
        const auto inverse = inverse_diagonal->get_const_data();
        std::vector<TwoSums<T>> column_sums(cols);
        components::fixed_order_column_sums<TwoSums<T>>(
            rows, running, column_sums.data(),
            [&](size_type col, auto... columns) {
                return [inverse, entry = update(col, columns...)](std::ptrdiff_t row) {
                    const T r_entry = entry(row);
                    return TwoSums<T>{r_entry * r_entry, r_entry * (inverse[row] * r_entry)};
                };
            },
            p, q, x, r);
        sums = first_sums_then_second(column_sums);
    } else {
        sums.resize(cols);
        components::fixed_order_column_sums<T>(
            rows, running, sums.data(),
            [&](size_type col, auto... columns) {
                return [entry = update(col, columns...)](std::ptrdiff_t row) {
                    const T r_entry = entry(row);
                    return r_entry * r_entry;
                };
            },
            p, q, x, r);
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
    const auto inverse = inverse_diagonal ? inverse_diagonal->get_const_data() : nullptr;
    std::vector<char> updates(cols);
    std::vector<T> betas(cols);
    for (size_type col = 0; col < cols; ++col) {
        updates[col] = cg_rules::updates_direction(state.get_const_data(), cols, col, slot);
        betas[col] = updates[col] ? cg_rules::direction_ratio(state.get_const_data(), cols, col) : T{};
    }
    // One column without gaps: beta passed as a value, so the loop vectorizes (as in the BiCGSTAB step).
    if (cols == 1 && components::are_contiguous(p, z)) {
        if (updates[0]) {
            const auto p_values = p.get_values();
            const auto z_values = z.get_const_values();
            components::for_each_range(static_cast<std::ptrdiff_t>(p.get_size().rows),
                                       [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                           update_cg_directions(betas[0], z_values, inverse, p_values, begin, end);
                                       });
        }
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(p.get_size().rows), [&](std::ptrdiff_t row) {
        auto p_row = p.get_values() + row * p.get_stride();
        const auto z_row = z.get_const_values() + row * z.get_stride();
        for (size_type col = 0; col < cols; ++col) {
            if (updates[col]) {
                const T z_entry = inverse ? inverse[row] * z_row[col] : z_row[col];
                p_row[col] = z_entry + betas[col] * p_row[col];
            }
        }
    });
}

template <typename T>
void bicgstab_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& r, const matrix::Dense<T>& v,
                             matrix::Dense<T>& p, const array<T>& state, const FusedScaling<T>& p_hat)
{
    const auto cols = p.get_size().cols;
    std::vector<char> updates(cols);
    std::vector<T> betas(cols);
    std::vector<T> v_coefficients(cols);
    for (size_type col = 0; col < cols; ++col) {
        updates[col] = bicgstab_rules::direction_coefficients(state.get_const_data(), cols, col, betas[col],
                                                              v_coefficients[col]);
    }
    const auto inverse = p_hat.is_fused() ? p_hat.inverse_diagonal->get_const_data() : nullptr;
    // One column without gaps (one right-hand side): its coefficients passed as values, so the loop
    // vectorizes (read from the vectors above, they are reloaded after every store to p).
    if (cols == 1 && components::are_contiguous(p, r, v) &&
        (!p_hat.is_fused() || components::are_contiguous(p, *p_hat.scaled))) {
        const auto p_values = p.get_values();
        const auto r_values = r.get_const_values();
        const auto v_values = v.get_const_values();
        const auto p_hat_values = p_hat.is_fused() ? p_hat.scaled->get_values() : nullptr;
        if (!updates[0]) {
            if (p_hat.is_fused()) {
                apply_fused_scaling(exec, p_hat, p);
            }
            return;
        }
        components::for_each_range(static_cast<std::ptrdiff_t>(p.get_size().rows),
                                   [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                       update_directions(betas[0], v_coefficients[0], r_values, v_values, p_values,
                                                         inverse, p_hat_values, begin, end);
                                   });
        return;
    }
    components::for_each_row(static_cast<std::ptrdiff_t>(p.get_size().rows), [&](std::ptrdiff_t row) {
        auto p_row = p.get_values() + row * p.get_stride();
        const auto r_row = r.get_const_values() + row * r.get_stride();
        const auto v_row = v.get_const_values() + row * v.get_stride();
        for (size_type col = 0; col < cols; ++col) {
            if (updates[col]) {
                bicgstab_rules::update_direction_entry(betas[col], v_coefficients[col], r_row[col], v_row[col],
                                                       p_row[col]);
            }
            if (inverse != nullptr) {
                p_hat.scaled->get_values()[row * p_hat.scaled->get_stride() + col] = inverse[row] * p_row[col];
            }
        }
    });
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
    // As cg_step_solution: the update runs inside the fixed-order sum's terms.
    const auto cols = r.get_size().cols;
    const auto rows = static_cast<std::ptrdiff_t>(r.get_size().rows);
    const auto state_values = state.get_const_data();
    const auto inverse = s_hat.is_fused() ? s_hat.inverse_diagonal->get_const_data() : nullptr;
    std::vector<size_type> updating;
    for (size_type col = 0; col < cols; ++col) {
        if (bicgstab_rules::half_step_updates(state_values, cols, col)) {
            updating.push_back(col);
        } else if (s_hat.is_fused()) {
            apply_fused_scaling(exec, s_hat, r, col);
        }
    }
    std::vector<T> sums_of_squares(cols);
    if (inverse != nullptr) {
        // s_hat = D^{-1} s from the pass that updates s, where the preconditioner is a diagonal scaling
        components::fixed_order_column_sums<T>(
            rows, updating, sums_of_squares.data(),
            [state_values, cols, inverse](size_type col, auto v_column, auto s_column, auto s_hat_column) {
                const auto alpha = bicgstab_rules::half_step_length(state_values, cols, col);
                return [=](std::ptrdiff_t row) {
                    auto& s_entry = s_column[row];
                    const auto square = bicgstab_rules::update_half_step_entry(alpha, v_column[row], s_entry);
                    s_hat_column[row] = inverse[row] * s_entry;
                    return square;
                };
            },
            v, r, *s_hat.scaled);
    } else {
        components::fixed_order_column_sums<T>(
            rows, updating, sums_of_squares.data(),
            [state_values, cols](size_type col, auto v_column, auto s_column) {
                const auto alpha = bicgstab_rules::half_step_length(state_values, cols, col);
                return [=](std::ptrdiff_t row) {
                    return bicgstab_rules::update_half_step_entry(alpha, v_column[row], s_column[row]);
                };
            },
            v, r);
    }
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
    const auto state_values = state.get_const_data();
    std::vector<size_type> updating;
    for (size_type col = 0; col < cols; ++col) {
        if (bicgstab_rules::solution_update(state_values, cols, col) != SolutionUpdate::none) {
            updating.push_back(col);
        }
    }
    std::vector<TwoSums<T>> column_sums(cols);
    components::fixed_order_column_sums<TwoSums<T>>(
        static_cast<std::ptrdiff_t>(x.get_size().rows), updating, column_sums.data(),
        [state_values, cols](size_type col, auto p_hat_column, auto s_hat_column, auto t_column, auto shadow_column,
                             auto x_column, auto r_column) {
            const auto update = bicgstab_rules::solution_update(state_values, cols, col);
            const auto alpha = bicgstab_rules::value(state_values, cols, bicgstab_state::alpha, col);
            const auto omega =
                update == SolutionUpdate::full ? bicgstab_rules::solution_omega(state_values, cols, col) : T{};
            return [=](std::ptrdiff_t row) {
                const T square = bicgstab_rules::update_solution_entry(update, alpha, omega, p_hat_column[row],
                                                                       s_hat_column[row], t_column[row],
                                                                       x_column[row], r_column[row]);
                return TwoSums<T>{square, shadow_column[row] * r_column[row]};
            };
        },
        p_hat, s_hat, t, shadow, x, r);
    auto sums = first_sums_then_second(column_sums);
    ::larch::detail::complete_sums(exec, sums.data(), sums.size());
    for (size_type col = 0; col < cols; ++col) {
        bicgstab_rules::finish_solution_step_with_rho(state.get_data(), cols, col, slot, sums[col], sums[cols + col]);
    }
}

template <typename T>
void transpose(const DefaultExecutor&, const matrix::Dense<T>& source, matrix::Dense<T>& dest)
{
    const auto rows = static_cast<std::ptrdiff_t>(dest.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (size_type col = 0; col < dest.get_size().cols; ++col) {
            dest.get_values()[row * dest.get_stride() + col] =
                source.get_const_values()[col * source.get_stride() + row];
        }
    }
}

template <typename T>
void gemm(const DefaultExecutor&, T alpha, const matrix::Dense<T>& a, const matrix::Dense<T>& b,
          T beta, matrix::Dense<T>& c)
{
    // One row of c per iteration, accumulated over the rows of b so that the inner loop runs along
    // contiguous memory.
    const auto rows = static_cast<std::ptrdiff_t>(c.get_size().rows);
    const auto cols = c.get_size().cols;
    const auto inner = a.get_size().cols;
#pragma omp parallel
    {
        std::vector<T> row_sum(cols);
#pragma omp for
        for (std::ptrdiff_t row = 0; row < rows; ++row) {
            std::fill(row_sum.begin(), row_sum.end(), T{});
            for (size_type k = 0; k < inner; ++k) {
                const auto a_entry = a.get_const_values()[row * a.get_stride() + k];
                const auto b_row = b.get_const_values() + k * b.get_stride();
                for (size_type col = 0; col < cols; ++col) {
                    row_sum[col] += a_entry * b_row[col];
                }
            }
            auto c_row = c.get_values() + row * c.get_stride();
            for (size_type col = 0; col < cols; ++col) {
                c_row[col] = beta == T{} ? alpha * row_sum[col] : alpha * row_sum[col] + beta * c_row[col];
            }
        }
    }
}

template <typename T, typename I>
void count_nonzeros_per_row(const DefaultExecutor&, const matrix::Dense<T>& source, I* row_nnz)
{
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
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
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
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
}  // namespace omp
}  // namespace kernels
}  // namespace larch
