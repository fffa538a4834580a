#pragma once
// Session kernels inside a whole model (`autokernel verify`, docs/verify.md).
//
// While a ModelSubstitution is active, kernels registered with the dispatcher (a torch::Library of
// kind IMPL on the CUDA key, replacing ATen's own CUDA kernel for as long as it lives) take the ATen
// ops of every kernel type the session has:
//   matmul           aten::mm, aten::addmm (beta = alpha = 1; bias added after our GEMM), aten::bmm (counted,
//                    always ATen: the matmul contract has no batch)
//   softmax          aten::_softmax over the last dimension
//   layernorm        aten::native_layer_norm over the last dimension, with weight and bias, grad mode off
//   rmsnorm          aten::rms_norm over the last dimension, with a weight
//   flash_attention  aten::scaled_dot_product_attention, q, k, v of one shape, no mask, no dropout
//   cross_entropy    aten::cross_entropy_loss, 2-D logits, mean, no weight, no label smoothing
//   reduce           aten::sum.dim_IntList over the last dimension only
// and the built-in models' fused patterns come through models::ModelOps (ops()): swiglu_mlp -> fused_mlp,
// rotary -> rotary_embedding, cross_entropy -> cross_entropy.
//
// A call goes to a session kernel of its type only when its dtype and problem shape are ones the
// harness verified the kernel at (VerifyKernel) and its arguments fit the contract; every other call
// runs ATen's own kernel (called directly, not through the dispatcher) and is counted with its reason.
// Non-contiguous inputs are copied to contiguous tensors first (counted), or fall back when the request
// says so; a Linear weight passed as the transposed view w.t() of a contiguous [N, K] weight is
// transposed once and cached (noted). Calls made while one of ours runs (ATen's composite fallbacks)
// are not intercepted again.
//
// Modes: Observe runs every intercepted call on ATen and times it (the unmodified model's per-type GPU
// time); Substitute routes calls; per pass, calls can be timed (CUDA events around each call) and/or
// checked (each routed call's output compared with ATen's for the same call, per-type tolerance).
// A kernel whose launch fails is disabled for the rest of the run and reported by name.
//
// Only the evaluator process includes this header.
#include "engine/verify_protocol.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ak::models {
class ModelOps;
}

namespace ak::eval {

class GpuSession;

enum class InterceptMode { Observe, Substitute };

struct PassOptions {
    InterceptMode mode = InterceptMode::Substitute;
    bool time_calls = false;   // CUDA events around every intercepted call
    bool check_calls = false;  // compare each routed call with ATen's result
};

// What one pass saw.
struct PassRecord {
    std::vector<VerifyCoverage> coverage;     // Substitute: routed per kernel, fallbacks per type
    std::vector<VerifyAtenTime> aten;         // Observe: every call per type
    std::vector<VerifyKernelCheck> checks;    // check_calls
};

class ModelSubstitution {
public:
    // Compiles every kernel of `request` for `model_dtype` and loads it. A kernel that does not compile
    // or load is not substituted and is reported in failures(). `progress` gets one line per kernel.
    ModelSubstitution(GpuSession& gpu, const VerifyRequest& request, DType model_dtype,
                      const std::function<void(const std::string&)>& progress);
    ~ModelSubstitution();
    ModelSubstitution(const ModelSubstitution&) = delete;
    ModelSubstitution& operator=(const ModelSubstitution&) = delete;

    // Registers the dispatcher kernels (only one ModelSubstitution may be active) and starts a pass.
    void begin(const PassOptions& options);
    // Unregisters them: ATen's own kernels again.
    void end();
    bool active() const;
    // Synchronises, reads the per-call events and returns the pass's counts; clears them.
    PassRecord take_record();

    // The built-in models' ops with our fused-pattern kernels (swiglu_mlp, rotary, cross_entropy);
    // the other ops call ATen (and meet the dispatcher kernels while active). Outside begin()/end() it
    // behaves exactly like models::aten_ops().
    models::ModelOps& ops();

    const std::vector<VerifyFailure>& failures() const;
    std::vector<std::string> notes() const;  // weight transposes, concatenated MLP weights, ...
    int kernel_count() const;                // kernels compiled and loaded

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak::eval
