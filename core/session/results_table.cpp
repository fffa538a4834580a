#include "session/results_table.h"

#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"
#include "util/utf8.h"

#include <array>
#include <cstdio>

namespace ak {
namespace {

namespace fs = std::filesystem;

using namespace results_column;
constexpr std::size_t kColumnCount = kCount;
constexpr std::size_t kAutoKernelColumnCount = kAutoKernelCount;

constexpr std::array<std::string_view, kColumnCount> kColumns = {
    "experiment",     "tag",       "kernel_type",   "throughput_tflops", "latency_us",  "pct_peak",
    "speedup_vs_pytorch", "correctness", "peak_vram_mb", "description",
    "outcome",        "commit",    "parent_commit", "kernel_file",       "bandwidth_gb_s", "bound",
    "agent",          "started_utc", "duration_s",  "latency_iqr_us",    "detail",
};
static_assert(kAutoKernelColumnCount == 10, "AutoKernel's results.tsv has ten columns");

std::string quoted(std::string_view value) {
    constexpr std::size_t kMax = 60;
    std::string out = "'";
    out += value.size() > kMax ? std::string(value.substr(0, kMax)) + "..." : std::string(value);
    out += "'";
    return out;
}

std::string column_label(std::size_t column) {
    return "column " + std::to_string(column + 1) + " (" + std::string(kColumns[column]) + ")";
}

[[noreturn]] void bad_field(int line_number, std::size_t column, std::string_view expected, std::string_view value) {
    throw Error(ErrorKind::BadFormat, "line " + std::to_string(line_number) + ", " + column_label(column) +
                                          ": expected " + std::string(expected) + ", found " + quoted(value));
}

bool is_commit_id(std::string_view text) {
    if (text.size() != 40) return false;
    for (const char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string format_optional(const std::optional<double>& value) {
    return value ? format_double(*value) : std::string();
}

std::optional<double> parse_optional_number(std::string_view field, int line_number, std::size_t column) {
    if (field.empty()) return std::nullopt;
    const auto value = parse_double(field);
    if (!value) bad_field(line_number, column, "a number or an empty field", field);
    return value;
}

void check_encoding(const Experiment& e, std::string_view field, std::string_view value) {
    if (const auto bad = first_invalid_utf8(value)) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(value[*bad]));
        throw Error(ErrorKind::BadEncoding, "experiment " + std::to_string(e.number) + ", field " +
                                                std::string(field) + ": invalid UTF-8 at byte " +
                                                std::to_string(*bad + 1) + " (" + byte + ")");
    }
}

std::size_t fields_in(std::string_view line) {
    std::size_t n = 1;
    for (const char c : line) n += c == '\t';
    return n;
}

// Parses `text` (starting at file offset `base_offset`, file line `first_line_number`) into rows.
// A final unterminated line, or a final line with too few fields, becomes torn_tail.
ResultsFile parse_rows(std::string_view text, std::uintmax_t base_offset, int first_line_number) {
    ResultsFile file;
    file.bytes_read = base_offset;
    std::size_t position = 0;
    int line_number = first_line_number;
    while (position < text.size()) {
        const std::size_t newline = text.find('\n', position);
        if (newline == std::string_view::npos) {
            file.torn_tail = std::string(text.substr(position));
            break;
        }
        const std::string_view line = text.substr(position, newline - position);
        const bool last = newline + 1 == text.size();
        if (last && fields_in(line) < kColumnCount && is_valid_utf8(line)) {
            file.torn_tail = std::string(line);
            break;
        }
        Experiment row = parse_results_row(line, line_number);
        const int expected = line_number - 2;
        if (row.number != expected)
            throw Error(ErrorKind::BadFormat, "line " + std::to_string(line_number) + ": experiment number is " +
                                                  std::to_string(row.number) + " but rows must be numbered 0, 1, "
                                                  "2, ... in order (expected " + std::to_string(expected) + ")");
        file.rows.push_back(std::move(row));
        position = newline + 1;
        file.bytes_read = base_offset + position;
        ++line_number;
    }
    return file;
}

// Adds the file's path to an error message, keeping its kind.
template <typename F>
auto with_path(const fs::path& path, F&& body) {
    try {
        return body();
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::NotFound) throw;
        throw Error(e.kind(), path.string() + ": " + e.what());
    }
}

}  // namespace

std::span<const std::string_view> results_columns() { return kColumns; }

std::span<const std::string_view> autokernel_columns() {
    return std::span<const std::string_view>(kColumns).first(kAutoKernelColumnCount);
}

std::string results_header_line() {
    std::string header;
    for (std::size_t i = 0; i < kColumns.size(); ++i) {
        if (i) header += '\t';
        header += kColumns[i];
    }
    return header;
}

std::string format_results_row(const Experiment& e) {
    const std::pair<std::string_view, const std::string*> text_fields[] = {
        {"tag", &e.tag},
        {"kernel_type", &e.kernel_type},
        {"description", &e.description},
        {"commit", &e.commit},
        {"parent_commit", &e.parent_commit},
        {"kernel_file", &e.kernel_file},
        {"agent", &e.agent},
        {"started_utc", &e.started_utc},
        {"detail", &e.detail},
    };
    for (const auto& [name, value] : text_fields) check_encoding(e, name, *value);

    std::array<std::string, kColumnCount> fields;
    fields[kExperiment] = std::to_string(e.number);
    fields[kTag] = escape_field(e.tag);
    fields[kKernelType] = escape_field(e.kernel_type);
    fields[kThroughputTflops] = format_optional(e.throughput_tflops);
    fields[kLatencyUs] = format_optional(e.latency_us);
    fields[kPctPeak] = format_optional(e.pct_peak);
    fields[kSpeedupVsPytorch] = format_optional(e.speedup_vs_pytorch);
    fields[kCorrectness] = to_string(e.correctness);
    fields[kPeakVramMb] = format_optional(e.peak_vram_mb);
    fields[kDescription] = escape_field(e.description);
    fields[kOutcome] = to_string(e.outcome);
    fields[kCommit] = escape_field(e.commit);
    fields[kParentCommit] = escape_field(e.parent_commit);
    fields[kKernelFile] = escape_field(e.kernel_file);
    fields[kBandwidthGbS] = format_optional(e.bandwidth_gb_s);
    fields[kBound] = to_string(e.bound);
    fields[kAgent] = escape_field(e.agent);
    fields[kStartedUtc] = escape_field(e.started_utc);
    fields[kDurationS] = format_optional(e.duration_s);
    fields[kLatencyIqrUs] = format_optional(e.latency_iqr_us);
    fields[kDetail] = escape_field(e.detail);

    std::string row;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) row += '\t';
        row += fields[i];
    }
    return row;
}

Experiment parse_results_row(std::string_view line, int line_number) {
    if (const auto bad = first_invalid_utf8(line)) {
        std::size_t column = 0;
        for (std::size_t i = 0; i < *bad; ++i) column += line[i] == '\t';
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[*bad]));
        const std::string where = column < kColumnCount ? ", " + column_label(column) : std::string();
        throw Error(ErrorKind::BadEncoding, "line " + std::to_string(line_number) + where + ", byte " +
                                                std::to_string(*bad + 1) + ": invalid UTF-8 (" + byte + ")");
    }
    const auto fields = split(line, '\t');
    if (fields.size() != kColumnCount)
        throw Error(ErrorKind::BadFormat, "line " + std::to_string(line_number) + ": " +
                                              std::to_string(fields.size()) + " fields, expected " +
                                              std::to_string(kColumnCount) + " (" +
                                              (fields.size() < kColumnCount
                                                   ? "first missing: " + std::string(kColumns[fields.size()])
                                                   : std::string("too many tabs")) +
                                              ")");

    Experiment e;
    const auto number = parse_int(fields[kExperiment]);
    if (!number || *number < 0 || *number > 0x7fffffff)
        bad_field(line_number, kExperiment, "an experiment number (0, 1, 2, ...)", fields[kExperiment]);
    e.number = static_cast<int>(*number);
    e.tag = unescape_field(fields[kTag]);
    e.kernel_type = unescape_field(fields[kKernelType]);
    e.throughput_tflops = parse_optional_number(fields[kThroughputTflops], line_number, kThroughputTflops);
    e.latency_us = parse_optional_number(fields[kLatencyUs], line_number, kLatencyUs);
    e.pct_peak = parse_optional_number(fields[kPctPeak], line_number, kPctPeak);
    e.speedup_vs_pytorch = parse_optional_number(fields[kSpeedupVsPytorch], line_number, kSpeedupVsPytorch);
    const auto correctness = parse_correctness(fields[kCorrectness]);
    if (!correctness) bad_field(line_number, kCorrectness, "PASS, FAIL, TIMEOUT or CRASH", fields[kCorrectness]);
    e.correctness = *correctness;
    e.peak_vram_mb = parse_optional_number(fields[kPeakVramMb], line_number, kPeakVramMb);
    e.description = unescape_field(fields[kDescription]);

    const auto outcome = parse_outcome(fields[kOutcome]);
    if (!outcome) bad_field(line_number, kOutcome, "baseline, kept, reverted or failed", fields[kOutcome]);
    e.outcome = *outcome;
    if (!is_commit_id(fields[kCommit])) bad_field(line_number, kCommit, "a 40-digit commit id", fields[kCommit]);
    e.commit = std::string(fields[kCommit]);
    if (!fields[kParentCommit].empty() && !is_commit_id(fields[kParentCommit]))
        bad_field(line_number, kParentCommit, "a 40-digit commit id or an empty field", fields[kParentCommit]);
    e.parent_commit = std::string(fields[kParentCommit]);
    e.kernel_file = unescape_field(fields[kKernelFile]);
    e.bandwidth_gb_s = parse_optional_number(fields[kBandwidthGbS], line_number, kBandwidthGbS);
    const auto bound = parse_bound(fields[kBound]);
    if (!bound) bad_field(line_number, kBound, "memory, compute, unknown or an empty field", fields[kBound]);
    e.bound = *bound;
    e.agent = unescape_field(fields[kAgent]);
    e.started_utc = unescape_field(fields[kStartedUtc]);
    e.duration_s = parse_optional_number(fields[kDurationS], line_number, kDurationS);
    e.latency_iqr_us = parse_optional_number(fields[kLatencyIqrUs], line_number, kLatencyIqrUs);
    e.detail = unescape_field(fields[kDetail]);
    return e;
}

ResultsFile read_results_file(const fs::path& path) {
    const std::string text = read_file(path);  // NotFound / Io name the path
    return with_path(path, [&] {
        const std::size_t newline = text.find('\n');
        if (text.empty()) throw Error(ErrorKind::BadFormat, "the file is empty (no header line)");
        if (newline == std::string::npos)
            throw Error(ErrorKind::BadFormat, "the header line is incomplete (no newline)");
        const std::string_view header = std::string_view(text).substr(0, newline);
        const auto names = split(header, '\t');
        for (std::size_t i = 0; i < std::max(names.size(), kColumns.size()); ++i) {
            if (i >= names.size())
                throw Error(ErrorKind::BadFormat, "line 1 (header): column " + std::to_string(i + 1) + " (" +
                                                      std::string(kColumns[i]) + ") is missing; the header has " +
                                                      std::to_string(names.size()) + " columns, expected " +
                                                      std::to_string(kColumns.size()));
            if (i >= kColumns.size())
                throw Error(ErrorKind::BadFormat, "line 1 (header): unexpected extra column " +
                                                      std::to_string(i + 1) + " " + quoted(names[i]) +
                                                      "; expected " + std::to_string(kColumns.size()) + " columns");
            if (names[i] != kColumns[i])
                throw Error(ErrorKind::BadFormat, "line 1 (header): column " + std::to_string(i + 1) + " is " +
                                                      quoted(names[i]) + ", expected '" + std::string(kColumns[i]) +
                                                      "'");
        }
        return parse_rows(std::string_view(text).substr(newline + 1), newline + 1, 2);
    });
}

ResultsFile read_results_tail(const fs::path& path, std::uintmax_t offset, int first_line_number) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (!ec && size < offset)
        throw Error(ErrorKind::Io, path.string() + " is shorter (" + std::to_string(size) + " bytes) than the " +
                                       std::to_string(offset) + " bytes already read: it was replaced");
    const std::string text = read_file_from(path, offset);  // refuses FIFOs and devices, names the path
    return with_path(path, [&] { return parse_rows(text, offset, first_line_number); });
}

}  // namespace ak
