#include "analysis/line_diff.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

namespace ak {
namespace {

std::string numbered_lines(int count) {
    std::string s;
    for (int i = 1; i <= count; ++i) s += "line " + std::to_string(i) + "\n";
    return s;
}

// Replaces line `n` (1-based) of a text made by numbered_lines.
std::string change_line(std::string text, int n, const std::string& replacement) {
    const std::string old_line = "line " + std::to_string(n) + "\n";
    const auto pos = text.find(old_line);
    return text.replace(pos, old_line.size(), replacement + "\n");
}

std::string join(const std::vector<DiffLine>& script, bool old_side) {
    std::string out;
    for (const DiffLine& l : script) {
        if (l.op == (old_side ? DiffOp::Insert : DiffOp::Delete)) continue;
        out += l.text;
        if (!l.missing_newline) out += '\n';
    }
    return out;
}

int changes(const std::vector<DiffLine>& script) {
    int n = 0;
    for (const DiffLine& l : script) n += l.op != DiffOp::Equal;
    return n;
}

std::vector<std::string> lines_with_newlines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end + 1;
        out.push_back(text.substr(start, end - start));
        start = end;
    }
    return out;
}

// Length of the longest common subsequence of lines, by the textbook O(nm) table.
int lcs_length(const std::string& a_text, const std::string& b_text) {
    const auto a = lines_with_newlines(a_text), b = lines_with_newlines(b_text);
    std::vector<std::vector<int>> t(a.size() + 1, std::vector<int>(b.size() + 1, 0));
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j)
            t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t[a.size()][b.size()];
}

// Applies hunks to the old text the way `patch` does: copy untouched lines, check context, apply.
std::string apply_hunks(const std::string& old_text, const std::vector<DiffHunk>& hunks) {
    const auto old_lines = lines_with_newlines(old_text);
    std::string out;
    std::size_t next = 0;  // 0-based index of the next old line not yet copied
    for (const DiffHunk& h : hunks) {
        const std::size_t first = h.old_count == 0 ? static_cast<std::size_t>(h.old_start)
                                                   : static_cast<std::size_t>(h.old_start - 1);
        while (next < first) out += old_lines[next++];
        for (const DiffLine& l : h.lines) {
            const std::string with_newline = l.text + (l.missing_newline ? "" : "\n");
            if (l.op != DiffOp::Insert) {
                EXPECT_EQ(old_lines.at(next), with_newline) << "context mismatch at old line " << next + 1;
                ++next;
            }
            if (l.op != DiffOp::Delete) out += with_newline;
        }
    }
    while (next < old_lines.size()) out += old_lines[next++];
    return out;
}

TEST(LineDiff, IdenticalTextsAreAllEqualAndHaveNoHunks) {
    const std::string text = "a\nb\nc\n";
    const auto script = diff_lines(text, text);
    ASSERT_EQ(script.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(script[i].op, DiffOp::Equal);
        EXPECT_EQ(script[i].old_line, i + 1);
        EXPECT_EQ(script[i].new_line, i + 1);
    }
    EXPECT_TRUE(diff_hunks(text, text).empty());
    EXPECT_EQ(unified_diff(text, text, "a", "b"), "");
}

TEST(LineDiff, EmptyTexts) {
    EXPECT_TRUE(diff_lines("", "").empty());
    EXPECT_EQ(unified_diff("", "", "a", "b"), "");

    const auto added = diff_lines("", "x\ny\n");
    ASSERT_EQ(added.size(), 2u);
    EXPECT_EQ(added[0].op, DiffOp::Insert);
    EXPECT_EQ(added[0].old_line, 0);
    EXPECT_EQ(added[1].new_line, 2);
    EXPECT_EQ(unified_diff("", "x\ny\n", "old.cu", "new.cu"), "--- old.cu\n+++ new.cu\n@@ -0,0 +1,2 @@\n+x\n+y\n");
    EXPECT_EQ(unified_diff("x\n", "", "a", "b"), "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n");
}

TEST(LineDiff, OneChangedLineIsADeleteAndAnInsert) {
    const auto script = diff_lines("a\nb\nc\n", "a\nB\nc\n");
    ASSERT_EQ(script.size(), 4u);
    EXPECT_EQ(script[0].op, DiffOp::Equal);
    EXPECT_EQ(script[1].op, DiffOp::Delete);
    EXPECT_EQ(script[1].text, "b");
    EXPECT_EQ(script[1].old_line, 2);
    EXPECT_EQ(script[1].new_line, 0);
    EXPECT_EQ(script[2].op, DiffOp::Insert);
    EXPECT_EQ(script[2].text, "B");
    EXPECT_EQ(script[2].new_line, 2);
    EXPECT_EQ(script[3].op, DiffOp::Equal);
    EXPECT_EQ(script[3].old_line, 3);
    EXPECT_EQ(unified_diff("a\nb\nc\n", "a\nB\nc\n", "a/k.cu", "b/k.cu"),
              "--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
}

TEST(LineDiff, MissingTrailingNewlineIsADifference) {
    const auto script = diff_lines("a\nb\n", "a\nb");
    ASSERT_EQ(script.size(), 3u);
    EXPECT_EQ(script[1].op, DiffOp::Delete);
    EXPECT_FALSE(script[1].missing_newline);
    EXPECT_EQ(script[2].op, DiffOp::Insert);
    EXPECT_EQ(script[2].text, "b");
    EXPECT_TRUE(script[2].missing_newline);
    EXPECT_EQ(unified_diff("a\nb\n", "a\nb", "x", "y"),
              "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
    // Both without a trailing newline: equal.
    EXPECT_EQ(unified_diff("a\nb", "a\nb", "x", "y"), "");
    EXPECT_TRUE(diff_lines("a\nb", "a\nb").back().missing_newline);
}

TEST(LineDiff, DistantChangesMakeSeparateHunksWithContext) {
    const std::string old_text = numbered_lines(20);
    const std::string new_text = change_line(change_line(old_text, 3, "three"), 17, "seventeen");
    const auto hunks = diff_hunks(old_text, new_text, 3);
    ASSERT_EQ(hunks.size(), 2u);
    EXPECT_EQ(hunks[0].old_start, 1);
    EXPECT_EQ(hunks[0].old_count, 6);   // lines 1-6: 2 before (file start), the change, 3 after
    EXPECT_EQ(hunks[0].new_start, 1);
    EXPECT_EQ(hunks[0].new_count, 6);
    EXPECT_EQ(hunks[1].old_start, 14);  // lines 14-20: 3 before, the change, 3 after
    EXPECT_EQ(hunks[1].old_count, 7);
    EXPECT_EQ(hunks[1].new_start, 14);
    EXPECT_EQ(hunks[1].new_count, 7);
    EXPECT_EQ(hunks[1].lines.front().text, "line 14");
    EXPECT_EQ(hunks[1].lines.back().text, "line 20");
    EXPECT_EQ(unified_diff(old_text, new_text, "a", "b"),
              "--- a\n+++ b\n"
              "@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+three\n line 4\n line 5\n line 6\n"
              "@@ -14,7 +14,7 @@\n line 14\n line 15\n line 16\n-line 17\n+seventeen\n line 18\n line 19\n"
              " line 20\n");
}

TEST(LineDiff, ChangesAtMostTwiceTheContextApartShareAHunk) {
    const std::string old_text = numbered_lines(20);
    // 6 equal lines (4-9) between the changes: 3 + 3 context lines touch, so one hunk.
    const auto merged = diff_hunks(old_text, change_line(change_line(old_text, 3, "x"), 10, "y"), 3);
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].old_start, 1);
    EXPECT_EQ(merged[0].old_count, 13);
    // 7 equal lines (4-10): two hunks.
    EXPECT_EQ(diff_hunks(old_text, change_line(change_line(old_text, 3, "x"), 11, "y"), 3).size(), 2u);
}

TEST(LineDiff, PureInsertionWithoutContextNamesTheLineBefore) {
    EXPECT_EQ(unified_diff("a\nc\n", "a\nb\nc\n", "o", "n", 0), "--- o\n+++ n\n@@ -1,0 +2 @@\n+b\n");
    EXPECT_EQ(unified_diff("a\nb\nc\n", "a\nc\n", "o", "n", 0), "--- o\n+++ n\n@@ -2 +1,0 @@\n-b\n");
}

TEST(LineDiff, DiffIsMinimalOnAKnownCase) {
    // Myers' paper example on lines: a b c a b b a -> c b a b a c; the shortest edit script has 5 edits.
    const auto script = diff_lines("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n");
    EXPECT_EQ(changes(script), 5);
}

TEST(LineDiff, RandomEditsRoundTripAndAreMinimal) {
    std::mt19937 rng(12345);
    const std::vector<std::string> alphabet{"a", "b", "c", "{", "}", "", "  x = y;"};
    auto random_text = [&](int max_lines) {
        std::uniform_int_distribution<int> count(0, max_lines), pick(0, static_cast<int>(alphabet.size()) - 1);
        std::string t;
        const int n = count(rng);
        for (int i = 0; i < n; ++i) t += alphabet[pick(rng)] + "\n";
        if (!t.empty() && rng() % 4 == 0) t.pop_back();  // sometimes no trailing newline
        return t;
    };
    for (int iteration = 0; iteration < 500; ++iteration) {
        const std::string a = random_text(40);
        // Half the time the new text is an edit of the old one, otherwise unrelated.
        std::string b = a;
        if (iteration % 2 == 0) {
            b = random_text(40);
        } else {
            auto lines = lines_with_newlines(a);
            std::uniform_int_distribution<int> edits(1, 5);
            for (int e = edits(rng); e > 0; --e) {
                const std::size_t pos = lines.empty() ? 0 : rng() % (lines.size() + 1);
                switch (rng() % 3) {
                case 0: lines.insert(lines.begin() + pos, alphabet[rng() % alphabet.size()] + "\n"); break;
                case 1: if (pos < lines.size()) lines.erase(lines.begin() + pos); break;
                default: if (pos < lines.size()) lines[pos] = "changed\n"; break;
                }
            }
            b.clear();
            for (const auto& l : lines) b += l;
        }
        SCOPED_TRACE("old:\n" + a + "\nnew:\n" + b);
        const auto script = diff_lines(a, b);
        ASSERT_EQ(join(script, true), a);
        ASSERT_EQ(join(script, false), b);
        // Shortest edit script: every line outside the longest common subsequence, nothing more.
        const int n = static_cast<int>(lines_with_newlines(a).size());
        const int m = static_cast<int>(lines_with_newlines(b).size());
        ASSERT_EQ(changes(script), n + m - 2 * lcs_length(a, b));
        // Line numbers count up without gaps on each side.
        int old_next = 1, new_next = 1;
        for (const DiffLine& l : script) {
            if (l.op != DiffOp::Insert) ASSERT_EQ(l.old_line, old_next++);
            else ASSERT_EQ(l.old_line, 0);
            if (l.op != DiffOp::Delete) ASSERT_EQ(l.new_line, new_next++);
            else ASSERT_EQ(l.new_line, 0);
        }
        // Hunks (with any context) patch the old text into the new one.
        for (int context : {0, 1, 3}) ASSERT_EQ(apply_hunks(a, diff_hunks(a, b, context)), b) << "context " << context;
    }
}

TEST(LineDiff, FiveHundredLineKernelsDiffQuickly) {
    std::mt19937 rng(7);
    std::string old_text, new_text;
    for (int i = 0; i < 500; ++i) {
        const std::string line = "    float v" + std::to_string(i) + " = x[" + std::to_string(rng() % 97) + "];\n";
        old_text += line;
        new_text += (i % 10 == 0) ? "    // rewritten " + std::to_string(i) + "\n" : line;
    }
    // Worst case: two unrelated 2000-line files.
    std::string unrelated_a, unrelated_b;
    for (int i = 0; i < 2000; ++i) {
        unrelated_a += "a" + std::to_string(i) + "\n";
        unrelated_b += "b" + std::to_string(i) + "\n";
    }
    const auto start = std::chrono::steady_clock::now();
    const auto script = diff_lines(old_text, new_text);
    const auto worst = diff_lines(unrelated_a, unrelated_b);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(changes(script), 100);   // 50 lines replaced
    EXPECT_EQ(changes(worst), 4000);
    EXPECT_LT(ms, 1000.0) << "diffing took " << ms << " ms";
}

}  // namespace
}  // namespace ak
