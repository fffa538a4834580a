#include "session/commit_trailers.h"

#include "session/results_table.h"
#include "util/error.h"
#include "util/text.h"

#include <map>
#include <vector>

namespace ak {
namespace {

constexpr std::string_view kCommitColumn = "commit";

}  // namespace

std::string trailer_key(std::string_view column) {
    std::string key = "Autokernel-";
    bool start_of_word = true;
    for (const char c : column) {
        if (c == '_') {
            key += '-';
            start_of_word = true;
        } else {
            key += start_of_word && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
            start_of_word = false;
        }
    }
    return key;
}

std::string format_experiment_message(const Experiment& e) {
    Experiment without_commit = e;
    without_commit.commit.clear();
    const std::string row = format_results_row(without_commit);  // validates UTF-8
    const auto fields = split(row, '\t');
    const auto columns = results_columns();

    std::string message = "exp " + std::to_string(e.number) + " (" + escape_field(e.kernel_type) +
                          "): " + escape_field(e.description) + "\n\n";
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] == kCommitColumn) continue;
        message += trailer_key(columns[i]);
        message += ':';
        if (!fields[i].empty()) {
            message += ' ';
            message += fields[i];
        }
        message += '\n';
    }
    return message;
}

Experiment parse_experiment_message(std::string_view message, const std::string& commit) {
    const auto columns = results_columns();
    std::map<std::string, std::size_t, std::less<>> column_of_key;
    for (std::size_t i = 0; i < columns.size(); ++i) column_of_key[trailer_key(columns[i])] = i;

    std::vector<std::optional<std::string>> fields(columns.size());
    for (std::string_view line : split(message, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!starts_with(line, "Autokernel-")) continue;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const auto it = column_of_key.find(line.substr(0, colon));
        if (it == column_of_key.end()) continue;  // a trailer from a newer version: ignored
        std::string_view value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (fields[it->second])
            throw Error(ErrorKind::BadFormat, "commit " + commit + ": trailer " + it->first + " appears twice");
        fields[it->second] = std::string(value);
    }

    std::string row;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i) row += '\t';
        if (columns[i] == kCommitColumn) {
            row += commit;
            continue;
        }
        if (!fields[i])
            throw Error(ErrorKind::BadFormat, "commit " + commit + ": the message has no " +
                                                  trailer_key(columns[i]) +
                                                  " trailer; it is not an experiment commit of this workbench");
        row += *fields[i];
    }
    try {
        return parse_results_row(row, 0);
    } catch (const Error& e) {
        // parse_results_row names "line 0"; say which commit instead.
        std::string what = e.what();
        if (starts_with(what, "line 0, ")) what = what.substr(8);
        else if (starts_with(what, "line 0: ")) what = what.substr(8);
        throw Error(e.kind(), "commit " + commit + " trailers: " + what);
    }
}

}  // namespace ak
