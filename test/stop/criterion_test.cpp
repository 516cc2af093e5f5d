// Stopping criteria: combination by "or" (largest residual threshold, smallest limit), validation, names.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>

#include "larch/base/exception.hpp"
#include "larch/stop/criterion.hpp"

namespace {

using namespace larch::stop;

TEST(Criteria, CombinesResidualCriteriaByTheLargestThreshold)
{
    Criteria criteria{{relative_residual(1e-6), initial_residual(1e-3), absolute_residual(1e-10)}};
    // ||b|| = 10 gives 1e-5, ||r0|| = 1 gives 1e-3: the first met stops, so the largest threshold counts
    EXPECT_DOUBLE_EQ(criteria.get_threshold(10.0, 1.0), 1e-3);
    EXPECT_DOUBLE_EQ(criteria.get_threshold(1e4, 1.0), 1e-2);
    EXPECT_TRUE(criteria.has_residual_criterion());
    EXPECT_FALSE(criteria.is_bounded());
}

TEST(Criteria, KeepsTheSmallestLimits)
{
    Criteria criteria{{max_iterations(100), max_iterations(30), time_limit(std::chrono::seconds{5}), time_limit(9.0)}};
    EXPECT_EQ(criteria.get_max_iterations(), 30u);
    EXPECT_EQ(criteria.get_time_limit(), 5.0);
    EXPECT_TRUE(criteria.is_bounded());
    EXPECT_FALSE(criteria.has_residual_criterion());
    EXPECT_EQ(criteria.get_threshold(1.0, 1.0), -1.0);
    EXPECT_EQ(criteria.describe(), "max_iterations 30 or time_limit 5");
}

TEST(Criteria, RejectsNegativeAndNonFiniteTolerances)
{
    EXPECT_THROW(relative_residual(-1e-9), larch::BadInput);
    EXPECT_THROW(absolute_residual(std::numeric_limits<double>::quiet_NaN()), larch::BadInput);
    EXPECT_THROW(initial_residual(std::numeric_limits<double>::infinity()), larch::BadInput);
    EXPECT_THROW(time_limit(-1.0), larch::BadInput);
    EXPECT_NO_THROW(time_limit(std::numeric_limits<double>::infinity()));
}

TEST(Reason, HasReadableNames)
{
    EXPECT_STREQ(to_string(Reason::converged), "converged");
    EXPECT_STREQ(to_string(Reason::non_finite), "non_finite");
    EXPECT_STREQ(to_string(Reason::residual_gap), "residual_gap");
}

}  // namespace
