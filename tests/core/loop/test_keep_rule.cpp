// decide_keep: the candidate must pass and beat the best re-timed in the same run by more than both the
// threshold and the measured spread, and be slower at no shape beyond its spread.
#include "loop/keep_rule.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ak;

namespace {

TimingRecord row(std::vector<int64_t> dims, double median, double iqr) {
    TimingRecord t;
    t.shape = Shape{std::move(dims)};
    t.dtype = DType::fp16;
    t.median_us = median;
    t.iqr_us = iqr;
    return t;
}

// Candidate and best timed at two shapes: (candidate median, best median) each, with a given IQR.
EvaluationResult result(double cand_a, double best_a, double cand_b, double best_b, double iqr = 0.0) {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.timing = {row({4096, 4096}, cand_a, iqr), row({4096, 8192}, cand_b, iqr)};
    r.reference_timing = {row({4096, 4096}, best_a, iqr), row({4096, 8192}, best_b, iqr)};
    return r;
}

}  // namespace

TEST(KeepRule, GainIsTheGeometricMeanOfPerShapeSpeedups) {
    // 100/80 = 1.25 and 100/100 = 1.0: geometric mean sqrt(1.25) - 1 = 11.8 %, not the arithmetic 12.5 %.
    const KeepDecision d = decide_keep(result(80, 100, 100, 100), KeepRule{});
    EXPECT_NEAR(d.gain, std::sqrt(1.25) - 1.0, 1e-12);
    EXPECT_TRUE(d.keep) << d.reason;
    EXPECT_NE(d.reason.find("kept: +11.8% over 2 shapes"), std::string::npos) << d.reason;
}

TEST(KeepRule, GainBelowThresholdIsReverted) {
    const KeepDecision small = decide_keep(result(99.5, 100, 99.5, 100), KeepRule{.threshold = 0.01});
    EXPECT_FALSE(small.keep);
    EXPECT_NE(small.reason.find("does not exceed the 1.0% threshold"), std::string::npos) << small.reason;
    // The same candidate passes a lower threshold.
    EXPECT_TRUE(decide_keep(result(99.5, 100, 99.5, 100), KeepRule{.threshold = 0.001}).keep);
}

TEST(KeepRule, GainWithinTheMeasuredSpreadIsReverted) {
    // 3 % faster, but IQR/median is about 5 % for both: noise.
    const KeepDecision d = decide_keep(result(97, 100, 97, 100, 5.0), KeepRule{.threshold = 0.01});
    EXPECT_FALSE(d.keep);
    EXPECT_NEAR(d.noise, (5.0 / 97 + 5.0 / 100) / 2, 1e-12);
    EXPECT_NE(d.reason.find("within the measured spread 5.1%"), std::string::npos) << d.reason;
    // A tighter measurement of the same medians is kept.
    EXPECT_TRUE(decide_keep(result(97, 100, 97, 100, 0.5), KeepRule{.threshold = 0.01}).keep);
}

TEST(KeepRule, NoiseFactorScalesTheSpread) {
    const EvaluationResult r = result(97, 100, 97, 100, 1.0);  // spread about 1 %
    EXPECT_TRUE(decide_keep(r, KeepRule{.threshold = 0.01, .noise_factor = 1.0}).keep);
    EXPECT_FALSE(decide_keep(r, KeepRule{.threshold = 0.01, .noise_factor = 4.0}).keep);
}

TEST(KeepRule, SlowerAtOneShapeBeyondNoiseIsRevertedEvenWhenFasterOverall) {
    // 40 % faster at the first shape, 10 % slower at the second: the mean gain is large.
    const KeepDecision d = decide_keep(result(60, 100, 110, 100, 0.5), KeepRule{});
    EXPECT_GT(d.gain, 0.1);
    EXPECT_FALSE(d.keep);
    EXPECT_NE(d.reason.find("slower at 4096x8192"), std::string::npos) << d.reason;
}

TEST(KeepRule, SlowerAtOneShapeWithinNoiseIsAccepted) {
    // 0.5 % slower at the second shape with a 2 % spread there: noise, not a slowdown.
    const KeepDecision d = decide_keep(result(80, 100, 100.5, 100, 2.0), KeepRule{});
    EXPECT_TRUE(d.keep) << d.reason;
}

TEST(KeepRule, WithoutReferenceTimingAPassIsKept) {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.timing = {row({4096, 4096}, 500, 1)};
    const KeepDecision d = decide_keep(r, KeepRule{});
    EXPECT_TRUE(d.keep);
    EXPECT_NE(d.reason.find("no best was timed"), std::string::npos) << d.reason;
}

TEST(KeepRule, APassIsKeptWhenTheCurrentBestFailedTheHarnessAndSaysSo) {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.timing = {row({4096, 4096}, 500, 1)};
    r.reference_failure = "the reference candidate misbehaved while timed: run 17 of 512 is wrong";
    const KeepDecision d = decide_keep(r, KeepRule{});
    EXPECT_TRUE(d.keep);
    EXPECT_NE(d.reason.find("the current best failed the harness's checks"), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("run 17 of 512"), std::string::npos) << d.reason;
}

TEST(KeepRule, AnythingButPassIsNotKept) {
    for (Verdict v : {Verdict::Fail, Verdict::CompileError, Verdict::Timeout, Verdict::Crash}) {
        EvaluationResult r = result(10, 100, 10, 100);
        r.verdict = v;
        const KeepDecision d = decide_keep(r, KeepRule{});
        EXPECT_FALSE(d.keep) << verdict_to_string(v);
        EXPECT_NE(d.reason.find(std::string(verdict_to_string(v))), std::string::npos) << d.reason;
    }
}

TEST(KeepRule, OnlyShapesTimedForBothAreCompared) {
    EvaluationResult r = result(50, 100, 50, 100);
    r.timing.push_back(row({8192, 8192}, 1000, 0));  // not re-timed for the best: ignored
    const KeepDecision d = decide_keep(r, KeepRule{});
    EXPECT_NEAR(d.gain, 1.0, 1e-12);
    EXPECT_TRUE(d.keep);

    EvaluationResult disjoint;
    disjoint.verdict = Verdict::Pass;
    disjoint.timing = {row({1, 2}, 10, 0)};
    disjoint.reference_timing = {row({3, 4}, 100, 0)};
    const KeepDecision none = decide_keep(disjoint, KeepRule{});
    EXPECT_FALSE(none.keep);
    EXPECT_NE(none.reason.find("no shape"), std::string::npos) << none.reason;
}

TEST(KeepRule, NonPositiveMediansAreNotKept) {
    const KeepDecision d = decide_keep(result(0, 100, 50, 100), KeepRule{});
    EXPECT_FALSE(d.keep);
    EXPECT_NE(d.reason.find("not positive"), std::string::npos) << d.reason;
}
