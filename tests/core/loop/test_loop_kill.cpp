// kill -9 of a headless loop (ak_loop_runner: the LoopController with a scripted evaluator), restarted
// each time: nothing is lost, nothing is recorded twice, numbering stays dense, every row's commit
// exists, and the branch holds the newest kept experiment.
#include "loop_test_support.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

#include <csignal>
#include <iostream>
#include <fcntl.h>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ak;
using namespace ak::testing;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

pid_t start_runner(const fs::path& session, int budget, int delay_ms, const fs::path& out, const fs::path& err) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (o >= 0) ::dup2(o, 1);
        if (e >= 0) ::dup2(e, 2);
        const std::string b = std::to_string(budget), d = std::to_string(delay_ms);
        ::execl(AK_LOOP_RUNNER, AK_LOOP_RUNNER, session.c_str(), b.c_str(), d.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return pid;
}

int wait_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return -1000;
}

std::string contents(const fs::path& p) {
    try {
        return read_file(p);
    } catch (const Error&) {
        return "";
    }
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
    int n = 0;
    for (std::string_view line : split(text, '\n')) n += starts_with(line, prefix);
    return n;
}

// Checks the session on disk; returns its experiment count.
std::size_t check_session(const fs::path& dir, const std::string& when) {
    SCOPED_TRACE(when);
    Session s = Session::open(dir);  // reconciles what a kill left
    for (const std::string& w : s.warnings()) std::cout << "  " << when << ": repaired: " << w << "\n";
    const auto& all = s.experiments();
    int next_k = 1;
    std::optional<Experiment> newest_kept;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Experiment& e = all[i];
        EXPECT_EQ(e.number, static_cast<int>(i)) << "numbers are dense";
        std::string source;
        EXPECT_NO_THROW(source = s.source_of(e)) << "experiment " << i << "'s commit " << e.commit << " is missing";
        if (e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline) newest_kept = e;
        if (e.agent != "runner") continue;
        // The runner's candidates are numbered from the history: a lost experiment would be proposed
        // again (a repeat), a duplicated one would appear twice.
        EXPECT_EQ(field(source, "id"), "rmsnorm-" + std::to_string(next_k)) << "experiment " << i;
        EXPECT_EQ(e.description, "candidate rmsnorm-" + std::to_string(next_k)) << "experiment " << i;
        ++next_k;
    }
    EXPECT_EQ(count_lines_starting(read_file(dir / "results.tsv"), "") - 2, static_cast<int>(all.size()))
        << "results.tsv: a header line, one row per experiment, a final newline";
    if (newest_kept) {
        EXPECT_EQ(s.branch_tip(), newest_kept->commit);
        EXPECT_EQ(read_file(dir / "kernels/rmsnorm.cu"), s.source_of(*newest_kept));
    }
    return all.size();
}

}  // namespace

TEST(LoopKill, KilledRunsResumeWithNothingLostAndNoDuplicate) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    { make_session(dir, {kernel("rmsnorm")}); }
    std::size_t total = check_session(dir, "created");
    ASSERT_EQ(total, 1u);

    std::mt19937 random(12345);
    int printed = 0;  // "recorded" lines the killed runners got out
    const int kills = 8;
    for (int round = 0; round < kills; ++round) {
        const fs::path out = tmp / ("out" + std::to_string(round)), err = tmp / "err";
        const pid_t pid = start_runner(dir, 100000, 15, out, err);
        // Wait until it has the session open, then let it record a few and kill it at a random moment.
        for (int i = 0; i < 2000 && contents(out).find("ready") == std::string::npos; ++i) std::this_thread::sleep_for(5ms);
        ASSERT_NE(contents(out).find("ready"), std::string::npos) << contents(err);
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(40, 400)(random)));
        ::kill(pid, SIGKILL);
        ASSERT_EQ(wait_exit(pid), -SIGKILL) << contents(err);
        const int said = count_lines_starting(contents(out), "recorded ");
        printed += said;
        const std::size_t now = check_session(dir, "after kill " + std::to_string(round));
        // Every experiment it reported is there; at most one more (recorded, not yet reported).
        EXPECT_GE(now, total + static_cast<std::size_t>(said));
        EXPECT_LE(now, total + static_cast<std::size_t>(said) + 1);
        std::cout << "  kill " << round << ": " << now - total << " experiments recorded, " << said << " reported\n";
        total = now;
        if (HasFailure()) return;
    }
    EXPECT_GE(printed, kills) << "the runners should have recorded experiments before being killed";

    // A run that is not killed adds exactly its budget.
    const pid_t pid = start_runner(dir, 5, 0, tmp / "final", tmp / "err");
    ASSERT_EQ(wait_exit(pid), 0) << contents(tmp / "err");
    EXPECT_EQ(count_lines_starting(contents(tmp / "final"), "recorded "), 5);
    EXPECT_EQ(check_session(dir, "final"), total + 5);
}
