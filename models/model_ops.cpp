#include "models/model_ops.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <optional>

namespace ak::models {

at::Tensor ModelOps::linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
    return bias.defined() ? at::linear(x, weight, bias) : at::linear(x, weight);
}

at::Tensor ModelOps::attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
    return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, causal);
}

at::Tensor ModelOps::layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps) {
    return at::layer_norm(x, {x.size(-1)}, weight, bias, eps);
}

at::Tensor ModelOps::rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
    return at::rms_norm(x, {x.size(-1)}, weight, eps);
}

at::Tensor ModelOps::swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                                const at::Tensor& w_down) {
    return at::linear(at::silu(at::linear(x, w_gate)) * at::linear(x, w_up), w_down);
}

at::Tensor ModelOps::rotary(const at::Tensor& x, const RotaryTables& tables) {
    // Hugging Face's apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1).
    const int64_t half = x.size(-1) / 2;
    const at::Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
    return x * tables.cos_full + rotated * tables.sin_full;
}

at::Tensor ModelOps::gelu(const at::Tensor& x, bool tanh_approximation) {
    return at::gelu(x, tanh_approximation ? "tanh" : "none");
}

at::Tensor ModelOps::cross_entropy(const at::Tensor& logits, const at::Tensor& targets) {
    return at::cross_entropy_loss(logits, targets);
}

ModelOps& aten_ops() {
    static ModelOps ops;
    return ops;
}

ModelScope::ModelScope(const std::string& name) {
    auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::USER_SCOPE);
    if (!callbacks) return;
    record_ = new at::RecordFunction(std::move(*callbacks));
    record_->before(name);
}

ModelScope::~ModelScope() { delete record_; }

}  // namespace ak::models
