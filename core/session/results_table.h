#pragma once
// results.tsv: the session's append-only, tab-separated experiment log.
//
// Columns: AutoKernel's ten first, in its order, then ours (see kColumns). Field encoding:
//   - empty field = no value (optional metrics);
//   - numbers in C locale, shortest round-trip form;
//   - text fields escape backslash, tab, CR and LF as \\ \t \r \n, so a row is always one line.
// The file is UTF-8; a row with invalid UTF-8 is rejected with its line number.
#include "session/experiment.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

// Column positions in file order: AutoKernel's ten, then ours. results.tsv and the AutoKernel importer
// both index fields with these.
namespace results_column {
enum : std::size_t {
    kExperiment,
    kTag,
    kKernelType,
    kThroughputTflops,
    kLatencyUs,
    kPctPeak,
    kSpeedupVsPytorch,
    kCorrectness,
    kPeakVramMb,
    kDescription,
    kAutoKernelCount,  // AutoKernel's columns end here; ours follow
    kOutcome = kAutoKernelCount,
    kCommit,
    kParentCommit,
    kKernelFile,
    kBandwidthGbS,
    kBound,
    kAgent,
    kStartedUtc,
    kDurationS,
    kLatencyIqrUs,
    kDetail,
    kCount
};
}  // namespace results_column

// Every column in file order.
std::span<const std::string_view> results_columns();
// AutoKernel's ten columns (the prefix of results_columns()).
std::span<const std::string_view> autokernel_columns();

// The header line, without the trailing newline.
std::string results_header_line();

// Formats one row (no trailing newline). Throws Error(BadEncoding) if a text field is not UTF-8.
std::string format_results_row(const Experiment& e);

// Parses one row (no trailing newline). `line_number` (1-based) goes into error messages.
// Throws Error(BadFormat) naming the line, column and value on a wrong field count or type,
// Error(BadEncoding) on invalid UTF-8.
Experiment parse_results_row(std::string_view line, int line_number);

struct ResultsFile {
    std::vector<Experiment> rows;
    // A last line without its newline, or one with too few fields: what a crash mid-append leaves.
    // Holds the raw text (possibly empty) when present; the row itself is not in `rows`.
    std::optional<std::string> torn_tail;
    std::uintmax_t bytes_read = 0;   // offset after the last complete line (for incremental reads)
};

// Reads and validates a whole results.tsv. The header must match exactly (an error names the first
// differing column). Complete rows must parse; only the final, unterminated line may be torn.
// Row N (0-based, file line N + 2) must carry experiment number N; a mismatch is Error(BadFormat)
// naming the line.
ResultsFile read_results_file(const std::filesystem::path& path);

// Reads rows appended after `offset` (as returned in bytes_read). Used by the GUI's file watcher.
// `first_line_number` is the file line number of the first row after `offset`. Throws Error(Io)
// when the file is now shorter than `offset` (it was replaced: read it whole again).
ResultsFile read_results_tail(const std::filesystem::path& path, std::uintmax_t offset, int first_line_number);

}  // namespace ak
