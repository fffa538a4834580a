#pragma once
// Timing one shape so that a candidate cannot behave one way when checked and another way when timed.
//
// The candidate, the strongest PyTorch baseline and (in the loop) the reference candidate are timed
// interleaved by the Timer (timing.h: events, L2 flush before every run, warm-up, median and IQR). Around
// every run of a candidate, outside the timed region:
//   - before: its working inputs (the same pointers every run) are refreshed from one of two pristine input
//     sets, shifted by one of 4096 random offsets, so every run sees contents it has not seen before and
//     nothing memoised by pointer or by content applies; its output is poisoned with a
//     fresh random NaN and the reserved workspace too; nothing of this is in L2 when the run starts (the
//     flush comes after);
//   - after: the output of a few runs, chosen uniformly at random among all its runs (reservoir sampling,
//     decided after each run, so no launch can know whether it will be looked at), is copied aside.
// Afterwards the copied outputs and the last output of every working set are compared with the reference
// of the contents they were computed from (elementwise, norm gate, the type's invariants), the working
// inputs with the contents they were loaded with (a candidate must not write into its inputs), and every
// guard region; finally the plausibility gate (plausibility.h) judges the medians. The reference candidate
// gets the same treatment on its own buffers, so a failure is always attributed to the right kernel.
// The candidate's module is freshly loaded for timing by the caller (no __device__ state from the checks).
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/gpu_session.h"
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launcher.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ak::eval {

struct VerifiedTiming {
    TimingRecord row;                            // the candidate (with the baseline's numbers)
    std::optional<TimingRecord> reference_row;   // the reference candidate, when one was timed and passed
    std::optional<std::string> failure;          // the candidate failed a check made while timing (FAIL)
    std::optional<std::string> reference_failure;  // the reference candidate did
    std::optional<std::string> note;             // e.g. the baseline beat the plausibility bound (a harness issue)
    int verified_runs = 0;                       // candidate runs whose output was checked
    int timed_runs = 0;                          // candidate runs in all (warm-up, calibration, measurement)
};

// Runs of the candidate (and of the reference candidate) whose outputs are copied aside and checked.
inline constexpr int kVerifiedRuns = 3;
inline constexpr int kVerifiedReferenceRuns = 2;

// Times `candidate` (and `reference` when not null) at `shape` in the request's timing dtype. `seed`
// draws the inputs and the choices. Throws StickyCudaError when a run breaks the context.
VerifiedTiming time_shape_verified(GpuSession& gpu, const KernelAdapter& adapter, const EvaluationRequest& req,
                                   const Shape& shape, std::uint64_t seed, const CandidateModule& candidate,
                                   const CandidateModule* reference);

}  // namespace ak::eval
