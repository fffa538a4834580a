#include "session/results_table.h"

#include "test_support.h"
#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

using namespace ak;
using ak::testing::read_text;
using ak::testing::TempDir;

namespace {

const std::string kCommitA(40, 'a');
const std::string kCommitB = "0123456789abcdef0123456789abcdef01234567";

Experiment full_experiment(int number) {
    Experiment e;
    e.number = number;
    e.tag = "h200\trun";
    e.kernel_type = "rmsnorm";
    e.throughput_tflops = 0.1 + 0.2;
    e.latency_us = 40.2;
    e.pct_peak = 90.25;
    e.speedup_vs_pytorch = 1.4228855721393034;
    e.correctness = Correctness::Timeout;
    e.peak_vram_mb = 1536;
    e.description = "16-byte loads\\n (not a newline), real\nnewline, tab\there, CR\r, µs → 3× faster 🚀";
    e.outcome = Outcome::Kept;
    e.commit = kCommitA;
    e.parent_commit = kCommitB;
    e.kernel_file = "kernels/rms norm.cu";
    e.bandwidth_gb_s = 3342.5;
    e.bound = Bound::Memory;
    e.agent = "llm:qwen-2.5 \"coder\"";
    e.started_utc = "2026-11-29T08:15:02Z";
    e.duration_s = 1.25e-3;
    e.latency_iqr_us = 0.3;
    e.detail = "stage 3: shape 4096×8192 bf16\\";
    return e;
}

Experiment minimal_experiment(int number) {
    Experiment e;
    e.number = number;
    e.commit = kCommitB;
    e.outcome = Outcome::Failed;
    e.correctness = Correctness::Crash;
    return e;
}

std::string file_with(const std::vector<std::string>& rows) {
    std::string text = results_header_line() + "\n";
    for (const auto& r : rows) text += r + "\n";
    return text;
}

template <typename F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "expected an ak::Error";
    return Error(ErrorKind::Internal, "none");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(ResultsColumns, StartWithAutoKernelsTenColumnsInOrder) {
    const std::vector<std::string_view> expected = {"experiment", "tag", "kernel_type", "throughput_tflops",
                                                    "latency_us", "pct_peak", "speedup_vs_pytorch",
                                                    "correctness", "peak_vram_mb", "description"};
    const auto ak_columns = autokernel_columns();
    ASSERT_EQ(ak_columns.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(ak_columns[i], expected[i]);
        EXPECT_EQ(results_columns()[i], expected[i]);
    }
    EXPECT_GT(results_columns().size(), expected.size());
    EXPECT_TRUE(results_header_line().starts_with("experiment\ttag\tkernel_type\t"));
}

TEST(ResultsRow, RoundTripsEveryFieldIncludingEscapesAndUnicode) {
    const Experiment e = full_experiment(7);
    const std::string row = format_results_row(e);
    EXPECT_EQ(row.find_first_of("\n\r"), std::string::npos) << "a row must stay on one line";
    EXPECT_EQ(std::count(row.begin(), row.end(), '\t') + 1, static_cast<long>(results_columns().size()));
    EXPECT_EQ(parse_results_row(row, 9), e);
}

TEST(ResultsRow, RoundTripsEmptyOptionalFields) {
    const Experiment e = minimal_experiment(0);
    const Experiment back = parse_results_row(format_results_row(e), 2);
    EXPECT_EQ(back, e);
    EXPECT_FALSE(back.latency_us.has_value());
    EXPECT_FALSE(back.peak_vram_mb.has_value());
}

TEST(ResultsRow, WritesNumbersInShortestCLocaleForm) {
    Experiment e = minimal_experiment(3);
    e.latency_us = 39.5;
    e.throughput_tflops = 721.0;
    const std::string row = format_results_row(e);
    const auto fields = split(row, '\t');
    EXPECT_EQ(fields[4], "39.5");
    EXPECT_EQ(fields[3], "721");
}

TEST(ResultsRow, WrongTypeNamesLineAndColumn) {
    const std::string original = format_results_row(full_experiment(0));
    auto fields = split(original, '\t');
    std::vector<std::string> owned(fields.begin(), fields.end());
    owned[4] = "fast";
    std::string row;
    for (std::size_t i = 0; i < owned.size(); ++i) row += (i ? "\t" : "") + owned[i];
    const Error e = error_of([&] { parse_results_row(row, 12); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "line 12")) << e.what();
    EXPECT_TRUE(contains(e.what(), "latency_us")) << e.what();
    EXPECT_TRUE(contains(e.what(), "'fast'")) << e.what();
}

TEST(ResultsRow, RejectsUnknownCorrectnessOutcomeAndBadCommit) {
    const std::string good = format_results_row(minimal_experiment(0));
    auto with = [&](std::size_t column, const std::string& value) {
        auto fields = split(good, '\t');
        std::string row;
        for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? "\t" : "") + (i == column ? value : std::string(fields[i]));
        return row;
    };
    EXPECT_TRUE(contains(error_of([&] { parse_results_row(with(7, "pass"), 2); }).what(), "correctness"));
    EXPECT_TRUE(contains(error_of([&] { parse_results_row(with(10, "discarded"), 2); }).what(), "outcome"));
    EXPECT_TRUE(contains(error_of([&] { parse_results_row(with(11, "abc123"), 2); }).what(), "commit"));
    EXPECT_TRUE(contains(error_of([&] { parse_results_row(with(0, "-1"), 2); }).what(), "experiment"));
    EXPECT_TRUE(contains(error_of([&] { parse_results_row(with(15, "io"), 2); }).what(), "bound"));
}

TEST(ResultsRow, WrongFieldCountNamesLine) {
    const Error e = error_of([] { parse_results_row("0\ttag\tsoftmax", 5); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "line 5")) << e.what();
    EXPECT_TRUE(contains(e.what(), "3 fields")) << e.what();
}

TEST(ResultsRow, NonUtf8NamesLineColumnAndByte) {
    std::string row = format_results_row(minimal_experiment(0));
    const std::size_t description = [&] {
        std::size_t pos = 0;
        for (int tabs = 0; tabs < 9; ++tabs) pos = row.find('\t', pos) + 1;
        return pos;
    }();
    row.insert(description, "caf\xE9");
    const Error e = error_of([&] { parse_results_row(row, 4); });
    EXPECT_EQ(e.kind(), ErrorKind::BadEncoding);
    EXPECT_TRUE(contains(e.what(), "line 4")) << e.what();
    EXPECT_TRUE(contains(e.what(), "description")) << e.what();
    EXPECT_TRUE(contains(e.what(), "byte " + std::to_string(description + 4))) << e.what();
    EXPECT_TRUE(contains(e.what(), "0xE9")) << e.what();
}

TEST(ResultsRow, FormatRejectsNonUtf8Text) {
    Experiment e = minimal_experiment(2);
    e.description = "bad \xFF byte";
    const Error error = error_of([&] { format_results_row(e); });
    EXPECT_EQ(error.kind(), ErrorKind::BadEncoding);
    EXPECT_TRUE(contains(error.what(), "description")) << error.what();
}

TEST(ResultsFile, ReadsRowsInOrder) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, file_with({format_results_row(full_experiment(0)), format_results_row(minimal_experiment(1))}));
    const ResultsFile file = read_results_file(path);
    ASSERT_EQ(file.rows.size(), 2u);
    EXPECT_EQ(file.rows[0], full_experiment(0));
    EXPECT_EQ(file.rows[1], minimal_experiment(1));
    EXPECT_FALSE(file.torn_tail);
    EXPECT_EQ(file.bytes_read, read_text(path).size());
}

TEST(ResultsFile, HeaderErrorNamesTheDifferingColumn) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    std::string header = results_header_line();
    header.replace(header.find("latency_us"), 10, "latency");
    replace_durably(path, header + "\n");
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "column 5")) << e.what();
    EXPECT_TRUE(contains(e.what(), "'latency'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "latency_us")) << e.what();
    EXPECT_TRUE(contains(e.what(), "results.tsv")) << e.what();
}

TEST(ResultsFile, AutoKernelTenColumnHeaderIsReportedAsMissingOurColumns) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path,
                    "experiment\ttag\tkernel_type\tthroughput_tflops\tlatency_us\tpct_peak\tspeedup_vs_pytorch\t"
                    "correctness\tpeak_vram_mb\tdescription\n");
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "column 11 (outcome) is missing")) << e.what();
}

TEST(ResultsFile, ExtraHeaderColumnIsAnError) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, results_header_line() + "\tnotes\n");
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_TRUE(contains(e.what(), "'notes'")) << e.what();
}

TEST(ResultsFile, WrongTypeInMiddleRowNamesFileLineAndColumn) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    std::string bad = format_results_row(minimal_experiment(1));
    bad.replace(bad.find("\tCRASH\t"), 7, "\tmaybe\t");
    replace_durably(path, file_with({format_results_row(minimal_experiment(0)), bad,
                                     format_results_row(minimal_experiment(2))}));
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "results.tsv: line 3")) << e.what();
    EXPECT_TRUE(contains(e.what(), "correctness")) << e.what();
}

TEST(ResultsFile, ShortRowInTheMiddleIsAnErrorNotATornLine) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, file_with({"0\tshort", format_results_row(minimal_experiment(1))}));
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_TRUE(contains(e.what(), "line 2")) << e.what();
}

TEST(ResultsFile, UnterminatedLastLineIsTorn) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    const std::string complete = file_with({format_results_row(minimal_experiment(0))});
    const std::string row1 = format_results_row(minimal_experiment(1));
    replace_durably(path, complete + row1.substr(0, row1.size() - 5));
    const ResultsFile file = read_results_file(path);
    EXPECT_EQ(file.rows.size(), 1u);
    ASSERT_TRUE(file.torn_tail);
    EXPECT_EQ(*file.torn_tail, row1.substr(0, row1.size() - 5));
    EXPECT_EQ(file.bytes_read, complete.size());
}

TEST(ResultsFile, TerminatedLastLineWithTooFewFieldsIsTorn) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    const std::string complete = file_with({format_results_row(minimal_experiment(0))});
    replace_durably(path, complete + "1\tt1\tsoftm\n");
    const ResultsFile file = read_results_file(path);
    EXPECT_EQ(file.rows.size(), 1u);
    ASSERT_TRUE(file.torn_tail);
    EXPECT_EQ(*file.torn_tail, "1\tt1\tsoftm");
    EXPECT_EQ(file.bytes_read, complete.size());
}

TEST(ResultsFile, NonUtf8RowIsRejectedWithItsLine) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    Experiment e = minimal_experiment(1);
    e.description = "PLACEHOLDER";
    std::string row = format_results_row(e);
    row.replace(row.find("PLACEHOLDER"), 11, "na\xEFve");
    replace_durably(path, file_with({format_results_row(minimal_experiment(0)), row}));
    const Error error = error_of([&] { read_results_file(path); });
    EXPECT_EQ(error.kind(), ErrorKind::BadEncoding);
    EXPECT_TRUE(contains(error.what(), "line 3")) << error.what();
    EXPECT_TRUE(contains(error.what(), "description")) << error.what();
}

TEST(ResultsFile, ExperimentNumberMustEqualPosition) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, file_with({format_results_row(minimal_experiment(0)), format_results_row(minimal_experiment(2))}));
    const Error e = error_of([&] { read_results_file(path); });
    EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
    EXPECT_TRUE(contains(e.what(), "line 3")) << e.what();
    EXPECT_TRUE(contains(e.what(), "expected 1")) << e.what();
}

TEST(ResultsFile, EmptyFileAndMissingFileAreErrors) {
    TempDir dir;
    replace_durably(dir / "empty.tsv", "");
    EXPECT_EQ(error_of([&] { read_results_file(dir / "empty.tsv"); }).kind(), ErrorKind::BadFormat);
    EXPECT_EQ(error_of([&] { read_results_file(dir / "none.tsv"); }).kind(), ErrorKind::NotFound);
}

TEST(ResultsTail, ReadsOnlyCompleteRowsAppendedAfterOffset) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, file_with({format_results_row(minimal_experiment(0))}));
    const ResultsFile first = read_results_file(path);
    const std::string row1 = format_results_row(full_experiment(1)) + "\n";
    const std::string row2 = format_results_row(minimal_experiment(2));
    append_durably(path, row1 + row2.substr(0, 10));  // row 2 still being written

    const ResultsFile tail = read_results_tail(path, first.bytes_read, 3);
    ASSERT_EQ(tail.rows.size(), 1u);
    EXPECT_EQ(tail.rows[0], full_experiment(1));
    EXPECT_EQ(tail.bytes_read, first.bytes_read + row1.size());
    ASSERT_TRUE(tail.torn_tail);

    append_durably(path, row2.substr(10) + "\n");
    const ResultsFile rest = read_results_tail(path, tail.bytes_read, 4);
    ASSERT_EQ(rest.rows.size(), 1u);
    EXPECT_EQ(rest.rows[0], minimal_experiment(2));
    EXPECT_FALSE(rest.torn_tail);
}

TEST(ResultsTail, ShorterFileThanOffsetIsReported) {
    TempDir dir;
    const auto path = dir / "results.tsv";
    replace_durably(path, file_with({}));
    EXPECT_EQ(error_of([&] { read_results_tail(path, 100000, 2); }).kind(), ErrorKind::Io);
}
