#pragma once
// Small builders of ak::Experiment for the widget tests.
#include "session/experiment.h"

#include <optional>
#include <string>
#include <vector>

namespace ak::test {

inline Experiment experiment(int number, std::string kernel, Outcome outcome, Correctness correctness,
                             std::optional<double> speedup, std::optional<double> tflops,
                             std::optional<double> latency, std::optional<double> bandwidth) {
    Experiment e;
    e.number = number;
    e.tag = "run1";
    e.kernel_type = std::move(kernel);
    e.kernel_file = "kernels/" + e.kernel_type + ".cu";
    e.outcome = outcome;
    e.correctness = correctness;
    e.speedup_vs_pytorch = speedup;
    e.throughput_tflops = tflops;
    e.latency_us = latency;
    e.bandwidth_gb_s = bandwidth;
    e.agent = "search";
    e.description = "experiment " + std::to_string(number);
    return e;
}

// `count` experiments cycling through outcomes and two kernels, numbered 0..count-1.
inline std::vector<Experiment> manyExperiments(int count) {
    std::vector<Experiment> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const Outcome outcome = i == 0 ? Outcome::Baseline
                                       : (i % 7 == 0 ? Outcome::Failed : (i % 3 == 0 ? Outcome::Kept : Outcome::Reverted));
        const bool failed = outcome == Outcome::Failed;
        const double latency = 50.0 - 20.0 * i / count + (i % 5);
        Experiment e = experiment(i, i % 2 == 0 ? "rmsnorm" : "softmax", outcome,
                                  failed ? Correctness::Fail : Correctness::Pass,
                                  failed ? std::nullopt : std::optional<double>(40.0 / latency),
                                  failed ? std::nullopt : std::optional<double>(0.1 + 0.001 * (i % 100)),
                                  failed ? std::nullopt : std::optional<double>(latency),
                                  failed ? std::nullopt : std::optional<double>(100000.0 / latency));
        e.started_utc = "2026-11-29T08:15:02Z";
        e.duration_s = 6.5;
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace ak::test
