#include "util/source_text.h"

#include "util/utf8.h"

#include <algorithm>
#include <cstdio>

namespace ak {

std::optional<std::string> source_text_problem(std::string_view source, int* line, bool allow_empty) {
    if (line) *line = 0;
    if (!allow_empty && std::all_of(source.begin(), source.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }))
        return std::string("the file is empty");
    std::size_t bad = source.find('\0');
    bool nul = bad != std::string_view::npos;
    if (const auto invalid = first_invalid_utf8(source.substr(0, nul ? bad : source.size()))) {
        bad = *invalid;
        nul = false;
    }
    if (bad == std::string_view::npos) return std::nullopt;
    const std::size_t line_start = source.rfind('\n', bad == 0 ? 0 : bad - 1);
    const std::size_t column = bad - (line_start == std::string_view::npos || bad == 0 ? 0 : line_start + 1) + 1;
    const int line_number = 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    if (line) *line = line_number;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(source[bad]));
    return "line " + std::to_string(line_number) + ", byte " + std::to_string(column) + " of the line: " +
           (nul ? std::string("a NUL byte") : "not UTF-8 (" + std::string(byte) + ")") +
           "; the compiler would ignore the rest of the file";
}

}  // namespace ak
