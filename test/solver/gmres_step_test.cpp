// GMRES's Givens step on the executor: the rotation of each column's new Hessenberg column, its residual
// estimate and its stops (threshold, NaN, zero radius, lucky breakdown) with frozen columns, on every executor
// with values worked out by hand; and Gmres giving the same iterates for every check interval.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/solver/gmres_kernels.hpp"
#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/solver/gmres.hpp"
#include "test/solver/check_interval_checks.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;
using larch::kernels::GmresLayout;
namespace gmres_state = larch::kernels::gmres_state;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// `host` copied to a new array on `exec`.
template <typename T>
larch::array<T> to_executor(const std::shared_ptr<const larch::Executor>& exec, std::vector<T> host)
{
    larch::array<T> result{exec};
    result.copy_from(larch::array<T>::view(exec->get_host(), host.size(), host.data()));
    return result;
}

/// The executor's data of one Givens step, set up on the host and copied over: the step's reductions, the
/// least-squares problems (g(0) of each column given) and the stop state (threshold and stopped given).
struct GivensData {
    GivensData(const std::shared_ptr<const larch::Executor>& exec, GmresLayout layout, size_type slots,
               const std::vector<double>& initial_rhs, const std::vector<double>& thresholds,
               const std::vector<int>& stopped)
        : exec{exec}, layout{layout}, reductions(layout.reductions_size(), 0.0), problem(layout.problem_size(), 0.0),
          state((gmres_state::norms + slots) * layout.cols, 0.0)
    {
        for (size_type col = 0; col < layout.cols; ++col) {
            problem[layout.rhs(0, col)] = initial_rhs[col];
            state[gmres_state::threshold * layout.cols + col] = thresholds[col];
            state[gmres_state::stopped * layout.cols + col] = stopped[col];
        }
    }

    /// Step `step` in slot `slot` with these coefficients of the two passes (step + 1 of each column) and
    /// subdiagonals; the results come back into problem, state and factors.
    void step(size_type step, size_type slot, const std::vector<std::vector<double>>& first,
              const std::vector<std::vector<double>>& second, const std::vector<double>& subdiagonals)
    {
        for (size_type col = 0; col < layout.cols; ++col) {
            for (size_type i = 0; i <= step; ++i) {
                reductions[layout.projection(0, i, col)] = first[col][i];
                reductions[layout.projection(1, i, col)] = second[col][i];
            }
            reductions[layout.subdiagonal(col)] = subdiagonals[col];
        }
        auto device_reductions = to_executor(exec, reductions);
        auto device_problem = to_executor(exec, problem);
        auto device_state = to_executor(exec, state);
        auto device_factors = to_executor(exec, std::vector<double>(layout.cols, -1.0));
        LARCH_RUN_KERNEL(exec, gmres::givens_step, layout, step, slot, device_reductions, device_problem,
                         device_state, device_factors);
        problem = device_problem.copy_to_host();
        state = device_state.copy_to_host();
        factors = device_factors.copy_to_host();
    }

    double field(size_type name, size_type col) const { return state[name * layout.cols + col]; }

    std::shared_ptr<const larch::Executor> exec;
    GmresLayout layout;
    std::vector<double> reductions;
    std::vector<double> problem;
    std::vector<double> state;
    std::vector<double> factors;
};

class GmresStepKernels : public ::testing::TestWithParam<std::string> {};

// The hand values are rounded results of short products and quotients (0.6 * 5 + 0.8 * 10 and the like): a
// few units in the last place, with or without fused multiply-adds.
constexpr double hand_tolerance = 1e-14;

TEST_P(GmresStepKernels, RotateTwoStepsOfARunningColumnAndFreezeStoppedOnes)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const GmresLayout layout{2, 3};
    // Column 0 runs from g(0) = 10; column 1 finished earlier; column 2 meets NaN in its first step.
    GivensData data{exec, layout, 2, {10, 7, 10}, {0, 0, 0}, {gmres_state::running, gmres_state::finished,
                                                               gmres_state::running}};
    const auto untouched = data.problem[layout.rhs(0, 1)];
    // Step 0: H(0, 0) = 2 + 1 = 3 with subdiagonal 4: radius 5, cos 0.6, sin 0.8, g = (6, -8).
    data.step(0, 0, {{2}, {2}, {2}}, {{1}, {1}, {1}}, {4, 4, nan});
    EXPECT_NEAR(data.problem[layout.hessenberg(0, 0, 0)], 5, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.cosine(0, 0)], 0.6, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.sine(0, 0)], 0.8, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.rhs(0, 0)], 6, hand_tolerance);
    EXPECT_NEAR(data.field(gmres_state::norms, 0), 8, hand_tolerance);
    EXPECT_EQ(data.field(gmres_state::stopped, 0), gmres_state::running);
    EXPECT_EQ(data.factors, (std::vector<double>{0.25, 0, 0}));
    EXPECT_EQ(data.problem[layout.rhs(0, 1)], untouched);
    EXPECT_EQ(data.field(gmres_state::stopped, 2), gmres_state::breakdown);
    EXPECT_EQ(data.field(gmres_state::cause, 2), gmres_state::non_finite);
    EXPECT_EQ(data.field(gmres_state::stop_slot, 2), 0);
    // Step 1: column (4 + 1, 8 + 2) = (5, 10), rotated by the first rotation to (0.6 5 + 0.8 10, -0.8 5 + 0.6 10)
    // = (11, 2); with subdiagonal 1.5 the radius is 2.5, cos 0.8, sin 0.6; g = (6, -6.4, 4.8).
    data.step(1, 1, {{4, 8}, {4, 8}, {4, 8}}, {{1, 2}, {1, 2}, {1, 2}}, {1.5, 1.5, 1.5});
    EXPECT_NEAR(data.problem[layout.hessenberg(0, 1, 0)], 11, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.hessenberg(1, 1, 0)], 2.5, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.cosine(1, 0)], 0.8, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.sine(1, 0)], 0.6, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.rhs(0, 0)], 6, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.rhs(1, 0)], -6.4, hand_tolerance);
    EXPECT_NEAR(data.problem[layout.rhs(2, 0)], 4.8, hand_tolerance);
    EXPECT_NEAR(data.field(gmres_state::norms + 1, 0), 4.8, hand_tolerance);
    EXPECT_EQ(data.field(gmres_state::stopped, 0), gmres_state::running);
    EXPECT_NEAR(data.factors[0], 1 / 1.5, hand_tolerance);
    EXPECT_EQ(data.factors[1], 0);
    EXPECT_EQ(data.factors[2], 0);
    // The stopped columns did not change in step 1.
    EXPECT_EQ(data.problem[layout.rhs(0, 1)], untouched);
    EXPECT_EQ(data.problem[layout.rhs(1, 2)], 0);
    EXPECT_EQ(data.field(gmres_state::norms + 1, 2), 0);
    EXPECT_EQ(data.field(gmres_state::stop_slot, 2), 0);
}

TEST_P(GmresStepKernels, StopAtTheThresholdAtAZeroRadiusAndAtALuckyBreakdown)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const GmresLayout layout{1, 4};
    GivensData data{exec, layout, 3, {10, 10, 10, 10}, {8, 8, 0, 7.9}, std::vector<int>(4, gmres_state::running)};
    // Column 0: estimate 8 at the threshold 8; column 1: H(0, 0) = 0 and subdiagonal 0; column 2: subdiagonal 0
    // (A M^{-1} v0 in the span of v0); column 3: estimate 8 just above its threshold.
    data.step(0, 2, {{3}, {0}, {2}, {3}}, {{0}, {0}, {0}, {0}}, {4, 0, 0, 4});
    EXPECT_EQ(data.field(gmres_state::stopped, 0), gmres_state::finished);
    EXPECT_EQ(data.field(gmres_state::stop_slot, 0), 2);
    EXPECT_NEAR(data.field(gmres_state::norms + 2, 0), 8, hand_tolerance);
    EXPECT_EQ(data.field(gmres_state::stopped, 1), gmres_state::breakdown);
    EXPECT_EQ(data.field(gmres_state::cause, 1), gmres_state::singular);
    EXPECT_EQ(data.field(gmres_state::stop_slot, 1), 2);
    EXPECT_EQ(data.field(gmres_state::stopped, 2), gmres_state::breakdown);
    EXPECT_EQ(data.field(gmres_state::cause, 2), gmres_state::lucky);
    // The lucky breakdown's solution is exact: g(1) = -sin g(0) = 0, g(0) = 10.
    EXPECT_EQ(data.field(gmres_state::norms + 2, 2), 0);
    EXPECT_EQ(data.problem[layout.rhs(0, 2)], 10);
    EXPECT_EQ(data.problem[layout.hessenberg(0, 0, 2)], 2);
    EXPECT_EQ(data.field(gmres_state::stopped, 3), gmres_state::running);
    EXPECT_EQ(data.factors[0], 0);
    EXPECT_EQ(data.factors[1], 0);
    EXPECT_EQ(data.factors[2], 0);
    EXPECT_NEAR(data.factors[3], 0.25, hand_tolerance);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, GmresStepKernels, ::testing::ValuesIn(larch::test::executor_names()));

class GmresCheckInterval : public ::testing::TestWithParam<std::string> {};

/// GMRES(30)'s matrix for the interval checks: 400 rows on which it converges in more than 20 iterations.
std::shared_ptr<const larch::LinOp> interval_matrix(const std::shared_ptr<const larch::Executor>& exec)
{
    return larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
}

TEST_P(GmresCheckInterval, GivesTheSameIteratesAndStatusForEveryInterval)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_same_iterates_for_every_interval<larch::solver::Gmres<double>>(exec, interval_matrix(exec));
}

TEST_P(GmresCheckInterval, StopsExactlyAtTheIterationLimit)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_stops_exactly_at_the_iteration_limit<larch::solver::Gmres<double>>(exec,
                                                                                          interval_matrix(exec));
}

TEST_P(GmresCheckInterval, IntervalsOneAndEightGiveTheSameColumnsWhenTheHostStopsInsideABlock)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Convection-diffusion with a stagnation window of 4 and a tolerance out of reach: the host stops the
    // columns (stagnation) at iterations that fall inside blocks of 8, after the executor ran on. One column
    // converges, one is zero.
    const auto a = larch::share(
        larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::convection_diffusion_2d<double>(20, 0.5)));
    const size_type n = a->get_size().rows;
    const size_type cols = 4;
    auto b_host = Dense::create(exec->get_host(), dim2{n, cols});
    for (size_type row = 0; row < n; ++row) {
        for (size_type col = 0; col < cols; ++col) {
            b_host->get_values()[row * cols + col] =
                col == 2 ? 0.0 : std::cos(0.01 * static_cast<double>((col + 1) * row)) + (row == col ? 5.0 : 0.0);
        }
    }
    const auto b = b_host->clone_dense(exec);
    std::vector<std::vector<double>> solutions;
    std::vector<std::vector<larch::stop::Status>> statuses;
    for (const size_type interval : {1, 8}) {
        auto solver = larch::solver::Gmres<double>::build()
                          .with_check_interval(interval)
                          .with_criteria(larch::stop::max_iterations(300), larch::stop::relative_residual(1e-14),
                                         larch::stop::stagnation(4, 0.4))
                          .on(exec)
                          ->generate(a);
        auto x = Dense::create(exec, dim2{n, cols});
        x->fill(0.0);
        solver->apply(b, x);
        solutions.push_back(x->copy_to_host());
        statuses.push_back(solver->get_statuses());
    }
    size_type inside_a_block = 0;
    for (size_type col = 0; col < cols; ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        const auto& one = statuses[0][col];
        const auto& eight = statuses[1][col];
        EXPECT_EQ(one.reason, eight.reason);
        // x changes only from the steps the monitor counted, so the counts are in fact equal; what the
        // interval may change at most is the block in which the host sees the stop.
        EXPECT_LT(std::abs(static_cast<double>(one.iterations) - static_cast<double>(eight.iterations)), 8.0);
        if (one.reason == larch::stop::Reason::stagnation && one.iterations % 8 != 0) {
            ++inside_a_block;
        }
    }
    EXPECT_GE(inside_a_block, 1u);
    // The same steps in the same order give the same x; 1e-12 of the largest entry leaves room for nothing
    // but the sign of zero terms in the final combination.
    double largest = 0;
    for (const auto value : solutions[0]) {
        largest = std::max(largest, std::abs(value));
    }
    ASSERT_EQ(solutions[0].size(), solutions[1].size());
    for (size_type i = 0; i < solutions[0].size(); ++i) {
        EXPECT_NEAR(solutions[0][i], solutions[1][i], 1e-12 * largest) << "entry " << i;
    }
}

TEST(GmresCheckIntervalErrors, ZeroIsRejected)
{
    const auto exec = larch::make_executor("reference");
    larch::test::check_zero_interval_is_rejected<larch::solver::Gmres<double>>(
        exec, larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(3))));
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, GmresCheckInterval, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
