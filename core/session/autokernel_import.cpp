#include "session/autokernel_import.h"

#include "session/git_repository.h"
#include "session/results_table.h"
#include "session/session_builder.h"
#include "util/clock.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"
#include "util/utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <fstream>
#include <functional>
#include <limits>
#include <sys/stat.h>

namespace ak {
namespace {

namespace fs = std::filesystem;

using namespace results_column;  // AutoKernel's ten columns are the first ten of ours
constexpr std::size_t kAutoKernelColumnCount = kAutoKernelCount;

std::string where(int line, std::size_t column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column + 1) + " (" +
           std::string(autokernel_columns()[column]) + ")";
}

[[noreturn]] void bad(const fs::path& path, const std::string& message) {
    throw Error(ErrorKind::BadFormat, path.string() + ": " + message);
}

std::optional<double> number_field(std::string_view field, int line, std::size_t column, const fs::path& path) {
    field = trim(field);
    if (field.empty()) return std::nullopt;
    const auto value = parse_double(field);
    if (!value) bad(path, where(line, column) + ": expected a number or an empty field, found '" + std::string(field) + "'");
    return value;
}

std::string kernel_name_for(const std::string& kernel_type) {
    std::string name;
    for (const char c : kernel_type) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        name += ok ? c : '_';
    }
    if (name.empty() || name == "." || name == "..") name = "kernel";
    return name;
}

// The AutoKernel commits that may hold a row's source, oldest first, with their messages.
struct CommitIndex {
    struct Entry {
        std::string id;
        std::string message;
    };
    std::vector<Entry> commits;
    std::set<std::string> used;
};

std::string placeholder_source(const AutoKernelRow& row, const std::string& reason) {
    return "// Source not recorded by AutoKernel.\n"
           "// AutoKernel experiment " + std::to_string(row.metrics.number) + " (" + row.metrics.kernel_type +
           "): " + row.metrics.description + "\n"
           "// AutoKernel keeps only the kernel it is working on; `git reset` discards reverted experiments.\n"
           "// " + reason + "\n";
}

// True if `message` names experiment `number`: "exp 7", "exp7", "experiment 7" or "#7", the
// number not followed by another digit.
bool names_experiment(const std::string& message, int number) {
    const std::string digits = std::to_string(number);
    for (const std::string prefix : {"exp " , "exp", "experiment ", "#"}) {
        const std::string token = prefix + digits;
        for (std::size_t at = message.find(token); at != std::string::npos; at = message.find(token, at + 1)) {
            const std::size_t after = at + token.size();
            if (after == message.size() || !std::isdigit(static_cast<unsigned char>(message[after]))) return true;
        }
    }
    return false;
}

// Unused commits whose message contains the row's description, best first: those that also name
// the kernel type and the experiment number, then the oldest.
std::vector<const CommitIndex::Entry*> candidates_for(const CommitIndex& index, const Experiment& row) {
    std::vector<std::pair<int, const CommitIndex::Entry*>> scored;
    for (const auto& commit : index.commits) {
        if (index.used.count(commit.id) || commit.message.find(row.description) == std::string::npos) continue;
        const int score = (commit.message.find(row.kernel_type) != std::string::npos ? 2 : 0) +
                          (names_experiment(commit.message, row.number) ? 1 : 0);
        scored.emplace_back(score, &commit);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<const CommitIndex::Entry*> result;
    for (const auto& [score, commit] : scored) result.push_back(commit);
    return result;
}

}  // namespace

void for_each_autokernel_row(const fs::path& path, const std::function<void(AutoKernelRow&&)>& visit) {
    if (const auto odd = not_a_regular_file(path))
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": it is " + *odd + ", not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        if (!fs::exists(path, ec)) throw Error(ErrorKind::NotFound, "file not found: " + path.string());
        throw Error(ErrorKind::Io, "cannot read " + path.string());
    }
    bool header_seen = false;
    int line_number = 0;
    std::string text;
    while (std::getline(in, text)) {
        ++line_number;
        if (line_number == 1 && starts_with(text, "\xEF\xBB\xBF")) text.erase(0, 3);  // byte-order mark
        if (line_number == std::numeric_limits<int>::max())
            bad(path, "more than " + std::to_string(line_number) + " lines");
        std::string_view line = text;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // Windows line ending

        if (const auto bad_byte = first_invalid_utf8(line)) {
            std::size_t column = 0;
            for (std::size_t i = 0; i < *bad_byte; ++i) column += line[i] == '\t';
            char byte[8];
            std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[*bad_byte]));
            throw Error(ErrorKind::BadEncoding,
                        path.string() + ": line " + std::to_string(line_number) +
                            (column < kAutoKernelColumnCount ? ", column " + std::to_string(column + 1) + " (" +
                                                                   std::string(autokernel_columns()[std::min(
                                                                       column, std::size_t(kDescription))]) + ")"
                                                             : std::string()) +
                            ", byte " + std::to_string(*bad_byte + 1) + ": not UTF-8 (" + byte +
                            "); save the file as UTF-8 and import again");
        }
        if (trim(line).empty()) continue;  // blank lines (a trailing one, usually)
        const auto fields = split(line, '\t');

        if (!header_seen) {
            const auto expected = autokernel_columns();
            for (std::size_t i = 0; i < std::max(fields.size(), expected.size()); ++i) {
                if (i >= fields.size())
                    bad(path, "line " + std::to_string(line_number) + " (header): column " + std::to_string(i + 1) +
                                  " (" + std::string(expected[i]) + ") is missing; an AutoKernel results.tsv has " +
                                  std::to_string(expected.size()) + " columns");
                if (i >= expected.size())
                    bad(path, "line " + std::to_string(line_number) + " (header): unexpected column " +
                                  std::to_string(i + 1) + " '" + std::string(fields[i]) + "'; an AutoKernel "
                                  "results.tsv has " + std::to_string(expected.size()) + " columns");
                if (trim(fields[i]) != expected[i])
                    bad(path, "line " + std::to_string(line_number) + " (header): column " + std::to_string(i + 1) +
                                  " is '" + std::string(fields[i]) + "', expected '" + std::string(expected[i]) + "'");
            }
            header_seen = true;
            continue;
        }

        if (fields.size() < kAutoKernelColumnCount)
            bad(path, "line " + std::to_string(line_number) + ": " + std::to_string(fields.size()) +
                          " fields, expected " + std::to_string(kAutoKernelColumnCount) + " (first missing: " +
                          std::string(autokernel_columns()[fields.size()]) + ")");
        AutoKernelRow row;
        row.line = line_number;
        Experiment& e = row.metrics;
        const auto number = parse_int(trim(fields[kExperiment]));
        if (!number || *number < 0 || *number > 0x7fffffff)
            bad(path, where(line_number, kExperiment) + ": expected an experiment number, found '" +
                          std::string(fields[kExperiment]) + "'");
        e.number = static_cast<int>(*number);
        e.tag = std::string(trim(fields[kTag]));
        e.kernel_type = std::string(trim(fields[kKernelType]));
        if (e.kernel_type.empty()) bad(path, where(line_number, kKernelType) + ": empty");
        // It names the session's kernel file (kernels/<kernel_type>.cu): a file name and a git tree entry.
        if (e.kernel_type.size() > kMaxKernelNameLength)
            bad(path, where(line_number, kKernelType) + ": " + std::to_string(e.kernel_type.size()) +
                          " characters, at most " + std::to_string(kMaxKernelNameLength) + " (it names kernels/" +
                          "<kernel_type>.cu)");
        e.throughput_tflops = number_field(fields[kThroughputTflops], line_number, kThroughputTflops, path);
        e.latency_us = number_field(fields[kLatencyUs], line_number, kLatencyUs, path);
        e.pct_peak = number_field(fields[kPctPeak], line_number, kPctPeak, path);
        e.speedup_vs_pytorch = number_field(fields[kSpeedupVsPytorch], line_number, kSpeedupVsPytorch, path);
        std::string correctness(trim(fields[kCorrectness]));
        std::transform(correctness.begin(), correctness.end(), correctness.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        const auto parsed = parse_correctness(correctness);
        if (!parsed)
            bad(path, where(line_number, kCorrectness) + ": expected PASS, FAIL, TIMEOUT or CRASH, found '" +
                          std::string(fields[kCorrectness]) + "'");
        e.correctness = *parsed;
        e.peak_vram_mb = number_field(fields[kPeakVramMb], line_number, kPeakVramMb, path);
        // A description containing tabs spills into extra fields: put them back together.
        std::string description(fields[kDescription]);
        for (std::size_t i = kDescription + 1; i < fields.size(); ++i) description += "\t" + std::string(fields[i]);
        e.description = std::string(trim(description));
        visit(std::move(row));
    }
    if (in.bad()) throw Error(ErrorKind::Io, "cannot read " + path.string() + " (after line " + std::to_string(line_number) + ")");
    if (!header_seen) bad(path, "the file is empty (no header line)");
}

std::vector<AutoKernelRow> read_autokernel_results(const fs::path& path) {
    std::vector<AutoKernelRow> rows;
    for_each_autokernel_row(path, [&](AutoKernelRow&& row) { rows.push_back(std::move(row)); });
    return rows;
}

ImportResult import_autokernel(const fs::path& results_tsv, const fs::path& new_dir,
                               const std::optional<fs::path>& ak_repo, std::vector<std::string>* warnings,
                               const ImportProgress& progress) {
    std::vector<std::string> ignored;
    std::vector<std::string>& notes = warnings ? *warnings : ignored;
    // One warning a row would be millions of lines: the first ones, then a count.
    constexpr std::size_t kShownPlaceholders = 20;
    std::size_t placeholders = 0;

    // Pass 1: every row is read and checked, and the kernels are named, before anything is written.
    SessionInfo info;
    info.name = fs::absolute(new_dir).lexically_normal().filename().string();
    info.gpu = "unknown (imported from AutoKernel)";
    std::map<std::string, std::string> kernel_of_type;
    std::size_t total = 0;
    for_each_autokernel_row(results_tsv, [&](AutoKernelRow&& row) {
        ++total;
        if (kernel_of_type.count(row.metrics.kernel_type)) return;
        if (kernel_of_type.size() == 1000)
            bad(results_tsv, "line " + std::to_string(row.line) + ": more than 1000 different kernel types");
        std::string name = kernel_name_for(row.metrics.kernel_type);
        for (int n = 2; std::any_of(info.kernels.begin(), info.kernels.end(), [&](const KernelEntry& k) { return k.name == name; }); ++n)
            name = kernel_name_for(row.metrics.kernel_type).substr(0, kMaxKernelNameLength - 8) + "_" + std::to_string(n);
        kernel_of_type[row.metrics.kernel_type] = name;
        KernelEntry entry;
        entry.name = name;
        entry.type = row.metrics.kernel_type;
        info.kernels.push_back(entry);
    });
    std::optional<GitRepository> repo;
    CommitIndex index;
    if (ak_repo) {
        repo = GitRepository::open(*ak_repo);
        for (const std::string& id : repo->all_commits()) index.commits.push_back({id, repo->commit_message(id)});
    }

    // What is imported: a stopped import continues only for the same input.
    struct stat input {};
    ::stat(results_tsv.c_str(), &input);
    const std::string origin = "AutoKernel import of " + fs::absolute(results_tsv).lexically_normal().string() + " (" +
                               std::to_string(input.st_size) + " bytes, modified " + std::to_string(input.st_mtime) +
                               ")\nrepository: " + (ak_repo ? fs::absolute(*ak_repo).lexically_normal().string() : "none") +
                               "\n";
    SessionBuilder builder(new_dir, info, origin);
    const std::size_t resume_at = builder.done();
    if (resume_at > 0)
        notes.push_back("continued the stopped import of " + results_tsv.string() + " after its " +
                        std::to_string(resume_at) + " rows already written");

    // Pass 2: outcomes and sources, row by row; rows already written (a continued import) are only
    // replayed to rebuild the running bests and the used commits.
    struct Best {
        std::optional<double> latency;
        std::optional<double> throughput;
    };
    std::map<std::string, Best> best_of_type;
    std::size_t position = 0;
    try {
    for_each_autokernel_row(results_tsv, [&](AutoKernelRow&& row) {
        const bool write = position++ >= resume_at;
        const Experiment& m = row.metrics;
        NewExperiment ne;
        ne.kernel_name = kernel_of_type.at(m.kernel_type);
        ne.metrics = m;
        ne.metrics.agent = "autokernel-import";
        ne.metrics.detail = "imported from AutoKernel experiment " + std::to_string(m.number) + " (line " +
                            std::to_string(row.line) + " of " + results_tsv.filename().string() + ")";

        // Outcome: AutoKernel has no keep/revert column.
        const bool first = !best_of_type.count(m.kernel_type);
        Best& best = best_of_type[m.kernel_type];
        if (first) {
            ne.metrics.outcome = Outcome::Baseline;
            if (m.passed()) best = {m.latency_us, m.throughput_tflops};
        } else if (!m.passed()) {
            ne.metrics.outcome = Outcome::Failed;
        } else {
            bool improves = false;
            if (m.latency_us) improves = !best.latency || *m.latency_us < *best.latency;
            else if (m.throughput_tflops) improves = !best.throughput || *m.throughput_tflops > *best.throughput;
            ne.metrics.outcome = improves ? Outcome::Kept : Outcome::Reverted;
            if (improves) {
                if (m.latency_us) best.latency = m.latency_us;
                if (m.throughput_tflops) best.throughput = m.throughput_tflops;
            }
        }

        // Source: from AutoKernel's repository when one of its commits names this experiment.
        std::optional<std::string> source;
        std::string reason = "No AutoKernel repository was given (--repo), so the source could not be looked up.";
        if (repo) {
            reason = "No commit in " + ak_repo->string() + " mentions this description.";
            if (!m.description.empty()) {
                for (const CommitIndex::Entry* candidate : candidates_for(index, m)) {
                    const auto& commit = *candidate;
                    source = repo->file_at(commit.id, "kernel.py");
                    if (!source) {
                        const auto changed = repo->changed_files(commit.id);
                        if (changed.size() == 1) source = repo->file_at(commit.id, changed[0]);
                    }
                    if (!source) {
                        reason = "Commit " + commit.id + " mentions it but has no kernel.py and changes " +
                                 "more than one file.";
                        continue;
                    }
                    index.used.insert(commit.id);
                    ne.metrics.started_utc = to_iso8601(std::chrono::system_clock::time_point(
                        std::chrono::seconds(repo->commit_time(commit.id))));
                    ne.metrics.detail += "; source from AutoKernel commit " + commit.id;
                    break;
                }
            }
        }
        if (!write) return;
        if (!source) {
            ne.source = placeholder_source(row, reason);
            ne.metrics.detail += "; source not recorded by AutoKernel";
            if (++placeholders <= kShownPlaceholders)
                notes.push_back("line " + std::to_string(row.line) + " (AutoKernel experiment " +
                                std::to_string(m.number) + ", " + m.kernel_type + ", '" + m.description +
                                "'): source not recorded by AutoKernel; stored a placeholder. " + reason);
        } else {
            ne.source = *source;
        }
        builder.add(ne);
        if (progress && (position % 10000 == 0 || position == total)) progress(position, total);
    });
    } catch (const Error& e) {
        throw Error(e.kind(), std::string(e.what()) + "\n(the experiments written so far are kept in " +
                                  SessionBuilder::staging_for(new_dir).string() +
                                  ": run the same import again to continue, or remove that folder to discard them)");
    }
    if (placeholders > kShownPlaceholders)
        notes.push_back("... and " + std::to_string(placeholders - kShownPlaceholders) +
                        " more rows whose source AutoKernel did not record (placeholders stored)");
    ImportResult result;
    result.experiments = builder.finish();
    result.dir = fs::absolute(new_dir).lexically_normal();
    result.resumed_after = resume_at;
    if (progress) progress(total, total);
    return result;
}

}  // namespace ak
