#pragma once
// Creates the agent a user asked for (`autokernel run --agent ...`, the GUI's agent panel).
//
// Each kind of agent lives in its own file and provides its make_*_agent() function below; the
// build defines AK_HAVE_<KIND>_AGENT=1 for the agent files it compiled (core/loop/CMakeLists.txt), and
// make_agent() dispatches to them. A kind whose file is not built yet is refused with Error(Usage).
#include "loop/agent.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ak {

struct AgentSettings {
    std::string kind = "search";  // search | llm | command
    // The session the agent works for: the search agent keeps its cache of evaluated configurations
    // in <session>/.autokernel/ and reads the history's sources; the command agent's scratch folder
    // lives there too. Empty: memory only / a temporary folder.
    std::filesystem::path session_dir;
    // Where agents write log lines (steering problems, retries, a command's output file). Unset: dropped.
    std::function<void(const std::string&)> log;

    // search: the built-in, offline agent that sweeps a kernel's declared tunables.
    std::string search_strategy;  // empty: the agent's default
    std::uint64_t seed = 0;       // 0: the agent picks one

    // llm: an OpenAI-compatible /v1/chat/completions endpoint.
    std::string llm_endpoint;     // e.g. http://localhost:8000/v1
    std::string llm_model;
    std::string llm_key_env;      // name of the environment variable holding the API key (the key itself
                                  // is never stored in settings, sessions, logs or commits)
    double llm_timeout_s = 300;
    double llm_temperature = 0.2;
    int llm_max_tokens = 8192;

    // command: a user-given command line run on a scratch copy of the kernel.
    std::string command_template; // e.g. "my-agent --file {file} --context {context}"
    double command_timeout_s = 900;
};

// The kinds this build can make, in the order a user would pick them.
std::vector<std::string> built_agent_kinds();

// Throws Error(Usage) for an unknown kind, a kind not built yet, or settings the kind cannot use
// (each agent checks its own).
std::unique_ptr<Agent> make_agent(const AgentSettings& settings);

// Provided by the agent files (search_agent.cpp, llm_agent.cpp, command_agent.cpp).
std::unique_ptr<Agent> make_search_agent(const AgentSettings& settings);
std::unique_ptr<Agent> make_llm_agent(const AgentSettings& settings);
std::unique_ptr<Agent> make_command_agent(const AgentSettings& settings);

}  // namespace ak
