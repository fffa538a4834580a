#pragma once
// The command groups of `autokernel`; each returns the process exit code (see command_line.h) and
// throws ak::Error for failures main() reports.
#include <span>
#include <string>

namespace ak::cli {

// `args` are the arguments after the command's name.
int run_version(std::span<const std::string> args);   // --version
int run_info(std::span<const std::string> args);      // info
int run_session(std::span<const std::string> args);   // session summary|import-autokernel|repair
int run_compile(std::span<const std::string> args);   // compile
int run_bench(std::span<const std::string> args);     // bench (core/cli/bench_command.cpp)
int run_ceilings(std::span<const std::string> args);  // ceilings (core/cli/ceilings_command.cpp)
int run_new(std::span<const std::string> args);       // new (core/cli/new_command.cpp)
int run_run(std::span<const std::string> args);       // run (core/cli/run_command.cpp)
int run_control(std::span<const std::string> args);   // control (core/cli/run_command.cpp)
int run_profile(std::span<const std::string> args);   // profile (core/cli/profile_command.cpp)
int run_verify(std::span<const std::string> args);    // verify (core/cli/verify_command.cpp)

// "autokernel 0.1.0 (git 1a2b3c4)"
std::string version_line();

}  // namespace ak::cli
