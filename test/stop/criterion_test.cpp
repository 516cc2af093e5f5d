// Stopping criteria: combination by "or" (largest residual threshold, smallest limit), validation, names.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <string>

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

TEST(Criteria, KeepsAnIterationLimitNearTheLargestCountExactly)
{
    constexpr auto largest = std::numeric_limits<larch::size_type>::max();
    // 2^64 - 2 has no double of its own: through a double it became 2^64, whose conversion back is undefined
    EXPECT_EQ(Criteria{{max_iterations(largest - 1)}}.get_max_iterations(), largest - 1);
    EXPECT_TRUE(Criteria{{max_iterations(largest - 1)}}.is_bounded());
    EXPECT_FALSE(Criteria{{max_iterations(largest)}}.is_bounded());  // the largest count means no limit
}

TEST(Criteria, NamesTheRejectedValueWithItsDigits)
{
    try {
        relative_residual(-1e-20);
        FAIL() << "no exception";
    } catch (const larch::BadInput& error) {
        EXPECT_NE(std::string{error.what()}.find("got -1e-20"), std::string::npos) << error.what();
    }
}

TEST(Criteria, RejectsNegativeAndNonFiniteTolerances)
{
    EXPECT_THROW(relative_residual(-1e-9), larch::BadInput);
    EXPECT_THROW(absolute_residual(std::numeric_limits<double>::quiet_NaN()), larch::BadInput);
    EXPECT_THROW(initial_residual(std::numeric_limits<double>::infinity()), larch::BadInput);
    EXPECT_THROW(time_limit(-1.0), larch::BadInput);
    EXPECT_NO_THROW(time_limit(std::numeric_limits<double>::infinity()));
}

TEST(Criteria, KeepsTheSmallestDivergenceFactorAndEveryStagnationWindow)
{
    Criteria criteria{{divergence(1e6), divergence(1e3, 2), stagnation(50, 0.01), stagnation(10)}};
    ASSERT_EQ(criteria.get_divergence().size(), 2u);
    EXPECT_EQ(criteria.get_divergence()[0].iterations, 200u);  // the default: 200 consecutive iterations
    ASSERT_EQ(criteria.get_stagnation().size(), 2u);
    EXPECT_EQ(criteria.get_stagnation()[1].iterations, 10u);
    EXPECT_EQ(criteria.describe(),
              "divergence 1e+06 200 or divergence 1000 2 or stagnation 50 0.01 or stagnation 10 0.001");
    EXPECT_FALSE(criteria.is_bounded());
}

TEST(Criteria, RejectsBadDivergenceAndStagnationParameters)
{
    EXPECT_THROW(divergence(0.5), larch::BadInput);
    EXPECT_THROW(divergence(std::numeric_limits<double>::infinity()), larch::BadInput);
    EXPECT_THROW(divergence(10, 0), larch::BadInput);
    EXPECT_THROW(stagnation(0), larch::BadInput);
    EXPECT_THROW(stagnation(10, 1.0), larch::BadInput);
    EXPECT_THROW(stagnation(10, -0.1), larch::BadInput);
    EXPECT_THROW(Criteria{}.add({Criterion::Kind::stagnation, 0.1, 0}), larch::BadInput);
}

TEST(Criterion, NamesASmallOffendingFactorOrDecreaseInItsMessage)
{
    // std::to_string would print both as "0.000000" or "-0.000000", which hides the value passed
    auto message_of = [](auto make) {
        try {
            make();
        } catch (const larch::BadInput& e) {
            return std::string{e.what()};
        }
        return std::string{"(no exception)"};
    };
    EXPECT_NE(message_of([] { divergence(1e-7); }).find("got 1e-07"), std::string::npos);
    EXPECT_NE(message_of([] { stagnation(10, -1e-9); }).find("got -1e-09"), std::string::npos);
}

TEST(ProgressTracker, ReportsDivergenceAfterConsecutiveIterationsAboveTheFactorTimesTheInitialResidual)
{
    ProgressTracker tracker{Criteria{{divergence(10, 3)}}, 2.0};
    EXPECT_EQ(tracker.record(20.0), Reason::none);  // equal to the limit is not above it
    EXPECT_EQ(tracker.record(25.0), Reason::none);  // above: 1
    EXPECT_EQ(tracker.record(30.0), Reason::none);  // above: 2
    EXPECT_EQ(tracker.record(5.0), Reason::none);   // a peak of 2 iterations is forgiven
    EXPECT_EQ(tracker.record(21.0), Reason::none);
    EXPECT_EQ(tracker.record(1e3), Reason::none);
    EXPECT_EQ(tracker.record(1e6), Reason::divergence);  // above: 3 in a row
}

TEST(ProgressTracker, ReportsStagnationAfterAWindowWithoutRelativeProgress)
{
    // progress = a residual below (1 - 0.1) times the last one that made progress (at first the initial 1)
    ProgressTracker tracker{Criteria{{stagnation(3, 0.1)}}, 1.0};
    EXPECT_EQ(tracker.record(0.95), Reason::none);  // quiet 1: 0.95 is not below 0.9
    EXPECT_EQ(tracker.record(0.85), Reason::none);  // progress: measured against 0.85 from now on
    EXPECT_EQ(tracker.record(0.80), Reason::none);  // quiet 1 (0.80 is not below 0.765)
    EXPECT_EQ(tracker.record(0.78), Reason::none);  // quiet 2
    EXPECT_EQ(tracker.record(0.77), Reason::stagnation);  // quiet 3 = window
}

TEST(ProgressTracker, WithoutTheseCriteriaNeverStops)
{
    ProgressTracker tracker{Criteria{{max_iterations(5)}}, 1.0};
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(tracker.record(1e300), Reason::none);
    }
}

TEST(Reason, HasReadableNames)
{
    EXPECT_STREQ(to_string(Reason::converged), "converged");
    EXPECT_STREQ(to_string(Reason::non_finite), "non_finite");
    EXPECT_STREQ(to_string(Reason::residual_gap), "residual_gap");
    EXPECT_STREQ(to_string(Reason::divergence), "divergence");
    EXPECT_STREQ(to_string(Reason::stagnation), "stagnation");
}

}  // namespace
