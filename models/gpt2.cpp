// GPT-2 (Radford et al. 2019) as Hugging Face's GPT2LMHeadModel computes it: pre-LayerNorm blocks, one
// fused QKV projection, causal SDPA, a 4x MLP with gelu (tanh), learned positions, lm_head tied to wte.
#include "models/architectures.h"

#include <ATen/ATen.h>

#include <cmath>

namespace ak::models {

namespace {

struct Gpt2Block {
    at::Tensor ln_1_w, ln_1_b, c_attn_w, c_attn_b, attn_proj_w, attn_proj_b;
    at::Tensor ln_2_w, ln_2_b, c_fc_w, c_fc_b, mlp_proj_w, mlp_proj_b;
};

class Gpt2 final : public Model {
public:
    Gpt2(const ModelConfig& config, const ModelOptions& options) : Model(config, options) {
        const int64_t d = config.hidden, f = config.intermediate;
        // GPT-2's initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2 * layers).
        const double proj_std = 0.02 / std::sqrt(2.0 * config.layers);
        wte_ = parameter("wte.weight", {config.vocab, d}, 0.02);
        wpe_ = parameter("wpe.weight", {config.max_positions, d}, 0.01);
        for (int i = 0; i < config.layers; ++i) {
            const std::string p = "blocks." + std::to_string(i) + ".";
            Gpt2Block b;
            b.ln_1_w = parameter(p + "ln_1.weight", {d}, 0, 1.0);
            b.ln_1_b = parameter(p + "ln_1.bias", {d}, 0, 0.0);
            b.c_attn_w = parameter(p + "attn.c_attn.weight", {3 * d, d}, 0.02);
            b.c_attn_b = parameter(p + "attn.c_attn.bias", {3 * d}, 0, 0.0);
            b.attn_proj_w = parameter(p + "attn.c_proj.weight", {d, d}, proj_std);
            b.attn_proj_b = parameter(p + "attn.c_proj.bias", {d}, 0, 0.0);
            b.ln_2_w = parameter(p + "ln_2.weight", {d}, 0, 1.0);
            b.ln_2_b = parameter(p + "ln_2.bias", {d}, 0, 0.0);
            b.c_fc_w = parameter(p + "mlp.c_fc.weight", {f, d}, 0.02);
            b.c_fc_b = parameter(p + "mlp.c_fc.bias", {f}, 0, 0.0);
            b.mlp_proj_w = parameter(p + "mlp.c_proj.weight", {d, f}, proj_std);
            b.mlp_proj_b = parameter(p + "mlp.c_proj.bias", {d}, 0, 0.0);
            blocks_.push_back(b);
        }
        ln_f_w_ = parameter("ln_f.weight", {d}, 0, 1.0);
        ln_f_b_ = parameter("ln_f.bias", {d}, 0, 0.0);
    }

    at::Tensor forward(const Batch& batch, ModelOps& ops) override {
        const int64_t seq = batch.input_ids.size(1);
        const double eps = config_.norm_eps;
        at::Tensor x;
        {
            ModelScope scope("embed");
            const at::Tensor positions = at::arange(seq, batch.input_ids.options());
            x = at::embedding(wte_, batch.input_ids) + at::embedding(wpe_, positions);
        }
        for (size_t i = 0; i < blocks_.size(); ++i) {
            const Gpt2Block& b = blocks_[i];
            const std::string p = "blocks." + std::to_string(i);
            ModelScope block(p);
            at::Tensor h;
            {
                ModelScope scope(p + ".ln_1");
                h = ops.layer_norm(x, b.ln_1_w, b.ln_1_b, eps);
            }
            {
                ModelScope scope(p + ".attn");
                const at::Tensor qkv = ops.linear(h, b.c_attn_w, b.c_attn_b);
                const auto parts = qkv.split(config_.hidden, -1);
                const at::Tensor y = ops.attention(split_heads(parts[0], config_.heads), split_heads(parts[1], config_.heads),
                                                   split_heads(parts[2], config_.heads), /*causal=*/true);
                h = ops.linear(merge_heads(y), b.attn_proj_w, b.attn_proj_b);
            }
            x = x + h;
            {
                ModelScope scope(p + ".ln_2");
                h = ops.layer_norm(x, b.ln_2_w, b.ln_2_b, eps);
            }
            {
                ModelScope scope(p + ".mlp");
                h = ops.linear(ops.gelu(ops.linear(h, b.c_fc_w, b.c_fc_b), /*tanh_approximation=*/true), b.mlp_proj_w,
                               b.mlp_proj_b);
            }
            x = x + h;
        }
        {
            ModelScope scope("ln_f");
            x = ops.layer_norm(x, ln_f_w_, ln_f_b_, eps);
        }
        ModelScope scope("lm_head");
        return ops.linear(x, wte_, at::Tensor());
    }

private:
    at::Tensor wte_, wpe_, ln_f_w_, ln_f_b_;
    std::vector<Gpt2Block> blocks_;
};

}  // namespace

std::unique_ptr<Model> make_gpt2(const ModelConfig& config, const ModelOptions& options) {
    return std::make_unique<Gpt2>(config, options);
}

}  // namespace ak::models
