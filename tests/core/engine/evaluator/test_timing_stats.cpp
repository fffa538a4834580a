#include "engine/evaluator/timing.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <limits>

namespace ak::eval {
namespace {

TEST(TimingStats, MedianAndQuartilesInterpolateBetweenOrderStatistics) {
    const TimingStats s = summarize({9, 1, 8, 2, 7, 3, 6, 4, 5});
    EXPECT_DOUBLE_EQ(s.median_us, 5);
    EXPECT_DOUBLE_EQ(s.q1_us, 3);
    EXPECT_DOUBLE_EQ(s.q3_us, 7);
    EXPECT_DOUBLE_EQ(s.iqr_us, 4);
    EXPECT_DOUBLE_EQ(s.min_us, 1);
    EXPECT_DOUBLE_EQ(s.max_us, 9);
    EXPECT_DOUBLE_EQ(s.mean_us, 5);
    EXPECT_EQ(s.samples, 9);

    const TimingStats even = summarize({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(even.median_us, 2.5);
    EXPECT_DOUBLE_EQ(even.q1_us, 1.75);
    EXPECT_DOUBLE_EQ(even.q3_us, 3.25);
}

TEST(TimingStats, ASingleSampleHasNoSpread) {
    const TimingStats s = summarize({12.5});
    EXPECT_DOUBLE_EQ(s.median_us, 12.5);
    EXPECT_DOUBLE_EQ(s.iqr_us, 0);
}

TEST(TimingStats, OutliersMoveTheMeanButNotTheMedian) {
    const TimingStats s = summarize({10, 10, 10, 10, 1000});
    EXPECT_DOUBLE_EQ(s.median_us, 10);
    EXPECT_DOUBLE_EQ(s.iqr_us, 0);
    EXPECT_GT(s.mean_us, 200);
}

TEST(TimingStats, RejectsEmptyNegativeAndNonFiniteSamples) {
    EXPECT_THROW(summarize({}), Error);
    EXPECT_THROW(summarize({1, -2}), Error);
    EXPECT_THROW(summarize({1, std::numeric_limits<double>::quiet_NaN()}), Error);
}

TEST(TimingStats, IterationsAimAtTheTargetTimeWithinBounds) {
    TimingOptions o;  // 30..500 iterations, 100 ms
    EXPECT_EQ(choose_iterations(20, o), 500);     // 5000 wanted, capped
    EXPECT_EQ(choose_iterations(1000, o), 100);   // 1 ms runs: 100 of them
    EXPECT_EQ(choose_iterations(10000, o), 30);   // 10 ms runs: at least 30
    EXPECT_EQ(choose_iterations(0, o), 30);
    o.iterations = 7;
    EXPECT_EQ(choose_iterations(1000, o), 7);
}

}  // namespace
}  // namespace ak::eval
