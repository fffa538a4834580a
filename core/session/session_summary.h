#pragma once
// What a session achieved: counts by outcome and, per kernel file, the starter, the best
// experiment and the speedups. Shared by `autokernel summary` and the GUI's overview.
#include "session/experiment.h"
#include "session/session_info.h"

#include <optional>
#include <string>
#include <vector>

namespace ak {

struct KernelSummary {
    std::string kernel_file;                 // kernels/rmsnorm.cu
    std::string kernel_type;                 // from its experiments
    int experiments = 0;                     // experiments of this kernel file
    std::optional<Experiment> starter;       // its first Baseline (else its first experiment)
    // On the frontier (kept or baseline, and PASS): lowest latency_us when any has one, otherwise
    // highest throughput_tflops. nullopt when nothing passed.
    std::optional<Experiment> best;
    // starter latency / best latency, when both were measured.
    std::optional<double> speedup_over_starter;
    // The best experiment's speedup_vs_pytorch, when measured.
    std::optional<double> best_speedup_vs_pytorch;
};

struct SessionSummary {
    int experiments = 0;
    int kept = 0;
    int reverted = 0;
    int failed = 0;
    int baseline = 0;
    std::vector<KernelSummary> kernels;  // in order of each kernel file's first experiment

    bool empty() const { return experiments == 0; }
};

SessionSummary summarize(const std::vector<Experiment>& experiments);

// A plain-text report for the command line: a header naming the session and GPU, the counts, then
// one table row per kernel file. An empty session says so in one sentence.
std::string format_summary(const SessionSummary& summary, const SessionInfo& info);

}  // namespace ak
