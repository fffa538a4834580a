// kernel_statuses, rank_kernels and orchestrator_report, from plain experiment lists.
#include "loop/orchestrator.h"

#include <gtest/gtest.h>

using namespace ak;

namespace {

Experiment exp_of(int number, const std::string& kernel, Outcome outcome, std::optional<double> latency,
                  Correctness c = Correctness::Pass, std::optional<double> duration = std::nullopt) {
    Experiment e;
    e.number = number;
    e.kernel_file = "kernels/" + kernel + ".cu";
    e.outcome = outcome;
    e.latency_us = latency;
    e.correctness = c;
    e.duration_s = duration;
    return e;
}

SessionInfo info_with(std::vector<std::pair<std::string, double>> kernels) {
    SessionInfo info;
    for (auto& [name, fraction] : kernels) {
        KernelEntry k;
        k.name = name;
        k.type = "rmsnorm";
        k.model_fraction = fraction;
        info.kernels.push_back(k);
    }
    return info;
}

}  // namespace

TEST(Orchestrator, StatusesFollowEachKernelsHistory) {
    const SessionInfo info = info_with({{"rms", 0}, {"soft", 0}});
    const std::vector<Experiment> all = {
        exp_of(0, "rms", Outcome::Baseline, 100, Correctness::Pass, 60),
        exp_of(1, "soft", Outcome::Baseline, 50),
        exp_of(2, "rms", Outcome::Kept, 80, Correctness::Pass, 1800),
        exp_of(3, "rms", Outcome::Reverted, 85, Correctness::Pass, 1800),
        exp_of(4, "soft", Outcome::Kept, 40),
        exp_of(5, "rms", Outcome::Failed, std::nullopt, Correctness::Crash, 1800),
        exp_of(6, "rms", Outcome::Kept, 50, Correctness::Fail),  // not on the frontier: ignored as best
    };
    const auto statuses = kernel_statuses(info, all, CeilingShares{{2, 71.5}});
    ASSERT_EQ(statuses.size(), 2u);
    const KernelStatus& rms = statuses[0];
    EXPECT_EQ(rms.kernel_file, "kernels/rms.cu");
    ASSERT_TRUE(rms.starter && rms.best);
    EXPECT_EQ(rms.starter->number, 0);
    EXPECT_EQ(rms.best->number, 2);
    EXPECT_EQ(rms.progress.consecutive_reverts, 3);  // 3 reverted, 5 failed, 6 kept-but-failing
    EXPECT_DOUBLE_EQ(rms.progress.hours_spent, (60 + 3 * 1800) / 3600.0);
    EXPECT_DOUBLE_EQ(*rms.progress.speedup_over_starter, 100.0 / 80.0);
    EXPECT_DOUBLE_EQ(*rms.progress.best_pct_of_ceiling, 71.5);
    EXPECT_FALSE(rms.moved_on);

    const KernelStatus& soft = statuses[1];
    EXPECT_EQ(soft.best->number, 4);
    EXPECT_EQ(soft.progress.consecutive_reverts, 0);
    EXPECT_FALSE(soft.progress.best_pct_of_ceiling);
    EXPECT_DOUBLE_EQ(*soft.progress.speedup_over_starter, 50.0 / 40.0);
}

TEST(Orchestrator, AMeasuredBaselineIsTheStarterWhenTheFirstWasNotMeasured) {
    const SessionInfo info = info_with({{"rms", 0}});
    const std::vector<Experiment> all = {
        exp_of(0, "rms", Outcome::Baseline, std::nullopt),
        exp_of(1, "rms", Outcome::Baseline, 120),  // the loop's measurement of the starter
        exp_of(2, "rms", Outcome::Kept, 60),
    };
    const auto s = kernel_statuses(info, all).front();
    EXPECT_EQ(s.starter->number, 1);
    EXPECT_DOUBLE_EQ(*s.progress.speedup_over_starter, 2.0);
}

TEST(Orchestrator, UnmeasuredStarterGivesNoSpeedup) {
    const auto s = kernel_statuses(info_with({{"rms", 0}}), {exp_of(0, "rms", Outcome::Baseline, std::nullopt),
                                                             exp_of(1, "rms", Outcome::Kept, 60)})
                       .front();
    EXPECT_EQ(s.starter->number, 0);
    EXPECT_FALSE(s.progress.speedup_over_starter);
}

TEST(Orchestrator, RankIsFractionTimesHeadroom) {
    const SessionInfo info = info_with({{"a", 0.2}, {"b", 0.5}, {"c", 0.3}});
    const std::vector<Experiment> all = {exp_of(0, "a", Outcome::Baseline, 10), exp_of(1, "b", Outcome::Baseline, 10),
                                         exp_of(2, "c", Outcome::Baseline, 10)};
    // b is at 90 % of its ceiling: 0.5 x 0.1 = 0.05; c 0.3 x 1; a 0.2 x 1.
    const auto ranked = rank_kernels(kernel_statuses(info, all, CeilingShares{{1, 90.0}}));
    ASSERT_EQ(ranked.size(), 3u);
    EXPECT_EQ(ranked[0].kernel_name, "c");
    EXPECT_EQ(ranked[1].kernel_name, "a");
    EXPECT_EQ(ranked[2].kernel_name, "b");
    EXPECT_NEAR(ranked[2].headroom, 0.1, 1e-12);
    EXPECT_NEAR(ranked[2].priority, 0.05, 1e-12);
}

TEST(Orchestrator, UnknownFractionsShareEquallyAndMovedOnKernelsAreLeftOut) {
    auto statuses = kernel_statuses(info_with({{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}}), {});
    statuses[0].moved_on = true;
    const auto ranked = rank_kernels(statuses);
    ASSERT_EQ(ranked.size(), 3u);
    EXPECT_EQ(ranked[0].kernel_name, "b");  // ties keep the session's order
    EXPECT_DOUBLE_EQ(ranked[0].fraction, 0.25);

    // One kernel known at 0.6: the other three share the remaining 0.4.
    const auto mixed = rank_kernels(kernel_statuses(info_with({{"a", 0}, {"b", 0.6}, {"c", 0}, {"d", 0}}), {}));
    EXPECT_EQ(mixed[0].kernel_name, "b");
    EXPECT_NEAR(mixed[1].fraction, 0.4 / 3, 1e-12);
}

TEST(Orchestrator, ReportHasEveryKernelAndTheAmdahlProjection) {
    const SessionInfo info = info_with({{"rms", 0.3}, {"soft", 0.2}});
    const std::vector<Experiment> all = {exp_of(0, "rms", Outcome::Baseline, 100), exp_of(1, "soft", Outcome::Baseline, 50),
                                         exp_of(2, "rms", Outcome::Kept, 50)};
    auto statuses = kernel_statuses(info, all);
    statuses[1].moved_on = true;
    statuses[1].moved_on_reason = "5 reverts in a row (limit 5)";
    const std::string report = orchestrator_report(statuses);
    EXPECT_NE(report.find("rms (rmsnorm, 30.0% of model time): starter 100.0 us, best 50.00 us (experiment 2), 2.00x"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("moved on: 5 reverts in a row"), std::string::npos) << report;
    // 1 / (1 - 0.3 * (1 - 1/2)) = 1.176
    EXPECT_NE(report.find("Amdahl projection: 1.176x end to end"), std::string::npos) << report;
    EXPECT_NE(report.find("limit 2.00x"), std::string::npos) << report;  // 1 / (1 - 0.5)
}

TEST(Orchestrator, ReportProjectsTheProfiledModelFromSpeedupsOverPyTorch) {
    // Shares from a profile; the model ran PyTorch's kernels, so its projection uses the speedups over
    // PyTorch: rms 2x (share 0.3), soft slower than PyTorch (0.5x, not substituted: 1x).
    const SessionInfo info = info_with({{"rms", 0.3}, {"soft", 0.2}});
    std::vector<Experiment> all = {exp_of(0, "rms", Outcome::Baseline, 100), exp_of(1, "soft", Outcome::Baseline, 50),
                                   exp_of(2, "rms", Outcome::Kept, 50), exp_of(3, "soft", Outcome::Kept, 40)};
    all[2].speedup_vs_pytorch = 2.0;
    all[3].speedup_vs_pytorch = 0.5;
    const std::string report = orchestrator_report(kernel_statuses(info, all));
    // 1 / (1 - 0.3 * (1 - 1/2)) = 1.176
    EXPECT_NE(report.find("projected end-to-end speedup of the profiled model: 1.176x"), std::string::npos) << report;
    // Without any speedup over PyTorch there is nothing to project.
    all[2].speedup_vs_pytorch.reset();
    all[3].speedup_vs_pytorch.reset();
    EXPECT_EQ(orchestrator_report(kernel_statuses(info, all)).find("profiled model"), std::string::npos);
}

TEST(Orchestrator, ReportSaysWhenFractionsAreAssumed) {
    const auto statuses = kernel_statuses(info_with({{"a", 0}, {"b", 0}}), {exp_of(0, "a", Outcome::Baseline, 10),
                                                                        exp_of(1, "a", Outcome::Kept, 5)});
    const std::string report = orchestrator_report(statuses);
    EXPECT_NE(report.find("assumed an equal share"), std::string::npos) << report;
    EXPECT_NE(report.find("1.333x"), std::string::npos) << report;  // 1 / (1 - 0.5 * 0.5)
}

TEST(Orchestrator, PctOfCeilingFollowsTheBound) {
    TimingRecord t;
    t.pct_copy_ceiling = 91;
    t.pct_gemm_ceiling = 55;
    t.bound = "memory";
    EXPECT_EQ(pct_of_ceiling(t), 91);
    t.bound = "compute";
    EXPECT_EQ(pct_of_ceiling(t), 55);
}
