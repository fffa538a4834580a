#pragma once
// The operations the built-in models are made of, behind one interface, so that a caller can swap any
// of them for its own kernel (end-to-end verification runs the same model with candidates substituted)
// while the default implementation calls exactly the ATen ops a real PyTorch implementation calls.
//
// Each operation corresponds to one of the nine kernel types (core/engine/kernel_type.h) and uses its
// shape and layout convention:
//   linear      matmul            y = x w^T + b, w [out, in] (at::linear: addmm with a bias, mm without)
//   attention   flash_attention   q, k, v [B, H, S, D], k/v already repeated to H heads (SDPA)
//   layer_norm  layernorm         at::layer_norm over the last dimension
//   rms_norm    rmsnorm           at::rms_norm over the last dimension
//   swiglu_mlp  fused_mlp         down(silu(x w_gate^T) * (x w_up^T)), w_gate/w_up [F, D], w_down [D, F]
//   rotary      rotary_embedding  rotate-half (GPT-NeoX / Llama) on x [B, H, S, D]
//   cross_entropy cross_entropy   mean over rows of logits [N, V] with targets [N] (int64)
// gelu has no kernel type of its own (elementwise).
//
// The models call swiglu_mlp inside the user scope "autokernel::fused_mlp" and rotary inside
// "autokernel::rotary_embedding" (ModelScope below), so the profiler can classify the kernels of those
// patterns whatever ops implement them.
#include <ATen/core/Tensor.h>

#include <string>

namespace at {
struct RecordFunction;
}

namespace ak::models {

// Tables of the rotary embedding for positions 0..S-1 (dtype of the model).
struct RotaryTables {
    at::Tensor cos_half;  // [S, D/2]: cos(s * theta^(-2i/D)), what kernel_type rotary_embedding takes
    at::Tensor sin_half;  // [S, D/2]
    at::Tensor cos_full;  // [S, D]: each half repeated, what the eager rotate-half formula takes
    at::Tensor sin_full;  // [S, D]
};

class ModelOps {
public:
    virtual ~ModelOps() = default;
    // `bias` may be undefined (no bias).
    virtual at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);
    virtual at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);
    virtual at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps);
    virtual at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);
    virtual at::Tensor swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                                  const at::Tensor& w_down);
    // One tensor (q or k) of [B, H, S, D].
    virtual at::Tensor rotary(const at::Tensor& x, const RotaryTables& tables);
    // `tanh_approximation`: GPT-2's gelu_new; BERT uses the exact erf form.
    virtual at::Tensor gelu(const at::Tensor& x, bool tanh_approximation);
    virtual at::Tensor cross_entropy(const at::Tensor& logits, const at::Tensor& targets);
};

// The ATen implementation (what the profiler runs).
ModelOps& aten_ops();

// A named user scope (RecordScope::USER_SCOPE) for as long as it lives: a module path such as
// "blocks.3.attn", or one of the pattern names "autokernel::fused_mlp" / "autokernel::rotary_embedding".
// Costs next to nothing when no RecordFunction callback is registered.
class ModelScope {
public:
    explicit ModelScope(const std::string& name);
    ~ModelScope();
    ModelScope(const ModelScope&) = delete;
    ModelScope& operator=(const ModelScope&) = delete;

private:
    at::RecordFunction* record_ = nullptr;  // owned; null when RecordFunction is inactive
};

inline constexpr const char* kFusedMlpScope = "autokernel::fused_mlp";
inline constexpr const char* kRotaryScope = "autokernel::rotary_embedding";

}  // namespace ak::models
