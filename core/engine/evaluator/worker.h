#pragma once
// The evaluator worker's request handling (main.cpp only reads lines and writes them out).
//
// Ops: ping, device, evaluate, ceilings, verify (verify_run.h). Every request gets exactly one result, whatever happens:
//   - a sticky CUDA error (illegal address, launch failure, ...): CRASH naming the CUDA error and the
//     stage, worker_exiting = true, and the worker exits with code 3 so the client starts a fresh one;
//   - out of memory: CRASH "out of memory: ..." (the worker frees its cached memory and goes on);
//   - any other LibTorch or C++ exception: CRASH with its message (after checking that the CUDA
//     context still works; if not, as a sticky error);
//   - no GPU: every request is answered with CRASH "no GPU: <why>", worker_exiting = true, exit code 2.
#include "engine/evaluation_protocol.h"

#include <functional>
#include <memory>
#include <string>

namespace ak::eval {

class GpuSession;

class Worker {
public:
    // Turns TF32 off and sets up the GPU session; when there is no usable GPU, remembers why.
    Worker();
    ~Worker();

    EvaluationResult handle(const EvaluationRequest& request, const std::function<void(const ProgressEvent&)>& progress);

    bool has_gpu() const { return gpu_ != nullptr; }
    const std::string& no_gpu_reason() const { return no_gpu_reason_; }
    // 0 while healthy; 2 without a GPU; 3 after a sticky CUDA error. Non-zero: exit after the result.
    int exit_code() const { return exit_code_; }

private:
    EvaluationResult dispatch(const EvaluationRequest& request, const std::function<void(const ProgressEvent&)>& progress);

    std::unique_ptr<GpuSession> gpu_;
    std::string no_gpu_reason_;
    int exit_code_ = 0;
};

// A CRASH result for `id` with `detail`.
EvaluationResult crash_result(std::uint64_t id, std::string detail, bool exiting);

}  // namespace ak::eval
