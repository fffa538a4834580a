// Crash safety: a writer killed with SIGKILL at any moment leaves a session that open() completes
// without losing or duplicating experiments, and says what it repaired.
#include "crash_writer_protocol.h"
#include "git_inspection.h"
#include "session/commit_trailers.h"
#include "session/results_table.h"
#include "session/session.h"
#include "test_support.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ak;
using namespace ak::testing;
namespace fs = std::filesystem;

namespace {

struct Writer {
    pid_t pid = -1;
    int output = -1;  // read end of the writer's stdout, when piped
};

// Starts ak_session_writer; its stderr goes to `log`, its stdout too unless `pipe_stdout`.
// `crash_step` > 0 sets AK_TEST_CRASH_AFTER_STEP.
Writer start_writer(const fs::path& dir, int total, const fs::path& log, int crash_step = 0,
                    bool pipe_stdout = false) {
    int fds[2] = {-1, -1};
    if (pipe_stdout && ::pipe(fds) != 0) return Writer{};
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            ::dup2(pipe_stdout ? fds[1] : fd, 1);
            ::dup2(fd, 2);
        }
        if (crash_step > 0) ::setenv("AK_TEST_CRASH_AFTER_STEP", std::to_string(crash_step).c_str(), 1);
        else ::unsetenv("AK_TEST_CRASH_AFTER_STEP");
        const std::string total_text = std::to_string(total);
        ::execl(AK_SESSION_WRITER, AK_SESSION_WRITER, dir.c_str(), total_text.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    if (pipe_stdout) ::close(fds[1]);
    return Writer{pid, pipe_stdout ? fds[0] : -1};
}

// Reads the writer's stdout until it says "recording" (true) or closes it (false).
bool wait_until_recording(const Writer& w) {
    std::string seen;
    char buffer[256];
    while (seen.find("recording\n") == std::string::npos) {
        const ssize_t n = ::read(w.output, buffer, sizeof buffer);
        if (n <= 0) return false;
        seen.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
}

// Waits for the writer and returns its exit code (-signal when killed by a signal).
int wait_writer(const Writer& w) {
    if (w.output >= 0) ::close(w.output);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return -1000;
}

int run_writer(const fs::path& dir, int total, const fs::path& log, int crash_step = 0) {
    return wait_writer(start_writer(dir, total, log, crash_step));
}

std::string log_text(const fs::path& log) {
    try {
        return read_file(log);
    } catch (const Error&) {
        return "";
    }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string joined(const std::vector<std::string>& warnings) {
    std::string text;
    for (const auto& w : warnings) text += "  " + w + "\n";
    return text;
}

bool mentions(const std::vector<std::string>& warnings, const std::string& part) {
    return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return contains(w, part); });
}

// What the session on disk needs before open() touches it.
struct RawState {
    std::map<long, std::string> refs;
    std::size_t complete_rows = 0;
    bool torn = false;
    std::optional<std::string> branch;
    int newest_kept = -1;
};

RawState inspect(const fs::path& dir) {
    RawState state;
    RawRepository raw(dir);
    state.refs = raw.experiment_refs();
    const ResultsFile file = read_results_file(dir / "results.tsv");
    state.complete_rows = file.rows.size();
    state.torn = file.torn_tail.has_value();
    state.branch = raw.ref("refs/heads/main");
    for (int n = static_cast<int>(state.refs.size()) - 1; n >= 0; --n) {
        const Outcome o = writer_outcome(n);
        if (o == Outcome::Kept || o == Outcome::Baseline) {
            state.newest_kept = n;
            break;
        }
    }
    return state;
}

// Opens the session after a crash and checks every invariant. Returns the open session's warnings.
std::vector<std::string> check_recovered(const fs::path& dir, bool read_only) {
    const RawState before = inspect(dir);
    const bool rows_missing = before.refs.size() > before.complete_rows;
    const bool branch_lags = before.newest_kept >= 0 && before.branch != before.refs.at(before.newest_kept);

    Session s = Session::open(dir, OpenOptions{.read_only = read_only});
    const std::vector<std::string> warnings = s.warnings();
    SCOPED_TRACE("warnings:\n" + joined(warnings));

    // Warnings say what was (or would be) repaired, and nothing is repaired silently.
    if (before.torn) {
        EXPECT_TRUE(mentions(warnings, "torn line"));
    } else {
        EXPECT_FALSE(mentions(warnings, "torn line"));
    }
    if (rows_missing && !before.torn) {
        EXPECT_TRUE(mentions(warnings, "lacked experiment"));
    }
    if (!rows_missing) {
        EXPECT_FALSE(mentions(warnings, "lacked experiment"));
    }
    if (branch_lags) {
        EXPECT_TRUE(mentions(warnings, "behind kept experiment") || mentions(warnings, "behind baseline"));
    } else {
        EXPECT_FALSE(mentions(warnings, "behind"));
    }
    if (read_only && (before.torn || rows_missing || branch_lags)) {
        EXPECT_TRUE(mentions(warnings, "read-only"));
    }

    // Every experiment ref has exactly one row, rows are dense, each commit exists and holds what
    // the writer recorded for that number.
    RawRepository raw(dir);
    const auto& experiments = s.experiments();
    EXPECT_EQ(experiments.size(), before.refs.size());
    std::set<std::string> commits;
    for (std::size_t i = 0; i < experiments.size(); ++i) {
        const Experiment& e = experiments[i];
        EXPECT_EQ(e.number, static_cast<int>(i));
        if (!before.refs.count(static_cast<long>(i))) {
            ADD_FAILURE() << "no ref for row " << i;
            break;
        }
        EXPECT_EQ(e.commit, before.refs.at(static_cast<long>(i)));
        EXPECT_TRUE(raw.commit_exists(e.commit)) << e.commit;
        EXPECT_EQ(s.source_of(e), writer_source(static_cast<int>(i)));
        EXPECT_EQ(e.description, writer_description(static_cast<int>(i)));
        EXPECT_EQ(e.outcome, writer_outcome(static_cast<int>(i)));
        commits.insert(e.commit);
    }
    EXPECT_EQ(commits.size(), experiments.size()) << "duplicate commits";

    if (!read_only) {
        // The repairs were written: the file and the branch now agree with git.
        const ResultsFile file = read_results_file(dir / "results.tsv");
        EXPECT_EQ(file.rows.size(), before.refs.size());
        EXPECT_FALSE(file.torn_tail.has_value());
        EXPECT_EQ(file.rows, experiments);
        if (before.newest_kept >= 0) {
            EXPECT_EQ(s.branch_tip(), before.refs.at(before.newest_kept));
            EXPECT_EQ(read_file(dir / "kernels/k.cu"), writer_source(before.newest_kept));
        }
        // A second open finds nothing left to repair.
        const std::vector<std::string> first_warnings = warnings;
        { Session release_the_writer_lock = std::move(s); }
        Session again = Session::open(dir);
        EXPECT_FALSE(mentions(again.warnings(), "torn line") || mentions(again.warnings(), "lacked") ||
                     mentions(again.warnings(), "behind") || mentions(again.warnings(), "older version"))
            << joined(again.warnings());
        return first_warnings;
    }
    return warnings;
}

}  // namespace

TEST(SessionCrash, WriterKilledAtRandomMomentsNeverLosesOrDuplicatesExperiments) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const fs::path log = tmp / "writer.log";
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("random seed " + std::to_string(seed));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> delay_ms(0, 40);
    std::uniform_int_distribution<int> recording_delay_ms(0, 120);
    // Creating a session takes longer than most delays below: kills during create come first.
    for (int iteration = 0; iteration < 5; ++iteration) {
        const Writer w = start_writer(dir, 1, log);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
        ::kill(w.pid, SIGKILL);
        const int code = wait_writer(w);
        ASSERT_TRUE(code == -SIGKILL || code == 0) << log_text(log);
        EXPECT_TRUE(Session::is_session(dir) || !fs::exists(dir)) << "a half-created session folder was left";
        if (Session::is_session(dir)) break;
    }
    if (!Session::is_session(dir)) {
        ASSERT_EQ(run_writer(dir, 1, log), 0) << log_text(log);
    }

    int repaired = 0;
    for (int iteration = 0; iteration < 30; ++iteration) {
        SCOPED_TRACE("iteration " + std::to_string(iteration));
        // Even iterations: kill 0-120 ms into recording (one record() takes 30-100 ms here, mostly
        // fsync). Odd ones: 0-40 ms after start, which lands in start-up or in open()'s own repairs.
        const bool from_recording = iteration % 2 == 0;
        const Writer w = start_writer(dir, 1000000, log, 0, from_recording);
        if (from_recording) {
            ASSERT_TRUE(wait_until_recording(w)) << log_text(log);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(from_recording ? recording_delay_ms(random)
                                                                             : delay_ms(random)));
        ::kill(w.pid, SIGKILL);
        const int code = wait_writer(w);
        ASSERT_EQ(code, -SIGKILL) << "the writer stopped by itself:\n" << log_text(log);
        // The test repairs (writable open) or leaves the repair to the next writer (read-only open).
        const auto warnings = check_recovered(dir, iteration % 4 >= 2);
        if (!warnings.empty()) ++repaired;
        if (::testing::Test::HasFatalFailure()) return;
    }
    // Finally let a writer finish a few more, to show the session still works.
    Session s = Session::open(dir, OpenOptions{.read_only = true});
    const int count = static_cast<int>(s.experiments().size());
    ASSERT_EQ(run_writer(dir, count + 3, log), 0) << log_text(log);
    check_recovered(dir, false);
    std::printf("30 kills: %d experiments recorded, %d opens needed a repair\n", count, repaired);
}

class SessionCrashAfterStep : public ::testing::TestWithParam<int> {};

TEST_P(SessionCrashAfterStep, OpenCompletesTheInterruptedExperiment) {
    const int step = GetParam();
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const fs::path log = tmp / "writer.log";
    ASSERT_EQ(run_writer(dir, 3, log), 0) << log_text(log);  // experiments 0..2
    const std::string kernel_before = read_file(dir / "kernels/k.cu");
    ASSERT_EQ(run_writer(dir, 10, log, step), 9) << log_text(log);  // dies while recording experiment 3 (kept)

    const RawState raw = inspect(dir);
    switch (step) {
    case 1:  // objects only: experiment 3 does not exist yet
        EXPECT_EQ(raw.refs.size(), 3u);
        EXPECT_EQ(raw.complete_rows, 3u);
        break;
    case 2:  // ref, no row
        EXPECT_EQ(raw.refs.size(), 4u);
        EXPECT_EQ(raw.complete_rows, 3u);
        break;
    case 3:  // row, branch not moved
        EXPECT_EQ(raw.complete_rows, 4u);
        EXPECT_NE(raw.branch, raw.refs.at(3));
        break;
    case 4:  // branch moved, work tree not updated
        EXPECT_EQ(raw.branch, raw.refs.at(3));
        EXPECT_EQ(read_file(dir / "kernels/k.cu"), kernel_before);
        break;
    }

    const auto warnings = check_recovered(dir, false);
    SCOPED_TRACE(joined(warnings));
    switch (step) {
    case 1: EXPECT_TRUE(warnings.empty()); break;
    case 2:
        EXPECT_TRUE(mentions(warnings, "lacked experiment 3"));
        EXPECT_TRUE(mentions(warnings, "behind kept experiment 3"));
        break;
    case 3: EXPECT_TRUE(mentions(warnings, "behind kept experiment 3")); break;
    case 4: EXPECT_TRUE(mentions(warnings, "kernels/k.cu was an older version")); break;
    }

    // The writer carries on from where the session now stands.
    ASSERT_EQ(run_writer(dir, 6, log), 0) << log_text(log);
    Session s = Session::open(dir, OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 6u);
    for (int n = 0; n < 6; ++n) EXPECT_EQ(s.source_of(s.experiments()[n]), writer_source(n));
}

INSTANTIATE_TEST_SUITE_P(Steps, SessionCrashAfterStep, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return "step" + std::to_string(info.param); });

TEST(SessionCrash, AppendCutShortMidRowIsRebuiltFromTheRef) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const fs::path log = tmp / "writer.log";
    ASSERT_EQ(run_writer(dir, 3, log), 0) << log_text(log);
    ASSERT_EQ(run_writer(dir, 10, log, 2), 9) << log_text(log);
    // What a kill in the middle of write(2) leaves: part of experiment 3's row, no newline.
    std::string commit;
    {
        RawRepository raw(dir);
        commit = raw.experiment_refs().at(3);
    }
    const std::string full_row = [&] {
        Session viewer = Session::open(dir, OpenOptions{.read_only = true});
        return format_results_row(viewer.experiments().at(3));
    }();
    append_durably(dir / "results.tsv", full_row.substr(0, full_row.size() / 2));

    const auto warnings = check_recovered(dir, false);
    EXPECT_TRUE(mentions(warnings, "torn line")) << joined(warnings);
    EXPECT_TRUE(contains(read_file(dir / "results.tsv"), full_row + "\n"));
}

TEST(SessionCrash, StaleGitLockFilesFromAKilledWriterAreRemoved) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const fs::path log = tmp / "writer.log";
    ASSERT_EQ(run_writer(dir, 3, log), 0) << log_text(log);
    // A writer killed inside git_reference_create / git_index_write leaves these behind.
    replace_durably(dir / ".git/refs/autokernel/exp/3.lock", "");
    replace_durably(dir / ".git/refs/heads/main.lock", "");
    replace_durably(dir / ".git/index.lock", "");
    replace_durably(dir / "kernels/.k.cu.ak-tmp-999-0", "half");
    {
        Session s = Session::open(dir);
        EXPECT_TRUE(mentions(s.warnings(), "refs/autokernel/exp/3.lock")) << joined(s.warnings());
        EXPECT_TRUE(mentions(s.warnings(), "index.lock")) << joined(s.warnings());
        EXPECT_TRUE(mentions(s.warnings(), ".k.cu.ak-tmp-999-0")) << joined(s.warnings());
    }
    EXPECT_FALSE(fs::exists(dir / ".git/refs/autokernel/exp/3.lock"));
    ASSERT_EQ(run_writer(dir, 5, log), 0) << log_text(log);
    EXPECT_EQ(Session::open(dir, OpenOptions{.read_only = true}).experiments().size(), 5u);
}

TEST(SessionCrash, ReadOnlyViewerDoesNotRemoveLockFiles) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const fs::path log = tmp / "writer.log";
    ASSERT_EQ(run_writer(dir, 2, log), 0) << log_text(log);
    replace_durably(dir / ".git/index.lock", "");
    Session s = Session::open(dir, OpenOptions{.read_only = true});
    EXPECT_TRUE(fs::exists(dir / ".git/index.lock"));
}
