#include "session/commit_trailers.h"

#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

using namespace ak;

namespace {
Experiment sample() {
    Experiment e;
    e.number = 12;
    e.tag = "h200";
    e.kernel_type = "rmsnorm";
    e.latency_us = 40.2;
    e.throughput_tflops = std::nullopt;
    e.speedup_vs_pytorch = 1.42;
    e.correctness = Correctness::Pass;
    e.description = "16-byte loads, one row per warp\nsecond line \\ µ";
    e.outcome = Outcome::Kept;
    e.commit = std::string(40, 'c');
    e.parent_commit = std::string(40, 'b');
    e.kernel_file = "kernels/rmsnorm.cu";
    e.bound = Bound::Memory;
    e.agent = "search";
    e.detail = "tab\there";
    return e;
}
}  // namespace

TEST(CommitTrailers, KeyIsCapitalisedColumnName) {
    EXPECT_EQ(trailer_key("throughput_tflops"), "Autokernel-Throughput-Tflops");
    EXPECT_EQ(trailer_key("experiment"), "Autokernel-Experiment");
    EXPECT_EQ(trailer_key("speedup_vs_pytorch"), "Autokernel-Speedup-Vs-Pytorch");
}

TEST(CommitTrailers, MessageHasSubjectBlankLineAndOneTrailerPerField) {
    const std::string message = format_experiment_message(sample());
    const auto lines = split(message, '\n');
    EXPECT_EQ(lines[0], "exp 12 (rmsnorm): 16-byte loads, one row per warp\\nsecond line \\\\ µ");
    EXPECT_EQ(lines[1], "");
    EXPECT_NE(message.find("\nAutokernel-Latency-Us: 40.2\n"), std::string::npos) << message;
    EXPECT_NE(message.find("\nAutokernel-Throughput-Tflops:\n"), std::string::npos) << message;
    EXPECT_NE(message.find("\nAutokernel-Outcome: kept\n"), std::string::npos) << message;
    EXPECT_EQ(message.find("Autokernel-Commit:"), std::string::npos) << "a commit cannot name itself";
}

TEST(CommitTrailers, ParseRoundTripsToTheSameExperiment) {
    const Experiment e = sample();
    const std::string message = format_experiment_message(e);
    EXPECT_EQ(parse_experiment_message(message, e.commit), e);
    Experiment other = e;
    other.commit = std::string(40, 'd');
    EXPECT_EQ(parse_experiment_message(message, other.commit), other);
}

TEST(CommitTrailers, ToleratesCrLfAndExtraUnknownTrailers) {
    const Experiment e = sample();
    std::string message = format_experiment_message(e) + "Autokernel-Future-Field: 1\nSigned-off-by: someone\n";
    std::string crlf;
    for (const char c : message) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    EXPECT_EQ(parse_experiment_message(crlf, e.commit), e);
}

TEST(CommitTrailers, MissingTrailerNamesCommitAndTrailer) {
    const Experiment e = sample();
    std::string message = format_experiment_message(e);
    const auto at = message.find("Autokernel-Agent:");
    message.erase(at, message.find('\n', at) - at + 1);
    try {
        parse_experiment_message(message, e.commit);
        FAIL();
    } catch (const Error& error) {
        EXPECT_EQ(error.kind(), ErrorKind::BadFormat);
        EXPECT_NE(std::string(error.what()).find(e.commit), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("Autokernel-Agent"), std::string::npos) << error.what();
    }
}

TEST(CommitTrailers, MalformedValueNamesCommitAndColumn) {
    const Experiment e = sample();
    std::string message = format_experiment_message(e);
    message.replace(message.find("Autokernel-Latency-Us: 40.2"), 27, "Autokernel-Latency-Us: fast");
    try {
        parse_experiment_message(message, e.commit);
        FAIL();
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("latency_us"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find(e.commit), std::string::npos) << error.what();
    }
}

TEST(CommitTrailers, ForeignCommitMessageIsRejected) {
    EXPECT_THROW(parse_experiment_message("Fix typo\n\nSigned-off-by: x\n", std::string(40, 'e')), Error);
}
