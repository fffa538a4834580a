#include "models/model_zoo.h"

#include "models/architectures.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

namespace ak::models {

namespace {

std::vector<ModelConfig> builtin_configs() {
    std::vector<ModelConfig> c;
    c.push_back({"gpt2", Architecture::Gpt2, 50257, 768, 12, 12, 12, 3072, 1024, 1e-5, 0});
    c.push_back({"llama-160m", Architecture::Llama, 32000, 768, 12, 12, 12, 3072, 0, 1e-6, 10000.0});
    c.push_back({"llama-7b-layers", Architecture::Llama, 32000, 4096, 2, 32, 8, 11008, 0, 1e-5, 10000.0});
    c.push_back({"bert-base", Architecture::Bert, 30522, 768, 12, 12, 12, 3072, 512, 1e-12, 0});
    return c;
}

std::string known_names() {
    std::string s;
    for (const auto& n : model_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

}  // namespace

const std::vector<std::string>& model_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& c : builtin_configs()) n.push_back(c.name);
        return n;
    }();
    return names;
}

ModelConfig model_config(std::string_view name) {
    for (const auto& c : builtin_configs())
        if (c.name == name) return c;
    throw Error(ErrorKind::Usage, "unknown model '" + std::string(name) + "' (built-in models: " + known_names() + ")");
}

std::string_view to_string(Mode m) { return m == Mode::Training ? "training" : "inference"; }

Model::Model(ModelConfig config, ModelOptions options) : config_(std::move(config)), options_(options) {}

at::Tensor Model::parameter(const std::string& name, std::vector<std::int64_t> sizes, double std, double fill) {
    const auto opts = at::TensorOptions().dtype(options_.dtype).device(options_.device);
    at::Tensor t = at::empty(sizes, opts);
    if (std > 0)
        t.normal_(0.0, std);
    else
        t.fill_(fill);
    if (options_.mode == Mode::Training) t.set_requires_grad(true);
    parameters_.emplace_back(name, t);
    return t;
}

std::int64_t Model::parameter_count() const {
    std::int64_t n = 0;
    for (const auto& [name, t] : parameters_) n += t.numel();
    return n;
}

Batch Model::example_batch() const {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(options_.seed + 1);
    const auto cpu = at::TensorOptions().dtype(at::kLong);
    Batch b;
    b.input_ids = at::randint(0, config_.vocab, {options_.batch, options_.seq}, gen, cpu).to(options_.device);
    b.targets = at::randint(0, config_.vocab, {options_.batch, options_.seq}, gen, cpu).to(options_.device);
    return b;
}

at::Tensor Model::run_iteration(const Batch& batch, ModelOps& ops) {
    if (options_.mode == Mode::Inference) {
        c10::InferenceMode guard;
        return forward(batch, ops);
    }
    for (auto& [name, p] : parameters_) p.mutable_grad().reset();
    at::Tensor logits = forward(batch, ops);
    at::Tensor loss;
    {
        ModelScope scope("loss");
        loss = ops.cross_entropy(logits.reshape({-1, logits.size(-1)}), batch.targets.reshape({-1}));
    }
    loss.backward();
    return loss.detach();
}

at::Tensor split_heads(const at::Tensor& x, int heads) {
    return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

at::Tensor merge_heads(const at::Tensor& x) {
    return x.transpose(1, 2).reshape({x.size(0), x.size(2), x.size(1) * x.size(3)});
}

std::unique_ptr<Model> make_model(std::string_view name, const ModelOptions& options) {
    return make_model(model_config(name), options);
}

std::unique_ptr<Model> make_model(const ModelConfig& config, const ModelOptions& options) {
    if (options.dtype != at::kHalf && options.dtype != at::kBFloat16 && options.dtype != at::kFloat)
        throw Error(ErrorKind::Usage, "model " + config.name + ": dtype must be fp16, bf16 or fp32");
    if (options.batch < 1 || options.seq < 1)
        throw Error(ErrorKind::Usage, "model " + config.name + ": batch and seq must be at least 1 (got batch " +
                                          std::to_string(options.batch) + ", seq " + std::to_string(options.seq) + ")");
    if (config.max_positions > 0 && options.seq > config.max_positions)
        throw Error(ErrorKind::Usage, "model " + config.name + " has " + std::to_string(config.max_positions) +
                                          " positions: seq " + std::to_string(options.seq) + " is too long");
    if (config.heads < 1 || config.kv_heads < 1 || config.heads % config.kv_heads != 0 || config.hidden % config.heads != 0)
        throw Error(ErrorKind::Usage, "model " + config.name + ": hidden must divide into heads, heads into kv_heads");
    at::manual_seed(options.seed);
    switch (config.architecture) {
        case Architecture::Gpt2: return make_gpt2(config, options);
        case Architecture::Llama: return make_llama(config, options);
        case Architecture::Bert: return make_bert(config, options);
    }
    throw Error(ErrorKind::Internal, "unknown architecture");
}

}  // namespace ak::models
