#include "session/experiment.h"

#include <gtest/gtest.h>

using namespace ak;

TEST(ExperimentEnums, CorrectnessRoundTripsAutoKernelSpelling) {
    for (const auto c : {Correctness::Pass, Correctness::Fail, Correctness::Timeout, Correctness::Crash})
        EXPECT_EQ(parse_correctness(to_string(c)), c);
    EXPECT_EQ(to_string(Correctness::Timeout), "TIMEOUT");
    EXPECT_FALSE(parse_correctness("pass"));
    EXPECT_FALSE(parse_correctness(""));
}

TEST(ExperimentEnums, OutcomeRoundTrips) {
    for (const auto o : {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed})
        EXPECT_EQ(parse_outcome(to_string(o)), o);
    EXPECT_EQ(to_string(Outcome::Kept), "kept");
    EXPECT_FALSE(parse_outcome("discard"));
}

TEST(ExperimentEnums, BoundAcceptsEmptyAsUnknown) {
    for (const auto b : {Bound::Unknown, Bound::Memory, Bound::Compute}) EXPECT_EQ(parse_bound(to_string(b)), b);
    EXPECT_EQ(parse_bound(""), Bound::Unknown);
    EXPECT_FALSE(parse_bound("latency"));
}

TEST(Experiment, FrontierNeedsPassAndKeptOrBaseline) {
    Experiment e;
    e.correctness = Correctness::Pass;
    e.outcome = Outcome::Kept;
    EXPECT_TRUE(e.on_frontier());
    e.outcome = Outcome::Baseline;
    EXPECT_TRUE(e.on_frontier());
    e.correctness = Correctness::Fail;
    EXPECT_FALSE(e.on_frontier());
    e.correctness = Correctness::Pass;
    e.outcome = Outcome::Reverted;
    EXPECT_FALSE(e.on_frontier());
}
