#pragma once
// End-to-end timing of `autokernel verify` (docs/verify.md): three implementations of a whole forward
// pass timed in one interleaving, in two modes (VerifyTiming in verify_protocol.h):
//   impl 0  the unmodified model,
//   impl 1  the unmodified model again: the A/A control, whose ratio to impl 0 is the run's noise floor,
//   impl 2  the model with the session's kernels.
// "graph": each implementation's forward pass is captured once in a CUDA graph (at::cuda::CUDAGraph, on a
// side stream: ATen's kernels and ours launch on the current torch stream) and samples are replays, so
// the host's launch path is out of the measurement; when a capture fails the mode says why and only
// "eager" is measured. "eager": the forward pass called op by op.
// Every sample, of every implementation alike: `enter` (outside the timed region), L2 flushed, the
// stream synchronised (the GPU idle), a start event, `passes` forward passes back to back, an end event,
// `leave`. Samples cycle through the six orders of the three implementations, after warm-up samples.
// Only the evaluator process includes this header.
#include "engine/verify_protocol.h"

#include <functional>
#include <string>
#include <vector>

namespace ak::eval {

class L2Flusher;

struct ModelTimingPlan {
    int samples = 30;                 // timed samples per implementation and mode
    int warmup = 3;                   // untimed samples per implementation first
    int passes_per_sample = 0;        // 0: enough passes for about target_sample_ms of one unmodified sample
    double target_sample_ms = 5.0;
    bool graphs = true;
};

struct ModelTimingCalls {
    // Enqueues one forward pass of implementation `impl` on the current torch stream; must not synchronise.
    std::function<void(int impl)> forward;
    // Around each sample (and each capture) of `impl`, outside the timed region: switches the dispatcher
    // substitution on (impl 2) or off. May do host work.
    std::function<void(int impl)> enter;
    std::function<void()> leave;
    std::function<void(const std::string&)> progress;
};

// Graph timing (when plan.graphs) then eager timing. A CUDA error inside the timed passes throws.
std::vector<VerifyTiming> time_model_passes(const ModelTimingCalls& calls, const ModelTimingPlan& plan, L2Flusher& flusher);

}  // namespace ak::eval
