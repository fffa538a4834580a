#pragma once
// Line-based diff (Myers' O(ND) algorithm) for showing an experiment's source against its parent
// or against another experiment.
#include <string>
#include <string_view>
#include <vector>

namespace ak {

enum class DiffOp { Equal, Insert, Delete };

struct DiffLine {
    DiffOp op;
    int old_line;   // 1-based line in the old text, 0 for inserts
    int new_line;   // 1-based line in the new text, 0 for deletes
    std::string text;  // without the newline
    // The last line of its text has no trailing newline. "b" and "b\n" are different lines, so a diff
    // of "a\nb\n" against "a\nb" deletes "b" and inserts "b" (missing_newline), as `diff -u` does.
    bool missing_newline = false;
};

struct DiffHunk {
    int old_start, old_count;  // as in a unified diff header
    int new_start, new_count;
    std::vector<DiffLine> lines;  // context + changes
};

// Full edit script from old to new (every line, Equal ones included).
std::vector<DiffLine> diff_lines(std::string_view old_text, std::string_view new_text);

// Hunks with `context` lines of context around changes, as `diff -u` groups them.
std::vector<DiffHunk> diff_hunks(std::string_view old_text, std::string_view new_text, int context = 3);

// A unified diff text ("--- a\n+++ b\n@@ -l,s +l,s @@\n..."), empty when the texts are equal. As in
// `diff -u`, a count of 1 is left out ("@@ -3 +3 @@"), an empty range names the line before it
// ("@@ -0,0 +1,2 @@"), and a line without a trailing newline is followed by "\ No newline at end of file".
std::string unified_diff(std::string_view old_text, std::string_view new_text, std::string_view old_name,
                         std::string_view new_name, int context = 3);

}  // namespace ak
