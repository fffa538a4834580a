#pragma once
// Runs autokernel-profiler (or any program) as a user would, with stdout and stderr captured, and a
// temporary folder per test. Shared by the CPU and the GPU tests of the profiler.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace ak::profiler::test_support {

namespace fs = std::filesystem;

struct ProcessResult {
    int exit_code = -1;  // 128 + signal when killed
    std::string out;
    std::string err;
    std::string describe() const { return "exit " + std::to_string(exit_code) + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err; }
};

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A fresh folder under the temporary directory, named after the running test, removed at the end.
class TempFolderTest : public ::testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() /
                   ("ak_profiler_" + std::to_string(::getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override {
        if (!HasFailure()) fs::remove_all(dir);
    }

    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return dir / name;
    }

    ProcessResult run(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {}) {
        const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> env = extra_env;
        for (char** e = environ; *e; ++e) env.emplace_back(*e);
        std::vector<char*> envp, args;
        for (auto& e : env) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::vector<std::string> copy = argv;
        for (auto& a : copy) args.push_back(a.data());
        args.push_back(nullptr);
        pid_t pid = 0;
        ProcessResult r;
        if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data()) != 0) {
            posix_spawn_file_actions_destroy(&actions);
            r.err = "cannot start " + argv[0];
            return r;
        }
        posix_spawn_file_actions_destroy(&actions);
        int status = 0;
        waitpid(pid, &status, 0);
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }
};

}  // namespace ak::profiler::test_support
