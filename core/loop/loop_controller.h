#pragma once
// The optimization loop: propose -> evaluate (isolated) -> keep or revert -> record (commit + row).
//
// run() blocks the calling thread (a worker thread in the GUI, the main thread in the CLI). Commands
// come in through a thread-safe queue from any thread and are applied between evaluations; events go
// out through LoopObserver on the loop's thread.
#include "loop/agent.h"
#include "loop/evaluator.h"
#include "loop/keep_rule.h"
#include "loop/move_on_rules.h"
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
struct ForceKeep {};     // the last experiment becomes the best (recorded as a new kept experiment)
struct ForceRevert {};   // the best before the last kept experiment comes back (likewise recorded)
struct BranchFrom {      // experiment N becomes the current best of its kernel; the loop continues from it
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
    // Every metric: the recorded experiment and the full evaluation result.
    virtual void on_experiment_finished(const Experiment& experiment, const EvaluationResult& result,
                                        const KeepDecision& decision) {
        (void)experiment, (void)result, (void)decision;
    }
    virtual void on_log(const std::string& line) { (void)line; }
};

struct LoopBudget {
    std::optional<int> max_experiments;                          // new experiments in this run
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

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak
