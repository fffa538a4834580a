#include "session/autokernel_import.h"

#include "bounded_run.h"
#include "git_inspection.h"
#include "session/git_repository.h"
#include "session/results_table.h"
#include "session/session_builder.h"
#include "session/session_summary.h"
#include "util/text.h"
#include "test_support.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ak;
using namespace ak::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(AK_FIXTURES_DIR) / "autokernel" / "results.tsv";

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

std::string rms_source(int n) { return "# rmsnorm kernel.py, version of experiment " + std::to_string(n) + "\n"; }
std::string softmax_source(int n) { return "# kernels/softmax.py, version of experiment " + std::to_string(n) + "\n"; }

// A small git repository shaped like AutoKernel's: each experiment is committed with its
// description in the message; kept ones stay on the branch, the others are `git reset` away (and
// survive only in HEAD's reflog, when at all).
//   rmsnorm (branch main, file kernel.py): 0 kept, 1 kept, 2 reset, 3 never committed, 4 kept,
//                                          5 and 6 never committed
//   softmax (branch softmax, only kernels/softmax.py, no kernel.py): 7, 8, 9 (reset), 10, 11
fs::path build_fake_autokernel_repo(const fs::path& dir) {
    GitRepository repo = GitRepository::init(dir, "main");
    auto commit = [&](const std::string& parent, const std::string& path, const std::string& content,
                      const std::string& message) {
        const std::string tree = repo.write_tree(parent, {{path, content}, {"prepare.py", "# harness\n"}});
        return repo.write_commit(tree, parent.empty() ? std::vector<std::string>{} : std::vector<std::string>{parent},
                                 message);
    };
    const std::string c0 = commit("", "kernel.py", rms_source(0), "exp 0: baseline: Triton starter\n");
    repo.set_ref("refs/heads/main", c0, true, "commit (initial)");
    const std::string c1 = commit(c0, "kernel.py", rms_source(1), "exp 1: BLOCK_SIZE 2048, num_warps 8\n");
    repo.set_ref("refs/heads/main", c1, true, "commit");
    const std::string c2 = commit(c1, "kernel.py", rms_source(2), "exp 2: two rows per program\n");
    repo.set_ref("refs/heads/main", c2, true, "commit");
    repo.set_ref("refs/heads/main", c1, true, "reset: moving to HEAD~1");
    const std::string c4 = commit(c1, "kernel.py", rms_source(4),
                                  "exp 4: fuse weight multiply · rsqrt in fp32\n\nkept: 37.9 us\n");
    repo.set_ref("refs/heads/main", c4, true, "commit");

    // softmax lives on its own branch, without kernel.py: the source is the one changed file.
    const std::string s7 = repo.write_commit(repo.write_tree("", {{"kernels/softmax.py", softmax_source(7)}}), {},
                                             "exp 7: baseline: Triton starter\n");
    const std::string s8 = repo.write_commit(repo.write_tree(s7, {{"kernels/softmax.py", softmax_source(8)}}), {s7},
                                             "exp 8: online softmax, one pass über die Zeile\n");
    const std::string s9 = repo.write_commit(repo.write_tree(s8, {{"kernels/softmax.py", softmax_source(9)}}), {s8},
                                             "exp 9: num_stages=3 (no gain)\n");
    const std::string s10 = repo.write_commit(repo.write_tree(s8, {{"kernels/softmax.py", softmax_source(10)}}),
                                              {s8}, "exp 10: vectorized loads 8×fp16\n");
    const std::string s11 = repo.write_commit(repo.write_tree(s10, {{"kernels/softmax.py", softmax_source(11)}}),
                                              {s10}, "exp 11: autotune BLOCK_SIZE 💡 (throughput only)\n");
    repo.set_ref("refs/heads/softmax", s11, true, "commit");
    repo.set_ref("refs/tags/softmax-reverted-9", s9, true, "tag");  // s9 reachable only through a tag
    return dir;
}

const Outcome kExpectedOutcomes[] = {Outcome::Baseline, Outcome::Kept,     Outcome::Reverted, Outcome::Failed,
                                     Outcome::Kept,     Outcome::Failed,   Outcome::Failed,   Outcome::Baseline,
                                     Outcome::Kept,     Outcome::Reverted, Outcome::Kept,     Outcome::Kept};

std::string fixture_with(const std::string& from, const std::string& to) {
    std::string text = read_file(kFixture);
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

}  // namespace

TEST(AutoKernelFixture, KeepsItsQuirks) {
    const std::string text = read_file(kFixture);
    EXPECT_TRUE(contains(text, "\r\n")) << "the fixture must keep its Windows line endings";
    EXPECT_NE(text.back(), '\n') << "the fixture must end without a newline";
    EXPECT_TRUE(contains(text, "\tTIMEOUT\t"));
    EXPECT_TRUE(contains(text, "\tCRASH\t"));
    EXPECT_TRUE(contains(text, "\t\t"));
}

TEST(AutoKernelRead, ParsesEveryRowWithEmptyFieldsAsMissing) {
    const auto rows = read_autokernel_results(kFixture);
    ASSERT_EQ(rows.size(), 12u);
    EXPECT_EQ(rows[0].line, 2);
    EXPECT_EQ(rows[0].metrics.latency_us, 39.5);
    EXPECT_EQ(rows[0].metrics.peak_vram_mb, 512.0);
    EXPECT_FALSE(rows[2].metrics.throughput_tflops);
    EXPECT_FALSE(rows[2].metrics.pct_peak);
    EXPECT_FALSE(rows[2].metrics.peak_vram_mb);
    EXPECT_EQ(rows[3].metrics.correctness, Correctness::Timeout);
    EXPECT_EQ(rows[5].metrics.correctness, Correctness::Crash);
    EXPECT_EQ(rows[3].metrics.description, "persistent kernel — grid = #SMs (hung)");
    EXPECT_EQ(rows[11].metrics.description, "autotune BLOCK_SIZE 💡 (throughput only)") << "no CR kept at the end";
    EXPECT_EQ(rows[11].metrics.number, 11);
}

TEST(AutoKernelImport, WithoutRepoInfersOutcomesAndStoresPlaceholders) {
    TempDir tmp;
    std::vector<std::string> warnings;
    Session s = Session::open(import_autokernel(kFixture, tmp / "imported", std::nullopt, &warnings).dir);
    ASSERT_EQ(s.experiments().size(), 12u);
    for (int n = 0; n < 12; ++n) {
        const Experiment& e = s.experiments()[n];
        SCOPED_TRACE("experiment " + std::to_string(n));
        EXPECT_EQ(e.number, n);
        EXPECT_EQ(e.outcome, kExpectedOutcomes[n]);
        EXPECT_EQ(e.agent, "autokernel-import");
        EXPECT_EQ(e.tag, "h200-nov29");
        EXPECT_EQ(e.kernel_file, n < 7 ? "kernels/rmsnorm.cu" : "kernels/softmax.cu");
        EXPECT_TRUE(contains(s.source_of(e), "Source not recorded by AutoKernel"));
        EXPECT_TRUE(contains(s.source_of(e), e.description));
        EXPECT_TRUE(contains(e.detail, "AutoKernel experiment " + std::to_string(n)));
    }
    EXPECT_EQ(s.experiments()[10].latency_us, 20.1);
    EXPECT_FALSE(s.experiments()[10].pct_peak);
    EXPECT_EQ(warnings.size(), 12u) << "one warning per row without a source";
    EXPECT_TRUE(contains(warnings[3], "line 5")) << warnings[3];
    EXPECT_TRUE(contains(warnings[3], "--repo")) << warnings[3];
    EXPECT_EQ(s.branch_tip(), s.experiments()[11].commit);
    EXPECT_EQ(s.best_of("kernels/rmsnorm.cu")->number, 4);
    EXPECT_EQ(s.info().kernels.size(), 2u);
}

TEST(AutoKernelImport, WithRepoTakesSourcesFromItsCommits) {
    TempDir tmp;
    const fs::path ak_repo = build_fake_autokernel_repo(tmp / "autokernel");
    std::vector<std::string> warnings;
    Session s = Session::open(import_autokernel(kFixture, tmp / "imported", ak_repo, &warnings).dir);
    ASSERT_EQ(s.experiments().size(), 12u);
    for (int n : {0, 1, 2, 4}) EXPECT_EQ(s.source_of(s.experiments()[n]), rms_source(n)) << n;
    for (int n : {7, 8, 9, 10, 11}) EXPECT_EQ(s.source_of(s.experiments()[n]), softmax_source(n)) << n;
    for (int n : {3, 5, 6}) {
        EXPECT_TRUE(contains(s.source_of(s.experiments()[n]), "Source not recorded by AutoKernel")) << n;
        EXPECT_TRUE(s.experiments()[n].started_utc.empty());
    }
    EXPECT_FALSE(s.experiments()[2].started_utc.empty()) << "time taken from the commit";
    EXPECT_TRUE(contains(s.experiments()[2].detail, "source from AutoKernel commit"));
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_TRUE(contains(warnings[0], "AutoKernel experiment 3")) << warnings[0];
    EXPECT_TRUE(contains(warnings[0], "No commit in")) << warnings[0];
    // The work tree holds the best of each kernel.
    EXPECT_EQ(read_file(tmp / "imported" / "kernels" / "rmsnorm.cu"), rms_source(4));
    EXPECT_EQ(read_file(tmp / "imported" / "kernels" / "softmax.cu"), softmax_source(11));
}

TEST(AutoKernelImport, ImportedSessionReopensCleanlyAndRepairsIdentically) {
    TempDir tmp;
    const fs::path dir = tmp / "imported";
    { import_autokernel(kFixture, dir, std::nullopt, nullptr); }
    const std::string original = read_file(dir / "results.tsv");
    Session s = Session::open(dir);
    EXPECT_TRUE(s.warnings().empty());
    EXPECT_EQ(s.experiments().size(), 12u);
    { Session release = std::move(s); }
    Session::repair(dir);
    EXPECT_EQ(read_file(dir / "results.tsv"), original);
    const auto log = RawRepository(dir).log_all();
    const Session viewer = Session::open(dir, OpenOptions{.read_only = true});
    ASSERT_EQ(viewer.experiments().size(), 12u);
    for (const Experiment& e : viewer.experiments()) EXPECT_TRUE(log.count(e.commit)) << e.number;
}

TEST(AutoKernelImport, SummaryOfImportedRun) {
    TempDir tmp;
    Session s = Session::open(import_autokernel(kFixture, tmp / "imported", std::nullopt, nullptr).dir);
    const SessionSummary summary = summarize(s.experiments());
    EXPECT_EQ(summary.baseline, 2);
    EXPECT_EQ(summary.kept, 5);
    EXPECT_EQ(summary.reverted, 2);
    EXPECT_EQ(summary.failed, 3);
    ASSERT_EQ(summary.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(*summary.kernels[0].speedup_over_starter, 39.5 / 37.9);
    EXPECT_EQ(summary.kernels[1].best->number, 10) << "lowest latency wins over a throughput-only row";
}

TEST(AutoKernelImport, UnixLineEndingsAndTabsInsideDescription) {
    TempDir tmp;
    std::string text = read_file(kFixture);
    std::string unix_text;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) unix_text += text[i];
    unix_text += "\n12\th200-nov29\tsoftmax\t\t19.9\t\t\tPASS\t\tsplit\tby\ttabs\n\n";
    replace_durably(tmp / "ak.tsv", unix_text);
    Session s = Session::open(import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr).dir);
    ASSERT_EQ(s.experiments().size(), 13u);
    EXPECT_EQ(s.experiments()[12].description, "split\tby\ttabs");
    EXPECT_EQ(s.experiments()[12].outcome, Outcome::Kept);
}

TEST(AutoKernelImport, NonUtf8DescriptionNamesLineAndByteAndCreatesNothing) {
    TempDir tmp;
    replace_durably(tmp / "ak.tsv", fixture_with("über", "\xFC" "ber"));  // Latin-1 ü
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_EQ(e.kind(), ErrorKind::BadEncoding);
    EXPECT_TRUE(contains(e.what(), "line 10")) << e.what();
    EXPECT_TRUE(contains(e.what(), "description")) << e.what();
    const std::string line10 = "8\th200-nov29\tsoftmax\t0.0043\t20.6\t73.3\t2.84\tPASS\t128\tonline softmax, one pass ";
    EXPECT_TRUE(contains(e.what(), "byte " + std::to_string(line10.size() + 1))) << e.what();
    EXPECT_TRUE(contains(e.what(), "0xFC")) << e.what();
    EXPECT_FALSE(fs::exists(tmp / "imported"));
}

TEST(AutoKernelImport, WrongHeaderNamesTheColumn) {
    TempDir tmp;
    replace_durably(tmp / "ak.tsv", fixture_with("\tlatency_us\t", "\tlatency_ms\t"));
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "column 5 is 'latency_ms', expected 'latency_us'")) << e.what();
    EXPECT_FALSE(fs::exists(tmp / "imported"));
}

TEST(AutoKernelImport, OurOwnResultsTsvIsNotAnAutoKernelFile) {
    TempDir tmp;
    replace_durably(tmp / "ours.tsv", results_header_line() + "\n");
    const Error e = error_of([&] { import_autokernel(tmp / "ours.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "unexpected column 11 'outcome'")) << e.what();
}

TEST(AutoKernelImport, MissingHeaderIsReported) {
    TempDir tmp;
    std::string text = read_file(kFixture);
    text.erase(0, text.find('\n') + 1);
    replace_durably(tmp / "ak.tsv", text);
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_TRUE(contains(e.what(), "line 1 (header): column 1 is '0', expected 'experiment'")) << e.what();
}

TEST(AutoKernelImport, WrongTypeNamesLineAndColumn) {
    TempDir tmp;
    replace_durably(tmp / "ak.tsv", fixture_with("\t41.2\t", "\tslow\t"));
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "line 4, column 5 (latency_us)")) << e.what();
    EXPECT_TRUE(contains(e.what(), "'slow'")) << e.what();

    replace_durably(tmp / "ak2.tsv", fixture_with("\tTIMEOUT\t", "\tHUNG\t"));
    const Error c = error_of([&] { import_autokernel(tmp / "ak2.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_TRUE(contains(c.what(), "line 5, column 8 (correctness)")) << c.what();
}

TEST(AutoKernelImport, RowWithTooFewFieldsIsReported) {
    TempDir tmp;
    replace_durably(tmp / "ak.tsv", fixture_with("\tPASS\t\ttwo rows per program", ""));
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "imported", std::nullopt, nullptr); });
    EXPECT_TRUE(contains(e.what(), "line 4: 7 fields, expected 10")) << e.what();
}

TEST(AutoKernelImport, RefusesANonEmptyTargetAndLeavesItAlone) {
    TempDir tmp;
    fs::create_directories(tmp / "busy");
    replace_durably(tmp / "busy" / "keep.txt", "mine");
    EXPECT_THROW(import_autokernel(kFixture, tmp / "busy", std::nullopt, nullptr), Error);
    EXPECT_EQ(read_file(tmp / "busy" / "keep.txt"), "mine");
}

TEST(AutoKernelImport, MissingFileIsNotFound) {
    TempDir tmp;
    EXPECT_EQ(error_of([&] { import_autokernel(tmp / "none.tsv", tmp / "imported", std::nullopt, nullptr); }).kind(),
              ErrorKind::NotFound);
}

// Issue 13, finding 6: a killed import left a partial session that a second import refused ("exists
// and is not an empty folder"). Now nothing appears under the final name until the import is
// complete, and running it again continues after the last durable chunk.
namespace {
std::string synthetic_autokernel_file(int rows) {
    std::string text = "experiment\ttag\tkernel_type\tthroughput_tflops\tlatency_us\tpct_peak\tspeedup_vs_pytorch\t"
                       "correctness\tpeak_vram_mb\tdescription\n";
    for (int n = 0; n < rows; ++n)
        text += std::to_string(n) + "\tbench\t" + (n % 3 ? "rmsnorm" : "softmax") + "\t1.5\t" +
                std::to_string(100 - (n * 7) % 50) + ".5\t50\t1.1\t" + (n % 5 == 4 ? "FAIL" : "PASS") +
                "\t10\tcandidate " + std::to_string(n) + "\n";
    return text;
}

std::vector<std::string> without_commits(const std::string& results) {
    std::vector<std::string> rows;
    for (auto line : split(results, '\n')) {
        auto fields = split(line, '\t');
        if (fields.size() < 13) continue;
        std::string row;
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (i != results_column::kCommit && i != results_column::kParentCommit) row += std::string(fields[i]) + "\t";
        rows.push_back(row);
    }
    return rows;
}
}  // namespace

TEST(AutoKernelImport, AKilledImportIsContinuedByRunningItAgain) {
    TempDir tmp;
    replace_durably(tmp / "ak.tsv", synthetic_autokernel_file(50));
    ::setenv("AK_TEST_IMPORT_CHUNK", "10", 1);
    ::setenv("AK_TEST_IMPORT_KILL_AFTER_CHUNKS", "3", 1);
    const BoundedRun killed = run_bounded(60.0, [&] { import_autokernel(tmp / "ak.tsv", tmp / "s", std::nullopt, nullptr); });
    ::unsetenv("AK_TEST_IMPORT_KILL_AFTER_CHUNKS");
    EXPECT_FALSE(killed.ok);
    EXPECT_FALSE(killed.timed_out);
    EXPECT_FALSE(fs::exists(tmp / "s")) << "a partial session under the final name";
    EXPECT_TRUE(fs::exists(SessionBuilder::staging_for(tmp / "s")));

    // Another file cannot continue it; the message says how to discard it.
    replace_durably(tmp / "other.tsv", synthetic_autokernel_file(5));
    const Error other = error_of([&] { import_autokernel(tmp / "other.tsv", tmp / "s", std::nullopt, nullptr); });
    EXPECT_TRUE(contains(other.what(), "rm -r '" + SessionBuilder::staging_for(tmp / "s").string() + "'")) << other.what();

    std::vector<std::string> warnings;
    std::size_t last_progress = 0;
    const ImportResult result = import_autokernel(tmp / "ak.tsv", tmp / "s", std::nullopt, &warnings,
                                                  [&](std::size_t done, std::size_t total) {
                                                      EXPECT_EQ(total, 50u);
                                                      last_progress = done;
                                                  });
    ::unsetenv("AK_TEST_IMPORT_CHUNK");
    EXPECT_EQ(result.resumed_after, 30u);
    EXPECT_EQ(result.experiments, 50u);
    EXPECT_EQ(last_progress, 50u);
    EXPECT_FALSE(fs::exists(SessionBuilder::staging_for(tmp / "s")));
    {
        const Session s = Session::open(tmp / "s");
        EXPECT_TRUE(s.warnings().empty()) << s.warnings().front();
        ASSERT_EQ(s.experiments().size(), 50u);
    }

    // The same rows as an import that was never stopped (commit ids differ: they carry the time).
    import_autokernel(tmp / "ak.tsv", tmp / "fresh", std::nullopt, nullptr);
    EXPECT_EQ(without_commits(read_file(tmp / "s" / "results.tsv")), without_commits(read_file(tmp / "fresh" / "results.tsv")));
    std::vector<std::string> repair_notes;
    EXPECT_EQ(Session::repair(tmp / "s", &repair_notes), 50u);
    EXPECT_TRUE(contains(repair_notes.back(), "already matched")) << repair_notes.back();
}

// Issue 13, finding 1: a kernel_type of 65,533 characters imported with exit 0 and a broken tree.
TEST(AutoKernelImport, AKernelTypeTooLongForAFileNameIsRefusedNamingLineAndColumn) {
    TempDir tmp;
    std::string text = synthetic_autokernel_file(2);
    text += "2\tbench\t" + std::string(65533, 'r') + "\t1\t2\t3\t1\tPASS\t1\tlong type\n";
    replace_durably(tmp / "ak.tsv", text);
    const Error e = error_of([&] { import_autokernel(tmp / "ak.tsv", tmp / "s", std::nullopt, nullptr); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "line 4, column 3 (kernel_type): 65533 characters, at most 200")) << e.what();
    EXPECT_FALSE(fs::exists(tmp / "s"));
    EXPECT_FALSE(fs::exists(SessionBuilder::staging_for(tmp / "s")));
}
