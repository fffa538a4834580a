#pragma once
// The built-in models: GPT-2 124M, two LLaMA-style configurations and BERT-base, written with LibTorch's
// ATen API (no Python, no downloads), with random weights drawn from a fixed seed. The profiler runs them
// (autokernel-profiler --model NAME), end-to-end verification runs them with kernels substituted
// (ModelOps in model_ops.h).
//
//   gpt2             GPT-2 small: 12 layers, hidden 768, 12 heads, MLP 3072 (gelu tanh), LayerNorm,
//                    vocabulary 50257, at most 1024 positions, lm_head tied to the token embedding
//   llama-160m       LLaMA-style: 12 layers, hidden 768, 12 heads (12 KV heads), SwiGLU 3072, RMSNorm, RoPE,
//                    vocabulary 32000 (the shape of JackFram/llama-160m)
//   llama-7b-layers  LLaMA-2-7B's layer shape with 2 layers: hidden 4096, 32 heads, 8 KV heads
//                    (grouped-query attention), SwiGLU 11008, vocabulary 32000
//   bert-base        BERT-base: 12 layers, hidden 768, 12 heads, MLP 3072 (gelu erf), post-LayerNorm,
//                    vocabulary 30522, at most 512 positions, masked-LM head tied to the word embedding
//
// Module scopes (ModelScope) name every module: "embed", "blocks.<i>", "blocks.<i>.attn",
// "blocks.<i>.mlp", the norms ("blocks.<i>.ln_1" ... per model), "ln_f"/"norm", "lm_head", "loss".
// Dropout is left out (p = 0), so inference and training run the same forward.
#include "models/model_ops.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ak::models {

enum class Architecture { Gpt2, Llama, Bert };
enum class Mode { Inference, Training };

// Hyperparameters of one model.
struct ModelConfig {
    std::string name;
    Architecture architecture = Architecture::Gpt2;
    int vocab = 0;
    int hidden = 0;
    int layers = 0;
    int heads = 0;
    int kv_heads = 0;          // == heads unless grouped-query attention
    int intermediate = 0;      // MLP width
    int max_positions = 0;     // learned position embeddings (GPT-2, BERT); 0: no limit (RoPE)
    double norm_eps = 1e-5;
    double rope_theta = 10000.0;
};

struct ModelOptions {
    int batch = 8;
    int seq = 1024;
    at::ScalarType dtype = at::kHalf;  // kHalf, kBFloat16 or kFloat
    Mode mode = Mode::Inference;
    std::uint64_t seed = 0;            // weights and example inputs are drawn from it
    c10::Device device = c10::Device(c10::kCUDA, 0);
};

// One batch of token ids and next-token (GPT-2, LLaMA) or masked-LM (BERT) targets, [batch, seq] int64.
struct Batch {
    at::Tensor input_ids;
    at::Tensor targets;
};

class Model {
public:
    virtual ~Model() = default;
    const ModelConfig& config() const { return config_; }
    const ModelOptions& options() const { return options_; }

    // Logits [batch, seq, vocab]. Uses `ops` for every substitutable operation.
    virtual at::Tensor forward(const Batch& batch, ModelOps& ops) = 0;

    // Every parameter with its module path ("blocks.0.attn.c_attn.weight").
    const std::vector<std::pair<std::string, at::Tensor>>& named_parameters() const { return parameters_; }
    std::int64_t parameter_count() const;

    // Random token ids and targets from options().seed (the same batch on every call).
    Batch example_batch() const;

    // One iteration: inference runs forward under c10::InferenceMode and returns the logits; training
    // clears the gradients, runs forward, the cross-entropy loss (scope "loss") and backward, and returns
    // the loss. The caller synchronises.
    at::Tensor run_iteration(const Batch& batch, ModelOps& ops);
    at::Tensor run_iteration(const Batch& batch) { return run_iteration(batch, aten_ops()); }

protected:
    Model(ModelConfig config, ModelOptions options);
    // A parameter drawn from N(0, std) (std > 0), or filled with `fill` (std == 0), registered under `name`.
    at::Tensor parameter(const std::string& name, std::vector<std::int64_t> sizes, double std, double fill = 0.0);

    ModelConfig config_;
    ModelOptions options_;

private:
    std::vector<std::pair<std::string, at::Tensor>> parameters_;
};

// "gpt2", "llama-160m", "llama-7b-layers", "bert-base".
const std::vector<std::string>& model_names();

// The configuration of a built-in model; throws ak::Error(Usage) naming the known models.
ModelConfig model_config(std::string_view name);

// Builds a model with fresh random weights (at::manual_seed(options.seed) first). Throws ak::Error(Usage)
// for an unknown name, a dtype other than fp16/bf16/fp32, batch or seq below 1, or seq above the model's
// max_positions.
std::unique_ptr<Model> make_model(std::string_view name, const ModelOptions& options);
std::unique_ptr<Model> make_model(const ModelConfig& config, const ModelOptions& options);

// "inference" / "training".
std::string_view to_string(Mode m);

}  // namespace ak::models
