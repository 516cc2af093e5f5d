// Checks of a solver's check_interval shared by the CG, BiCGSTAB, GMRES and IDR step tests: the interval only
// decides when the host looks at the executor's state, never what the solver computes.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/lin_op.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/stop/criterion.hpp"

namespace larch {
namespace test {

/// With intervals 1, 3, 8, 1000 and 2^50, `Solver` converges on `a` (b = ones, x0 = 0, 400 rows) after the
/// same iterations to bitwise the same x; a divergence bound crossed in early iterations pauses them one by one.
template <typename Solver>
void check_same_iterates_for_every_interval(const std::shared_ptr<const Executor>& exec,
                                            const std::shared_ptr<const LinOp>& a)
{
    using Dense = matrix::Dense<double>;
    auto b = Dense::create(exec, dim2{400, 1});
    b->fill(1.0);
    std::vector<double> reference_x;
    size_type reference_iterations = 0;
    // 1, 3 and 8 end their intervals at different iterations; 1000 is longer than the solve; 2^50 would need
    // petabytes if the solver kept a residual norm per step of the interval rather than of the iteration limit.
    for (const size_type interval : std::initializer_list<size_type>{1, 3, 8, 1000, size_type{1} << 50}) {
        SCOPED_TRACE("check interval " + std::to_string(interval));
        auto solver = Solver::build()
                          .with_check_interval(interval)
                          .with_criteria(stop::max_iterations(500), stop::relative_residual(1e-10),
                                         stop::divergence(1.0, 1000))
                          .on(exec)
                          ->generate(a);
        auto x = Dense::create(exec, dim2{400, 1});
        x->fill(0.0);
        solver->apply(b, x);
        const auto status = solver->get_status();
        EXPECT_EQ(status.reason, stop::Reason::converged) << status.message;
        if (reference_x.empty()) {
            reference_x = x->copy_to_host();
            reference_iterations = status.iterations;
            EXPECT_GT(reference_iterations, 20u);
            continue;
        }
        EXPECT_EQ(status.iterations, reference_iterations);
        EXPECT_EQ(x->copy_to_host(), reference_x);
    }
}

/// With an interval of 8, a limit of 13 iterations stops `Solver` on `a` (400 rows) after exactly 13.
template <typename Solver>
void check_stops_exactly_at_the_iteration_limit(const std::shared_ptr<const Executor>& exec,
                                                const std::shared_ptr<const LinOp>& a)
{
    using Dense = matrix::Dense<double>;
    auto b = Dense::create(exec, dim2{400, 1});
    b->fill(1.0);
    auto solver = Solver::build()
                      .with_check_interval(8)
                      .with_criteria(stop::max_iterations(13), stop::relative_residual(1e-14))
                      .on(exec)
                      ->generate(a);
    auto x = Dense::create(exec, dim2{400, 1});
    x->fill(0.0);
    solver->apply(b, x);
    EXPECT_EQ(solver->get_status().reason, stop::Reason::max_iterations);
    EXPECT_EQ(solver->get_status().iterations, 13u);
}

/// A check interval of 0 is rejected at generation with BadInput.
template <typename Solver>
void check_zero_interval_is_rejected(const std::shared_ptr<const Executor>& exec, const std::shared_ptr<const LinOp>& a)
{
    EXPECT_THROW(Solver::build().with_check_interval(0).with_criteria(stop::max_iterations(5)).on(exec)->generate(a),
                 BadInput);
}

}  // namespace test
}  // namespace larch
