#pragma once
// The five correctness stages (check_plan.h) run against a compiled candidate.
//
// For every case: fresh inputs from the case's seed, the reference computed first (before the
// candidate could touch the inputs), the output poisoned and guarded before EVERY launch, one host
// synchronisation after the launch (a sticky CUDA error surfaces here, named with stage, shape and
// dtype), the guards checked, then every element compared with the reference on the GPU. The
// determinism stage launches 3 times on identical inputs and compares the outputs bit for bit.
// A failing stage is finished (so the report shows every failing case of it) and the later stages
// are skipped.
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launcher.h"

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
    Harness(const KernelAdapter& adapter, CUstream stream, ProgressFn progress);

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
};

// A CUDA generator on the current device seeded with `seed`.
at::Generator seeded_cuda_generator(std::uint64_t seed);

// "sweep 1024x4096 bf16 (seed 1234)"
std::string case_label(const CheckCase& c);

}  // namespace ak::eval
