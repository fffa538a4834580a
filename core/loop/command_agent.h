#pragma once
// The command agent: runs a user-given command line (for example a command-line coding agent) on a
// scratch copy of the kernel, and whatever the command leaves in that file is the candidate.
//
// For each proposal the scratch folder <scratch_root>/scratch/ is emptied and receives
//   <kernel>.cu   the current best source (the file to edit)
//   context.md    the task, kernel, shapes, GPU, roofline, recent experiments, hint, playbook, contract
// The template's placeholders {kernel}, {context} and {workdir} become those paths (shell-quoted when
// needed); the same paths are in the environment as AK_KERNEL_FILE, AK_CONTEXT_FILE and AK_WORKDIR, with
// AK_KERNEL_NAME and AK_KERNEL_TYPE. The command runs through /bin/sh -c in the scratch folder with a
// timeout (its whole process group is killed on timeout); stdout and stderr go to
// <scratch_root>/stdout.log and stderr.log. The description is the command's last stdout line starting
// "DESCRIPTION:", else "command: <program>". A non-zero exit, a timeout, a removed, emptied or
// unchanged kernel file make a failed proposal that says which.
#include "loop/agent.h"
#include "loop/prompt_builder.h"

#include <filesystem>
#include <functional>
#include <string>

namespace ak {

struct CommandSettings {
    std::string command_template;            // e.g. "my-agent --file {kernel} --context {context}"
    double timeout_s = 900;
    double kill_grace_s = 2;                 // SIGTERM, then SIGKILL after this
    // Where scratch/ and the logs go, e.g. <session>/.autokernel/command-agent. Empty: a new temporary
    // folder (removed with the agent).
    std::filesystem::path scratch_root;
    PromptOptions prompt;
    std::function<void(const std::string&)> log;  // unset: dropped
};

class CommandAgent : public Agent {
public:
    // Throws Error(Usage) for an empty template, Error(Io) when the scratch folder cannot be created.
    explicit CommandAgent(CommandSettings settings);
    ~CommandAgent() override;
    CommandAgent(const CommandAgent&) = delete;
    CommandAgent& operator=(const CommandAgent&) = delete;

    std::string name() const override;  // "command"
    Proposal propose(const AgentContext& context) override;

    const std::filesystem::path& scratch_root() const { return root_; }

private:
    void log(const std::string& line) const;
    CommandSettings settings_;
    std::filesystem::path root_;
    bool own_root_ = false;  // a temporary folder this agent created
};

// The template with {kernel}, {context} and {workdir} replaced by the (shell-quoted) paths.
std::string expand_command_template(const std::string& command_template, const std::filesystem::path& kernel,
                                    const std::filesystem::path& context, const std::filesystem::path& workdir);

}  // namespace ak
