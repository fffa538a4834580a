// BERT-base (Devlin et al. 2018) as Hugging Face's BertForMaskedLM computes it: word + position +
// token-type embeddings and LayerNorm, post-LayerNorm encoder blocks with separate q/k/v projections,
// bidirectional SDPA, a 4x MLP with exact gelu, and the masked-LM head (dense, gelu, LayerNorm, decoder
// tied to the word embedding). Every position is a target in training (no masking), token types are 0.
#include "models/architectures.h"

#include <ATen/ATen.h>

namespace ak::models {

namespace {

struct BertBlock {
    at::Tensor q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b, attn_norm_w, attn_norm_b;
    at::Tensor in_w, in_b, out_w, out_b, mlp_norm_w, mlp_norm_b;
};

class Bert final : public Model {
public:
    Bert(const ModelConfig& config, const ModelOptions& options) : Model(config, options) {
        const int64_t d = config.hidden, f = config.intermediate;
        word_ = parameter("embed.word.weight", {config.vocab, d}, 0.02);
        position_ = parameter("embed.position.weight", {config.max_positions, d}, 0.02);
        token_type_ = parameter("embed.token_type.weight", {2, d}, 0.02);
        embed_norm_w_ = parameter("embed.norm.weight", {d}, 0, 1.0);
        embed_norm_b_ = parameter("embed.norm.bias", {d}, 0, 0.0);
        for (int i = 0; i < config.layers; ++i) {
            const std::string p = "blocks." + std::to_string(i) + ".";
            BertBlock b;
            b.q_w = parameter(p + "attn.query.weight", {d, d}, 0.02);
            b.q_b = parameter(p + "attn.query.bias", {d}, 0, 0.0);
            b.k_w = parameter(p + "attn.key.weight", {d, d}, 0.02);
            b.k_b = parameter(p + "attn.key.bias", {d}, 0, 0.0);
            b.v_w = parameter(p + "attn.value.weight", {d, d}, 0.02);
            b.v_b = parameter(p + "attn.value.bias", {d}, 0, 0.0);
            b.o_w = parameter(p + "attn.output.weight", {d, d}, 0.02);
            b.o_b = parameter(p + "attn.output.bias", {d}, 0, 0.0);
            b.attn_norm_w = parameter(p + "attn_norm.weight", {d}, 0, 1.0);
            b.attn_norm_b = parameter(p + "attn_norm.bias", {d}, 0, 0.0);
            b.in_w = parameter(p + "mlp.intermediate.weight", {f, d}, 0.02);
            b.in_b = parameter(p + "mlp.intermediate.bias", {f}, 0, 0.0);
            b.out_w = parameter(p + "mlp.output.weight", {d, f}, 0.02);
            b.out_b = parameter(p + "mlp.output.bias", {d}, 0, 0.0);
            b.mlp_norm_w = parameter(p + "mlp_norm.weight", {d}, 0, 1.0);
            b.mlp_norm_b = parameter(p + "mlp_norm.bias", {d}, 0, 0.0);
            blocks_.push_back(b);
        }
        head_w_ = parameter("mlm_head.dense.weight", {d, d}, 0.02);
        head_b_ = parameter("mlm_head.dense.bias", {d}, 0, 0.0);
        head_norm_w_ = parameter("mlm_head.norm.weight", {d}, 0, 1.0);
        head_norm_b_ = parameter("mlm_head.norm.bias", {d}, 0, 0.0);
        decoder_b_ = parameter("mlm_head.decoder.bias", {config.vocab}, 0, 0.0);
    }

    at::Tensor forward(const Batch& batch, ModelOps& ops) override {
        const int64_t seq = batch.input_ids.size(1);
        const double eps = config_.norm_eps;
        at::Tensor x;
        {
            ModelScope scope("embed");
            const at::Tensor positions = at::arange(seq, batch.input_ids.options());
            const at::Tensor types = at::zeros_like(batch.input_ids);
            x = at::embedding(word_, batch.input_ids) + at::embedding(position_, positions) + at::embedding(token_type_, types);
            x = ops.layer_norm(x, embed_norm_w_, embed_norm_b_, eps);
        }
        for (size_t i = 0; i < blocks_.size(); ++i) {
            const BertBlock& b = blocks_[i];
            const std::string p = "blocks." + std::to_string(i);
            ModelScope block(p);
            at::Tensor h;
            {
                ModelScope scope(p + ".attn");
                const at::Tensor q = split_heads(ops.linear(x, b.q_w, b.q_b), config_.heads);
                const at::Tensor k = split_heads(ops.linear(x, b.k_w, b.k_b), config_.heads);
                const at::Tensor v = split_heads(ops.linear(x, b.v_w, b.v_b), config_.heads);
                h = ops.linear(merge_heads(ops.attention(q, k, v, /*causal=*/false)), b.o_w, b.o_b);
            }
            {
                ModelScope scope(p + ".attn_norm");
                x = ops.layer_norm(x + h, b.attn_norm_w, b.attn_norm_b, eps);
            }
            {
                ModelScope scope(p + ".mlp");
                h = ops.linear(ops.gelu(ops.linear(x, b.in_w, b.in_b), /*tanh_approximation=*/false), b.out_w, b.out_b);
            }
            {
                ModelScope scope(p + ".mlp_norm");
                x = ops.layer_norm(x + h, b.mlp_norm_w, b.mlp_norm_b, eps);
            }
        }
        ModelScope scope("mlm_head");
        x = ops.layer_norm(ops.gelu(ops.linear(x, head_w_, head_b_), false), head_norm_w_, head_norm_b_, eps);
        return ops.linear(x, word_, decoder_b_);
    }

private:
    at::Tensor word_, position_, token_type_, embed_norm_w_, embed_norm_b_;
    at::Tensor head_w_, head_b_, head_norm_w_, head_norm_b_, decoder_b_;
    std::vector<BertBlock> blocks_;
};

}  // namespace

std::unique_ptr<Model> make_bert(const ModelConfig& config, const ModelOptions& options) {
    return std::make_unique<Bert>(config, options);
}

}  // namespace ak::models
