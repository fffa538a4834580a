#pragma once
// One "verify" request (verify_protocol.h, docs/verify.md): a whole model, unmodified and with the
// session's kernels substituted (model_substitution.h), on the same inputs:
//   1. the model: a built-in model (models/model_zoo.h) or a TorchScript file with the request's inputs;
//   2. the kernels compiled for the model's dtype (a kernel that does not compile is reported by name);
//   3. the unmodified output, twice (the second run is the noise floor);
//   4. an observe pass: every intercepted op on ATen, timed per call (each type's GPU time unmodified);
//   5. a check pass: our kernels in, each routed call compared with ATen's, the output compared with
//      the unmodified output (norm-relative tolerance per dtype: fp16 1e-2, bf16 5e-2, fp32 1e-4);
//   6. a coverage pass: calls per type routed or fallen back, with their GPU time;
//   7. timing: both models interleaved run by run (CUDA events, L2 flushed before every run, warm-up
//      first), median and IQR.
// PASS when the output agrees, every per-call check passed and no kernel failed.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/gpu_session.h"
#include "engine/evaluator/harness.h"

namespace ak::eval {

// Throws StickyCudaError when a kernel broke the context (the worker then exits and the client reports
// CRASH), Error(Usage) for an unknown model or a bad input spec.
EvaluationResult verify_request(const EvaluationRequest& request, GpuSession& gpu, const ProgressFn& progress);

}  // namespace ak::eval
