#pragma once
// Before starting an evaluator worker: is there a GPU, and was the evaluator built? Checked without
// spawning anything, so `autokernel bench` and `ceilings` (and the agent loop) can say plainly why
// they cannot run.
#include "gpu/device_query.h"

#include <string>

namespace ak {

enum class PreflightProblem {
    None,
    NoGpu,           // no driver, only the stub library, cuInit failed, or no device
    NoEvaluator,     // autokernel-evaluator not built here (no LibTorch) and AK_EVALUATOR not set
    EvaluatorMissing,  // AK_EVALUATOR names a file that does not exist or is not executable
};

struct Preflight {
    PreflightProblem problem = PreflightProblem::None;
    std::string message;         // one plain sentence; empty when ok
    DeviceInfo device;           // GPU 0, when there is a GPU
    std::string evaluator_path;  // when found
    bool ok() const { return problem == PreflightProblem::None; }
};

// Checks the GPU first (through the dlopen'ed driver), then the evaluator binary.
Preflight evaluator_preflight();

}  // namespace ak
