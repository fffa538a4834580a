#include "analysis/line_diff.h"

#include <algorithm>
#include <unordered_map>

namespace ak {
namespace {

// One line of a text, with its newline if it has one ("b\n" and "b" are different lines).
std::vector<std::string_view> split_keeping_newlines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        else ++end;
        lines.push_back(text.substr(start, end - start));
        start = end;
    }
    return lines;
}

enum class Step : unsigned char { Equal, Insert, Delete };

// Myers' O(ND) diff on sequences of line ids, in linear space: find the middle snake of an optimal
// edit path by searching from both ends at once, split there, recurse on both halves.
class Myers {
public:
    Myers(const std::vector<int>& a, const std::vector<int>& b) : a_(a), b_(b) {
        const std::size_t max_d = (a.size() + b.size() + 1) / 2 + 1;
        forward_.resize(2 * max_d + 2);
        backward_.resize(2 * max_d + 2);
    }

    std::vector<Step> run() {
        diff(0, static_cast<int>(a_.size()), 0, static_cast<int>(b_.size()));
        return std::move(steps_);
    }

private:
    void diff(int a_lo, int a_hi, int b_lo, int b_hi) {
        // Common prefix and suffix are equal lines whatever the middle does.
        int prefix = 0;
        while (a_lo + prefix < a_hi && b_lo + prefix < b_hi && a_[a_lo + prefix] == b_[b_lo + prefix]) ++prefix;
        int suffix = 0;
        while (a_hi - suffix > a_lo + prefix && b_hi - suffix > b_lo + prefix &&
               a_[a_hi - suffix - 1] == b_[b_hi - suffix - 1])
            ++suffix;
        steps_.insert(steps_.end(), prefix, Step::Equal);
        a_lo += prefix;
        b_lo += prefix;
        a_hi -= suffix;
        b_hi -= suffix;

        if (a_lo == a_hi) {
            steps_.insert(steps_.end(), b_hi - b_lo, Step::Insert);
        } else if (b_lo == b_hi) {
            steps_.insert(steps_.end(), a_hi - a_lo, Step::Delete);
        } else {
            auto [x, y] = middle_snake_end(a_lo, a_hi, b_lo, b_hi);
            if ((x == a_lo && y == b_lo) || (x == a_hi && y == b_hi)) {
                // Cannot happen once prefix and suffix differ; guard against endless recursion anyway.
                steps_.insert(steps_.end(), a_hi - a_lo, Step::Delete);
                steps_.insert(steps_.end(), b_hi - b_lo, Step::Insert);
            } else {
                diff(a_lo, x, b_lo, y);
                diff(x, a_hi, y, b_hi);
            }
        }
        steps_.insert(steps_.end(), suffix, Step::Equal);
    }

    // A point on an optimal path roughly halfway through its edits (absolute coordinates).
    // forward_[k]: furthest x reached on diagonal k = x - y from the top-left corner.
    // backward_[k]: furthest distance walked back on diagonal k of the reversed problem, whose
    // diagonal k corresponds to diagonal (delta - k) of the forward one.
    std::pair<int, int> middle_snake_end(int a_lo, int a_hi, int b_lo, int b_hi) {
        const int n = a_hi - a_lo;
        const int m = b_hi - b_lo;
        const int delta = n - m;
        const bool odd = (delta & 1) != 0;
        const int max_d = (n + m + 1) / 2;
        const int offset = max_d + 1;
        std::fill(forward_.begin(), forward_.begin() + 2 * offset + 1, -1);
        std::fill(backward_.begin(), backward_.begin() + 2 * offset + 1, -1);
        forward_[offset + 1] = 0;
        backward_[offset + 1] = 0;
        // Diagonals that ran off the grid are not searched any more.
        int f_start = 0, f_end = 0, b_start = 0, b_end = 0;

        for (int d = 0; d <= max_d; ++d) {
            for (int k = -d + f_start; k <= d - f_end; k += 2) {
                const int i = offset + k;
                int x = (k == -d || (k != d && forward_[i - 1] < forward_[i + 1])) ? forward_[i + 1]
                                                                                   : forward_[i - 1] + 1;
                int y = x - k;
                while (x < n && y < m && a_[a_lo + x] == b_[b_lo + y]) ++x, ++y;
                forward_[i] = x;
                if (x > n) {
                    f_end += 2;
                } else if (y > m) {
                    f_start += 2;
                } else if (odd) {
                    const int j = offset + delta - k;
                    if (j >= 0 && j <= 2 * offset && backward_[j] != -1 && x >= n - backward_[j])
                        return {a_lo + x, b_lo + y};
                }
            }
            for (int k = -d + b_start; k <= d - b_end; k += 2) {
                const int i = offset + k;
                int x = (k == -d || (k != d && backward_[i - 1] < backward_[i + 1])) ? backward_[i + 1]
                                                                                     : backward_[i - 1] + 1;
                int y = x - k;
                while (x < n && y < m && a_[a_hi - x - 1] == b_[b_hi - y - 1]) ++x, ++y;
                backward_[i] = x;
                if (x > n) {
                    b_end += 2;
                } else if (y > m) {
                    b_start += 2;
                } else if (!odd) {
                    const int j = offset + delta - k;
                    if (j >= 0 && j <= 2 * offset && forward_[j] != -1) {
                        const int fx = forward_[j];
                        const int fy = fx - (j - offset);
                        if (fx >= n - x) return {a_lo + fx, b_lo + fy};
                    }
                }
            }
        }
        return {a_lo, b_lo};  // unreachable for non-empty inputs; diff() treats it as "replace all"
    }

    const std::vector<int>& a_;
    const std::vector<int>& b_;
    std::vector<int> forward_, backward_;
    std::vector<Step> steps_;
};

DiffLine make_line(DiffOp op, int old_line, int new_line, std::string_view raw) {
    const bool newline = !raw.empty() && raw.back() == '\n';
    if (newline) raw.remove_suffix(1);
    return DiffLine{op, old_line, new_line, std::string(raw), !newline};
}

void append_range(std::string& out, char sign, int start, int count) {
    out += sign;
    out += std::to_string(start);
    if (count != 1) {
        out += ',';
        out += std::to_string(count);
    }
}

}  // namespace

std::vector<DiffLine> diff_lines(std::string_view old_text, std::string_view new_text) {
    const std::vector<std::string_view> old_lines = split_keeping_newlines(old_text);
    const std::vector<std::string_view> new_lines = split_keeping_newlines(new_text);

    // Compare small integers instead of strings: equal lines get equal ids.
    std::unordered_map<std::string_view, int> ids;
    ids.reserve(old_lines.size() + new_lines.size());
    auto to_ids = [&](const std::vector<std::string_view>& lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (std::string_view l : lines) out.push_back(ids.try_emplace(l, static_cast<int>(ids.size())).first->second);
        return out;
    };
    const std::vector<int> a = to_ids(old_lines);
    const std::vector<int> b = to_ids(new_lines);

    std::vector<DiffLine> script;
    script.reserve(std::max(a.size(), b.size()));
    int i = 0, j = 0;
    for (Step s : Myers(a, b).run()) {
        switch (s) {
        case Step::Equal:
            script.push_back(make_line(DiffOp::Equal, i + 1, j + 1, new_lines[j]));
            ++i, ++j;
            break;
        case Step::Delete:
            script.push_back(make_line(DiffOp::Delete, i + 1, 0, old_lines[i]));
            ++i;
            break;
        case Step::Insert:
            script.push_back(make_line(DiffOp::Insert, 0, j + 1, new_lines[j]));
            ++j;
            break;
        }
    }
    return script;
}

std::vector<DiffHunk> diff_hunks(std::string_view old_text, std::string_view new_text, int context) {
    context = std::max(context, 0);
    const std::vector<DiffLine> script = diff_lines(old_text, new_text);
    const int n = static_cast<int>(script.size());
    std::vector<DiffHunk> hunks;

    int i = 0;
    while (i < n) {
        while (i < n && script[i].op == DiffOp::Equal) ++i;
        if (i == n) break;
        // [first, last) covers the changes of one hunk; equal runs longer than 2*context split hunks.
        const int first = std::max(0, i - context);
        int last = i;
        while (last < n) {
            while (last < n && script[last].op != DiffOp::Equal) ++last;
            int equal_end = last;
            while (equal_end < n && script[equal_end].op == DiffOp::Equal) ++equal_end;
            if (equal_end < n && equal_end - last <= 2 * context) last = equal_end;
            else break;
        }
        const int end = std::min(n, last + context);

        DiffHunk h{0, 0, 0, 0, {}};
        // Lines of each text before the hunk: the line numbers of the first line, minus one.
        int old_before = 0, new_before = 0;
        for (int k = 0; k < first; ++k) {
            if (script[k].op != DiffOp::Insert) ++old_before;
            if (script[k].op != DiffOp::Delete) ++new_before;
        }
        for (int k = first; k < end; ++k) {
            if (script[k].op != DiffOp::Insert) ++h.old_count;
            if (script[k].op != DiffOp::Delete) ++h.new_count;
            h.lines.push_back(script[k]);
        }
        h.old_start = h.old_count > 0 ? old_before + 1 : old_before;
        h.new_start = h.new_count > 0 ? new_before + 1 : new_before;
        hunks.push_back(std::move(h));
        i = end;
    }
    return hunks;
}

std::string unified_diff(std::string_view old_text, std::string_view new_text, std::string_view old_name,
                         std::string_view new_name, int context) {
    const std::vector<DiffHunk> hunks = diff_hunks(old_text, new_text, context);
    if (hunks.empty()) return {};
    std::string out;
    out.reserve(old_text.size() / 4 + new_text.size() / 4 + 64);
    out.append("--- ").append(old_name).append("\n+++ ").append(new_name).append("\n");
    for (const DiffHunk& h : hunks) {
        out += "@@ ";
        append_range(out, '-', h.old_start, h.old_count);
        out += ' ';
        append_range(out, '+', h.new_start, h.new_count);
        out += " @@\n";
        for (const DiffLine& l : h.lines) {
            out += l.op == DiffOp::Equal ? ' ' : l.op == DiffOp::Delete ? '-' : '+';
            out += l.text;
            out += '\n';
            if (l.missing_newline) out += "\\ No newline at end of file\n";
        }
    }
    return out;
}

}  // namespace ak
