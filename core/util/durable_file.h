#pragma once
// File writes that survive kill -9 and power loss in a known state.
#include <filesystem>
#include <string>
#include <string_view>

namespace ak {
// Appends `bytes` to `path` (created if missing) with O_APPEND, then fsyncs the file (and the
// directory when the file was created). Throws Error(ReadOnly) when not writable, Error(Io) otherwise.
void append_durably(const std::filesystem::path& path, std::string_view bytes);
// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
// directory: readers see the old or the new file, never a mix.
void replace_durably(const std::filesystem::path& path, std::string_view bytes);
// Reads a whole file. Throws Error(NotFound) / Error(Io) naming the path.
std::string read_file(const std::filesystem::path& path);
// True if the process could create a file in `dir`.
bool directory_writable(const std::filesystem::path& dir);
}  // namespace ak
