// ak_loop_runner SESSION BUDGET [DELAY_MS]: runs the LoopController on a session with the scripted
// evaluator (which sleeps DELAY_MS per evaluation) and a deterministic agent. The kill -9 test starts it,
// kills it at random moments and restarts it.
//
// The agent's k-th candidate of a kernel (k counted from the session's history, so a restarted runner
// continues where the last one stopped) carries "// id <kernel>-<k>": a lost or duplicated experiment
// shows as a gap or a repeat in those ids. Every third candidate is slower (reverted), every seventh
// fails; the others are 3 % faster than the one before.
//
// stdout: "ready" once the session is open, then "recorded <number>" per experiment, each one write().
#include "loop/loop_controller.h"
#include "loop_test_support.h"
#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

namespace {

void say(const std::string& line) {
    const std::string text = line + "\n";
    (void)!::write(STDOUT_FILENO, text.data(), text.size());
}

class CountingAgent : public ak::Agent {
public:
    std::string name() const override { return "runner"; }
    ak::Proposal propose(const ak::AgentContext& c) override {
        int k = 1;
        for (const ak::Experiment& e : c.history) k += e.agent == "runner";
        const std::string id = c.kernel.name + "-" + std::to_string(k);
        const std::string verdict = k % 7 == 0 ? "FAIL" : "PASS";
        const double latency = k % 3 == 0 ? 1000.0 : 100.0 * std::pow(0.97, k);
        return ak::testing::proposal(ak::testing::candidate(latency, id, verdict), "candidate " + id);
    }
};

class Printer : public ak::LoopObserver {
public:
    void on_experiment_finished(const ak::Experiment& e, const ak::EvaluationResult&, const ak::KeepDecision&) override {
        say("recorded " + std::to_string(e.number));
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: ak_loop_runner SESSION BUDGET [DELAY_MS]\n";
        return 64;
    }
    try {
        ak::Session session = ak::Session::open(argv[1]);
        say("ready");
        ak::testing::ScriptedEvaluator evaluator;
        if (argc > 3) evaluator.set_delay(std::chrono::milliseconds(ak::parse_int(argv[3]).value_or(0)));
        ak::LoopOptions options;
        options.move_on = ak::MoveOnRules{0, 0, 0, 0};  // stay on the first kernel
        ak::LoopController controller(session, evaluator, std::make_unique<CountingAgent>(), options);
        Printer printer;
        controller.add_observer(&printer);
        ak::LoopBudget budget;
        budget.max_experiments = static_cast<int>(ak::parse_int(argv[2]).value_or(1));
        controller.run(budget);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "ak_loop_runner: " << e.what() << "\n";
        return 1;
    }
}
