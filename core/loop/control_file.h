#pragma once
// Controlling a headless `autokernel run` from another shell: `autokernel control SESSION pause`
// appends one line to SESSION/.autokernel-control; the run takes the file between evaluations (and
// while paused) and posts the commands to its LoopController.
//
// Lines: pause | resume | step | stop | force-keep | force-revert | branch-from N | threshold F
// (F is the keep threshold as a fraction, e.g. 0.02). Blank lines and lines starting with '#' are ignored.
#include "loop/loop_controller.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

// SESSION/.autokernel-control
std::filesystem::path control_file_path(const std::filesystem::path& session_dir);

// The command a line asks for; nullopt with a message in *error when it is not one (blank and comment
// lines give nullopt with an empty error).
std::optional<LoopCommand> parse_control_line(std::string_view line, std::string* error);

// Appends `line` (checked with parse_control_line; Error(Usage) naming it when it is not a command) to
// the session's control file in one write.
void append_control_line(const std::filesystem::path& session_dir, std::string_view line);

// Takes every command written since the last call: the file is renamed away, read and removed, so a
// line is taken once. Lines that are not commands are reported in *errors (one message each).
std::vector<LoopCommand> take_control_commands(const std::filesystem::path& session_dir,
                                               std::vector<std::string>* errors);

// True while a process holds the session's writer lock (an `autokernel run`, the GUI's loop).
bool session_has_writer(const std::filesystem::path& session_dir);

}  // namespace ak
