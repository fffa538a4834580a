#pragma once
// What ak_session_writer records as experiment N: a pure function of N, shared by the writer and
// the crash tests so a test can check any experiment it finds after killing the writer.
#include "session/experiment.h"

#include <string>

namespace ak::testing {

inline std::string writer_source(int n) {
    return "// experiment " + std::to_string(n) + "\n__global__ void k() {}\n";
}

inline Outcome writer_outcome(int n) {
    if (n == 0) return Outcome::Baseline;
    switch (n % 3) {
    case 0: return Outcome::Kept;
    case 1: return Outcome::Reverted;
    default: return Outcome::Failed;
    }
}

inline std::string writer_description(int n) { return "exp " + std::to_string(n) + " µ"; }

inline Experiment writer_metrics(int n) {
    Experiment e;
    e.outcome = writer_outcome(n);
    e.correctness = e.outcome == Outcome::Failed ? Correctness::Fail : Correctness::Pass;
    e.latency_us = 100.0 - 0.25 * n;
    e.description = writer_description(n);
    e.agent = "writer";
    e.tag = "crash-test";
    return e;
}

}  // namespace ak::testing
