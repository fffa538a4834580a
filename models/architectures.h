#pragma once
// The three architectures behind make_model (model_zoo.h); one file each.
#include "models/model_zoo.h"

#include <memory>

namespace ak::models {

std::unique_ptr<Model> make_gpt2(const ModelConfig& config, const ModelOptions& options);
std::unique_ptr<Model> make_llama(const ModelConfig& config, const ModelOptions& options);
std::unique_ptr<Model> make_bert(const ModelConfig& config, const ModelOptions& options);

// Splits [B, S, heads * head_dim] into [B, heads, S, head_dim] (a view).
at::Tensor split_heads(const at::Tensor& x, int heads);
// Joins [B, heads, S, head_dim] back into [B, S, heads * head_dim].
at::Tensor merge_heads(const at::Tensor& x);

}  // namespace ak::models
