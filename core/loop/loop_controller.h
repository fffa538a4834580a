#pragma once
// The optimization loop: propose -> evaluate (isolated) -> keep or revert -> record (commit + row).
//
// run() blocks the calling thread (a worker thread in the GUI, the main thread in the CLI). Commands
// come in through a thread-safe queue from any thread and are applied between evaluations; events go
// out through LoopObserver on the loop's thread.
//
// One iteration: choose the kernel (the steered target, else the current one until a move-on rule
// fires, else the orchestrator's highest priority), ask the agent for a proposal, evaluate it with the
// current best re-timed in the same run, decide keep/revert (keep_rule.h) and record one experiment.
// A proposal the agent could not make is logged and counts as a revert for the move-on rules; nothing
// is recorded for it. A kernel whose best was never timed (a starter created by `autokernel new`) is
// first measured: its own source is evaluated and recorded as a Baseline experiment (agent "measure"),
// or as Failed when the starter fails, after which candidates are kept on passing alone until one is.
//
// History is append-only: force keep, force revert and branch-from record a new Kept experiment (agent
// "user") with the chosen source on top of the branch tip; nothing is rewritten.
//
// Exceptions from the session (e.g. Error(ReadOnly)) or the evaluator's infrastructure stop the loop:
// a log line says why, the state becomes Finished and the exception reaches run()'s caller. An agent
// that throws makes a failed proposal.
#include "loop/agent.h"
#include "loop/evaluator.h"
#include "loop/keep_rule.h"
#include "loop/move_on_rules.h"
#include "loop/orchestrator.h"
#include "session/session.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ak {

enum class LoopState { Idle, Running, Paused, Stopping, Finished };
std::string_view to_string(LoopState s);

namespace command {
struct Pause {};     // after the current evaluation
struct Resume {};
struct Step {};      // run one experiment, then pause
struct Stop {};      // finish the current evaluation, record it, return from run()
struct Steer {
    std::optional<Steering> steering;          // replaces the whole steering when set
    std::optional<double> keep_threshold;
    std::optional<MoveOnRules> move_on;
};
struct RunSource {   // run this user-edited source as the next experiment
    std::string kernel_name;
    std::string source;
    std::string description;
};
// The last experiment becomes the best: a new Kept experiment with its source and copied metrics,
// "force keep of exp N". Refused (log line) when it is already kept or did not pass.
struct ForceKeep {};
// The last experiment, a kept one, is undone: a new Kept experiment restores the newest earlier best of
// that kernel with a different source, "force revert of exp N". Refused when the last was not kept.
struct ForceRevert {};
// Experiment N becomes the current best of its kernel: a new Kept experiment with N's source on top of
// the branch tip, "branch from exp N"; the loop continues on that kernel from it. Refused when N did
// not pass or does not exist.
struct BranchFrom {
    int experiment = 0;
};
}  // namespace command

using LoopCommand = std::variant<command::Pause, command::Resume, command::Step, command::Stop, command::Steer,
                                 command::RunSource, command::ForceKeep, command::ForceRevert,
                                 command::BranchFrom>;

class LoopObserver {
public:
    virtual ~LoopObserver() = default;
    virtual void on_state_changed(LoopState state) { (void)state; }
    virtual void on_kernel_changed(const std::string& kernel_name, const std::string& reason) {
        (void)kernel_name, (void)reason;
    }
    virtual void on_experiment_started(const std::string& kernel_name, const std::string& description) {
        (void)kernel_name, (void)description;
    }
    // Every metric: the recorded experiment and the full evaluation result. Overrides that record
    // without evaluating (force keep / revert, branch from) come here too, with a result that has no
    // timing (verdict PASS, detail "not evaluated: ...") and decision.keep true.
    virtual void on_experiment_finished(const Experiment& experiment, const EvaluationResult& result,
                                        const KeepDecision& decision) {
        (void)experiment, (void)result, (void)decision;
    }
    virtual void on_log(const std::string& line) { (void)line; }
};

// Evaluated experiments (agent proposals, user sources, measurements) count; records of overrides and
// failed proposals do not. Time is the run's time outside Paused.
struct LoopBudget {
    std::optional<int> max_experiments;                          // new experiments in this run
    // New experiments of one kernel in this run: a kernel that has had them is moved on from ("its
    // budget of N experiments in this run is spent"), so one run reaches every kernel of a session.
    std::optional<int> max_experiments_per_kernel;
    std::optional<std::chrono::steady_clock::duration> max_time;
};

struct LoopOptions {
    KeepRule keep_rule;
    MoveOnRules move_on;
    Steering steering;
    std::string playbook;        // text given to agents
    std::string contract;
    std::string timing_dtype = "fp16";
    double evaluation_timeout_s = 120;
    bool start_paused = false;
    std::string tag;                       // results.tsv's tag column for this run's experiments
    bool measure_unmeasured_best = true;   // evaluate a never-timed best first (see above)
    int max_failed_proposals_in_a_row = 20; // then the loop stops (0: never); guards unattended runs
    std::size_t max_detail_bytes = 2000;   // longer failure details are cut in results.tsv (kept whole
                                           // in memory for the agent's context)
};

class LoopController {
public:
    LoopController(Session& session, Evaluator& evaluator, std::unique_ptr<Agent> agent, LoopOptions options);
    ~LoopController();

    void add_observer(LoopObserver* observer);  // not owned; add before run()

    // Thread-safe; applied between evaluations (Pause/Stop also wake a paused loop).
    void post(LoopCommand command);

    // Runs until the budget is spent, every kernel has been moved on from, or Stop.
    void run(const LoopBudget& budget);

    LoopState state() const;
    // The kernel being worked on (empty before the first choice).
    std::string current_kernel() const;
    // Experiments evaluated by run() so far (what the budget counts).
    int experiments_run() const;
    // Every kernel's status with the current move-on rules applied and the ceiling shares this
    // controller has seen. Call from the loop's thread (an observer) or when run() has returned.
    std::vector<KernelStatus> kernel_statuses() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak
