// A LLaMA-style decoder as Hugging Face's LlamaForCausalLM computes it: RMSNorm before attention and MLP,
// separate q/k/v projections without bias, rotary position embedding (rotate-half) on q and k,
// grouped-query attention (k and v repeated to every query head, then causal SDPA), a SwiGLU MLP, and an
// untied lm_head.
#include "models/architectures.h"

#include <ATen/ATen.h>

namespace ak::models {

namespace {

struct LlamaBlock {
    at::Tensor input_norm_w, q_w, k_w, v_w, o_w, post_attention_norm_w, gate_w, up_w, down_w;
};

// k or v [B, kv_heads, S, D] -> [B, kv_heads * groups, S, D] (Hugging Face's repeat_kv).
at::Tensor repeat_kv(const at::Tensor& x, int64_t groups) {
    if (groups == 1) return x;
    const int64_t b = x.size(0), h = x.size(1), s = x.size(2), d = x.size(3);
    return x.unsqueeze(2).expand({b, h, groups, s, d}).reshape({b, h * groups, s, d});
}

class Llama final : public Model {
public:
    Llama(const ModelConfig& config, const ModelOptions& options) : Model(config, options) {
        const int64_t d = config.hidden, f = config.intermediate, head_dim = config.hidden / config.heads;
        const int64_t kv = int64_t(config.kv_heads) * head_dim;
        embed_ = parameter("embed.weight", {config.vocab, d}, 0.02);
        for (int i = 0; i < config.layers; ++i) {
            const std::string p = "blocks." + std::to_string(i) + ".";
            LlamaBlock b;
            b.input_norm_w = parameter(p + "input_norm.weight", {d}, 0, 1.0);
            b.q_w = parameter(p + "attn.q_proj.weight", {d, d}, 0.02);
            b.k_w = parameter(p + "attn.k_proj.weight", {kv, d}, 0.02);
            b.v_w = parameter(p + "attn.v_proj.weight", {kv, d}, 0.02);
            b.o_w = parameter(p + "attn.o_proj.weight", {d, d}, 0.02);
            b.post_attention_norm_w = parameter(p + "post_attention_norm.weight", {d}, 0, 1.0);
            b.gate_w = parameter(p + "mlp.gate_proj.weight", {f, d}, 0.02);
            b.up_w = parameter(p + "mlp.up_proj.weight", {f, d}, 0.02);
            b.down_w = parameter(p + "mlp.down_proj.weight", {d, f}, 0.02);
            blocks_.push_back(b);
        }
        norm_w_ = parameter("norm.weight", {d}, 0, 1.0);
        lm_head_w_ = parameter("lm_head.weight", {config.vocab, d}, 0.02);
        tables_ = rotary_tables(options.seq, head_dim);
    }

    at::Tensor forward(const Batch& batch, ModelOps& ops) override {
        const int64_t seq = batch.input_ids.size(1);
        const RotaryTables tables = seq == options_.seq ? tables_ : rotary_tables(seq, config_.hidden / config_.heads);
        const int64_t groups = config_.heads / config_.kv_heads;
        const double eps = config_.norm_eps;
        at::Tensor x;
        {
            ModelScope scope("embed");
            x = at::embedding(embed_, batch.input_ids);
        }
        for (size_t i = 0; i < blocks_.size(); ++i) {
            const LlamaBlock& b = blocks_[i];
            const std::string p = "blocks." + std::to_string(i);
            ModelScope block(p);
            at::Tensor h;
            {
                ModelScope scope(p + ".input_norm");
                h = ops.rms_norm(x, b.input_norm_w, eps);
            }
            {
                ModelScope scope(p + ".attn");
                at::Tensor q = split_heads(ops.linear(h, b.q_w, at::Tensor()), config_.heads);
                at::Tensor k = split_heads(ops.linear(h, b.k_w, at::Tensor()), config_.kv_heads);
                const at::Tensor v = split_heads(ops.linear(h, b.v_w, at::Tensor()), config_.kv_heads);
                {
                    ModelScope rotary(kRotaryScope);
                    q = ops.rotary(q, tables);
                    k = ops.rotary(k, tables);
                }
                const at::Tensor y = ops.attention(q, repeat_kv(k, groups), repeat_kv(v, groups), /*causal=*/true);
                h = ops.linear(merge_heads(y), b.o_w, at::Tensor());
            }
            x = x + h;
            {
                ModelScope scope(p + ".post_attention_norm");
                h = ops.rms_norm(x, b.post_attention_norm_w, eps);
            }
            {
                ModelScope scope(p + ".mlp");
                ModelScope fused(kFusedMlpScope);
                h = ops.swiglu_mlp(h, b.gate_w, b.up_w, b.down_w);
            }
            x = x + h;
        }
        {
            ModelScope scope("norm");
            x = ops.rms_norm(x, norm_w_, eps);
        }
        ModelScope scope("lm_head");
        return ops.linear(x, lm_head_w_, at::Tensor());
    }

private:
    RotaryTables rotary_tables(int64_t seq, int64_t head_dim) const {
        // angle[s, i] = s * theta^(-2i / D), computed in fp32 and rounded to the model's dtype.
        const auto f32 = at::TensorOptions().dtype(at::kFloat).device(options_.device);
        const at::Tensor inv_freq = at::pow(config_.rope_theta, at::arange(0, head_dim, 2, f32) / double(head_dim)).reciprocal();
        const at::Tensor angle = at::outer(at::arange(seq, f32), inv_freq);
        RotaryTables t;
        t.cos_half = angle.cos().to(options_.dtype);
        t.sin_half = angle.sin().to(options_.dtype);
        t.cos_full = at::cat({t.cos_half, t.cos_half}, -1);
        t.sin_full = at::cat({t.sin_half, t.sin_half}, -1);
        return t;
    }

    at::Tensor embed_, norm_w_, lm_head_w_;
    std::vector<LlamaBlock> blocks_;
    RotaryTables tables_;
};

}  // namespace

std::unique_ptr<Model> make_llama(const ModelConfig& config, const ModelOptions& options) {
    return std::make_unique<Llama>(config, options);
}

}  // namespace ak::models
