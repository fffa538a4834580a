#pragma once
// profile.json: the file form of a Profile (profile.h), documented in docs/profile-json.md and
// versioned by kFormatVersion. The profiler process writes it; the CLI, the GUI and session
// extraction read it.
//
// Reading is strict: an unknown format_version, a missing required field, a wrong JSON type or an
// impossible value (end before start, a negative count) throws Error(BadFormat) whose message names
// the file (`source_name`) and the JSON path of the field ("kernels[12].end_ns").
#include "profile/profile.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace ak::profile {

// The JSON text of `profile` (UTF-8, stable key order, newline at the end).
std::string to_json(const Profile& profile);

// Parses profile.json text. `source_name` is used in error messages only.
Profile profile_from_json(std::string_view text, std::string_view source_name);

// Writes durably (temporary file, fsync, rename). Throws Error(Io) naming the path.
void write_profile_json(const Profile& profile, const std::filesystem::path& path);

// Reads a regular file of at most 2 GiB; throws Error(NotFound/BadFormat/Io) naming the path.
Profile read_profile_json(const std::filesystem::path& path);

}  // namespace ak::profile
