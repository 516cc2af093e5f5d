// IDR(s)'s step kernel on the executor: each phase's scalars of a column's shadow system and its stops
// (threshold, zero diagonal, NaN, omega breakdowns) with frozen columns, and the update of the running
// columns of x, on every executor with values worked out by hand; and Idr giving the same iterates for every
// check interval.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/solver/idr_kernels.hpp"
#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/solver/idr.hpp"
#include "test/solver/check_interval_checks.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using larch::dim2;
using larch::size_type;
using larch::kernels::IdrLayout;
using larch::kernels::IdrPhase;
namespace idr_state = larch::kernels::idr_state;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

/// `host` copied to a new array on `exec`.
template <typename T>
larch::array<T> to_executor(const std::shared_ptr<const larch::Executor>& exec, std::vector<T> host)
{
    larch::array<T> result{exec};
    result.copy_from(larch::array<T>::view(exec->get_host(), host.size(), host.data()));
    return result;
}

/// The executor's data of the step kernel, set up on the host (m = I, threshold, stopped and omega given)
/// and copied over for each phase.
struct StepData {
    StepData(const std::shared_ptr<const larch::Executor>& exec, IdrLayout layout, size_type slots,
             const std::vector<double>& thresholds, const std::vector<int>& stopped)
        : exec{exec}, layout{layout}, system(layout.system_size(), 0.0),
          state((idr_state::norms + slots) * layout.cols, 0.0)
    {
        for (size_type col = 0; col < layout.cols; ++col) {
            for (size_type k = 0; k < layout.s; ++k) {
                system[layout.shadow_matrix(k, k, col)] = 1;
            }
            field(idr_state::threshold, col) = thresholds[col];
            field(idr_state::stopped, col) = stopped[col];
            field(idr_state::omega, col) = 1;
        }
    }

    /// Phase `phase` with these products (products[row][col]); the results come back into system, state
    /// and updates (which start at -1, so that a phase's writes show).
    void run(IdrPhase phase, size_type k, size_type index, size_type slot,
             const std::vector<std::vector<double>>& products, double kappa = 0.7)
    {
        std::vector<double> flat(layout.product_rows() * layout.cols, 0.0);
        for (size_type row = 0; row < products.size(); ++row) {
            for (size_type col = 0; col < layout.cols; ++col) {
                flat[row * layout.cols + col] = products[row][col];
            }
        }
        auto device_products = to_executor(exec, flat);
        auto device_system = to_executor(exec, system);
        auto device_state = to_executor(exec, state);
        auto device_updates = to_executor(exec, std::vector<double>(layout.update_rows() * layout.cols, -1.0));
        LARCH_RUN_KERNEL(exec, idr::step, layout, phase, k, index, slot, kappa, device_products, device_system,
                         device_state, device_updates);
        system = device_system.copy_to_host();
        state = device_state.copy_to_host();
        updates = device_updates.copy_to_host();
    }

    double& field(size_type name, size_type col) { return state[name * layout.cols + col]; }
    double& m(size_type i, size_type k, size_type col) { return system[layout.shadow_matrix(i, k, col)]; }
    double& f(size_type i, size_type col) { return system[layout.rhs(i, col)]; }
    double& c(size_type i, size_type col) { return system[layout.coefficient(i, col)]; }
    double update(size_type row, size_type col) const { return updates[row * layout.cols + col]; }

    std::shared_ptr<const larch::Executor> exec;
    IdrLayout layout;
    std::vector<double> system;
    std::vector<double> state;
    std::vector<double> updates;
};

class IdrStepKernels : public ::testing::TestWithParam<std::string> {};

// The hand values are short sums, products and quotients of small binary fractions: exact in double.
TEST_P(IdrStepKernels, RunTwoStepsOfARunningColumnAndFreezeStoppedOnes)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const IdrLayout layout{2, 3};
    // Column 0 runs; column 1 finished earlier; column 2 has a zero m(1, 1) and breaks down in its solve.
    StepData data{exec, layout, 2, {0.5, 0.5, 0.5}, {idr_state::running, idr_state::finished, idr_state::running}};
    data.m(1, 1, 2) = 0;
    const auto frozen_system = data.system;
    // f = P^T r = (4, 2) and (3, 1).
    data.run(IdrPhase::shadow_rhs, 0, 0, 0, {{4, 9, 3}, {2, 9, 1}});
    EXPECT_EQ(data.f(0, 0), 4);
    EXPECT_EQ(data.f(1, 0), 2);
    EXPECT_EQ(data.f(0, 1), 0);
    // Step 0: m = I gives c = f; updates -c0, -c1, c0, omega, c1.
    data.run(IdrPhase::coefficients, 0, 0, 0, {});
    EXPECT_EQ(data.c(0, 0), 4);
    EXPECT_EQ(data.c(1, 0), 2);
    for (const auto [row, value] : std::vector<std::pair<size_type, double>>{{0, -4}, {1, -2}, {2, 4}, {3, 1}, {4, 2}}) {
        EXPECT_EQ(data.update(row, 0), value) << "row " << row;
        EXPECT_EQ(data.update(row, 1), 0) << "row " << row;
        EXPECT_EQ(data.update(row, 2), 0) << "row " << row;
    }
    EXPECT_EQ(data.field(idr_state::stopped, 2), idr_state::breakdown);
    EXPECT_EQ(data.field(idr_state::cause, 2), idr_state::triangular_zero);
    EXPECT_EQ(data.field(idr_state::stop_slot, 2), 0);
    EXPECT_EQ(data.c(0, 2), 3);
    // p^T g_0 = (2, 0.5): m(:, 0) = (2, 0.5), beta = 4 / 2.
    data.run(IdrPhase::shadow_column, 0, 0, 0, {{2, 7, 7}, {0.5, 7, 7}});
    EXPECT_EQ(data.m(0, 0, 0), 2);
    EXPECT_EQ(data.m(1, 0, 0), 0.5);
    EXPECT_EQ(data.field(idr_state::beta, 0), 2);
    EXPECT_EQ(data.update(0, 0), -2);
    EXPECT_EQ(data.update(1, 0), 2);
    EXPECT_EQ(data.update(0, 1), 0);
    EXPECT_EQ(data.update(1, 2), 0);
    // ||r|| = 5 above the threshold: f(1) = 2 - 2 * 0.5 = 1.
    data.run(IdrPhase::residual, 0, 0, 0, {{5, 0.1, 0.1}});
    EXPECT_EQ(data.field(idr_state::norms, 0), 5);
    EXPECT_EQ(data.field(idr_state::residual_norm, 0), 5);
    EXPECT_EQ(data.field(idr_state::stopped, 0), idr_state::running);
    EXPECT_EQ(data.f(1, 0), 1);
    // Step 1: c1 = f(1) / m(1, 1) = 1; updates -c1, c1, omega.
    data.run(IdrPhase::coefficients, 1, 0, 1, {});
    EXPECT_EQ(data.c(1, 0), 1);
    EXPECT_EQ(data.update(0, 0), -1);
    EXPECT_EQ(data.update(1, 0), 1);
    EXPECT_EQ(data.update(2, 0), 1);
    // p_0^T g_1 = 6: g_1 -= (6 / m(0, 0)) g_0.
    data.run(IdrPhase::orthogonalize, 1, 0, 1, {{6, 6, 6}});
    EXPECT_EQ(data.update(0, 0), -3);
    EXPECT_EQ(data.update(0, 1), 0);
    EXPECT_EQ(data.update(0, 2), 0);
    // p_1^T g_1 = 4: beta = 1 / 4; then ||r|| = 0.5 meets the threshold in slot 1.
    data.run(IdrPhase::shadow_column, 1, 0, 1, {{4, 4, 4}});
    EXPECT_EQ(data.m(1, 1, 0), 4);
    EXPECT_EQ(data.update(0, 0), -0.25);
    EXPECT_EQ(data.update(1, 0), 0.25);
    data.run(IdrPhase::residual, 1, 0, 1, {{0.5, 0.1, 0.1}});
    EXPECT_EQ(data.field(idr_state::stopped, 0), idr_state::finished);
    EXPECT_EQ(data.field(idr_state::stop_slot, 0), 1);
    EXPECT_EQ(data.field(idr_state::norms + 1, 0), 0.5);
    // The stopped columns did not change: column 1 at all, column 2 after its breakdown.
    for (size_type i = 0; i < 2; ++i) {
        for (size_type k = 0; k < 2; ++k) {
            EXPECT_EQ(data.m(i, k, 1), frozen_system[layout.shadow_matrix(i, k, 1)]);
            EXPECT_EQ(data.m(i, k, 2), frozen_system[layout.shadow_matrix(i, k, 2)]);
        }
    }
    EXPECT_EQ(data.f(1, 2), 1);
    EXPECT_EQ(data.field(idr_state::norms, 2), 0);
    EXPECT_EQ(data.field(idr_state::stop_slot, 2), 0);
}

TEST_P(IdrStepKernels, ComputeOmegaWithTheSafeguardAndStopAtItsBreakdowns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const IdrLayout layout{1, 5};
    StepData data{exec, layout, 3, std::vector<double>(5, 0.1), std::vector<int>(5, idr_state::running)};
    for (size_type col = 0; col < 5; ++col) {
        data.field(idr_state::residual_norm, col) = 2;
    }
    // Column 0: ||t|| = 2, t^T r = 2, ||r|| = 2: omega = 2 / 4 = 0.5 with cos 0.5 < 0.7, enlarged by 0.7 / 0.5
    // to 0.7. Column 1: ||t|| = 1, t^T r = 4: omega = 4 (cos 2 is not below kappa). Columns 2-4: NaN ||t||,
    // zero t^T r, infinite t^T r.
    data.run(IdrPhase::omega, 1, 0, 2, {{2, 1, nan, 3, 3}, {2, 4, 1, 0, inf}});
    EXPECT_NEAR(data.field(idr_state::omega, 0), 0.7, 1e-15);
    EXPECT_NEAR(data.update(0, 0), -0.7, 1e-15);
    EXPECT_NEAR(data.update(1, 0), 0.7, 1e-15);
    EXPECT_EQ(data.field(idr_state::omega, 1), 4);
    EXPECT_EQ(data.update(1, 1), 4);
    const std::vector<int> causes{idr_state::t_norm_not_finite, idr_state::omega_zero, idr_state::t_r_not_finite};
    for (size_type col = 2; col < 5; ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        EXPECT_EQ(data.field(idr_state::stopped, col), idr_state::breakdown);
        EXPECT_EQ(data.field(idr_state::cause, col), causes[col - 2]);
        EXPECT_EQ(data.field(idr_state::stop_slot, col), 2);
        EXPECT_EQ(data.update(0, col), 0);
        EXPECT_EQ(data.update(1, col), 0);
    }
    // With kappa 0 the safeguard is off: omega = 0.5.
    data.field(idr_state::omega, 0) = 1;
    data.run(IdrPhase::omega, 1, 0, 0, {{2, 1, 1, 1, 1}, {2, 4, 1, 1, 1}}, 0.0);
    EXPECT_EQ(data.field(idr_state::omega, 0), 0.5);
}

TEST_P(IdrStepKernels, StopOnANonFiniteOrZeroShadowProductAndAtZeroOrNaNResiduals)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const IdrLayout layout{2, 4};
    StepData data{exec, layout, 1, {0, 0, 0, 0}, std::vector<int>(4, idr_state::running)};
    // k = 0: column 0 has p_1^T g_0 = NaN (the second row), column 1 p_0^T g_0 = 0; columns 2 and 3 go on.
    data.run(IdrPhase::shadow_column, 0, 0, 0, {{1, 0, 1, 1}, {nan, 1, 1, 1}});
    EXPECT_EQ(data.field(idr_state::stopped, 0), idr_state::breakdown);
    EXPECT_EQ(data.field(idr_state::cause, 0), idr_state::shadow_not_finite);
    EXPECT_EQ(data.field(idr_state::stopped, 1), idr_state::breakdown);
    EXPECT_EQ(data.field(idr_state::cause, 1), idr_state::shadow_zero);
    EXPECT_EQ(data.update(1, 0), 0);
    EXPECT_EQ(data.update(1, 1), 0);
    // A zero norm finishes column 2 even at threshold 0, NaN finishes column 3 (the monitor's non_finite).
    data.run(IdrPhase::residual, 0, 0, 0, {{0, 0, 0, nan}});
    EXPECT_EQ(data.field(idr_state::stopped, 2), idr_state::finished);
    EXPECT_EQ(data.field(idr_state::stopped, 3), idr_state::finished);
    EXPECT_EQ(data.field(idr_state::stop_slot, 3), 0);
    EXPECT_TRUE(std::isnan(data.field(idr_state::norms, 3)));
    // The broken-down columns did not record a norm.
    EXPECT_EQ(data.field(idr_state::norms, 0), 0);
}

TEST_P(IdrStepKernels, AddScaledRunningLeavesStoppedColumnsBitForBit)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const size_type cols = 3;
    std::vector<double> state((idr_state::norms + 1) * cols, 0.0);
    state[idr_state::stopped * cols + 1] = idr_state::breakdown;
    state[idr_state::stopped * cols + 2] = idr_state::finished;
    auto device_state = to_executor(exec, state);
    auto alphas = to_executor(exec, std::vector<double>{2, 0, 0});
    auto b = Dense::create(exec->get_host(), dim2{2, cols});
    auto x = Dense::create(exec->get_host(), dim2{2, cols});
    const std::vector<double> b_values{1, nan, 5, -3, inf, 6};
    const std::vector<double> x_values{1, -0.0, 7, 2, 8, -0.0};
    std::copy(b_values.begin(), b_values.end(), b->get_values());
    std::copy(x_values.begin(), x_values.end(), x->get_values());
    auto device_b = b->clone_dense(exec);
    auto device_x = x->clone_dense(exec);
    LARCH_RUN_KERNEL(exec, idr::add_scaled_running, alphas, device_state, *device_b, *device_x);
    const auto result = device_x->copy_to_host();
    EXPECT_EQ(result[0], 3);
    EXPECT_EQ(result[3], -4);
    // 0 * NaN, 0 * Inf and -0 + 0 would each have changed a stopped column.
    for (const size_type i : {1, 2, 4, 5}) {
        EXPECT_EQ(std::signbit(result[i]), std::signbit(x_values[i])) << "entry " << i;
        EXPECT_EQ(result[i], x_values[i]) << "entry " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, IdrStepKernels, ::testing::ValuesIn(larch::test::executor_names()));

class IdrCheckInterval : public ::testing::TestWithParam<std::string> {};

/// IDR(4)'s matrix for the interval checks: 400 rows on which it converges in more than 20 iterations.
std::shared_ptr<const larch::LinOp> interval_matrix(const std::shared_ptr<const larch::Executor>& exec)
{
    return larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(20)));
}

TEST_P(IdrCheckInterval, GivesTheSameIteratesAndStatusForEveryInterval)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_same_iterates_for_every_interval<larch::solver::Idr<double>>(exec, interval_matrix(exec));
}

TEST_P(IdrCheckInterval, StopsExactlyAtTheIterationLimit)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::check_stops_exactly_at_the_iteration_limit<larch::solver::Idr<double>>(exec, interval_matrix(exec));
}

/// Solves with intervals 1 and 8 on convection-diffusion (400 rows) for `b_values` (n x cols), returning
/// x and the statuses of each.
struct IntervalSolves {
    std::vector<std::vector<double>> solutions;
    std::vector<std::vector<larch::stop::Status>> statuses;
};

IntervalSolves solve_with_intervals_one_and_eight(const std::shared_ptr<const larch::Executor>& exec, size_type cols,
                                                  const std::vector<double>& b_values,
                                                  const std::vector<larch::stop::Criterion>& criteria)
{
    const auto a = larch::share(larch::matrix::Csr<double, std::int32_t>::create(
        exec, larch::generate::convection_diffusion_2d<double>(20, 0.5)));
    const size_type n = a->get_size().rows;
    auto b_host = Dense::create(exec->get_host(), dim2{n, cols});
    std::copy(b_values.begin(), b_values.end(), b_host->get_values());
    const auto b = b_host->clone_dense(exec);
    IntervalSolves result;
    for (const size_type interval : {1, 8}) {
        auto parameters = larch::solver::Idr<double>::build().with_subspace_dim(3).with_check_interval(interval);
        for (const auto& criterion : criteria) {
            parameters.with_criteria(criterion);
        }
        auto solver = parameters.on(exec)->generate(a);
        auto x = Dense::create(exec, dim2{n, cols});
        x->fill(0.0);
        solver->apply(b, x);
        result.solutions.push_back(x->copy_to_host());
        result.statuses.push_back(solver->get_statuses());
    }
    return result;
}

/// Right-hand sides of 400 rows for the columns: column `zero` is zero, column `nan_column` holds a NaN.
std::vector<double> interval_rhs(size_type cols, size_type zero, size_type nan_column)
{
    std::vector<double> values(400 * cols);
    for (size_type row = 0; row < 400; ++row) {
        for (size_type col = 0; col < cols; ++col) {
            values[row * cols + col] =
                col == zero ? 0.0 : std::cos(0.01 * static_cast<double>((col + 1) * row)) + (row == col ? 5.0 : 0.0);
        }
    }
    values[7 * cols + nan_column] = nan;
    return values;
}

TEST_P(IdrCheckInterval, IntervalsOneAndEightGiveTheSameColumnsWhenTheExecutorStopsThem)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Five columns that converge at different iterations (each stops itself on the executor inside a
    // block of 8 while the others run on), a zero one and one with NaN.
    const size_type cols = 7;
    const auto solves = solve_with_intervals_one_and_eight(
        exec, cols, interval_rhs(cols, 5, 6), {larch::stop::max_iterations(400), larch::stop::relative_residual(1e-9)});
    size_type inside_a_block = 0;
    for (size_type col = 0; col < cols; ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        const auto& one = solves.statuses[0][col];
        const auto& eight = solves.statuses[1][col];
        EXPECT_EQ(one.reason, eight.reason);
        EXPECT_EQ(one.iterations, eight.iterations);
        EXPECT_EQ(one.residual_replacements, eight.residual_replacements);
        if (col < 5) {
            EXPECT_EQ(one.reason, larch::stop::Reason::converged) << one.message;
            inside_a_block += one.iterations % 8 != 0 ? 1 : 0;
        }
    }
    EXPECT_GE(inside_a_block, 1u);
    ASSERT_EQ(solves.solutions[0].size(), solves.solutions[1].size());
    for (size_type i = 0; i < solves.solutions[0].size(); ++i) {
        if (std::isnan(solves.solutions[0][i])) {
            EXPECT_TRUE(std::isnan(solves.solutions[1][i])) << "entry " << i;
        } else {
            EXPECT_EQ(solves.solutions[0][i], solves.solutions[1][i]) << "entry " << i;
        }
    }
}

TEST_P(IdrCheckInterval, AHostStopInsideABlockKeepsTheCountAndRunsOnAtMostTheBlock)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Stagnation over 4 iterations with a tolerance out of reach: the host stops the columns at iterations
    // inside blocks of 8, after the executor ran on to the block's end (the documented overshoot).
    const size_type cols = 4;
    const auto solves = solve_with_intervals_one_and_eight(
        exec, cols, interval_rhs(cols, 2, 1),
        {larch::stop::max_iterations(300), larch::stop::relative_residual(1e-14), larch::stop::stagnation(4, 0.4)});
    size_type inside_a_block = 0;
    for (size_type col = 0; col < cols; ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        const auto& one = solves.statuses[0][col];
        const auto& eight = solves.statuses[1][col];
        EXPECT_EQ(one.reason, eight.reason);
        EXPECT_EQ(one.iterations, eight.iterations);
        if (one.reason == larch::stop::Reason::stagnation && one.iterations % 8 != 0) {
            ++inside_a_block;
        }
    }
    EXPECT_GE(inside_a_block, 1u);
    // The zero column stays zero; the stagnated ones hold a later iterate, finite.
    for (size_type row = 0; row < 400; ++row) {
        EXPECT_EQ(solves.solutions[1][row * cols + 2], 0.0);
        for (const size_type col : {0, 3}) {
            EXPECT_TRUE(std::isfinite(solves.solutions[1][row * cols + col]));
        }
    }
}

TEST(IdrCheckIntervalErrors, ZeroIsRejected)
{
    const auto exec = larch::make_executor("reference");
    larch::test::check_zero_interval_is_rejected<larch::solver::Idr<double>>(
        exec, larch::share(larch::matrix::Csr<double, std::int32_t>::create(exec, larch::generate::laplace_2d<double>(3))));
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, IdrCheckInterval, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
