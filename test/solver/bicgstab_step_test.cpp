// The BiCGSTAB step on executor-resident scalars: the fused kernels (direction, half step forming r_hat^T v
// with ||s||, solution step forming t^T t and t^T s with ||r||) on every executor with exact values on small
// integers, their stop codes and causes and frozen columns, a long double oracle on random vectors; and
// Bicgstab itself giving the same iterates for every check interval and stopping exactly at the iteration
// limit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/matrix/dense_kernels.hpp"
#include "larch/generate/problems.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "test/solver/check_interval_checks.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;
namespace state_field = larch::kernels::bicgstab_state;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// A bicgstab_state array of `cols` columns and `slots` norm slots on `exec`: every column running with
/// rho = alpha = omega = 1, threshold 0 and pause_above inf, then `fields` set as {field, values per column}.
larch::array<double> make_state(const std::shared_ptr<const larch::Executor>& exec, size_type cols, size_type slots,
                                const std::vector<std::pair<size_type, std::vector<double>>>& fields)
{
    larch::array<double> host{exec->get_host(), (state_field::norms + slots) * cols};
    std::fill_n(host.get_data(), host.get_size(), 0.0);
    for (size_type col = 0; col < cols; ++col) {
        for (const auto name : {state_field::rho, state_field::alpha, state_field::omega}) {
            host.get_data()[name * cols + col] = 1;
        }
        host.get_data()[state_field::pause_above * cols + col] = inf;
    }
    for (const auto& [name, values] : fields) {
        for (size_type col = 0; col < cols; ++col) {
            host.get_data()[name * cols + col] = values[col];
        }
    }
    larch::array<double> state{exec};
    state.copy_from(host);
    return state;
}

double field(const std::vector<double>& state, size_type cols, size_type name, size_type col)
{
    return state[name * cols + col];
}

class BicgstabStepKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(BicgstabStepKernels, UpdateTheDirectionOfRunningColumnsWithAUsableRho)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Column 0: beta = (4 / 2) (3 / 2) = 3, p = (r - 2 * 3 v) + 3 p. Column 1: rho_new = 0, column 2:
    // rho_new = NaN, column 3: finished earlier; their p stays.
    auto state = make_state(exec, 4, 1,
                            {{state_field::rho_new, {4, 0, nan, 4}},
                             {state_field::rho, {2, 2, 2, 2}},
                             {state_field::alpha, {3, 3, 3, 3}},
                             {state_field::omega, {2, 2, 2, 2}},
                             {state_field::stopped, {0, 0, 0, state_field::finished}}});
    auto r = Dense::create(exec, {{1, 1, 1, 1}, {2, 2, 2, 2}});
    auto v = Dense::create(exec, {{1, 1, 1, 1}, {-1, -1, -1, -1}});
    auto p = Dense::create(exec, {{1, 1, 1, 1}, {0, 0, 0, 0}});
    // scalar Jacobi fused: p_hat = D^{-1} p for every column, the columns left alone too
    larch::array<double> inverse_diagonal{exec, {2.0, 0.5}};
    auto p_hat = Dense::create(exec, dim2{2, 4});
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_direction, *r, *v, *p, state,
                     larch::kernels::FusedScaling<double>{&inverse_diagonal, p_hat.get()});
    // (1 - 6) + 3 = -2, (2 + 6) + 0 = 8
    larch::test::expect_dense_eq({{-2, 1, 1, 1}, {8, 0, 0, 0}}, *p);
    larch::test::expect_dense_eq({{-4, 2, 2, 2}, {4, 0, 0, 0}}, *p_hat);
}

TEST_P(BicgstabStepKernels, HalfStepRecordsBreakdownsAndFinishesAtTheThreshold)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Column 0 runs on (alpha = 6 / 3 = 2), column 1 has shadow_v = 0, column 2 rho_new = Inf, column 3
    // runs on with ||s|| = sqrt(34) above its threshold 5 (alpha = 1), column 4 has shadow_v = NaN, column 5
    // rho_new = 0. shadow_v = r_hat^T v is the first row of r_hat, v's first row being ones.
    auto state = make_state(exec, 6, 2,
                            {{state_field::rho_new, {6, 1, inf, 1, 1, 0}}, {state_field::threshold, {1, 1, 1, 5, 1, 1}}});
    auto shadow = Dense::create(exec, {{3, 0, 1, 1, nan, 1}, {0, 0, 0, 0, 0, 0}});
    auto v = Dense::create(exec, {{1, 1, 1, 1, 1, 1}, {-1, -1, -1, 1, -1, -1}});
    auto r = Dense::create(exec, {{4, 4, 4, 4, 4, 4}, {1, 1, 1, 6, 1, 1}});
    larch::array<double> workspace{exec};
    // scalar Jacobi fused: s_hat = D^{-1} s for every column, the broken-down ones too
    larch::array<double> inverse_diagonal{exec, {0.5, 2.0}};
    auto s_hat = Dense::create(exec, dim2{2, 6});
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_half, *shadow, *v, *r, size_type{1}, state, workspace,
                     larch::kernels::FusedScaling<double>{&inverse_diagonal, s_hat.get()});
    // s0 = (4, 1) - 2 (1, -1) = (2, 3), s3 = (4, 6) - (1, 1) = (3, 5); the others keep r.
    larch::test::expect_dense_eq({{2, 4, 4, 3, 4, 4}, {3, 1, 1, 5, 1, 1}}, *r);
    larch::test::expect_dense_eq({{1, 2, 2, 1.5, 2, 2}, {6, 2, 2, 10, 2, 2}}, *s_hat);
    const auto values = state.copy_to_host();
    EXPECT_EQ(field(values, 6, state_field::shadow_v, 0), 3);
    EXPECT_EQ(field(values, 6, state_field::shadow_v, 1), 0);
    EXPECT_TRUE(std::isnan(field(values, 6, state_field::shadow_v, 4)));
    EXPECT_EQ(field(values, 6, state_field::alpha, 0), 2);
    EXPECT_EQ(field(values, 6, state_field::rho, 0), 6);
    EXPECT_EQ(field(values, 6, state_field::stopped, 0), state_field::running);
    const std::vector<std::pair<size_type, int>> breakdowns{{1, state_field::shadow_v_zero},
                                                            {2, state_field::rho_not_finite},
                                                            {4, state_field::shadow_v_not_finite},
                                                            {5, state_field::rho_zero}};
    for (const auto& [col, cause] : breakdowns) {
        SCOPED_TRACE("column " + std::to_string(col));
        EXPECT_EQ(field(values, 6, state_field::stopped, col), state_field::breakdown);
        EXPECT_EQ(field(values, 6, state_field::cause, col), cause);
        EXPECT_EQ(field(values, 6, state_field::stop_slot, col), 1);
        EXPECT_EQ(field(values, 6, state_field::alpha, col), 1);
    }
    // ||s3|| = sqrt(34) is above the threshold 5: still running, its norm not recorded.
    EXPECT_EQ(field(values, 6, state_field::stopped, 3), state_field::running);
    EXPECT_EQ(field(values, 6, state_field::norms + 1, 3), 0);
}

TEST_P(BicgstabStepKernels, HalfStepThatMeetsTheThresholdFinishesInTheSolutionStep)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // alpha = rho_new / r_hat^T v = 1: s = (4, 5) - (1, 1) = (3, 4), ||s|| = 5 = threshold of column 0
    // (finished at the half step), column 1's threshold 4 is below it (it runs on to the solution step:
    // t = (1, -1), t_t = 2, t_s = -1, omega = -1/2).
    auto state = make_state(exec, 2, 1, {{state_field::rho_new, {1, 1}}, {state_field::threshold, {5, 4}}});
    auto shadow = Dense::create(exec, {{1, 1}, {0, 0}});
    auto v = Dense::create(exec, {{1, 1}, {1, 1}});
    auto r = Dense::create(exec, {{4, 4}, {5, 5}});
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_half, *shadow, *v, *r, size_type{0}, state, workspace,
                     larch::kernels::FusedScaling<double>{});
    auto values = state.copy_to_host();
    EXPECT_EQ(field(values, 2, state_field::stopped, 0), state_field::half_finished);
    EXPECT_EQ(field(values, 2, state_field::norms, 0), 5);
    EXPECT_EQ(field(values, 2, state_field::stopped, 1), state_field::running);
    EXPECT_EQ(field(values, 2, state_field::s_s, 1), 25);
    auto p_hat = Dense::create(exec, {{2, 2}, {4, 4}});
    auto s_hat = Dense::create(exec, {{2, 2}, {2, 2}});
    auto t = Dense::create(exec, {{2, 1}, {0, -1}});
    auto x = Dense::create(exec, {{1, 1}, {1, 1}});
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *shadow, *x, *r, size_type{0}, state,
                     workspace);
    // Column 0: x += p_hat, r stays s. Column 1: x = (p_hat - s_hat / 2) + x, r = s + t / 2 = (3.5, 3.5),
    // norm sqrt(24.5) > 4, and the next rho_new = r_hat^T r = 1 * 3.5 + 0 * 3.5.
    larch::test::expect_dense_eq({{3, 2}, {5, 4}}, *x);
    larch::test::expect_dense_eq({{3, 3.5}, {4, 3.5}}, *r);
    values = state.copy_to_host();
    EXPECT_EQ(field(values, 2, state_field::stopped, 0), state_field::finished);
    EXPECT_EQ(field(values, 2, state_field::stop_slot, 0), 0);
    EXPECT_EQ(field(values, 2, state_field::norms, 0), 5);
    EXPECT_EQ(field(values, 2, state_field::stopped, 1), state_field::running);
    EXPECT_EQ(field(values, 2, state_field::t_t, 1), 2);
    EXPECT_EQ(field(values, 2, state_field::t_s, 1), -1);
    EXPECT_EQ(field(values, 2, state_field::omega, 1), -0.5);
    EXPECT_EQ(field(values, 2, state_field::norms, 1), std::sqrt(24.5));
    EXPECT_EQ(field(values, 2, state_field::rho_new, 1), 3.5);
    // the finished column keeps its rho_new
    EXPECT_EQ(field(values, 2, state_field::rho_new, 0), 1);
}

TEST_P(BicgstabStepKernels, SolutionStepStopsPausesAndFreezesColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // alpha = 2 everywhere, s = (4, 2). Column 0 runs (t = (8, 0): t_t = 64, t_s = 32, omega = 1/2, r =
    // (0, 2), norm 2 below the threshold 4: finished), column 1 too (t = (0, 8): omega = 1/4, r = (4, 0))
    // but with a norm above its pause bound 3 (paused), column 2 has t_s = 0 (x += alpha p_hat,
    // omega_zero), column 3 t_t = Inf (no update, t_not_finite), column 4 finished earlier (untouched).
    auto state = make_state(exec, 5, 2,
                            {{state_field::alpha, {2, 2, 2, 2, 2}},
                             {state_field::threshold, {4, 1, 1, 1, 1}},
                             {state_field::pause_above, {inf, 3, inf, inf, inf}},
                             {state_field::stopped, {0, 0, 0, 0, state_field::finished}}});
    auto p_hat = Dense::create(exec, {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}});
    auto s_hat = Dense::create(exec, {{2, 2, 2, 2, 2}, {4, 4, 4, 4, 4}});
    auto t = Dense::create(exec, {{8, 0, 1, inf, 2}, {0, 8, -2, 0, 2}});
    auto x = Dense::create(exec, {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}});
    auto r = Dense::create(exec, {{4, 4, 4, 4, 4}, {2, 2, 2, 2, 2}});
    auto shadow = Dense::create(exec, {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}});
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *shadow, *x, *r, size_type{1}, state,
                     workspace);
    // x0 = (2 + 1, 2 + 2) = (3, 4), x1 = (2 + 0.5, 2 + 1); x2 = 2 p_hat.
    larch::test::expect_dense_eq({{3, 2.5, 2, 0, 0}, {4, 3, 2, 0, 0}}, *x);
    larch::test::expect_dense_eq({{0, 4, 4, 4, 4}, {2, 0, 2, 2, 2}}, *r);
    const auto values = state.copy_to_host();
    EXPECT_EQ(field(values, 5, state_field::t_t, 0), 64);
    EXPECT_EQ(field(values, 5, state_field::t_s, 0), 32);
    EXPECT_EQ(field(values, 5, state_field::t_s, 2), 0);
    EXPECT_EQ(field(values, 5, state_field::t_t, 3), inf);
    EXPECT_EQ(field(values, 5, state_field::norms + 1, 0), 2);
    EXPECT_EQ(field(values, 5, state_field::norms + 1, 1), 4);
    EXPECT_EQ(field(values, 5, state_field::stopped, 0), state_field::finished);
    EXPECT_EQ(field(values, 5, state_field::omega, 0), 0.5);
    EXPECT_EQ(field(values, 5, state_field::stopped, 1), state_field::paused);
    EXPECT_EQ(field(values, 5, state_field::stop_slot, 1), 1);
    EXPECT_EQ(field(values, 5, state_field::stopped, 2), state_field::breakdown);
    EXPECT_EQ(field(values, 5, state_field::cause, 2), state_field::omega_zero);
    EXPECT_EQ(field(values, 5, state_field::stopped, 3), state_field::breakdown);
    EXPECT_EQ(field(values, 5, state_field::cause, 3), state_field::t_not_finite);
    EXPECT_EQ(field(values, 5, state_field::stopped, 4), state_field::finished);
    // rho_new = r_hat^T r where the update was full (the paused column resumes from it); the others keep
    // theirs.
    EXPECT_EQ(field(values, 5, state_field::rho_new, 0), 2);
    EXPECT_EQ(field(values, 5, state_field::rho_new, 1), 4);
    for (const size_type col : {2, 3, 4}) {
        EXPECT_EQ(field(values, 5, state_field::rho_new, col), 0) << "column " << col;
    }
    // A second step changes none of them: all are stopped.
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *shadow, *x, *r, size_type{0}, state,
                     workspace);
    larch::test::expect_dense_eq({{3, 2.5, 2, 0, 0}, {4, 3, 2, 0, 0}}, *x);
    larch::test::expect_dense_eq({{0, 4, 4, 4, 4}, {2, 0, 2, 2, 2}}, *r);
}

TEST_P(BicgstabStepKernels, SolutionStepEnlargesOmegaWhereTheCosineIsBelowKappa)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // t = (1, 0) in every column, so t^T t = t^T s = 1. Column 0: s = (1, 1), cos(t, s) = 1/sqrt(2) >= kappa
    // 0.7: omega = t^T s / t^T t = 1. Column 1: s = (1, 3), cos = 1/sqrt(10) < 0.7: omega = 1 * 0.7
    // sqrt(10). Column 2: the same s with kappa 0 (off): omega = 1. s^T s comes from the half step.
    auto state = make_state(exec, 3, 1,
                            {{state_field::s_s, {2, 10, 10}},
                             {state_field::kappa, {0.7, 0.7, 0}}});
    auto p_hat = Dense::create(exec, {{0, 0, 0}, {0, 0, 0}});
    auto s_hat = Dense::create(exec, {{1, 1, 1}, {1, 1, 1}});
    auto t = Dense::create(exec, {{1, 1, 1}, {0, 0, 0}});
    auto x = Dense::create(exec, {{0, 0, 0}, {0, 0, 0}});
    auto r = Dense::create(exec, {{1, 1, 1}, {1, 3, 3}});
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *s_hat, *x, *r, size_type{0}, state,
                     workspace);
    const auto values = state.copy_to_host();
    const double enlarged = 0.7 * std::sqrt(10.0);
    EXPECT_EQ(field(values, 3, state_field::omega, 0), 1);
    EXPECT_NEAR(field(values, 3, state_field::omega, 1), enlarged, 1e-15 * enlarged);
    EXPECT_EQ(field(values, 3, state_field::omega, 2), 1);
    // x = omega s_hat, r = s - omega t.
    const auto x_host = x->copy_to_host();
    const auto r_host = r->copy_to_host();
    EXPECT_EQ(x_host[0], 1);
    EXPECT_NEAR(x_host[1], enlarged, 1e-15 * enlarged);
    EXPECT_NEAR(r_host[1], 1 - enlarged, 1e-15 * enlarged);
    EXPECT_EQ(r_host[4], 3);
}

/// sum_i a[i] b[i] over column `col` of two row-major host blocks of `cols` columns, in long double, and the
/// sum of the products' magnitudes (the scale of a double sum's rounding error).
std::pair<long double, long double> column_product(const std::vector<double>& a, const std::vector<double>& b,
                                                   size_type cols, size_type col)
{
    long double sum = 0;
    long double magnitude = 0;
    for (size_type i = col; i < a.size(); i += cols) {
        const auto product = static_cast<long double>(a[i]) * b[i];
        sum += product;
        magnitude += std::abs(product);
    }
    return {sum, magnitude};
}

TEST_P(BicgstabStepKernels, MatchALongDoubleOracleOnRandomVectors)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    constexpr std::uint32_t seed = 29;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    // 3,000 rows (one GPU block per column: each step and its dot products in one launch) and 9,000 rows
    // (several omp chunks and GPU blocks per column), 2 columns; strides above the width.
    for (const dim2 size : {dim2{3000, 2}, dim2{9000, 2}}) {
        SCOPED_TRACE(std::to_string(size.rows) + " rows");
        std::vector<std::vector<double>> host;
        for (std::uint32_t k = 0; k < 7; ++k) {
            host.push_back(larch::test::generate_random_values<double>(size, seed + k));
        }
        auto v = larch::test::create_dense(exec, size, host[0], 3);
        auto r = larch::test::create_dense(exec, size, host[1], 4);
        auto p_hat = larch::test::create_dense(exec, size, host[2], 2);
        auto s_hat = larch::test::create_dense(exec, size, host[3], 5);
        auto t = larch::test::create_dense(exec, size, host[4], 3);
        auto x = larch::test::create_dense(exec, size, host[5], 2);
        auto shadow = larch::test::create_dense(exec, size, host[6], 4);
        const double rho_new[] = {0.75, -1.5};
        auto state = make_state(exec, 2, 1, {{state_field::rho_new, {rho_new[0], rho_new[1]}}});
        larch::array<double> workspace{exec};
        LARCH_RUN_KERNEL(exec, dense::bicgstab_step_half, *shadow, *v, *r, size_type{0}, state, workspace,
                         larch::kernels::FusedScaling<double>{});
        const auto s_new = r->copy_to_host();
        LARCH_RUN_KERNEL(exec, dense::bicgstab_step_solution, *p_hat, *s_hat, *t, *shadow, *x, *r, size_type{0},
                         state, workspace);
        const auto x_new = x->copy_to_host();
        const auto r_new = r->copy_to_host();
        const auto values = state.copy_to_host();
        const double u = std::ldexp(1.0, -53);
        // n products summed in any order: below (n + 1) u times the sum of magnitudes
        const auto expect_product = [&](size_type name, size_type col, std::pair<long double, long double> exact) {
            EXPECT_NEAR(field(values, 2, name, col), static_cast<double>(exact.first),
                        (size.rows + 1) * u * static_cast<double>(exact.second))
                << "state field " << name << ", column " << col;
        };
        for (size_type col = 0; col < size.cols; ++col) {
            expect_product(state_field::shadow_v, col, column_product(host[6], host[0], size.cols, col));
            expect_product(state_field::t_t, col, column_product(host[4], host[4], size.cols, col));
            expect_product(state_field::t_s, col, column_product(host[4], s_new, size.cols, col));
            // the steps divide the products they formed
            const double alpha = rho_new[col] / field(values, 2, state_field::shadow_v, col);
            const double omega = field(values, 2, state_field::t_s, col) / field(values, 2, state_field::t_t, col);
            EXPECT_EQ(field(values, 2, state_field::alpha, col), alpha);
            EXPECT_EQ(field(values, 2, state_field::omega, col), omega);
            long double sum = 0;
            for (size_type row = 0; row < size.rows; ++row) {
                const auto i = row * size.cols + col;
                // one product and one sum (fused or not): within 2u of the magnitudes
                EXPECT_NEAR(s_new[i], host[1][i] - alpha * host[0][i],
                            2 * u * (std::abs(host[1][i]) + std::abs(alpha * host[0][i])));
                // two products and two sums: within 3u of the magnitudes
                EXPECT_NEAR(x_new[i], alpha * host[2][i] + omega * host[3][i] + host[5][i],
                            3 * u *
                                (std::abs(alpha * host[2][i]) + std::abs(omega * host[3][i]) + std::abs(host[5][i])));
                EXPECT_NEAR(r_new[i], s_new[i] - omega * host[4][i],
                            2 * u * (std::abs(s_new[i]) + std::abs(omega * host[4][i])));
                sum += static_cast<long double>(r_new[i]) * r_new[i];
            }
            // a sum of n nonnegative squares in any order, then a root: relative error below (n + 2) u
            const auto exact = static_cast<double>(std::sqrt(sum));
            EXPECT_NEAR(field(values, 2, state_field::norms, col), exact, (size.rows + 2) * u * exact);
            EXPECT_EQ(field(values, 2, state_field::stopped, col), state_field::running);
            // the next rho_new = r_hat^T r
            expect_product(state_field::rho_new, col, column_product(host[6], r_new, size.cols, col));
        }
    }
}

TEST_P(BicgstabStepKernels, DotPairEqualsTwoDotProducts)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    constexpr std::uint32_t seed = 31;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    // t^T t and t^T s of BiCGSTAB's solution step in one call: on reference and omp the same bits as two
    // compute_dot calls, elsewhere within the bound of a sum of n products in another order. Short (one
    // GPU launch) and long columns; 1, 3 and 8 columns (8: 16 reduced columns, read as row-major pairs).
    for (const dim2 size : {dim2{300, 1}, dim2{9000, 3}, dim2{9000, 8}}) {
        SCOPED_TRACE(std::to_string(size.rows) + " x " + std::to_string(size.cols));
        const auto t_host = larch::test::generate_random_values<double>(size, seed);
        const auto s_host = larch::test::generate_random_values<double>(size, seed + 1);
        auto t = larch::test::create_dense(exec, size, t_host, size.cols + 1);
        auto s = larch::test::create_dense(exec, size, s_host, size.cols);
        larch::array<double> pair{exec, 2 * size.cols};
        larch::array<double> workspace{exec};
        LARCH_RUN_KERNEL(exec, dense::compute_dot_pair, *t, *t, *s, pair, workspace);
        const auto result = pair.copy_to_host();
        const auto t_t = t->compute_dot(*t);
        const auto t_s = t->compute_dot(*s);
        const bool host = exec->is_host();
        const double u = std::ldexp(1.0, -53);
        for (size_type col = 0; col < size.cols; ++col) {
            double t_t_magnitude = 0;
            double t_s_magnitude = 0;
            for (size_type row = 0; row < size.rows; ++row) {
                const auto i = row * size.cols + col;
                t_t_magnitude += t_host[i] * t_host[i];
                t_s_magnitude += std::abs(t_host[i] * s_host[i]);
            }
            if (host) {
                EXPECT_EQ(result[col], t_t[col]);
                EXPECT_EQ(result[size.cols + col], t_s[col]);
            } else {
                EXPECT_NEAR(result[col], t_t[col], 2 * size.rows * u * t_t_magnitude);
                EXPECT_NEAR(result[size.cols + col], t_s[col], 2 * size.rows * u * t_s_magnitude);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BicgstabStepKernels, ::testing::ValuesIn(larch::test::executor_names()));

class BicgstabCheckInterval : public ::testing::TestWithParam<std::string> {};

/// Bicgstab's matrix for the interval checks: 400 rows on which it converges in more than 20 iterations.
std::shared_ptr<const larch::LinOp> interval_matrix(const std::shared_ptr<const larch::Executor>& exec)
{
    return larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::convection_diffusion_2d<double>(20, 0.5)));
}

TEST_P(BicgstabCheckInterval, GivesTheSameIteratesAndStatusForEveryInterval)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_same_iterates_for_every_interval<larch::solver::Bicgstab<double>>(exec, interval_matrix(exec));
}

TEST_P(BicgstabCheckInterval, StopsExactlyAtTheIterationLimit)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_stops_exactly_at_the_iteration_limit<larch::solver::Bicgstab<double>>(exec, interval_matrix(exec));
}

TEST(BicgstabCheckIntervalErrors, ZeroIsRejected)
{
    const auto exec = larch::make_executor("reference");
    larch::test::check_zero_interval_is_rejected<larch::solver::Bicgstab<double>>(
        exec, larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(3))));
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BicgstabCheckInterval, ::testing::ValuesIn(larch::test::executor_names()));

class BicgstabFusedJacobi : public ::testing::TestWithParam<std::string> {};

TEST_P(BicgstabFusedJacobi, GivesTheBitsOfTheSameDiagonalAppliedOnItsOwn)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Scalar Jacobi runs inside the direction and half steps; the same D^{-1} as a diagonal Csr matrix runs
    // in passes of its own (scalar_jacobi_two_ways). Both solves must give the same iterates.
    const auto a = interval_matrix(exec);
    const auto jacobi = larch::test::scalar_jacobi_two_ways(exec, a);
    ASSERT_NE(jacobi.folded->get_scaling_diagonal(), nullptr);
    auto b = Dense::create(exec, dim2{400, 1});
    b->fill(1.0);
    const auto solves = larch::test::solve_with_each_preconditioner<larch::solver::Bicgstab<double>>(
        exec, a, *b, {jacobi.folded, jacobi.separate}, 25);
    for (const auto& solve : solves) {
        EXPECT_EQ(solve.iterations, 25u);
    }
    EXPECT_EQ(solves[0].x, solves[1].x);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BicgstabFusedJacobi, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
