#pragma once
// The five correctness stages (check_plan.h) run against a compiled candidate.
//
// For every case: fresh inputs from the case's seed, the reference computed first (before the
// candidate could touch the inputs) and a copy of the inputs taken; before EVERY launch the output is
// poisoned with a fresh random NaN, the output and the workspace are guarded by 1 MiB on each side and
// the workspace's reserved block (fused_mlp's gate/up and hidden) is poisoned as well; one host
// synchronisation after the launch (a sticky CUDA error surfaces here, named with stage, shape and
// dtype); then the guards, the inputs (bit for bit against the copy), every element against the
// reference, the norm gate and the type's invariants are checked on the GPU. The determinism stage
// launches 3 times on identical inputs and compares the outputs bit for bit.
// A failing stage is finished (so the report shows every failing case of it) and the later stages
// are skipped.
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launcher.h"
#include "engine/evaluator/poison.h"

#include <cuda.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ak::eval {

// Progress to the client: stage ("smoke", ...) and a message ("1024x4096 bf16 (3/12)").
using ProgressFn = std::function<void(const std::string& stage, const std::string& message)>;

struct HarnessOutcome {
    std::vector<CheckRecord> records;  // every case that ran, in order
    bool passed = true;
    std::optional<CheckStage> failed_stage;
    std::string detail;                // the first failure: stage, shape, dtype, seed and what went wrong
};

class Harness {
public:
    // `stream` must be LibTorch's current CUDA stream (inputs, references and library stages run there).
    // `poison_seed` seeds the per-launch poison patterns.
    Harness(const KernelAdapter& adapter, CUstream stream, ProgressFn progress, std::uint64_t poison_seed = 1);

    // Runs `plan` in order. `module_for(dtype)` gives the candidate compiled for that dtype.
    // Throws StickyCudaError when a launch breaks the context; everything else a candidate can do wrong
    // becomes a failed CheckRecord.
    HarnessOutcome run(const std::vector<CheckCase>& plan, const std::function<const CandidateModule&(DType)>& module_for);

    // One case (exposed for tests).
    CheckRecord run_case(const CheckCase& c, const CandidateModule& module);

private:
    const KernelAdapter& adapter_;
    CUstream stream_;
    ProgressFn progress_;
    PoisonSource poison_;
};

// A CUDA generator on the current device seeded with `seed`.
at::Generator seeded_cuda_generator(std::uint64_t seed);

// "sweep 1024x4096 bf16 (seed 1234)"
std::string case_label(const CheckCase& c);

}  // namespace ak::eval
