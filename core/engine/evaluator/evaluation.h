#pragma once
// One "evaluate" request: compile per dtype (NVRTC, cubin for this GPU), load and check the launch
// descriptions, run the five correctness stages, and time a passing candidate against the type's
// strongest PyTorch baseline (and the request's reference_source) at every timed shape.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/gpu_session.h"
#include "engine/evaluator/harness.h"

namespace ak::eval {

// Never returns PASS for a candidate that failed a check; never times one. Throws StickyCudaError
// when the candidate broke the context (the worker then exits), and lets LibTorch errors (out of
// memory, ...) through to the worker, which turns them into a CRASH result.
EvaluationResult evaluate_request(const EvaluationRequest& request, GpuSession& gpu, const ProgressFn& progress);

}  // namespace ak::eval
