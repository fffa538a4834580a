#pragma once
// Runs one shell command line (/bin/sh -c) in its own process group with a time limit: the command
// agent's runner. stdout and stderr go to files, stdin is /dev/null. On timeout the whole process group
// gets SIGTERM, then SIGKILL after a grace period, and the child is always reaped (no zombie).
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ak {

struct ShellCommand {
    std::string command;                                      // given to /bin/sh -c
    std::filesystem::path workdir;                            // "" = the current directory
    std::vector<std::pair<std::string, std::string>> env;     // added to (or replacing in) the environment
    std::filesystem::path stdout_file;                        // truncated; "" = /dev/null
    std::filesystem::path stderr_file;
    double timeout_s = 600;
    double kill_grace_s = 2;                                  // between SIGTERM and SIGKILL
};

struct ShellResult {
    bool started = false;
    std::string error;              // why it did not start
    bool timed_out = false;         // the process group was killed
    std::optional<int> exit_code;   // when it exited
    std::optional<int> signal;      // when a signal ended it
    double seconds = 0;
    int pid = 0;                    // the shell's pid (also its process group id); reaped on return
};

ShellResult run_shell_command(const ShellCommand& command);

// `text` quoted for /bin/sh when it holds anything but [A-Za-z0-9_./+:=,@%-]; unchanged otherwise.
std::string shell_quote(std::string_view text);

}  // namespace ak
