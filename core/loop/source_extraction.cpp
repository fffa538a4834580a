#include "loop/source_extraction.h"

#include "util/text.h"
#include "util/utf8.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace ak {

namespace {

constexpr std::size_t kMaxDescriptionBytes = 200;

// Splits into lines without their '\n' (a trailing '\r' is dropped too).
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::string_view strip_indent(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    return line.substr(i);
}

// The fence at the start of `line` (after indentation): its character and length, or nullopt.
std::optional<std::pair<char, std::size_t>> fence_of(std::string_view line) {
    line = strip_indent(line);
    if (line.empty() || (line[0] != '`' && line[0] != '~')) return std::nullopt;
    const char c = line[0];
    std::size_t n = 0;
    while (n < line.size() && line[n] == c) ++n;
    if (n < 3) return std::nullopt;
    return std::make_pair(c, n);
}

// Cuts `text` to at most `max_bytes` without splitting a UTF-8 sequence.
std::string cut_utf8(std::string text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text.resize(end);
    return text;
}

}  // namespace

std::vector<FencedBlock> fenced_blocks(std::string_view text) {
    std::vector<FencedBlock> blocks;
    char open_char = 0;  // 0: outside a block
    std::size_t open_length = 0;
    FencedBlock current;
    for (std::string_view line : lines_of(text)) {
        const auto f = fence_of(line);
        if (open_char == 0) {
            if (f) {
                open_char = f->first;
                open_length = f->second;
                current = FencedBlock{};
                current.info = std::string(trim(strip_indent(line).substr(f->second)));
            }
            continue;
        }
        if (f && f->first == open_char && f->second >= open_length && trim(strip_indent(line).substr(f->second)).empty()) {
            current.closed = true;
            blocks.push_back(std::move(current));
            open_char = 0;
            continue;
        }
        current.body.append(line);
        current.body += '\n';
    }
    if (open_char != 0) blocks.push_back(std::move(current));  // unclosed: the text ended inside it
    return blocks;
}

bool has_entry_point(std::string_view source) {
    constexpr std::string_view name = "ak_kernel";
    for (std::size_t pos = source.find(name); pos != std::string_view::npos; pos = source.find(name, pos + 1)) {
        const std::size_t digit = pos + name.size();
        if (digit >= source.size() || source[digit] < '0' || source[digit] > '3') continue;
        const bool starts_word = pos == 0 || !(std::isalnum(static_cast<unsigned char>(source[pos - 1])) || source[pos - 1] == '_');
        const bool ends_word = digit + 1 >= source.size() ||
                               !(std::isalnum(static_cast<unsigned char>(source[digit + 1])) || source[digit + 1] == '_');
        if (!starts_word || !ends_word) continue;
        // A definition or declaration: followed by '(' (not merely mentioned in a comment).
        std::size_t after = digit + 1;
        while (after < source.size() && std::isspace(static_cast<unsigned char>(source[after]))) ++after;
        if (after < source.size() && source[after] == '(') return true;
    }
    return false;
}

std::string description_line(std::string_view reply) {
    std::string found;
    char open_char = 0;  // 0: outside a block
    std::size_t open_length = 0;
    for (std::string_view raw : lines_of(reply)) {
        if (auto f = fence_of(raw)) {
            if (open_char == 0) {
                open_char = f->first;
                open_length = f->second;
                continue;
            }
            if (f->first == open_char && f->second >= open_length) {
                open_char = 0;
                continue;
            }
        }
        if (open_char != 0) continue;
        // Drop markdown decoration: bold/italic markers, bullets, quotes, headings.
        std::string line;
        for (char c : raw)
            if (c != '*' && c != '_' && c != '`') line += c;
        std::string_view s = line;
        while (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '-' || s[0] == '>' || s[0] == '#')) s.remove_prefix(1);
        constexpr std::string_view key = "description:";
        if (s.size() < key.size()) continue;
        bool match = true;
        for (std::size_t i = 0; i < key.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(s[i])) != key[i]) match = false;
        if (!match) continue;
        // Take the text from the original line (keeping underscores in names such as BLOCK_THREADS).
        const std::size_t colon = raw.find(':');
        std::string value(trim(raw.substr(colon + 1)));
        while (!value.empty() && (value.front() == '*' || value.front() == ' ')) value.erase(value.begin());
        while (!value.empty() && (value.back() == '*' || value.back() == ' ')) value.pop_back();
        std::replace(value.begin(), value.end(), '\t', ' ');
        if (!value.empty()) found = std::move(value);
    }
    found = cut_utf8(std::move(found), kMaxDescriptionBytes);
    if (!is_valid_utf8(found)) return {};
    return found;
}

ExtractedSource extract_source(std::string_view reply, std::string_view default_description) {
    ExtractedSource out;
    const auto blocks = fenced_blocks(reply);
    const FencedBlock* chosen = nullptr;
    auto longest_where = [&](auto predicate) -> const FencedBlock* {
        const FencedBlock* best = nullptr;
        for (const auto& b : blocks)
            if (b.closed && predicate(b) && (!best || b.body.size() > best->body.size())) best = &b;
        return best;
    };
    chosen = longest_where([](const FencedBlock& b) { return has_entry_point(b.body); });
    if (!chosen) chosen = longest_where([](const FencedBlock& b) { return b.body.find("__global__") != std::string::npos; });
    if (!chosen) chosen = longest_where([](const FencedBlock& b) { return !trim(b.body).empty(); });

    if (!chosen) {
        const bool unclosed = std::any_of(blocks.begin(), blocks.end(), [](const FencedBlock& b) { return !b.closed; });
        if (unclosed)
            out.failure = "malformed reply: its code block is not closed (the reply was probably cut off; raise "
                          "max_tokens)";
        else
            out.failure = "malformed reply: no fenced code block (```cuda ... ```) in " + std::to_string(reply.size()) +
                          " characters of reply";
        return out;
    }
    if (!has_entry_point(chosen->body)) {
        out.failure = "the reply's code block has no entry point: a candidate must define extern \"C\" __global__ "
                      "void ak_kernel0(...) (or ak_kernel1..3 for its stages)";
        return out;
    }
    out.ok = true;
    out.source = chosen->body;
    out.description = description_line(reply);
    if (out.description.empty()) out.description = std::string(default_description);
    return out;
}

}  // namespace ak
