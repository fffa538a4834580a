#include "engine/builtin_models.h"

#include <algorithm>

namespace ak {

const std::vector<std::string>& builtin_model_names() {
    static const std::vector<std::string> names{"gpt2", "llama-160m", "llama-7b-layers", "bert-base"};
    return names;
}

std::string builtin_model_list() {
    std::string s;
    for (const auto& n : builtin_model_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

bool is_builtin_model(std::string_view name) {
    const auto& names = builtin_model_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace ak
