#pragma once
// What a kernel source must be before a compiler sees it. NVRTC takes the source as a C string and
// silently ignores everything after a NUL byte, and after an invalid UTF-8 byte, so a candidate
// with either would compile as a shorter (or empty) file.
#include <optional>
#include <string>
#include <string_view>

namespace ak {

// Why `source` cannot be compiled as written, e.g. "line 3, byte 17 of the line: not UTF-8 (0xFF)",
// "line 2, byte 5 of the line: a NUL byte", and (unless `allow_empty`) "the file is empty" for a file
// of nothing but white space; nullopt when it is fine.
// `line` (optional) receives the 1-based line of the problem (0 for an empty file).
std::optional<std::string> source_text_problem(std::string_view source, int* line = nullptr, bool allow_empty = false);

}  // namespace ak
