#pragma once
// The names of the built-in models (models/model_zoo.h, which needs LibTorch) for the processes that do
// not link LibTorch: the CLI's `verify --model` and `profile --model` check and list them from here.
// tests/models/test_model_zoo.cpp checks that this list and models::model_names() agree.
#include <string>
#include <string_view>
#include <vector>

namespace ak {

const std::vector<std::string>& builtin_model_names();  // "gpt2", "llama-160m", "llama-7b-layers", "bert-base"
std::string builtin_model_list();                       // "gpt2, llama-160m, llama-7b-layers, bert-base"
bool is_builtin_model(std::string_view name);

}  // namespace ak
