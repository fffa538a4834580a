// The command agent and its runner with small shell scripts: an edit, an unchanged file, a timeout
// (the process group is killed and nothing is left behind), a failing command.
#include "loop/agent_factory.h"
#include "loop/command_agent.h"
#include "loop/shell_command.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ak {
namespace {

namespace fs = std::filesystem;

const std::string kBest =
    "// @autokernel type rmsnorm\n"
    "// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per load\n"
    "extern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args args) {}\n";

class TempDir {
public:
    explicit TempDir(const std::string& name_with_maybe_space = "ak-command-test-XXXXXX") {
        std::string pattern = (fs::temp_directory_path() / name_with_maybe_space).string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

AgentContext make_context() {
    AgentContext c;
    c.kernel = KernelEntry{"rmsnorm", "rmsnorm", "4096x8192", 0.0};
    c.kernel_file = "kernels/rmsnorm.cu";
    c.best_source = kBest;
    c.playbook = "PLAYBOOK-MARK\n";
    c.contract = "CONTRACT-MARK\n";
    c.roofline = "ROOFLINE-MARK";
    c.gpu = "NVIDIA H200";
    c.steering.hint = "HINT-MARK";
    Experiment e;
    e.number = 1;
    e.outcome = Outcome::Failed;
    e.correctness = Correctness::Fail;
    e.description = "HISTORY-MARK";
    c.history.push_back(e);
    c.failure_details[1] = "FAILURE-MARK at sweep";
    return c;
}

CommandSettings settings(const std::string& command, const fs::path& root, double timeout_s = 20) {
    CommandSettings s;
    s.command_template = command;
    s.scratch_root = root;
    s.timeout_s = timeout_s;
    s.kill_grace_s = 0.5;
    return s;
}

// 'R', 'S', 'Z', ... from /proc/<pid>/stat, or 0 when the process is gone.
char process_state(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(in, text)) return 0;
    const auto close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() ? 0 : text[close + 2];
}

bool gone_or_dead(int pid) {
    // Give init a moment to reap an orphan we killed.
    for (int i = 0; i < 100; ++i) {
        const char s = process_state(pid);
        if (s == 0 || s == 'Z' || s == 'X') return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

TEST(CommandAgent, WhatTheCommandLeavesInTheFileIsTheCandidate) {
    TempDir root;
    CommandAgent agent(settings(
        "sed -i 's/VEC = 1 /VEC = 4 /' {kernel} && cp {context} ../context-copy.md && echo working && "
        "echo 'DESCRIPTION: first try' && echo 'DESCRIPTION: VEC 4 loads' && echo done",
        root.path()));
    EXPECT_EQ(agent.name(), "command");
    const Proposal p = agent.propose(make_context());
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_NE(p.source.find("VEC = 4 {1, 2, 4, 8}"), std::string::npos);
    EXPECT_EQ(p.description, "VEC 4 loads");
    // The scratch copy and the context file were where the command looked.
    EXPECT_TRUE(fs::exists(root.path() / "scratch" / "rmsnorm.cu"));
    const std::string context = slurp(root.path() / "context-copy.md");
    for (const char* mark : {"PLAYBOOK-MARK", "CONTRACT-MARK", "ROOFLINE-MARK", "HINT-MARK", "HISTORY-MARK",
                             "FAILURE-MARK", "4096x8192", "NVIDIA H200", "DESCRIPTION:"})
        EXPECT_NE(context.find(mark), std::string::npos) << "the context file lacks " << mark;
    EXPECT_NE(slurp(root.path() / "stdout.log").find("working"), std::string::npos);
}

TEST(CommandAgent, EnvironmentNamesTheFilesAndTheDefaultDescriptionNamesTheProgram) {
    TempDir root;
    CommandAgent agent(settings("printf '// edited by %s\\n' \"$AK_KERNEL_NAME\" >> \"$AK_KERNEL_FILE\"; "
                                "test \"$PWD\" = \"$AK_WORKDIR\" && test -f \"$AK_CONTEXT_FILE\"",
                                root.path()));
    const Proposal p = agent.propose(make_context());
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_EQ(p.source, kBest + "// edited by rmsnorm\n");
    EXPECT_EQ(p.description, "command: printf");
}

TEST(CommandAgent, PathsWithSpacesAreQuoted) {
    TempDir parent;
    const fs::path root = parent.path() / "scratch root with spaces";
    CommandAgent agent(settings("echo '// appended' >> {kernel}; ls {workdir} > /dev/null", root));
    const Proposal p = agent.propose(make_context());
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_EQ(p.source, kBest + "// appended\n");
}

TEST(CommandAgent, AnUnchangedFileIsNotACandidate) {
    TempDir root;
    CommandAgent agent(settings("cat {kernel} > /dev/null; echo 'DESCRIPTION: nothing to do'", root.path()));
    const Proposal p = agent.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("left the kernel unchanged"), std::string::npos) << p.failure;
}

TEST(CommandAgent, RemovedOrEmptiedFilesAreNotCandidates) {
    TempDir root;
    CommandAgent removing(settings("rm {kernel}", root.path()));
    Proposal p = removing.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("removed the kernel file"), std::string::npos) << p.failure;
    CommandAgent emptying(settings(": > {kernel}", root.path()));
    p = emptying.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("empty"), std::string::npos) << p.failure;
}

TEST(CommandAgent, AFailingCommandFailsTheProposalWithItsError) {
    TempDir root;
    CommandAgent agent(settings("echo '// half an edit' >> {kernel}; echo 'model quota exceeded' >&2; exit 1", root.path()));
    const Proposal p = agent.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("exited with status 1"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find("model quota exceeded"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find("stderr.log"), std::string::npos) << p.failure;
}

TEST(CommandAgent, ATimeoutKillsTheWholeProcessGroup) {
    TempDir root;
    // The shell starts a long sleep in the background and waits for it; both must die.
    CommandAgent agent(settings("sleep 30 & echo $! > ../sleeper.pid; echo '// edit' >> {kernel}; wait", root.path(), 1.0));
    const auto start = std::chrono::steady_clock::now();
    const Proposal p = agent.propose(make_context());
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("timed out after 1.0 s"), std::string::npos) << p.failure;
    EXPECT_LT(took, 5.0);
    const std::string pid_text = slurp(root.path() / "sleeper.pid");
    ASSERT_FALSE(pid_text.empty());
    EXPECT_TRUE(gone_or_dead(std::stoi(pid_text))) << "the background sleep survived the timeout";
}

TEST(CommandAgent, RunsAgainInAFreshScratchFolder) {
    TempDir root;
    CommandAgent agent(settings("test ! -e leftover && touch leftover && echo '// x' >> {kernel}", root.path()));
    EXPECT_TRUE(agent.propose(make_context()).ok);
    const Proposal second = agent.propose(make_context());
    EXPECT_TRUE(second.ok) << second.failure;
}

TEST(CommandAgent, WithoutAScratchRootItUsesATemporaryFolderAndRemovesIt) {
    fs::path root;
    {
        CommandSettings s;
        s.command_template = "echo '// t' >> {kernel}";
        CommandAgent agent(s);
        root = agent.scratch_root();
        EXPECT_TRUE(fs::exists(root));
        EXPECT_TRUE(agent.propose(make_context()).ok);
    }
    EXPECT_FALSE(fs::exists(root));
}

TEST(CommandAgent, RefusesAnEmptyTemplate) {
    CommandSettings s;
    s.command_template = "  ";
    EXPECT_THROW(CommandAgent{s}, Error);
}

TEST(ExpandCommandTemplate, ReplacesEveryPlaceholder) {
    EXPECT_EQ(expand_command_template("a {kernel} {context} {workdir} {kernel}", "/k.cu", "/c.md", "/w"),
              "a /k.cu /c.md /w /k.cu");
    EXPECT_EQ(expand_command_template("cat {kernel}", "/tmp/a b/it's.cu", "", ""), "cat '/tmp/a b/it'\\''s.cu'");
}

TEST(ShellCommand, ReapsTheShellAfterATimeoutEvenWhenItIgnoresSigterm) {
    TempDir dir;
    ShellCommand cmd;
    cmd.command = "trap '' TERM; while true; do sleep 0.05; done";
    cmd.workdir = dir.path();
    cmd.timeout_s = 0.3;
    cmd.kill_grace_s = 0.3;
    const auto start = std::chrono::steady_clock::now();
    const ShellResult r = run_shell_command(cmd);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_TRUE(r.timed_out);
    ASSERT_TRUE(r.signal.has_value());
    EXPECT_EQ(*r.signal, SIGKILL);
    EXPECT_LT(took, 3.0);
    // Already reaped: no zombie of ours is left.
    errno = 0;
    EXPECT_EQ(::waitpid(r.pid, nullptr, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
    EXPECT_TRUE(gone_or_dead(r.pid));
}

TEST(ShellCommand, ReportsExitCodeOutputAndEnvironment) {
    TempDir dir;
    ShellCommand cmd;
    cmd.command = "echo \"$AK_TEST_VALUE\"; echo err >&2; exit 3";
    cmd.workdir = dir.path();
    cmd.env = {{"AK_TEST_VALUE", "value from env"}};
    cmd.stdout_file = dir.path() / "out.log";
    cmd.stderr_file = dir.path() / "err.log";
    const ShellResult r = run_shell_command(cmd);
    ASSERT_TRUE(r.started);
    EXPECT_FALSE(r.timed_out);
    ASSERT_TRUE(r.exit_code.has_value());
    EXPECT_EQ(*r.exit_code, 3);
    EXPECT_EQ(slurp(dir.path() / "out.log"), "value from env\n");
    EXPECT_EQ(slurp(dir.path() / "err.log"), "err\n");
}

TEST(ShellCommand, AMissingWorkdirIsReportedNotRun) {
    ShellCommand cmd;
    cmd.command = "true";
    cmd.workdir = "/nonexistent/ak/workdir";
    const ShellResult r = run_shell_command(cmd);
    EXPECT_FALSE(r.started);
    EXPECT_NE(r.error.find("/nonexistent/ak/workdir"), std::string::npos) << r.error;
}

TEST(AgentFactory, MakesTheCommandAgentWithItsScratchFolderInTheSession) {
    TempDir session;
    AgentSettings settings;
    settings.kind = "command";
    settings.command_template = "echo '// f' >> {kernel}";
    settings.session_dir = session.path();
    auto agent = make_agent(settings);
    EXPECT_EQ(agent->name(), "command");
    EXPECT_TRUE(agent->propose(make_context()).ok);
    EXPECT_TRUE(fs::exists(session.path() / ".autokernel" / "command-agent" / "scratch" / "rmsnorm.cu"));
    settings.command_template.clear();
    EXPECT_THROW(make_agent(settings), Error);
}

}  // namespace
}  // namespace ak
