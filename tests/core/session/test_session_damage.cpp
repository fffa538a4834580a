// Damaged and hostile sessions (issue 13): every case here was found by fuzzing and each test failed
// before its fix. Sessions are small; each test builds its own.
#include "session/session.h"

#include "bounded_run.h"
#include "git_inspection.h"
#include "session/commit_trailers.h"
#include "session/git_repository.h"
#include "session/results_table.h"
#include "test_support.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

using namespace ak;
using namespace ak::testing;
namespace fs = std::filesystem;

namespace {

template <typename F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "expected an ak::Error";
    return Error(ErrorKind::Internal, "no error");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string all_warnings(const std::vector<std::string>& warnings) {
    std::string text;
    for (const auto& w : warnings) text += w + "\n";
    return text;
}

bool any_contains(const std::vector<std::string>& warnings, const std::string& part) {
    return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return contains(w, part); });
}

// Kernels "rms" and "soft"; experiments 0, 1 baselines, 2 kept, 3 reverted, 4 kept, 5 reverted.
std::vector<Experiment> make_session(const fs::path& dir) {
    Session s = Session::create(dir, test_info(), {{kernel_entry("rms", "rmsnorm"), source_for("rms", 0)},
                                                   {kernel_entry("soft", "softmax"), source_for("soft", 0)}});
    s.record(new_experiment("rms", source_for("rms", 2), Outcome::Kept, 30.0, "kept two"));
    s.record(new_experiment("rms", source_for("rms", 3), Outcome::Reverted, 31.0, "reverted three"));
    s.record(new_experiment("soft", source_for("soft", 4), Outcome::Kept, 20.0, "kept four"));
    s.record(new_experiment("rms", source_for("rms", 5), Outcome::Reverted, 33.0, "reverted five"));
    return s.experiments();
}

fs::path loose_object(const fs::path& dir, const std::string& id) {
    return dir / ".git" / "objects" / id.substr(0, 2) / id.substr(2);
}

std::string tree_of(const fs::path& dir, const std::string& commit) {
    const std::string message_and_header = *git_cli(dir, "cat-file commit " + commit);
    return message_and_header.substr(5, 40);
}

}  // namespace

// --- finding 1: a name that wraps a git tree entry -------------------------------------------

TEST(SessionDamage, TreePathComponentsLongerThan255BytesAreRefusedBeforeAnythingIsWritten) {
    TempDir tmp;
    GitRepository repo = GitRepository::init(tmp / "r", "main");
    const std::string name(65533, 'k');
    const Error e = error_of([&] { repo.write_tree("", {{"kernels/" + name + ".cu", "x"}}); });
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_TRUE(contains(e.what(), "at most 255")) << e.what();
    for (const std::string& bad : std::vector<std::string>{"kernels/../x.cu", "kernels//x.cu", ".git/config", std::string("a\0b", 3)})
        EXPECT_EQ(error_of([&] { repo.write_tree("", {{bad, "x"}}); }).kind(), ErrorKind::Usage) << bad;
}

TEST(SessionDamage, KernelNamesLongerThanTheLimitAreRefused) {
    TempDir tmp;
    const std::string name(kMaxKernelNameLength + 1, 'k');
    const Error e = error_of([&] { Session::create(tmp / "s", test_info(), {{kernel_entry(name, "rmsnorm"), "x"}}); });
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_TRUE(contains(e.what(), std::to_string(name.size()) + " characters")) << e.what();
    EXPECT_FALSE(fs::exists(tmp / "s"));
}

TEST(SessionDamage, OpenWarnsWhenACommitDoesNotHoldItsKernelFile) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    // Experiment 3's commit replaced by one whose tree lacks kernels/rms.cu (what the wrapped tree
    // entry produced), its ref and row pointing at it.
    Experiment e3 = experiments[3];
    std::string bad_commit;
    {
        GitRepository repo = GitRepository::open(dir);
        const std::string tree = repo.write_tree("", {{"session.json", read_text(dir / "session.json")}});
        bad_commit = repo.write_commit(tree, {e3.parent_commit}, format_experiment_message(e3));
        repo.set_ref(Session::experiment_ref(3), bad_commit, true, "test");
    }
    std::string tsv = read_text(dir / "results.tsv");
    const std::size_t at = tsv.find(e3.commit);
    ASSERT_NE(at, std::string::npos);
    tsv.replace(at, 40, bad_commit);
    replace_durably(dir / "results.tsv", tsv);
    const Session s = Session::open(dir, OpenOptions{.read_only = true});
    EXPECT_TRUE(any_contains(s.warnings(), "experiment 3: commit " + bad_commit.substr(0, 10) +
                                               " does not hold kernels/rms.cu"))
        << all_warnings(s.warnings());
}

// --- finding 3: repair takes the union of refs, rows and history -----------------------------

TEST(SessionDamage, AMissingRefInTheMiddleIsRecreatedFromResultsTsvAndRepairKeepsItsRow) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    const std::string before = read_text(dir / "results.tsv");
    {
        RawRepository raw(dir);
        ASSERT_TRUE(raw.delete_ref(Session::experiment_ref(3)));
    }
    {
        const Session viewer = Session::open(dir, OpenOptions{.read_only = true});
        EXPECT_EQ(viewer.experiments().size(), experiments.size());
        EXPECT_TRUE(any_contains(viewer.warnings(), "experiment 3 had no refs/autokernel/exp/3"))
            << all_warnings(viewer.warnings());
    }
    std::vector<std::string> warnings;
    EXPECT_EQ(Session::repair(dir, &warnings), experiments.size()) << all_warnings(warnings);
    EXPECT_EQ(read_text(dir / "results.tsv"), before);
    EXPECT_EQ(RawRepository(dir).ref(Session::experiment_ref(3)), experiments[3].commit);
}

TEST(SessionDamage, RepairRecoversEverythingWhenPackedRefsIsDeleted) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    const std::string before = read_text(dir / "results.tsv");
    GitRepository::open(dir).pack_refs();
    ASSERT_TRUE(fs::remove(dir / ".git" / "packed-refs"));
    std::vector<std::string> warnings;
    EXPECT_EQ(Session::repair(dir, &warnings), experiments.size()) << all_warnings(warnings);
    EXPECT_EQ(read_text(dir / "results.tsv"), before);
    const Session s = Session::open(dir);
    EXPECT_EQ(s.experiments(), experiments);
    EXPECT_EQ(s.branch_tip(), experiments[4].commit);
}

TEST(SessionDamage, RepairRefusesToDropAnExperimentNothingCanRecover) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    make_session(dir);
    // Experiment 3 (reverted: no later commit descends from it) loses its ref and its row.
    {
        RawRepository raw(dir);
        ASSERT_TRUE(raw.delete_ref(Session::experiment_ref(3)));
    }
    std::string tsv = read_text(dir / "results.tsv");
    auto lines = split(tsv, '\n');
    std::string without;
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (i != 4 && !lines[i].empty()) without += std::string(lines[i]) + "\n";
    // Line 5 (experiment 3) gone, the later rows renumbered would be wrong: keep them as they are.
    replace_durably(dir / "results.tsv", without);
    const Error e = error_of([&] { Session::repair(dir); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "experiment 3 of 0..5 cannot be found")) << e.what();
    EXPECT_EQ(read_text(dir / "results.tsv"), without);  // left as it was
}

TEST(SessionDamage, RepairReadsSessionJsonLikeOpenDoes) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    make_session(dir);
    replace_durably(dir / "session.json", "{\"format_version\": 2}");
    const Error e = error_of([&] { Session::repair(dir); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "session.json")) << e.what();
}

// --- finding 4: damage is reported on open ---------------------------------------------------

TEST(SessionDamage, OpenWarnsAboutAMissingBlobTreeOrNonTipCommit) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    ASSERT_TRUE(have_git_cli());
    const std::string blob3 = git_cli(dir, "rev-parse " + experiments[3].commit + ":kernels/rms.cu").value();
    ASSERT_TRUE(fs::remove(loose_object(dir, blob3.substr(0, 40))));
    const std::string tree5 = tree_of(dir, experiments[5].commit);
    ASSERT_TRUE(fs::remove(loose_object(dir, tree5)));
    ASSERT_TRUE(fs::remove(loose_object(dir, experiments[1].commit)));  // not the branch tip
    const Session s = Session::open(dir, OpenOptions{.read_only = true});
    const auto& w = s.warnings();
    EXPECT_TRUE(any_contains(w, "experiment 3: the source of kernels/rms.cu (blob " + blob3.substr(0, 10) +
                                    ") is missing"))
        << all_warnings(w);
    EXPECT_TRUE(any_contains(w, "experiment 5: cannot read commit " + experiments[5].commit.substr(0, 10) + " (its tree " + tree5.substr(0, 10))) << all_warnings(w);
    EXPECT_TRUE(any_contains(w, "experiment 1: its commit " + experiments[1].commit + " is missing"))
        << all_warnings(w);
}

TEST(SessionDamage, AFlippedKernelFileFieldIsReportedAndGitsVersionShown) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    std::string tsv = read_text(dir / "results.tsv");
    const std::size_t at = tsv.find("kernels/soft.cu", tsv.find(experiments[4].commit));
    ASSERT_NE(at, std::string::npos);
    tsv[at + 8] = 'S';  // kernels/Soft.cu: a phantom kernel
    replace_durably(dir / "results.tsv", tsv);
    const Session s = Session::open(dir, OpenOptions{.read_only = true});
    EXPECT_TRUE(any_contains(s.warnings(), "experiment 4: field kernel_file differs from the trailers"))
        << all_warnings(s.warnings());
    EXPECT_EQ(s.experiments()[4].kernel_file, "kernels/soft.cu");
}

// --- finding 5: FIFOs and devices never hang a command --------------------------------------

TEST(SessionDamage, AFifoOrDevZeroAsResultsTsvIsAnErrorNamingItNotAHang) {
    for (const std::string kind : {"fifo", "zero"}) {
        TempDir tmp;
        const fs::path dir = tmp / "s";
        make_session(dir);
        fs::remove(dir / "results.tsv");
        if (kind == "fifo")
            ASSERT_EQ(::mkfifo((dir / "results.tsv").c_str(), 0644), 0);
        else
            fs::create_symlink("/dev/zero", dir / "results.tsv");
        for (const bool read_only : {true, false}) {
            const BoundedRun run = run_bounded(10.0, [&] { Session::open(dir, OpenOptions{.read_only = read_only}); });
            EXPECT_FALSE(run.timed_out) << kind;
            EXPECT_FALSE(run.ok) << kind;
            EXPECT_TRUE(contains(run.message, (dir / "results.tsv").string())) << kind << ": " << run.message;
            EXPECT_TRUE(contains(run.message, kind == "fifo" ? "FIFO" : "character device")) << run.message;
        }
        const BoundedRun repair = run_bounded(10.0, [&] { Session::repair(dir); });
        EXPECT_FALSE(repair.timed_out);
        EXPECT_TRUE(contains(repair.message, "results.tsv")) << repair.message;
    }
}

TEST(SessionDamage, ReadFileRefusesFilesAboveItsLimit) {
    TempDir tmp;
    replace_durably(tmp / "f", std::string(1000, 'x'));
    const Error e = error_of([&] { read_file(tmp / "f", 999); });
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_TRUE(contains(e.what(), (tmp / "f").string())) << e.what();
    EXPECT_EQ(read_file(tmp / "f", 1000).size(), 1000u);
}

// --- finding 7: session.json messages --------------------------------------------------------

TEST(SessionDamage, SessionJsonOddNumbersAndOddFileKindsAreNamed) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    make_session(dir);
    const std::string good = read_text(dir / "session.json");
    const auto with_version = [&](const std::string& v) {
        std::string text = good;
        const std::size_t at = text.find("\"format_version\": 1");
        text.replace(at, std::string("\"format_version\": 1").size(), "\"format_version\": " + v);
        replace_durably(dir / "session.json", text);
    };
    with_version("1e400");
    Error e = error_of([&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "session.json")) << e.what();
    with_version("1099511627776");
    e = error_of([&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_TRUE(contains(e.what(), "format_version 1099511627776 is not supported")) << e.what();
    with_version("-1");
    e = error_of([&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_TRUE(contains(e.what(), "format_version -1 is not supported")) << e.what();

    fs::remove(dir / "session.json");
    fs::create_directory(dir / "session.json");
    e = error_of([&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_TRUE(contains(e.what(), "session.json is a folder")) << e.what();
    fs::remove(dir / "session.json");
    ASSERT_EQ(::mkfifo((dir / "session.json").c_str(), 0644), 0);
    const BoundedRun run = run_bounded(10.0, [&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_FALSE(run.timed_out);
    EXPECT_TRUE(contains(run.message, "session.json is a FIFO")) << run.message;
}

TEST(SessionDamage, MessagesNameTheRealRepairCommand) {
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    {
        RawRepository raw(dir);
        ASSERT_TRUE(raw.set_ref(Session::experiment_ref(2), experiments[3].commit));
    }
    const Error e = error_of([&] { Session::open(dir, OpenOptions{.read_only = true}); });
    EXPECT_TRUE(contains(e.what(), "`autokernel session repair`")) << e.what();
}

// --- finding 8: another user's session -------------------------------------------------------

TEST(SessionDamage, AnotherUsersSessionOpensReadOnly) {
    if (!running_as_root()) GTEST_SKIP() << "needs root to give the session to another user";
    TempDir tmp;
    const fs::path dir = tmp / "s";
    const auto experiments = make_session(dir);
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
        ASSERT_EQ(::lchown(it->path().c_str(), 12345, 12345), 0);
    ASSERT_EQ(::lchown(dir.c_str(), 12345, 12345), 0);
    // An unreadable HOME must not matter either: sessions read no user git configuration.
    const char* home = std::getenv("HOME");
    const std::string saved = home ? home : "";
    ::setenv("HOME", (tmp / "no-such-home" / "x").c_str(), 1);
    const BoundedRun run = run_bounded(20.0, [&] {
        const Session s = Session::open(dir, OpenOptions{.read_only = true});
        if (s.experiments().size() != experiments.size()) throw Error(ErrorKind::Internal, "experiments lost");
    });
    ::setenv("HOME", saved.c_str(), 1);
    EXPECT_TRUE(run.ok) << run.message;
}
