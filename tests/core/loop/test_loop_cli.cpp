// `autokernel new`, `run` and `control`, run as a user would. Without a GPU `run` must say so and exit
// 2; with AK_RUN_SKIP_GPU_CHECK=1 and a stand-in evaluator (ak_fake_loop_worker) the loop runs end to
// end here too: budget, Ctrl-C, and control from another process.
#include "gpu/cuda_driver.h"
#include "loop/agent_factory.h"
#include "loop/control_file.h"
#include "session/session.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace ak;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Process {
    pid_t pid = -1;
    fs::path out, err;
};

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string text_of(const fs::path& p) {
    try {
        return read_file(p);
    } catch (const Error&) {
        return "";
    }
}

bool search_agent_built() {
    const auto kinds = built_agent_kinds();
    return std::find(kinds.begin(), kinds.end(), "search") != kinds.end();
}

class LoopCli : public ::testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("ak_loop_cli_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::vector<std::string> env_extra;

    void SetUp() override {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    fs::path write(const std::string& name, const std::string& text) {
        replace_durably(dir / name, text);
        return dir / name;
    }

    // `own_group`: the process leads a process group of its own, like a shell's foreground job.
    Process start(std::vector<std::string> args, const std::string& tag = "", bool own_group = false) {
        Process p{-1, dir / ("out" + tag + ".txt"), dir / ("err" + tag + ".txt")};
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, p.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, p.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> env{"XDG_CACHE_HOME=" + (dir / "cache").string(),
                                     "AK_KERNELS_DIR=" + std::string(AK_SOURCE_KERNELS_DIR)};
        env.insert(env.end(), env_extra.begin(), env_extra.end());
        for (char** e = environ; *e; ++e) {
            const std::string_view v(*e);
            if (!v.starts_with("XDG_CACHE_HOME=") && !v.starts_with("AK_KERNELS_DIR=") && !v.starts_with("AK_EVALUATOR=") &&
                !v.starts_with("AK_RUN_SKIP_GPU_CHECK="))
                env.emplace_back(*e);
        }
        std::vector<char*> envp;
        for (auto& s : env) envp.push_back(s.data());
        envp.push_back(nullptr);
        args.insert(args.begin(), AK_CLI_PATH);
        std::vector<char*> argv;
        for (auto& s : args) argv.push_back(s.data());
        argv.push_back(nullptr);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        if (own_group) {
            posix_spawnattr_setpgroup(&attr, 0);
            posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        }
        if (::posix_spawn(&p.pid, AK_CLI_PATH, &actions, &attr, argv.data(), envp.data()) != 0) p.pid = -1;
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        return p;
    }

    CliResult finish(const Process& p) {
        CliResult r;
        int status = 0;
        if (p.pid > 0) ::waitpid(p.pid, &status, 0);
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = text_of(p.out);
        r.err = text_of(p.err);
        return r;
    }

    CliResult run(std::vector<std::string> args, const std::string& tag = "") { return finish(start(std::move(args), tag)); }

    // Waits until the process's stderr contains `needle` `count` times.
    bool wait_for_err(const Process& p, const std::string& needle, int count = 1, std::chrono::seconds limit = 30s) {
        const auto end = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < end) {
            const std::string err = text_of(p.err);
            int n = 0;
            for (auto at = err.find(needle); at != std::string::npos; at = err.find(needle, at + 1)) ++n;
            if (n >= count) return true;
            std::this_thread::sleep_for(20ms);
        }
        return false;
    }

    void use_fake_evaluator(int delay_ms = 0) {
        env_extra = {"AK_RUN_SKIP_GPU_CHECK=1", "AK_EVALUATOR=" + std::string(AK_FAKE_LOOP_WORKER),
                     "AK_FAKE_DELAY_MS=" + std::to_string(delay_ms)};
    }
};

}  // namespace

TEST_F(LoopCli, NewCreatesASessionFromTheStartersWithUnmeasuredBaselines) {
    const CliResult r = run({"new", (dir / "s").string(), "--kernel", "rmsnorm", "--kernel", "softmax", "--shapes",
                             "rmsnorm:4096x4096,4096x8192", "--fraction", "softmax=0.3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("next: autokernel run"), std::string::npos) << r.out;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 2u);
    for (const Experiment& e : s.experiments()) {
        EXPECT_EQ(e.outcome, Outcome::Baseline);
        EXPECT_EQ(e.description, "starter (not yet evaluated)");
        EXPECT_FALSE(e.latency_us);
    }
    EXPECT_EQ(s.source_of(s.experiments()[0]), read_file(fs::path(AK_SOURCE_KERNELS_DIR) / "cuda" / "rmsnorm.cu"));
    EXPECT_EQ(s.experiments()[1].kernel_file, "kernels/softmax.cu");
    ASSERT_EQ(s.info().kernels.size(), 2u);
    EXPECT_EQ(s.info().kernels[0].name, "rmsnorm");
    EXPECT_EQ(s.info().kernels[0].shapes, "4096x4096,4096x8192");
    EXPECT_DOUBLE_EQ(s.info().kernels[1].model_fraction, 0.3);
    if (!cuda_driver().loaded()) {
        EXPECT_EQ(s.info().gpu, "none");
    }
    EXPECT_FALSE(s.info().cuda_version.empty());
}

TEST_F(LoopCli, NewNamesKernelsOfTheSameTypeAfterTheirFiles) {
    const std::string src = read_file(fs::path(AK_SOURCE_KERNELS_DIR) / "cuda" / "rmsnorm.cu");
    const fs::path a = write("rms_wide.cu", src), b = write("rms_narrow.cu", src + "// variant\n");
    const CliResult r = run({"new", (dir / "s").string(), "--kernel", "rmsnorm=" + a.string(), "--kernel",
                             "rmsnorm=" + b.string(), "--kernel", "rotary", "--fraction", "rms_wide=0.5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.info().kernels.size(), 3u);
    EXPECT_EQ(s.info().kernels[0].name, "rms_wide");
    EXPECT_EQ(s.info().kernels[1].name, "rms_narrow");
    EXPECT_EQ(s.info().kernels[2].name, "rotary_embedding");  // the alias names the canonical type
    EXPECT_EQ(s.source_of(s.experiments()[1]), src + "// variant\n");
}

TEST_F(LoopCli, NewRejectsWhatItCannotUse) {
    const std::string s = (dir / "s").string();
    const std::string rms = read_file(fs::path(AK_SOURCE_KERNELS_DIR) / "cuda" / "rmsnorm.cu");
    CliResult r = run({"new", s});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("at least one --kernel"), std::string::npos) << r.err;
    r = run({"new", s, "--kernel", "convolution"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown kernel type 'convolution'"), std::string::npos) << r.err;
    r = run({"new", s, "--kernel", "softmax=" + write("x.cu", rms).string()});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("declares type rmsnorm, not softmax"), std::string::npos) << r.err;
    r = run({"new", s, "--kernel", "rmsnorm", "--kernel", "rmsnorm"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("two kernels of type rmsnorm"), std::string::npos) << r.err;
    r = run({"new", s, "--kernel", "rmsnorm", "--kernel", "softmax", "--fraction", "rmsnorm=0.7", "--fraction", "softmax=0.5"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("add up to 1.2"), std::string::npos) << r.err;
    r = run({"new", s, "--kernel", "rmsnorm", "--shapes", "rmsnorm:4096"});
    EXPECT_EQ(r.exit_code, 64) << r.err;
    r = run({"new", s, "--kernel", "rmsnorm=" + (dir / "missing.cu").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("missing.cu"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(s)) << "nothing is created when the arguments are wrong";

    fs::create_directories(s);
    write("s/occupied.txt", "x");
    r = run({"new", s, "--kernel", "rmsnorm"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("not an empty folder"), std::string::npos) << r.err;
}

TEST_F(LoopCli, RunUsageErrorsComeFirst) {
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    const std::string s = (dir / "s").string();
    CliResult r = run({"run"});
    EXPECT_EQ(r.exit_code, 64);
    r = run({"run", s, "--budget", "0"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--budget takes a positive whole number"), std::string::npos) << r.err;
    r = run({"run", s, "--kernel-budget", "none"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--kernel-budget takes a positive whole number of experiments per kernel"), std::string::npos)
        << r.err;
    r = run({"run", s, "--threshold", "2"});
    EXPECT_EQ(r.exit_code, 64);
    r = run({"run", s, "--dtype", "fp64"});
    EXPECT_EQ(r.exit_code, 64);
    r = run({"run", s, "--hours", "-1"});
    EXPECT_EQ(r.exit_code, 64);
    r = run({"run", s, "--agent", "oracle"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown agent 'oracle'"), std::string::npos) << r.err;
}

TEST_F(LoopCli, RunWithoutAGpuSaysSoAndExits2) {
    if (cuda_driver().loaded()) GTEST_SKIP() << "this machine has a GPU driver";
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    const CliResult r = run({"run", (dir / "s").string(), "--budget", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no GPU available"), std::string::npos) << r.err;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    EXPECT_EQ(s.experiments().size(), 1u);
}

TEST_F(LoopCli, ControlNeedsARunningLoop) {
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    const std::string s = (dir / "s").string();
    CliResult r = run({"control", s, "pause"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no `autokernel run` is working on"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(control_file_path(s)));
    r = run({"control", s, "explode"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown command"), std::string::npos) << r.err;
    r = run({"control", (dir / "nowhere").string(), "stop"});
    EXPECT_EQ(r.exit_code, 1);

    // While a writer holds the session (here this test), the command is written for it.
    const Session writer = Session::open(s);
    r = run({"control", s, "branch-from", "0"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(text_of(control_file_path(s)), "branch-from 0\n");
}

TEST_F(LoopCli, RunMeasuresTheStarterThenRunsTheAgentWithinTheBudget) {
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    use_fake_evaluator();
    const CliResult r = run({"run", (dir / "s").string(), "--budget", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("3 experiments in this run"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Amdahl projection"), std::string::npos) << r.out;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 4u);
    EXPECT_EQ(s.experiments()[1].agent, "measure");
    EXPECT_EQ(s.experiments()[1].outcome, Outcome::Baseline);
    EXPECT_DOUBLE_EQ(s.experiments()[1].latency_us.value_or(0), 100.0);
    EXPECT_EQ(s.experiments()[1].tag.rfind("run-", 0), 0u);
}

TEST_F(LoopCli, AKernelBudgetReachesEveryKernelInOneRun) {
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm", "--kernel", "softmax"}).exit_code, 0);
    use_fake_evaluator();
    const CliResult r = run({"run", (dir / "s").string(), "--kernel-budget", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("4 experiments in this run"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("moved on from: its budget of 2 experiments in this run is spent"), std::string::npos) << r.err;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 6u);
    int rmsnorm = 0, softmax = 0;
    for (std::size_t i = 2; i < 6; ++i) {
        rmsnorm += s.experiments()[i].kernel_file == "kernels/rmsnorm.cu";
        softmax += s.experiments()[i].kernel_file == "kernels/softmax.cu";
    }
    EXPECT_EQ(rmsnorm, 2);
    EXPECT_EQ(softmax, 2);
}

TEST_F(LoopCli, CtrlCFinishesTheCurrentEvaluationRecordsItAndExits0) {
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    use_fake_evaluator(1500);
    const Process p = start({"run", (dir / "s").string()});
    ASSERT_TRUE(wait_for_err(p, "evaluating rmsnorm")) << text_of(p.err);
    ::kill(p.pid, SIGINT);
    const CliResult r = finish(p);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("interrupted: stopping after the current evaluation"), std::string::npos) << r.err;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 2u);  // the in-flight measurement was recorded, nothing more started
    EXPECT_EQ(s.experiments()[1].correctness, Correctness::Pass);
}

TEST_F(LoopCli, CtrlCInATerminalReachesTheWholeJobYetTheEvaluationFinishes) {
    // A terminal sends SIGINT to every process of the foreground job; the evaluator worker is kept out
    // of it, so the in-flight evaluation is not turned into a crash.
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    use_fake_evaluator(1500);
    const Process p = start({"run", (dir / "s").string()}, "", /*own_group=*/true);
    ASSERT_TRUE(wait_for_err(p, "evaluating rmsnorm")) << text_of(p.err);
    std::this_thread::sleep_for(200ms);  // the worker is running the evaluation
    ::kill(-p.pid, SIGINT);
    const CliResult r = finish(p);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const Session s = Session::open(dir / "s", OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 2u);
    EXPECT_EQ(s.experiments()[1].correctness, Correctness::Pass) << s.experiments()[1].detail;
}

TEST_F(LoopCli, ControlPausesStepsAndStopsARunFromAnotherProcess) {
    if (!search_agent_built()) GTEST_SKIP() << "the search agent is not built yet";
    ASSERT_EQ(run({"new", (dir / "s").string(), "--kernel", "rmsnorm"}).exit_code, 0);
    use_fake_evaluator(100);
    const std::string s = (dir / "s").string();
    const Process p = start({"run", s, "--start-paused"}, "-run");
    ASSERT_TRUE(wait_for_err(p, "state: paused")) << text_of(p.err);
    ASSERT_EQ(run({"control", s, "step"}, "-c1").exit_code, 0);
    ASSERT_TRUE(wait_for_err(p, "state: paused", 2)) << text_of(p.err);
    EXPECT_EQ(Session::open(s, OpenOptions{.read_only = true}).experiments().size(), 2u);
    ASSERT_EQ(run({"control", s, "stop"}, "-c2").exit_code, 0);
    const CliResult r = finish(p);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Session::open(s, OpenOptions{.read_only = true}).experiments().size(), 2u);
    EXPECT_FALSE(fs::exists(control_file_path(s)));
}
