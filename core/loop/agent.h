#pragma once
// An agent proposes the next candidate kernel. Three kinds: the built-in search agent (tunables only,
// offline), an LLM agent (OpenAI-compatible endpoint) and a command agent (any command-line tool).
#include "engine/evaluation_protocol.h"
#include "engine/kernel_contract.h"
#include "session/experiment.h"
#include "session/session_info.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ak {

// What the user steers; applied between evaluations (LoopController::Command::Steer).
struct Steering {
    std::string target_kernel;                 // KernelEntry::name; empty = the orchestrator chooses
    int focus_tier = 0;                        // 0 = no focus; else the search agent sweeps this tier only
    std::vector<std::string> frozen_tunables;  // the search agent leaves these at their current value
    // Allowed values narrowed by the user (must be a subset of the declared ones).
    std::map<std::string, std::vector<std::string>> tunable_ranges;
    std::string hint;                          // free text for LLM/command agents
};

// Everything an agent may look at to make one proposal.
struct AgentContext {
    KernelEntry kernel;                        // which kernel (name, type, shapes)
    std::string kernel_file;                   // kernels/<name>.cu
    std::string best_source;                   // the current best of this kernel
    std::optional<Experiment> best;            // its experiment
    std::vector<Experiment> history;           // this kernel's experiments, oldest first
    // Failure details of recent experiments keyed by experiment number (stage, error, compile log).
    std::map<int, std::string> failure_details;
    Steering steering;
    std::string playbook;                      // resources/playbook.md
    std::string contract;                      // kernels/README.md
    std::string roofline;                      // one paragraph: bound, % of peak, % of ceilings
    std::string gpu;                           // device name
    std::string gpu_compute_capability;        // "9.0" (session.json), or "" when not recorded
    std::string dtype = "fp16";                // timing dtype
};

struct Proposal {
    bool ok = false;            // false: the agent could not propose (LLM timeout, malformed reply, ...)
    std::string source;         // the full candidate source
    std::string description;    // one line
    std::string failure;        // why !ok (logged as a failed proposal; the loop goes on)
    // The search agent's configuration key (name=value;...), so results can be fed back.
    std::string config_key;
};

class Agent {
public:
    virtual ~Agent() = default;
    virtual std::string name() const = 0;      // recorded in results.tsv's agent column
    virtual Proposal propose(const AgentContext& context) = 0;
    // Called with the outcome of the agent's last proposal (and of user-submitted ones).
    virtual void observe(const Proposal& proposal, const EvaluationResult& result, Outcome outcome) {
        (void)proposal, (void)result, (void)outcome;
    }
    // True when the agent has nothing new to try for this context (e.g. the search space is exhausted).
    virtual bool exhausted(const AgentContext& context) const {
        (void)context;
        return false;
    }
    // True when the agent works through a finite, planned set of proposals and says itself when it is
    // done (exhausted()). The "reverts in a row" move-on rule does not apply to such an agent: a revert
    // is an expected step of its plan (the sweep tries every value of a tier), not a sign it is stuck.
    virtual bool bounded_search() const { return false; }
};

}  // namespace ak
