#pragma once
// Runs the `autokernel` binary as a user would, for the CLI tests: stdout and stderr go to files in a
// folder of the test, and the exit status is reported as the shell does (128 + signal when killed).
#include "util/durable_file.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace ak::test {

struct CliRun {
    int exit_code = -1;
    std::string out, err;
};

// Runs `program` with `args`. The environment is the test's own with each of `overrides` ("NAME=value")
// replacing the variable of that name. stdout and stderr are written to `dir`/stdout.txt and stderr.txt.
inline CliRun run_cli(const std::string& program, const std::vector<std::string>& args, const std::filesystem::path& dir,
                      const std::vector<std::string>& overrides = {}) {
    const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

    std::vector<std::string> env = overrides;
    for (char** e = environ; *e; ++e) {
        const std::string_view s(*e);
        bool replaced = false;
        for (const std::string& o : overrides)
            if (s.starts_with(o.substr(0, o.find('=') + 1))) replaced = true;
        if (!replaced) env.emplace_back(s);
    }
    std::vector<char*> envp;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::vector<std::string> argv_strings{program};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);

    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    CliRun r;
    if (spawned != 0) {
        ADD_FAILURE() << "could not start " << program;
        return r;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

}  // namespace ak::test
