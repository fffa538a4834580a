// LoopController with a scripted evaluator and a scripted agent on real sessions (git + results.tsv).
#include "loop/loop_controller.h"
#include "loop_test_support.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

using namespace ak;
using namespace ak::testing;
using namespace std::chrono_literals;

namespace {

struct Fixture {
    TempDir tmp;
    Session session;
    ScriptedEvaluator evaluator;
    std::shared_ptr<ScriptedAgent::Shared> agent = std::make_shared<ScriptedAgent::Shared>();
    RecordingObserver observer;

    explicit Fixture(std::vector<KernelEntry> kernels = {kernel("rmsnorm")}, double starter = 100.0, bool measured = true)
        : session(make_session(tmp / "s", kernels, starter, measured)) {}

    std::unique_ptr<LoopController> controller(LoopOptions options = {}) {
        auto c = std::make_unique<LoopController>(session, evaluator, std::make_unique<ScriptedAgent>(agent),
                                                  std::move(options));
        c->add_observer(&observer);
        return c;
    }
    void script(std::vector<Proposal> proposals) {
        std::lock_guard lock(agent->mutex);
        agent->script = std::move(proposals);
        agent->next = 0;
    }
    std::vector<AgentContext> contexts() {
        std::lock_guard lock(agent->mutex);
        return agent->contexts;
    }
    const Experiment& exp(int n) { return session.experiments().at(static_cast<std::size_t>(n)); }
    std::string work_tree(const std::string& kernel = "rmsnorm") {
        return read_file(session.dir() / Session::kernel_file_of(kernel));
    }
};

// An agent fallback whose n-th proposal runs at 99 - n us: each one about 1 % faster than the last.
std::function<Proposal(const AgentContext&)> faster_each_time(const std::string& description) {
    return [description, n = 0](const AgentContext&) mutable {
        const int k = n++;
        return proposal(candidate(99 - k, std::to_string(k)), description);
    };
}

LoopBudget budget(int n) {
    LoopBudget b;
    b.max_experiments = n;
    return b;
}

}  // namespace

TEST(LoopController, PassingFasterCandidateIsKeptAndTheBranchAdvances) {
    Fixture f;
    const std::string starter = f.session.source_of(f.exp(0));
    f.script({proposal(candidate(90, "a"), "unroll the row loop")});
    auto c = f.controller();
    c->run(budget(1));

    ASSERT_EQ(f.session.experiments().size(), 2u);
    const Experiment& e = f.exp(1);
    EXPECT_EQ(e.outcome, Outcome::Kept);
    EXPECT_EQ(e.correctness, Correctness::Pass);
    EXPECT_EQ(e.description, "unroll the row loop");
    EXPECT_EQ(e.agent, "scripted");
    EXPECT_EQ(e.kernel_file, "kernels/rmsnorm.cu");
    EXPECT_DOUBLE_EQ(*e.latency_us, 90.0);
    EXPECT_DOUBLE_EQ(*e.latency_iqr_us, 0.5);
    EXPECT_DOUBLE_EQ(*e.speedup_vs_pytorch, 120.0 / 90.0);
    EXPECT_EQ(e.bound, Bound::Memory);
    EXPECT_TRUE(e.duration_s.has_value());
    EXPECT_EQ(e.started_utc.size(), 20u);
    EXPECT_NE(e.detail.find("kept: +11.1%"), std::string::npos) << e.detail;
    EXPECT_EQ(f.session.branch_tip(), e.commit);
    EXPECT_EQ(f.work_tree(), candidate(90, "a"));
    EXPECT_EQ(f.session.best_of("kernels/rmsnorm.cu")->number, 1);

    // The best was re-timed in the same run.
    const auto requests = f.evaluator.requests();
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_EQ(requests[0].type, KernelType::RmsNorm);
    EXPECT_EQ(requests[0].source, candidate(90, "a"));
    EXPECT_EQ(requests[0].reference_source.value_or(""), starter);
    EXPECT_EQ(requests[0].timing_dtype, DType::fp16);
    // The agent saw the starter as the best.
    const auto contexts = f.contexts();
    ASSERT_EQ(contexts.size(), 1u);
    EXPECT_EQ(contexts[0].best_source, starter);
    EXPECT_EQ(contexts[0].best->number, 0);
    EXPECT_EQ(contexts[0].kernel.name, "rmsnorm");
    EXPECT_NE(contexts[0].roofline.find("100.00 us"), std::string::npos) << contexts[0].roofline;
    EXPECT_EQ(f.agent->observed.at(0), std::make_pair(std::string("unroll the row loop"), Outcome::Kept));
}

TEST(LoopController, EveryTimedShapeIsRecordedInTheExperimentsCommit) {
    Fixture f;
    f.script({proposal(candidate(90, "a"), "two shapes"), proposal(candidate(50, "f", "FAIL"), "wrong")});
    f.controller()->run(budget(2));
    ASSERT_EQ(f.session.experiments().size(), 3u);
    // The scripted evaluator times 4096x4096 and 4096x8192 at fp16.
    const RecordedTimings kept = f.session.timings_of(f.exp(1));
    EXPECT_TRUE(kept.recorded);
    EXPECT_TRUE(kept.problems.empty());
    ASSERT_EQ(kept.shapes.size(), 2u);
    EXPECT_EQ(kept.shapes[0].shape, "4096x4096");
    EXPECT_EQ(kept.shapes[1].shape, "4096x8192");
    EXPECT_EQ(kept.shapes[1].dtype, "fp16");
    EXPECT_DOUBLE_EQ(*kept.shapes[1].median_us, 90.0);
    EXPECT_DOUBLE_EQ(*kept.shapes[1].baseline_median_us, 120.0);
    EXPECT_DOUBLE_EQ(*kept.shapes[1].speedup, 120.0 / 90.0);
    EXPECT_EQ(kept.shapes[1].baseline_name, "at::rms_norm");
    EXPECT_EQ(kept.shapes[1].bound, "memory");
    EXPECT_FALSE(kept.shapes[1].tflops) << "0 TFLOP/s from the evaluator means not measured";
    // A failed candidate was evaluated but timed nothing: recorded, with no shapes.
    const RecordedTimings failed = f.session.timings_of(f.exp(2));
    EXPECT_TRUE(failed.recorded);
    EXPECT_TRUE(failed.shapes.empty());
}

TEST(LoopController, SlowerCandidateIsRevertedAndTheBestStays) {
    Fixture f;
    const std::string starter_commit = f.session.branch_tip();
    f.script({proposal(candidate(110, "slow"), "bigger blocks")});
    f.controller()->run(budget(1));
    const Experiment& e = f.exp(1);
    EXPECT_EQ(e.outcome, Outcome::Reverted);
    EXPECT_NE(e.detail.find("reverted"), std::string::npos) << e.detail;
    EXPECT_EQ(f.session.branch_tip(), starter_commit);
    EXPECT_EQ(f.session.source_of(e), candidate(110, "slow"));  // the candidate is still in git
    EXPECT_EQ(f.work_tree(), candidate(100, "starter rmsnorm"));
}

TEST(LoopController, FailuresAreRecordedAndTheLoopGoesOn) {
    Fixture f;
    f.script({proposal(candidate(50, "f", "FAIL"), "wrong reduction"),
              proposal(candidate(50, "t", "TIMEOUT"), "infinite loop"),
              proposal(candidate(50, "c", "CRASH"), "out of bounds"),
              proposal(candidate(50, "e", "COMPILE_ERROR"), "typo"),
              proposal(candidate(80, "ok"), "correct and faster")});
    f.controller()->run(budget(5));
    ASSERT_EQ(f.session.experiments().size(), 6u);
    const Correctness expected[] = {Correctness::Fail, Correctness::Timeout, Correctness::Crash, Correctness::Fail};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(f.exp(i + 1).outcome, Outcome::Failed) << i;
        EXPECT_EQ(f.exp(i + 1).correctness, expected[i]) << i;
        EXPECT_FALSE(f.exp(i + 1).latency_us) << i;
    }
    EXPECT_NE(f.exp(1).detail.find("FAIL at sweep: 1024x4096 bf16 max abs err"), std::string::npos) << f.exp(1).detail;
    EXPECT_NE(f.exp(4).detail.find("identifier \"x\" is undefined"), std::string::npos) << f.exp(4).detail;
    EXPECT_EQ(f.exp(5).outcome, Outcome::Kept);
    // The last proposal's context carried the failures' details, keyed by experiment number.
    const AgentContext last = f.contexts().back();
    ASSERT_EQ(last.failure_details.size(), 4u);
    EXPECT_NE(last.failure_details.at(2).find("TIMEOUT"), std::string::npos);
    EXPECT_NE(last.failure_details.at(4).find("compile log (fp16)"), std::string::npos);
    EXPECT_EQ(last.history.size(), 5u);
}

TEST(LoopController, PauseDuringAnEvaluationTakesEffectAfterItIsRecorded) {
    Fixture f;
    f.agent->fallback = faster_each_time("next");
    auto c = f.controller();
    f.evaluator.hold();
    std::thread loop([&] { c->run(LoopBudget{}); });
    ASSERT_TRUE(f.evaluator.wait_in_flight());
    c->post(command::Pause{});
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(c->state(), LoopState::Running);  // not applied mid-evaluation
    EXPECT_EQ(f.session.experiments().size(), 1u);
    f.evaluator.release();
    ASSERT_TRUE(f.observer.wait_for("state paused"));
    std::this_thread::sleep_for(100ms);  // a paused loop starts nothing
    EXPECT_EQ(f.evaluator.requests().size(), 1u);
    EXPECT_EQ(c->experiments_run(), 1);

    // Step: one more experiment, then paused again.
    c->post(command::Step{});
    ASSERT_TRUE(f.observer.wait_for("state paused", 2));
    EXPECT_EQ(c->experiments_run(), 2);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(f.evaluator.requests().size(), 2u);

    c->post(command::Stop{});
    loop.join();
    EXPECT_EQ(c->state(), LoopState::Finished);
    EXPECT_EQ(f.session.experiments().size(), 3u);
    // The in-flight experiment finished before the loop paused.
    const auto events = f.observer.events();
    const auto finished = std::find(events.begin(), events.end(), "finished 1 kept: " + f.observer.finished()[0].detail);
    const auto paused = std::find(events.begin(), events.end(), "state paused");
    EXPECT_LT(finished, paused);
}

TEST(LoopController, StopDuringAnEvaluationRecordsItAndReturns) {
    Fixture f;
    f.agent->fallback = [](const AgentContext&) { return proposal(candidate(95, "x"), "try"); };
    auto c = f.controller();
    f.evaluator.hold();
    std::thread loop([&] { c->run(LoopBudget{}); });
    ASSERT_TRUE(f.evaluator.wait_in_flight());
    c->post(command::Stop{});
    f.evaluator.release();
    loop.join();
    EXPECT_EQ(f.session.experiments().size(), 2u);
    EXPECT_EQ(f.evaluator.requests().size(), 1u);
    const auto states = f.observer.matching("state ");
    EXPECT_EQ(states, (std::vector<std::string>{"state running", "state stopping", "state finished"}));
}

TEST(LoopController, StartPausedWaitsForResume) {
    Fixture f;
    f.script({proposal(candidate(90, "a"), "one")});
    LoopOptions options;
    options.start_paused = true;
    auto c = f.controller(options);
    std::thread loop([&] { c->run(budget(1)); });
    ASSERT_TRUE(f.observer.wait_for("state paused"));
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(f.evaluator.requests().empty());
    c->post(command::Resume{});
    loop.join();
    EXPECT_EQ(f.session.experiments().size(), 2u);
}

TEST(LoopController, SteeredThresholdChangesTheDecision) {
    Fixture f;
    f.script({proposal(candidate(95, "a"), "5% faster"), proposal(candidate(95, "b"), "5% faster again")});
    auto c = f.controller();
    command::Steer strict;
    strict.keep_threshold = 0.10;
    c->post(strict);
    c->run(budget(1));
    EXPECT_EQ(f.exp(1).outcome, Outcome::Reverted);
    EXPECT_NE(f.exp(1).detail.find("10.0% threshold"), std::string::npos) << f.exp(1).detail;

    command::Steer lenient;
    lenient.keep_threshold = 0.01;
    c->post(lenient);
    c->run(budget(1));
    EXPECT_EQ(f.exp(2).outcome, Outcome::Kept);
}

TEST(LoopController, SteeringDuringAnEvaluationAppliesToTheNextOne) {
    Fixture f;
    f.script({proposal(candidate(95, "a"), "first"), proposal(candidate(95, "b"), "second")});
    auto c = f.controller();
    f.evaluator.hold();
    std::thread loop([&] { c->run(budget(2)); });
    ASSERT_TRUE(f.evaluator.wait_in_flight());
    command::Steer strict;
    strict.keep_threshold = 0.10;
    c->post(strict);
    f.evaluator.release();
    loop.join();
    EXPECT_EQ(f.exp(1).outcome, Outcome::Kept);      // decided with the 1 % in force when it started
    EXPECT_EQ(f.exp(2).outcome, Outcome::Reverted);  // 10 % from then on
}

TEST(LoopController, SteeringATargetKernelMovesTheLoopThere) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.agent->fallback = [](const AgentContext& c) { return proposal(candidate(120, c.kernel.name), "slower"); };
    auto c = f.controller();
    c->run(budget(1));
    EXPECT_EQ(f.exp(2).kernel_file, "kernels/rmsnorm.cu");  // equal priority: the first kernel

    command::Steer steer;
    steer.steering = Steering{};
    steer.steering->target_kernel = "softmax";
    steer.steering->hint = "use warp shuffles";
    c->post(steer);
    c->run(budget(2));
    EXPECT_EQ(f.exp(3).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.exp(4).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.exp(3).kernel_type, "softmax");
    EXPECT_EQ(f.evaluator.requests().back().type, KernelType::Softmax);
    EXPECT_EQ(f.contexts().back().steering.hint, "use warp shuffles");
    EXPECT_EQ(c->current_kernel(), "softmax");
    EXPECT_EQ(f.observer.matching("kernel softmax: steered by the user").size(), 1u);
}

TEST(LoopController, SteeringAnUnknownKernelIsIgnoredWithALogLine) {
    Fixture f;
    f.script({proposal(candidate(90, "a"), "x")});
    auto c = f.controller();
    command::Steer steer;
    steer.steering = Steering{};
    steer.steering->target_kernel = "nope";
    c->post(steer);
    c->run(budget(1));
    EXPECT_EQ(f.exp(1).kernel_file, "kernels/rmsnorm.cu");
    EXPECT_EQ(f.observer.matching("log steering names no kernel 'nope'").size(), 1u);
}

TEST(LoopController, RunSourceEvaluatesTheUsersSourceNext) {
    Fixture f;
    f.script({proposal(candidate(99.9, "agent"), "agent idea")});
    auto c = f.controller();
    c->post(command::RunSource{"rmsnorm", candidate(70, "mine"), "my hand-written version"});
    c->run(budget(2));
    const Experiment& user = f.exp(1);
    EXPECT_EQ(user.agent, "user");
    EXPECT_EQ(user.description, "my hand-written version");
    EXPECT_EQ(user.outcome, Outcome::Kept);
    EXPECT_EQ(f.session.source_of(user), candidate(70, "mine"));
    EXPECT_EQ(f.exp(2).agent, "scripted");
    // The agent built on the user's source and heard about it.
    EXPECT_EQ(f.contexts().front().best_source, candidate(70, "mine"));
    EXPECT_EQ(f.agent->observed.front(), std::make_pair(std::string("my hand-written version"), Outcome::Kept));
}

TEST(LoopController, ForceKeepRecordsANewKeptExperimentWithTheLastSource) {
    Fixture f;
    f.script({proposal(candidate(100.2, "same"), "no gain")});
    auto c = f.controller();
    c->run(budget(1));
    ASSERT_EQ(f.exp(1).outcome, Outcome::Reverted);
    c->post(command::ForceKeep{});
    c->run(budget(0));
    ASSERT_EQ(f.session.experiments().size(), 3u);
    const Experiment& forced = f.exp(2);
    EXPECT_EQ(forced.outcome, Outcome::Kept);
    EXPECT_EQ(forced.agent, "user");
    EXPECT_EQ(forced.description, "force keep of exp 1");
    EXPECT_DOUBLE_EQ(*forced.latency_us, 100.2);  // metrics copied
    EXPECT_EQ(f.session.source_of(forced), candidate(100.2, "same"));
    EXPECT_EQ(f.session.branch_tip(), forced.commit);
    EXPECT_EQ(f.work_tree(), candidate(100.2, "same"));
    EXPECT_EQ(f.exp(1).outcome, Outcome::Reverted);  // history is not rewritten
    EXPECT_EQ(f.observer.matching("finished 2 kept: forced by the user").size(), 1u);

    // Forcing again has nothing to do.
    c->post(command::ForceKeep{});
    c->run(budget(0));
    EXPECT_EQ(f.session.experiments().size(), 3u);
    EXPECT_EQ(f.observer.matching("log force keep: experiment 2 is already kept").size(), 1u);
}

TEST(LoopController, ForceKeepOfAFailedExperimentIsRefused) {
    Fixture f;
    f.script({proposal(candidate(10, "bad", "FAIL"), "broken")});
    auto c = f.controller();
    c->run(budget(1));
    c->post(command::ForceKeep{});
    c->run(budget(0));
    EXPECT_EQ(f.session.experiments().size(), 2u);
    EXPECT_EQ(f.observer.matching("log force keep refused: experiment 1 did not pass (FAIL)").size(), 1u);
}

TEST(LoopController, ForceRevertRestoresThePreviousBest) {
    Fixture f;
    f.script({proposal(candidate(80, "better"), "kept one")});
    auto c = f.controller();
    c->run(budget(1));
    ASSERT_EQ(f.exp(1).outcome, Outcome::Kept);
    c->post(command::ForceRevert{});
    c->run(budget(0));
    ASSERT_EQ(f.session.experiments().size(), 3u);
    const Experiment& revert = f.exp(2);
    EXPECT_EQ(revert.outcome, Outcome::Kept);
    EXPECT_EQ(revert.description, "force revert of exp 1");
    EXPECT_EQ(f.session.source_of(revert), candidate(100, "starter rmsnorm"));
    EXPECT_DOUBLE_EQ(*revert.latency_us, 100.0);  // the starter's metrics
    EXPECT_EQ(f.work_tree(), candidate(100, "starter rmsnorm"));
    EXPECT_EQ(f.session.best_of("kernels/rmsnorm.cu")->number, 2);

    // The last experiment is now the revert itself; reverting again brings experiment 1 back.
    c->post(command::ForceRevert{});
    c->run(budget(0));
    EXPECT_EQ(f.session.source_of(f.exp(3)), candidate(80, "better"));
}

TEST(LoopController, ForceRevertOfANotKeptExperimentIsRefused) {
    Fixture f;
    f.script({proposal(candidate(120, "slow"), "slower")});
    auto c = f.controller();
    c->run(budget(1));
    c->post(command::ForceRevert{});
    c->run(budget(0));
    EXPECT_EQ(f.session.experiments().size(), 2u);
    EXPECT_EQ(f.observer.matching("log force revert refused: the last experiment (1) is reverted").size(), 1u);
}

TEST(LoopController, BranchFromMakesAnEarlierExperimentTheBestForTheNextProposal) {
    Fixture f;
    f.script({proposal(candidate(90, "one"), "first"), proposal(candidate(80, "two"), "second"),
              proposal(candidate(85, "three"), "third")});
    auto c = f.controller();
    c->run(budget(2));
    ASSERT_EQ(f.exp(2).outcome, Outcome::Kept);
    c->post(command::BranchFrom{1});
    c->run(budget(1));
    ASSERT_EQ(f.session.experiments().size(), 5u);
    const Experiment& branch = f.exp(3);
    EXPECT_EQ(branch.description, "branch from exp 1");
    EXPECT_EQ(branch.outcome, Outcome::Kept);
    EXPECT_EQ(branch.agent, "user");
    EXPECT_EQ(branch.parent_commit, f.exp(2).commit);  // on top of the branch tip: append-only
    EXPECT_EQ(f.session.source_of(branch), candidate(90, "one"));
    // The next proposal built on experiment 1's source, and was compared against it.
    const AgentContext context = f.contexts().back();
    EXPECT_EQ(context.best_source, candidate(90, "one"));
    EXPECT_EQ(context.best->number, 3);
    EXPECT_EQ(f.evaluator.requests().back().reference_source.value_or(""), candidate(90, "one"));
    EXPECT_EQ(f.exp(4).outcome, Outcome::Kept);  // 85 beats 90
}

TEST(LoopController, BranchFromAFailedOrMissingExperimentIsRefused) {
    Fixture f;
    f.script({proposal(candidate(90, "x", "CRASH"), "crashes")});
    auto c = f.controller();
    c->run(budget(1));
    c->post(command::BranchFrom{1});
    c->post(command::BranchFrom{42});
    c->run(budget(0));
    EXPECT_EQ(f.session.experiments().size(), 2u);
    EXPECT_EQ(f.observer.matching("log branch from refused: experiment 1 did not pass (CRASH)").size(), 1u);
    EXPECT_EQ(f.observer.matching("log branch from refused: there is no experiment 42").size(), 1u);
}

TEST(LoopController, FiveRevertsInARowMoveTheLoopToTheNextKernel) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.agent->fallback = [](const AgentContext& c) { return proposal(candidate(150, c.kernel.name), "slower"); };
    f.controller()->run(budget(7));
    for (int i = 2; i < 7; ++i) EXPECT_EQ(f.exp(i).kernel_file, "kernels/rmsnorm.cu") << i;
    EXPECT_EQ(f.exp(7).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.exp(8).kernel_file, "kernels/softmax.cu");
    const auto changes = f.observer.matching("kernel ");
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].rfind("kernel rmsnorm: rmsnorm has the highest priority", 0), 0u) << changes[0];
    EXPECT_NE(changes[1].find("rmsnorm moved on from: 5 reverts in a row"), std::string::npos) << changes[1];
}

TEST(LoopController, ReachingTheSpeedupTargetMovesOn) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.script({proposal(candidate(49, "fast"), "2x faster"), proposal(candidate(99, "s"), "softmax idea")});
    f.controller()->run(budget(2));
    EXPECT_EQ(f.exp(3).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.observer.matching("kernel softmax: rmsnorm moved on from: 2.04x over the starter").size(), 1u);
}

TEST(LoopController, ReachingTheCeilingMovesOn) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.script({proposal(candidate(95, "near", "PASS", 0.5, 93.0), "near the copy ceiling"),
              proposal(candidate(99, "s"), "softmax idea")});
    auto c = f.controller();
    c->run(budget(2));
    EXPECT_EQ(f.exp(3).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.observer.matching("kernel softmax: rmsnorm moved on from: best reached 93.0% of its ceiling").size(), 1u);
    const auto statuses = c->kernel_statuses();
    EXPECT_TRUE(statuses[0].moved_on);
    EXPECT_DOUBLE_EQ(*statuses[0].progress.best_pct_of_ceiling, 93.0);
}

TEST(LoopController, HoursSpentOnAKernelMoveOn) {
    TempDir tmp;
    SessionInfo info;
    info.gpu = "none";
    Experiment spent;  // the starter took 2.5 h of evaluation (say, imported)
    spent.latency_us = 100;
    spent.duration_s = 2.5 * 3600;
    Session session = Session::create(tmp / "s", info,
                                      {{kernel("rmsnorm"), candidate(100, "r")}, {kernel("softmax", "softmax"), candidate(100, "s")}},
                                      {spent, Experiment{.latency_us = 100}});
    ScriptedEvaluator evaluator;
    auto shared = std::make_shared<ScriptedAgent::Shared>();
    shared->fallback = [](const AgentContext& c) { return proposal(candidate(99, c.kernel.name), "x"); };
    RecordingObserver observer;
    LoopController c(session, evaluator, std::make_unique<ScriptedAgent>(shared), LoopOptions{});
    c.add_observer(&observer);
    c.run(budget(1));
    EXPECT_EQ(session.experiments().at(2).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(observer.matching("log rmsnorm moved on from: 2.50 hours spent on it (limit 2 h)").size(), 1u);
}

TEST(LoopController, FinishesWhenEveryKernelHasBeenMovedOnFrom) {
    Fixture f;
    f.agent->fallback = [](const AgentContext&) { return proposal(candidate(150, "s"), "slower"); };
    auto c = f.controller();
    c->run(LoopBudget{});  // no budget: the rules end it
    EXPECT_EQ(f.session.experiments().size(), 6u);
    EXPECT_EQ(c->state(), LoopState::Finished);
    EXPECT_EQ(f.observer.matching("log every kernel has been moved on from (rmsnorm: 5 reverts in a row").size(), 1u);
}

TEST(LoopController, ABoundedSearchIsNotStoppedByRevertsInARowButByExhaustion) {
    Fixture f;
    f.agent->bounded = true;
    int proposals = 0;
    // Eight slower candidates, then the agent reports that it has nothing left.
    f.agent->exhausted = [&proposals](const AgentContext&) { return proposals >= 8; };
    f.agent->fallback = [&proposals](const AgentContext&) {
        ++proposals;
        return proposal(candidate(150 + proposals, "s"), "slower");
    };
    auto c = f.controller();  // default rules: 5 reverts in a row
    c->run(LoopBudget{});
    EXPECT_EQ(f.session.experiments().size(), 9u);  // the starter's measurement and all eight reverts
    EXPECT_EQ(f.observer.matching("log rmsnorm: the scripted agent has nothing new to try").size(), 1u);
    EXPECT_EQ(f.observer.matching("log rmsnorm moved on from: the scripted agent has nothing new to try").size(), 1u);
    EXPECT_EQ(f.observer.matching("log rmsnorm moved on from: 5 reverts in a row").size(), 0u);
    EXPECT_EQ(f.observer.matching("log the scripted agent ends a kernel when it has no change left to try; the rule "
                                  "\"5 reverts in a row\" does not apply to it").size(), 1u);
}

TEST(LoopController, MoveOnRulesCanBeSteered) {
    Fixture f;
    f.agent->fallback = [](const AgentContext&) { return proposal(candidate(150, "s"), "slower"); };
    auto c = f.controller();
    command::Steer steer;
    steer.move_on = MoveOnRules{2, 0.9, 2.0, 2.0};
    c->post(steer);
    c->run(LoopBudget{});
    EXPECT_EQ(f.session.experiments().size(), 3u);
}

TEST(LoopController, FailedProposalsAreLoggedNotRecordedAndCountAsReverts) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.agent->fallback = [](const AgentContext& c) {
        if (c.kernel.name == "softmax") return proposal(candidate(90, "s"), "softmax idea");
        Proposal p;
        p.failure = "HTTP 429 Too Many Requests";
        return p;
    };
    f.controller()->run(budget(1));
    ASSERT_EQ(f.session.experiments().size(), 3u);  // five failed proposals, then softmax
    EXPECT_EQ(f.exp(2).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.observer.matching("log failed proposal for rmsnorm (agent scripted): HTTP 429").size(), 5u);
    EXPECT_EQ(f.observer.matching("started rmsnorm").size(), 0u);
}

TEST(LoopController, AnAgentThatThrowsMakesAFailedProposal) {
    Fixture f;
    f.agent->fallback = [](const AgentContext&) -> Proposal { throw std::runtime_error("malformed reply"); };
    LoopOptions options;
    options.move_on.max_consecutive_reverts = 0;
    options.max_failed_proposals_in_a_row = 3;
    f.controller(options)->run(LoopBudget{});
    EXPECT_EQ(f.session.experiments().size(), 1u);
    EXPECT_EQ(f.observer.matching("log failed proposal for rmsnorm (agent scripted): the agent threw: malformed reply").size(), 3u);
    EXPECT_EQ(f.observer.matching("log the agent failed to propose 3 times in a row").size(), 1u);
}

TEST(LoopController, AnExhaustedAgentMovesOnToTheNextKernel) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.agent->exhausted = [](const AgentContext& c) { return c.kernel.name == "rmsnorm"; };
    f.agent->fallback = [](const AgentContext& c) { return proposal(candidate(90, c.kernel.name), "idea"); };
    f.controller()->run(budget(1));
    EXPECT_EQ(f.exp(2).kernel_file, "kernels/softmax.cu");
    EXPECT_EQ(f.observer.matching("log rmsnorm: the scripted agent has nothing new to try").size(), 1u);
}

TEST(LoopController, APerKernelBudgetGivesEveryKernelItsExperimentsInOneRun) {
    Fixture f({kernel("rmsnorm"), kernel("softmax", "softmax")});
    f.agent->bounded = true;  // like the sweep: no "reverts in a row" rule, it would go on and on
    f.agent->fallback = faster_each_time("x");
    LoopBudget b;
    b.max_experiments_per_kernel = 3;
    auto c = f.controller();
    c->run(b);
    ASSERT_EQ(f.session.experiments().size(), 8u);
    for (int i = 2; i < 5; ++i) EXPECT_EQ(f.exp(i).kernel_file, "kernels/rmsnorm.cu") << i;
    for (int i = 5; i < 8; ++i) EXPECT_EQ(f.exp(i).kernel_file, "kernels/softmax.cu") << i;
    EXPECT_EQ(f.observer.matching("kernel softmax: rmsnorm moved on from: its budget of 3 experiments in this run is spent").size(), 1u);
    EXPECT_EQ(f.observer.matching("log every kernel has been moved on from (rmsnorm: its budget of 3 experiments").size(), 1u);
    EXPECT_EQ(c->state(), LoopState::Finished);
    b.max_experiments_per_kernel = 1;  // counted per run: the next run has its own
    c->run(b);
    ASSERT_EQ(f.session.experiments().size(), 10u);
    EXPECT_NE(f.exp(8).kernel_file, f.exp(9).kernel_file) << "one experiment of each kernel";
}

TEST(LoopController, BudgetLimitsTheExperimentsOfOneRun) {
    Fixture f;
    f.agent->fallback = faster_each_time("x");
    auto c = f.controller();
    c->run(budget(3));
    EXPECT_EQ(f.session.experiments().size(), 4u);
    EXPECT_EQ(f.observer.matching("log budget spent: 3 experiments").size(), 1u);
    c->run(budget(2));  // the budget counts per run
    EXPECT_EQ(f.session.experiments().size(), 6u);
}

TEST(LoopController, TimeBudgetStopsTheLoop) {
    Fixture f;
    f.evaluator.set_delay(50ms);
    f.agent->fallback = faster_each_time("x");
    LoopBudget b;
    b.max_time = 120ms;
    f.controller()->run(b);
    // Every experiment takes at least 50 ms, so at most three start within 120 ms (fewer when the
    // machine is slow to record them).
    const std::size_t n = f.session.experiments().size() - 1;
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 3u);
    EXPECT_EQ(f.observer.matching("log time budget spent").size(), 1u);
}

TEST(LoopController, ObserverReceivesEventsInOrder) {
    Fixture f;
    f.script({proposal(candidate(90, "a"), "faster"), proposal(candidate(95, "b"), "slower than 90")});
    f.controller()->run(budget(2));
    std::vector<std::string> events;
    for (const std::string& e : f.observer.events())
        if (e.rfind("log ", 0) != 0) events.push_back(e.substr(0, e.find(':')));
    EXPECT_EQ(events, (std::vector<std::string>{"state running", "kernel rmsnorm", "started rmsnorm", "finished 1 kept",
                                                "started rmsnorm", "finished 2 reverted", "state finished"}));
    const auto finished = f.observer.finished();
    ASSERT_EQ(finished.size(), 2u);
    EXPECT_EQ(finished[1], f.exp(2));  // what observers get is what was recorded
}

TEST(LoopController, AnUnmeasuredStarterIsMeasuredFirst) {
    Fixture f({kernel("rmsnorm")}, 100.0, /*measured=*/false);
    f.script({proposal(candidate(90, "a"), "faster")});
    auto c = f.controller();
    c->run(budget(2));
    ASSERT_EQ(f.session.experiments().size(), 3u);
    const Experiment& measured = f.exp(1);
    EXPECT_EQ(measured.agent, "measure");
    EXPECT_EQ(measured.outcome, Outcome::Baseline);
    EXPECT_EQ(measured.description, "measure the starter (not yet evaluated)");
    EXPECT_DOUBLE_EQ(*measured.latency_us, 100.0);
    const auto requests = f.evaluator.requests();
    EXPECT_FALSE(requests[0].reference_source);
    EXPECT_TRUE(requests[1].reference_source);
    EXPECT_EQ(f.exp(2).outcome, Outcome::Kept);
    // The measured baseline is the starter the speedup is taken against.
    EXPECT_DOUBLE_EQ(*c->kernel_statuses()[0].progress.speedup_over_starter, 100.0 / 90.0);
    // A second run does not measure again.
    f.script({proposal(candidate(85, "b"), "faster still")});
    c->run(budget(1));
    EXPECT_EQ(f.exp(3).agent, "scripted");
}

TEST(LoopController, AFailingStarterIsRecordedAndPassingCandidatesAreKeptWithoutComparison) {
    TempDir tmp;
    SessionInfo info;
    info.gpu = "none";
    Session session = Session::create(tmp / "s", info, {{kernel("rmsnorm"), candidate(10, "broken starter", "FAIL")}});
    ScriptedEvaluator evaluator;
    auto shared = std::make_shared<ScriptedAgent::Shared>();
    shared->script = {proposal(candidate(500, "slow but right"), "correct")};
    LoopController c(session, evaluator, std::make_unique<ScriptedAgent>(shared), LoopOptions{});
    c.run(budget(2));
    ASSERT_EQ(session.experiments().size(), 3u);
    EXPECT_EQ(session.experiments()[1].outcome, Outcome::Failed);
    EXPECT_EQ(session.experiments()[1].agent, "measure");
    EXPECT_FALSE(evaluator.requests()[1].reference_source);
    EXPECT_EQ(session.experiments()[2].outcome, Outcome::Kept);
}

TEST(LoopController, KernelShapesAreTheTimingShapes) {
    TempDir tmp;
    SessionInfo info;
    KernelEntry k = kernel("rmsnorm");
    k.shapes = "1024x2048,2048x2048";
    Session session = Session::create(tmp / "s", info, {{k, candidate(100, "s")}}, {Experiment{.latency_us = 100}});
    ScriptedEvaluator evaluator;
    auto shared = std::make_shared<ScriptedAgent::Shared>();
    shared->script = {proposal(candidate(90, "a"), "x")};
    LoopOptions options;
    options.timing_dtype = "bf16";
    options.evaluation_timeout_s = 33;
    LoopController c(session, evaluator, std::make_unique<ScriptedAgent>(shared), options);
    c.run(budget(1));
    const EvaluationRequest r = evaluator.requests().at(0);
    EXPECT_EQ(r.timing_shapes, (std::vector<Shape>{Shape{{1024, 2048}}, Shape{{2048, 2048}}}));
    EXPECT_EQ(r.timing_dtype, DType::bf16);
    EXPECT_EQ(r.timeout_s, 33);
    EXPECT_EQ(shared->contexts.at(0).dtype, "bf16");
}

TEST(LoopController, AReadOnlySessionStopsTheLoopAndRethrows) {
    TempDir tmp;
    { make_session(tmp / "s", {kernel("rmsnorm")}); }
    Session session = Session::open(tmp / "s", OpenOptions{.read_only = true});
    ScriptedEvaluator evaluator;
    auto shared = std::make_shared<ScriptedAgent::Shared>();
    shared->script = {proposal(candidate(90, "a"), "x")};
    RecordingObserver observer;
    LoopController c(session, evaluator, std::make_unique<ScriptedAgent>(shared), LoopOptions{});
    c.add_observer(&observer);
    try {
        c.run(budget(1));
        FAIL() << "run() returned on a read-only session";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ReadOnly);
    }
    EXPECT_EQ(c.state(), LoopState::Finished);
    EXPECT_EQ(observer.matching("log loop stopped: session").size(), 1u);
    EXPECT_EQ(session.experiments().size(), 1u);
}

TEST(LoopController, UnknownTimingDtypeIsAUsageError) {
    Fixture f;
    LoopOptions options;
    options.timing_dtype = "fp64";
    EXPECT_THROW(f.controller(options), Error);
}

TEST(LoopController, LongFailureDetailsAreCutInResultsButWholeForTheAgent) {
    Fixture f;
    std::string long_source = candidate(50, "e", "COMPILE_ERROR");
    f.script({proposal(long_source, "compile error"), proposal(candidate(99, "x"), "x")});
    LoopOptions options;
    options.max_detail_bytes = 40;
    f.controller(options)->run(budget(2));
    EXPECT_LE(f.exp(1).detail.size(), 40u + 6u);
    EXPECT_NE(f.exp(1).detail.find("[...]"), std::string::npos);
    EXPECT_NE(f.contexts().back().failure_details.at(1).find("identifier \"x\" is undefined"), std::string::npos);
}
