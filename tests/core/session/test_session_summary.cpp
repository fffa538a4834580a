#include "session/session_summary.h"

#include "session/session.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace ak;
using namespace ak::testing;

namespace {

Experiment make(int n, const std::string& file, Outcome outcome, Correctness correctness,
                std::optional<double> latency, std::optional<double> tflops = std::nullopt,
                std::optional<double> vs_pytorch = std::nullopt) {
    Experiment e;
    e.number = n;
    e.kernel_file = file;
    e.kernel_type = file == "kernels/mm.cu" ? "matmul" : "rmsnorm";
    e.outcome = outcome;
    e.correctness = correctness;
    e.latency_us = latency;
    e.throughput_tflops = tflops;
    e.speedup_vs_pytorch = vs_pytorch;
    return e;
}

}  // namespace

TEST(SessionSummary, CountsOutcomesAndFindsStarterAndBestPerKernel) {
    const std::vector<Experiment> experiments = {
        make(0, "kernels/rms.cu", Outcome::Baseline, Correctness::Pass, 40.0, std::nullopt, 1.4),
        make(1, "kernels/mm.cu", Outcome::Baseline, Correctness::Fail, 49.3),
        make(2, "kernels/rms.cu", Outcome::Kept, Correctness::Pass, 32.0, std::nullopt, 1.7),
        make(3, "kernels/rms.cu", Outcome::Reverted, Correctness::Pass, 20.0),   // faster, but not kept
        make(4, "kernels/rms.cu", Outcome::Failed, Correctness::Fail, 10.0),     // fastest, but wrong
        make(5, "kernels/rms.cu", Outcome::Kept, Correctness::Pass, 25.0, std::nullopt, 2.2),
        make(6, "kernels/rms.cu", Outcome::Kept, Correctness::Pass, 26.0),       // kept later, slower
    };
    const SessionSummary s = summarize(experiments);
    EXPECT_EQ(s.experiments, 7);
    EXPECT_EQ(s.baseline, 2);
    EXPECT_EQ(s.kept, 3);
    EXPECT_EQ(s.reverted, 1);
    EXPECT_EQ(s.failed, 1);
    ASSERT_EQ(s.kernels.size(), 2u);

    const KernelSummary& rms = s.kernels[0];
    EXPECT_EQ(rms.kernel_file, "kernels/rms.cu");
    EXPECT_EQ(rms.experiments, 6);
    ASSERT_TRUE(rms.starter && rms.best);
    EXPECT_EQ(rms.starter->number, 0);
    EXPECT_EQ(rms.best->number, 5);
    EXPECT_DOUBLE_EQ(*rms.speedup_over_starter, 40.0 / 25.0);
    EXPECT_DOUBLE_EQ(*rms.best_speedup_vs_pytorch, 2.2);

    const KernelSummary& mm = s.kernels[1];
    EXPECT_EQ(mm.kernel_type, "matmul");
    EXPECT_EQ(mm.starter->number, 1);
    EXPECT_FALSE(mm.best) << "a failing starter is not on the frontier";
    EXPECT_FALSE(mm.speedup_over_starter);
}

TEST(SessionSummary, AnUnevaluatedStarterIsReplacedByItsFirstMeasurement) {
    // `autokernel new` records the starter without timing; the loop's first run measures it (another
    // baseline row). The summary's starter and "vs starter" use that measurement.
    const std::vector<Experiment> experiments = {
        make(0, "kernels/rms.cu", Outcome::Baseline, Correctness::Pass, std::nullopt),
        make(1, "kernels/rms.cu", Outcome::Baseline, Correctness::Pass, 52.8),
        make(2, "kernels/rms.cu", Outcome::Kept, Correctness::Pass, 24.0),
        make(3, "kernels/rms.cu", Outcome::Baseline, Correctness::Pass, 30.0),  // a later baseline: not the starter
    };
    const SessionSummary s = summarize(experiments);
    ASSERT_EQ(s.kernels.size(), 1u);
    ASSERT_TRUE(s.kernels[0].starter);
    EXPECT_EQ(s.kernels[0].starter->number, 1);
    ASSERT_TRUE(s.kernels[0].speedup_over_starter);
    EXPECT_DOUBLE_EQ(*s.kernels[0].speedup_over_starter, 52.8 / 24.0);
}

TEST(SessionSummary, UsesThroughputWhenNoLatencyWasMeasured) {
    const std::vector<Experiment> experiments = {
        make(0, "kernels/mm.cu", Outcome::Baseline, Correctness::Pass, std::nullopt, 349.0),
        make(1, "kernels/mm.cu", Outcome::Kept, Correctness::Pass, std::nullopt, 612.0),
        make(2, "kernels/mm.cu", Outcome::Kept, Correctness::Pass, std::nullopt, 500.0),
    };
    const SessionSummary s = summarize(experiments);
    ASSERT_TRUE(s.kernels[0].best);
    EXPECT_EQ(s.kernels[0].best->number, 1);
    EXPECT_FALSE(s.kernels[0].speedup_over_starter) << "speedup over starter is by latency only";
}

TEST(SessionSummary, FormatShowsCountsAndOneRowPerKernel) {
    SessionInfo info = test_info("rms-h200");
    info.gpu = "NVIDIA H200";
    const SessionSummary s = summarize({
        make(0, "kernels/rms.cu", Outcome::Baseline, Correctness::Pass, 40.0),
        make(1, "kernels/rms.cu", Outcome::Kept, Correctness::Pass, 25.0, std::nullopt, 2.2),
    });
    const std::string text = format_summary(s, info);
    EXPECT_NE(text.find("Session rms-h200 on NVIDIA H200, branch main"), std::string::npos) << text;
    EXPECT_NE(text.find("2 experiments: 1 baseline, 1 kept, 0 reverted, 0 failed"), std::string::npos) << text;
    EXPECT_NE(text.find("kernels/rms.cu"), std::string::npos) << text;
    EXPECT_NE(text.find("40.00 us"), std::string::npos) << text;
    EXPECT_NE(text.find("25.00 us"), std::string::npos) << text;
    EXPECT_NE(text.find("#1"), std::string::npos) << text;
    EXPECT_NE(text.find("1.60x"), std::string::npos) << text;
    EXPECT_NE(text.find("2.20x"), std::string::npos) << text;
}

TEST(SessionSummary, EmptySessionSaysSoClearly) {
    TempDir tmp;
    { Session::create(tmp / "s", test_info("nothing-yet"), {}); }
    Session s = Session::open(tmp / "s");
    const SessionSummary summary = summarize(s.experiments());
    EXPECT_TRUE(summary.empty());
    EXPECT_TRUE(summary.kernels.empty());
    const std::string text = format_summary(summary, s.info());
    EXPECT_NE(text.find("No experiments yet: the session is empty."), std::string::npos) << text;
    EXPECT_NE(text.find("nothing-yet"), std::string::npos) << text;
}
