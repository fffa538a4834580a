// A property test (issue 13): a small session's results.tsv, session.json and refs are mutated at
// random (fixed seed), then open (read-only and writable), summary and repair run on each copy in a
// child process with a time limit. Properties:
//   - no crash and no hang;
//   - a command that fails says which file (or ref, or folder) is the problem;
//   - an experiment kernel file the viewer shows is one of the session's kernels, or a warning names
//     that experiment;
//   - after a successful repair, every experiment known to git (its ref) or to results.tsv (its row's
//     commit, when that commit exists and is an experiment) is in the new results.tsv;
//   - a repair that fails leaves results.tsv as it was.
#include "session/session.h"

#include "bounded_run.h"
#include "git_inspection.h"
#include "session/results_table.h"
#include "session/session_summary.h"
#include "test_support.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sys/stat.h>

using namespace ak;
using namespace ak::testing;
namespace fs = std::filesystem;

namespace {

constexpr unsigned kSeed = 20261202;
constexpr int kCases = 40;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path build_template(const fs::path& dir) {
    Session s = Session::create(dir, test_info(), {{kernel_entry("rms", "rmsnorm"), source_for("rms", 0)},
                                                   {kernel_entry("soft", "softmax"), source_for("soft", 0)}});
    s.record(new_experiment("rms", source_for("rms", 2), Outcome::Kept, 30.0, "kept"));
    s.record(new_experiment("rms", source_for("rms", 3), Outcome::Reverted, 31.0, "reverted"));
    s.record(new_experiment("soft", source_for("soft", 4), Outcome::Kept, 20.0, "kept soft"));
    s.record(new_experiment("rms", source_for("rms", 5), Outcome::Failed, std::nullopt, "failed"));
    s.record(new_experiment("soft", source_for("soft", 6), Outcome::Reverted, 21.0, "reverted soft"));
    return dir;
}

std::string read_or_empty(const fs::path& path) {
    try {
        return read_file(path);
    } catch (const Error&) {
        return "";
    }
}

// Mutations of one file's bytes.
void mutate_bytes(const fs::path& path, std::mt19937& rng) {
    std::string text = read_or_empty(path);
    const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    switch (pick(7)) {
    case 0:  // flip one byte
        if (!text.empty()) text[pick(text.size())] ^= static_cast<char>(1 << pick(8));
        break;
    case 1:  // truncate
        text.resize(pick(text.size() + 1));
        break;
    case 2: {  // delete a line
        auto lines = split(text, '\n');
        const std::size_t drop = pick(lines.size());
        std::string out;
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (i != drop) out += std::string(lines[i]) + (i + 1 < lines.size() ? "\n" : "");
        text = out;
        break;
    }
    case 3: {  // duplicate a line
        auto lines = split(text, '\n');
        const std::size_t copy = pick(lines.size());
        text += std::string(lines[copy]) + "\n";
        break;
    }
    case 4: {  // insert hostile bytes
        static const std::string kHostile[] = {std::string("\0", 1), "\xFF", "\t", "\n", "\r\n", "\xEF\xBB\xBF", "\\"};
        text.insert(pick(text.size() + 1), kHostile[pick(std::size(kHostile))]);
        break;
    }
    case 5:  // replace a digit (numbers, commit ids)
        for (int tries = 0; tries < 50 && !text.empty(); ++tries) {
            const std::size_t at = pick(text.size());
            if (text[at] >= '0' && text[at] <= '9') {
                text[at] = static_cast<char>('0' + (text[at] - '0' + 1 + pick(9)) % 10);
                break;
            }
        }
        break;
    default:  // empty
        text.clear();
        break;
    }
    fs::remove_all(path);
    replace_durably(path, text);
}

void replace_with_odd_file(const fs::path& path, std::mt19937& rng) {
    fs::remove_all(path);
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0: ::mkfifo(path.c_str(), 0644); break;
    case 1: fs::create_directory(path); break;
    case 2: fs::create_symlink("/dev/zero", path); break;
    default: break;  // missing
    }
}

void mutate_refs(const fs::path& dir, std::mt19937& rng) {
    RawRepository raw(dir);
    const auto refs = raw.experiment_refs();
    const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const long number = static_cast<long>(pick(refs.size()));
    const std::string name = Session::experiment_ref(int(number));
    switch (pick(4)) {
    case 0: raw.delete_ref(name); break;
    case 1: raw.set_ref(name, std::next(refs.begin(), long(pick(refs.size())))->second); break;
    case 2: replace_durably(dir / ".git" / name, "not a commit id\n"); break;
    default:
        if (const auto out = git_cli(dir, "pack-refs --all")) fs::remove(dir / ".git" / "packed-refs");
        break;
    }
}

// Commits of experiments known to git (refs) or to results.tsv (rows), read without the code under test.
std::set<std::string> known_experiments(const fs::path& dir) {
    RawRepository raw(dir);
    std::set<std::string> known;
    const auto is_experiment = [&](const std::string& commit) {
        return raw.commit_exists(commit) && contains(raw.message(commit), "Autokernel-Experiment: ");
    };
    for (const auto& [number, commit] : raw.experiment_refs())
        if (is_experiment(commit)) known.insert(commit);
    std::error_code ec;
    if (fs::is_regular_file(dir / "results.tsv", ec)) {
        for (auto line : split(read_or_empty(dir / "results.tsv"), '\n')) {
            const auto fields = split(line, '\t');
            if (fields.size() <= results_column::kCommit) continue;
            const std::string commit(fields[results_column::kCommit]);
            if (commit.size() == 40 && is_experiment(commit)) known.insert(commit);
        }
    }
    return known;
}

bool names_a_file(const std::string& message, const fs::path& dir) {
    for (const std::string part : {dir.string(), std::string("results.tsv"), std::string("session.json"),
                                   std::string("refs/"), std::string(".git")})
        if (contains(message, part)) return true;
    return false;
}

}  // namespace

TEST(SessionFuzz, MutatedSessionsNeverCrashHangOrLoseAKnownExperiment) {
    TempDir tmp(fast_temp_base());
    const fs::path original = build_template(tmp / "template");
    std::mt19937 rng(kSeed);
    int repaired = 0;
    int failed_commands = 0;
    for (int c = 0; c < kCases; ++c) {
        const fs::path dir = tmp / ("case" + std::to_string(c));
        fs::copy(original, dir, fs::copy_options::recursive);
        std::string applied;
        const int mutations = std::uniform_int_distribution<int>(1, 3)(rng);
        for (int m = 0; m < mutations; ++m) {
            const int what = std::uniform_int_distribution<int>(0, 9)(rng);
            if (what < 4) {
                mutate_bytes(dir / "results.tsv", rng);
                applied += "results.tsv bytes; ";
            } else if (what < 6) {
                mutate_bytes(dir / "session.json", rng);
                applied += "session.json bytes; ";
            } else if (what < 8) {
                mutate_refs(dir, rng);
                applied += "refs; ";
            } else {
                replace_with_odd_file(dir / (what == 8 ? "results.tsv" : "session.json"), rng);
                applied += what == 8 ? "results.tsv kind; " : "session.json kind; ";
            }
        }
        SCOPED_TRACE("case " + std::to_string(c) + ": " + applied);

        const BoundedRun viewer = run_bounded(15.0, [&] {
            const Session s = Session::open(dir, OpenOptions{.read_only = true});
            (void)format_summary(summarize(s.experiments()), s.info());
            std::set<std::string> kernel_files;
            for (const KernelEntry& k : s.info().kernels) kernel_files.insert(Session::kernel_file_of(k.name));
            for (const Experiment& e : s.experiments()) {
                if (kernel_files.count(e.kernel_file)) continue;
                bool warned = false;
                for (const std::string& w : s.warnings()) warned = warned || contains(w, "experiment " + std::to_string(e.number));
                if (!warned) throw std::runtime_error("phantom kernel file " + e.kernel_file + " without a warning");
            }
        });
        for (const BoundedRun* run : {&viewer}) {
            EXPECT_FALSE(run->timed_out) << run->message;
            EXPECT_FALSE(run->crashed) << run->message;
            if (!run->ok) {
                ++failed_commands;
                EXPECT_TRUE(names_a_file(run->message, dir)) << run->message;
            }
        }

        const std::set<std::string> known = known_experiments(dir);
        std::error_code ec;
        const bool regular = fs::is_regular_file(dir / "results.tsv", ec) && !fs::is_symlink(dir / "results.tsv", ec);
        const std::string before = regular ? read_or_empty(dir / "results.tsv") : "";
        const BoundedRun repair = run_bounded(15.0, [&] { Session::repair(dir); });
        EXPECT_FALSE(repair.timed_out) << repair.message;
        EXPECT_FALSE(repair.crashed) << repair.message;
        if (repair.ok) {
            ++repaired;
            const std::string after = read_or_empty(dir / "results.tsv");
            for (const std::string& commit : known) EXPECT_TRUE(contains(after, commit)) << commit << " lost by repair";
            const BoundedRun reopened = run_bounded(15.0, [&] { Session::open(dir); });
            EXPECT_FALSE(reopened.timed_out || reopened.crashed) << reopened.message;
            if (!reopened.ok) EXPECT_TRUE(names_a_file(reopened.message, dir)) << reopened.message;
        } else {
            ++failed_commands;
            EXPECT_TRUE(names_a_file(repair.message, dir)) << repair.message;
            if (regular) EXPECT_EQ(read_or_empty(dir / "results.tsv"), before) << "a failed repair changed results.tsv";
        }

        const BoundedRun writer = run_bounded(15.0, [&] { Session::open(dir); });
        EXPECT_FALSE(writer.timed_out) << writer.message;
        EXPECT_FALSE(writer.crashed) << writer.message;
        if (!writer.ok) EXPECT_TRUE(names_a_file(writer.message, dir)) << writer.message;
        fs::remove_all(dir, ec);
    }
    // The mix exercised both outcomes.
    EXPECT_GT(repaired, 0);
    EXPECT_GT(failed_commands, 0);
    std::printf("%d cases: %d repaired, %d failed commands (each naming its file)\n", kCases, repaired, failed_commands);
}
