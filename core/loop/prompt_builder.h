#pragma once
// What the LLM agent sends and the command agent writes into its context file.
//
// System message: the role, the rules that no speed-up may break, the playbook and the kernel contract.
// User message: the kernel type and shapes, the GPU, the roofline position, the current best source,
// the recent experiments of this kernel (outcome, correctness, latency, speedup, description and the
// failure detail: stage, error, compile log excerpt), the user's hint, and the reply format: ONE
// complete source in a ```cuda block plus a line "DESCRIPTION: ...".
#include "loop/agent.h"

#include <cstddef>
#include <string>

namespace ak {

struct Prompt {
    std::string system;
    std::string user;
};

struct PromptOptions {
    std::size_t max_experiments = 10;        // most recent experiments of this kernel shown
    std::size_t max_failure_chars = 1500;    // per experiment (compile logs are cut)
};

Prompt build_prompt(const AgentContext& context, const PromptOptions& options = {});

// The sections, also used on their own by the command agent.
std::string kernel_section(const AgentContext& context);  // type, file, shapes, dtype, GPU, roofline
std::string recent_experiments_section(const AgentContext& context, const PromptOptions& options = {});
std::string reply_format_section();

// A markdown document with everything an external tool needs: the task, the kernel, the recent
// experiments, the hint, the playbook and the contract (the command agent's context file).
std::string context_document(const AgentContext& context, const PromptOptions& options = {});

}  // namespace ak
