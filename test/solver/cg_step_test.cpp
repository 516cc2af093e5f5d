// The conjugate-gradient step on executor-resident scalars: the fused kernels (x and r update with the
// residual norm in one pass, the direction update) on every executor with exact values on small integers,
// their stop codes (breakdown, finished, paused) and frozen columns, a long double oracle on random
// vectors; and Cg itself giving the same iterates for every check interval.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/matrix/dense_kernels.hpp"
#include "larch/generate/problems.hpp"
#include "test/solver/check_interval_checks.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;
namespace cg_state = larch::kernels::cg_state;

class CgStepKernels : public ::testing::TestWithParam<std::string> {};

constexpr double inf = std::numeric_limits<double>::infinity();
/// The steps' inverse_diagonal without a folded scaling.
const larch::array<double>* const no_scaling = nullptr;

/// A cg_state array of `cols` columns and `slots` norm slots on `exec`; `fields[f][c]` gives field f.
larch::array<double> make_state(const std::shared_ptr<const larch::Executor>& exec, size_type cols,
                                size_type slots, const std::vector<std::vector<double>>& fields)
{
    larch::array<double> host{exec->get_host(), (cg_state::norms + slots) * cols};
    std::fill_n(host.get_data(), host.get_size(), 0.0);
    for (size_type field = 0; field < fields.size(); ++field) {
        for (size_type col = 0; col < cols; ++col) {
            host.get_data()[field * cols + col] = fields[field][col];
        }
    }
    larch::array<double> state{exec};
    state.copy_from(host);
    return state;
}

double field(const std::vector<double>& state, size_type cols, size_type field, size_type col)
{
    return state[field * cols + col];
}

/// The step on small integers: column 0 runs (alpha = 6 / 3 = 2), column 1 breaks down (rho = 0), column 2
/// finished earlier; 2 norm slots.
struct IntegerStep {
    larch::array<double> state;
    std::unique_ptr<Dense> p;
    std::unique_ptr<Dense> q;
    std::unique_ptr<Dense> x;
    std::unique_ptr<Dense> r;
};

IntegerStep make_integer_step(const std::shared_ptr<const larch::Executor>& exec)
{
    // Fields: rho, rho_old, p_q, threshold, stopped, stop_slot, pause_above.
    return {make_state(exec, 3, 2,
                       {{6, 0, 5}, {0, 0, 0}, {3, 1, 1}, {1, 1, 1}, {0, 0, cg_state::finished}, {0, 0, 0},
                        {inf, inf, inf}}),
            Dense::create(exec, {{1, 1, 1}, {2, 2, 2}}), Dense::create(exec, {{1, 1, 1}, {-1, -1, -1}}),
            Dense::create(exec, {{0, 0, 0}, {1, 1, 1}}), Dense::create(exec, {{4, 4, 4}, {1, 1, 1}})};
}

TEST_P(CgStepKernels, UpdateRunningColumnsAndFreezeStoppedOnesOnIntegers)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto step = make_integer_step(exec);
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *step.p, *step.q, *step.x, *step.r, size_type{1}, step.state,
                     workspace, no_scaling);
    // x0 = (0, 1) + 2 (1, 2) = (2, 5); r0 = (4, 1) - 2 (1, -1) = (2, 3), norm sqrt(13).
    larch::test::expect_dense_eq({{2, 0, 0}, {5, 1, 1}}, *step.x);
    larch::test::expect_dense_eq({{2, 4, 4}, {3, 1, 1}}, *step.r);
    auto values = step.state.copy_to_host();
    EXPECT_EQ(field(values, 3, cg_state::norms + 1, 0), std::sqrt(13.0));
    EXPECT_EQ(field(values, 3, cg_state::rho_old, 0), 6);
    EXPECT_EQ(field(values, 3, cg_state::stopped, 0), cg_state::running);
    EXPECT_EQ(field(values, 3, cg_state::stopped, 1), cg_state::breakdown);
    EXPECT_EQ(field(values, 3, cg_state::stop_slot, 1), 1);
    EXPECT_EQ(field(values, 3, cg_state::stopped, 2), cg_state::finished);
    // The direction: rho = 12 gives beta = 12 / 6 = 2 for column 0; the others stay.
    values[cg_state::rho * 3] = 12;
    larch::array<double> host{exec->get_host(), values.size()};
    std::copy(values.begin(), values.end(), host.get_data());
    step.state.copy_from(host);
    auto z = Dense::create(exec, {{1, 1, 1}, {1, 1, 1}});
    LARCH_RUN_KERNEL(exec, dense::cg_step_direction, *z, *step.p, size_type{1}, step.state, no_scaling);
    larch::test::expect_dense_eq({{3, 1, 1}, {5, 2, 2}}, *step.p);
}

TEST_P(CgStepKernels, FoldedScalingFormsTheNextRhoAndTheScaledDirectionOnIntegers)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // As above with D^{-1} = diag(0.75, 1) folded in.
    auto step = make_integer_step(exec);
    larch::array<double> inverse_diagonal{exec, {0.75, 1.0}};
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *step.p, *step.q, *step.x, *step.r, size_type{1}, step.state,
                     workspace, &inverse_diagonal);
    larch::test::expect_dense_eq({{2, 0, 0}, {5, 1, 1}}, *step.x);
    larch::test::expect_dense_eq({{2, 4, 4}, {3, 1, 1}}, *step.r);
    const auto values = step.state.copy_to_host();
    EXPECT_EQ(field(values, 3, cg_state::norms + 1, 0), std::sqrt(13.0));
    // r = (2, 3): rho = 2 (0.75 * 2) + 3 (1 * 3) = 12 and rho_old = 6; the broken-down column and the one that
    // finished earlier keep their rho.
    EXPECT_EQ(field(values, 3, cg_state::rho, 0), 12);
    EXPECT_EQ(field(values, 3, cg_state::rho_old, 0), 6);
    EXPECT_EQ(field(values, 3, cg_state::rho, 1), 0);
    EXPECT_EQ(field(values, 3, cg_state::stopped, 1), cg_state::breakdown);
    EXPECT_EQ(field(values, 3, cg_state::rho, 2), 5);
    // p = D^{-1} r + (12 / 6) p = (1.5, 3) + (2, 4) in column 0; the others stay.
    LARCH_RUN_KERNEL(exec, dense::cg_step_direction, *step.r, *step.p, size_type{1}, step.state, &inverse_diagonal);
    larch::test::expect_dense_eq({{3.5, 1, 1}, {7, 2, 2}}, *step.p);
}

TEST_P(CgStepKernels, FinishAtTheThresholdAndPauseAboveTheBound)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // alpha = 1 in both columns; r becomes (3, 4) (norm 5) in both. Column 0's threshold is 5 (finished:
    // a norm equal to the threshold meets it), column 1's pause bound is 4.5 (paused).
    auto state = make_state(exec, 2, 1, {{1, 1}, {0, 0}, {1, 1}, {5, 1}, {0, 0}, {0, 0}, {inf, 4.5}});
    auto p = Dense::create(exec, {{0, 0}, {0, 0}});
    auto q = Dense::create(exec, {{1, 1}, {1, 1}});
    auto x = Dense::create(exec, {{0, 0}, {0, 0}});
    auto r = Dense::create(exec, {{4, 4}, {5, 5}});
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *p, *q, *x, *r, size_type{0}, state, workspace, no_scaling);
    const auto values = state.copy_to_host();
    EXPECT_EQ(field(values, 2, cg_state::norms, 0), 5);
    EXPECT_EQ(field(values, 2, cg_state::norms, 1), 5);
    EXPECT_EQ(field(values, 2, cg_state::stopped, 0), cg_state::finished);
    EXPECT_EQ(field(values, 2, cg_state::stopped, 1), cg_state::paused);
    // The pausing step still updates the paused column's direction (beta = rho / rho_old = 1), a later
    // step does not; the finished column's direction never changes.
    auto z = Dense::create(exec, {{1, 1}, {1, 1}});
    LARCH_RUN_KERNEL(exec, dense::cg_step_direction, *z, *p, size_type{0}, state, no_scaling);
    larch::test::expect_dense_eq({{0, 1}, {0, 1}}, *p);
    LARCH_RUN_KERNEL(exec, dense::cg_step_direction, *z, *p, size_type{1}, state, no_scaling);
    larch::test::expect_dense_eq({{0, 1}, {0, 1}}, *p);
    // A frozen column keeps x and r in later steps (x moved by alpha p = 0 in the first one).
    LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *p, *q, *x, *r, size_type{0}, state, workspace, no_scaling);
    larch::test::expect_dense_eq({{0, 0}, {0, 0}}, *x);
    larch::test::expect_dense_eq({{3, 3}, {4, 4}}, *r);
}

/// The step on random vectors against a long double oracle, with a random D^{-1} folded in or none.
void check_step_against_oracle(const std::shared_ptr<const larch::Executor>& exec, bool folds_scaling)
{
    constexpr std::uint32_t seed = 17;
    SCOPED_TRACE(larch::test::seed_trace(seed));
    // 9,000 rows x 2 columns: several omp chunks and GPU blocks per column; strides above the width.
    const dim2 size{9000, 2};
    std::vector<std::vector<double>> host;
    for (std::uint32_t k = 0; k < 4; ++k) {
        host.push_back(larch::test::generate_random_values<double>(size, seed + k));
    }
    auto p = larch::test::create_dense(exec, size, host[0], 3);
    auto q = larch::test::create_dense(exec, size, host[1], 4);
    auto x = larch::test::create_dense(exec, size, host[2], 2);
    auto r = larch::test::create_dense(exec, size, host[3], 5);
    const double rho[] = {0.75, -1.5};
    const double p_q[] = {2.0, 3.0};
    auto state = make_state(exec, 2, 1, {{rho[0], rho[1]}, {0, 0}, {p_q[0], p_q[1]}, {0, 0}, {0, 0}, {0, 0},
                                         {inf, inf}});
    const auto inverse = larch::test::generate_random_values<double>(dim2{size.rows, 1}, seed + 4);
    larch::array<double> inverse_diagonal{exec, inverse.begin(), inverse.end()};
    larch::array<double> workspace{exec};
    LARCH_RUN_KERNEL(exec, dense::cg_step_solution, *p, *q, *x, *r, size_type{0}, state, workspace,
                     folds_scaling ? &inverse_diagonal : nullptr);
    const auto x_new = x->copy_to_host();
    const auto r_new = r->copy_to_host();
    const auto values = state.copy_to_host();
    const double u = std::ldexp(1.0, -53);
    for (size_type col = 0; col < size.cols; ++col) {
        const double alpha = rho[col] / p_q[col];
        long double sum = 0;
        long double rho_sum = 0;
        long double rho_magnitude = 0;
        for (size_type row = 0; row < size.rows; ++row) {
            const auto i = row * size.cols + col;
            // one product and one sum (fused or not): within 2u of the magnitudes
            EXPECT_NEAR(x_new[i], host[2][i] + alpha * host[0][i],
                        2 * u * (std::abs(host[2][i]) + std::abs(alpha * host[0][i])));
            EXPECT_NEAR(r_new[i], host[3][i] - alpha * host[1][i],
                        2 * u * (std::abs(host[3][i]) + std::abs(alpha * host[1][i])));
            sum += static_cast<long double>(r_new[i]) * r_new[i];
            const auto r_entry = static_cast<long double>(r_new[i]);
            const auto rho_term = r_entry * (inverse[row] * r_entry);
            rho_sum += rho_term;
            rho_magnitude += std::abs(rho_term);
        }
        // a sum of n nonnegative squares in any order, then a root: relative error below (n + 2) u
        const auto exact = static_cast<double>(std::sqrt(sum));
        EXPECT_NEAR(field(values, 2, cg_state::norms, col), exact, (size.rows + 2) * u * exact);
        if (folds_scaling) {
            // n terms of two products each, summed in any order: below (n + 2) u times the sum of magnitudes
            EXPECT_NEAR(field(values, 2, cg_state::rho, col), static_cast<double>(rho_sum),
                        (size.rows + 2) * u * static_cast<double>(rho_magnitude));
            EXPECT_EQ(field(values, 2, cg_state::rho_old, col), rho[col]);
        } else {
            EXPECT_EQ(field(values, 2, cg_state::rho, col), rho[col]);
        }
    }
}

TEST_P(CgStepKernels, MatchALongDoubleOracleOnRandomVectors)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_step_against_oracle(exec, false);
}

TEST_P(CgStepKernels, MatchALongDoubleOracleOnRandomVectorsWithAFoldedScaling)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_step_against_oracle(exec, true);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CgStepKernels, ::testing::ValuesIn(larch::test::executor_names()));

class CgCheckInterval : public ::testing::TestWithParam<std::string> {};

/// Cg's matrix for the interval checks: 400 rows on which it converges in more than 20 iterations.
std::shared_ptr<const larch::LinOp> interval_matrix(const std::shared_ptr<const larch::Executor>& exec)
{
    return larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
}

TEST_P(CgCheckInterval, GivesTheSameIteratesAndStatusForEveryInterval)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_same_iterates_for_every_interval<larch::solver::Cg<double>>(exec, interval_matrix(exec));
}

TEST_P(CgCheckInterval, StopsExactlyAtTheIterationLimit)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_stops_exactly_at_the_iteration_limit<larch::solver::Cg<double>>(exec, interval_matrix(exec));
}

TEST_P(CgCheckInterval, FoldedJacobiTakesTheIteratesOfTheSameDiagonalAppliedOnItsOwn)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Scalar Jacobi runs inside the solution and direction steps; the same D^{-1} as a diagonal Csr matrix
    // runs in passes of its own (scalar_jacobi_two_ways). rho sums the same terms r (d r) in either case, in
    // the step's reduction order or in the dot's, so the iterates agree to roundoff; 3 columns at once.
    const auto a = interval_matrix(exec);
    const auto jacobi = larch::test::scalar_jacobi_two_ways(exec, a);
    ASSERT_NE(jacobi.folded->get_scaling_diagonal(), nullptr);
    const dim2 size{400, 3};
    auto b = larch::test::generate_random_dense<double>(exec, size, 5);
    const auto solves = larch::test::solve_with_each_preconditioner<larch::solver::Cg<double>>(
        exec, a, *b, {jacobi.folded, jacobi.separate}, 25);
    for (const auto& solve : solves) {
        EXPECT_EQ(solve.iterations, 25u);
    }
    const auto scale = larch::test::host_norm(solves[1].x);
    for (std::size_t i = 0; i < solves[0].x.size(); ++i) {
        EXPECT_NEAR(solves[0].x[i], solves[1].x[i], 1e-12 * scale) << "entry " << i;
    }
}

TEST(CgCheckIntervalErrors, ZeroIsRejected)
{
    const auto exec = larch::make_executor("reference");
    larch::test::check_zero_interval_is_rejected<larch::solver::Cg<double>>(
        exec, larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(3))));
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CgCheckInterval, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
