#pragma once
// File writes that survive kill -9 and power loss in a known state.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ak {
// Appends `bytes` to `path` (created if missing) with O_APPEND, then fsyncs the file (and the
// directory when the file was created). Throws Error(ReadOnly) when not writable, Error(Io) otherwise.
void append_durably(const std::filesystem::path& path, std::string_view bytes);
// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
// directory: readers see the old or the new file, never a mix.
void replace_durably(const std::filesystem::path& path, std::string_view bytes);
// What read_file() reads at most unless told otherwise (results.tsv of millions of experiments fit).
inline constexpr std::uintmax_t kDefaultReadLimit = std::uintmax_t(4) << 30;  // 4 GiB
// Reads a whole regular file (from byte `offset` on). A folder, FIFO, socket or device is refused
// without blocking (a FIFO would block forever, /dev/zero never ends), and so is a file larger than
// `max_bytes`. Throws Error(NotFound) / Error(Io) naming the path.
std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kDefaultReadLimit);
std::string read_file_from(const std::filesystem::path& path, std::uintmax_t offset,
                           std::uintmax_t max_bytes = kDefaultReadLimit);
// "a folder", "a FIFO", ... when `path` exists and is not a regular file (symlinks followed);
// nullopt for a regular file or a path that does not exist.
std::optional<std::string> not_a_regular_file(const std::filesystem::path& path);
// True if the process could create a file in `dir`.
bool directory_writable(const std::filesystem::path& dir);
}  // namespace ak
