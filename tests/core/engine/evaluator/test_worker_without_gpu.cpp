// The real autokernel-evaluator on a machine without a GPU: it must answer with a plain "no GPU"
// CRASH result and exit, and the client must report that instead of hanging or dying.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator_client.h"
#include "gpu/cuda_driver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ak {
namespace {

bool driver_present() { return cuda_driver().loaded(); }

std::string run_shell(const std::string& command) {
    std::string out;
    FILE* p = ::popen(command.c_str(), "r");
    if (!p) return out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    ::pclose(p);
    return out;
}

// True while `pid` exists and is not a zombie (a re-parented zombie may never be reaped in a container).
bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(EvaluatorWorker, ExitsWhenTheClientThatStartedItDies) {
    // The test keeps the worker's stdin open, so only the parent watchdog can end it: an intermediate
    // process starts the worker and dies at once, like a client killed with -9 while a kernel hangs.
    int in[2], report[2];
    ASSERT_EQ(::pipe(in), 0);
    ASSERT_EQ(::pipe(report), 0);
    const pid_t client = ::fork();
    ASSERT_GE(client, 0);
    if (client == 0) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        char path[] = AK_EVALUATOR_PATH;
        char* argv[] = {path, nullptr};
        // As ak::EvaluatorClient does: the worker learns its client's pid from the environment, so a
        // client that dies while the worker still loads its libraries is noticed too.
        std::string client_pid = "AK_EVALUATOR_CLIENT_PID=" + std::to_string(::getpid());
        std::vector<char*> envp;
        for (char** e = environ; *e; ++e) envp.push_back(*e);
        envp.push_back(client_pid.data());
        envp.push_back(nullptr);
        pid_t worker = -1;
        if (::posix_spawn(&worker, path, &actions, nullptr, argv, envp.data()) != 0) ::_exit(1);
        (void)!::write(report[1], &worker, sizeof worker);
        ::_exit(0);
    }
    ::close(in[0]);
    ::close(report[1]);
    pid_t worker = -1;
    ASSERT_EQ(::read(report[0], &worker, sizeof worker), static_cast<ssize_t>(sizeof worker));
    ::close(report[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(client, &status, 0), client);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the intermediate client could not start the worker";

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (running(worker) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const bool still_running = running(worker);
    if (still_running) ::kill(worker, SIGKILL);
    ::close(in[1]);
    EXPECT_FALSE(still_running) << "the worker outlived its client by 10 s with its stdin still open";
}

TEST(EvaluatorWithoutGpu, AnswersTheFirstRequestWithNoGpuAndExitsWithCode2) {
    if (driver_present()) GTEST_SKIP() << "a CUDA driver is present here: the no-GPU path cannot be reached";
    EvaluationRequest ping;
    ping.id = 17;
    ping.op = RequestOp::Ping;
    const std::string command = "printf '%s\\n' '" + encode_request(ping) + "' | " AK_EVALUATOR_PATH " 2>/dev/null; echo \"exit=$?\"";
    const std::string out = run_shell(command);
    const auto newline = out.find('\n');
    ASSERT_NE(newline, std::string::npos) << out;
    const EvaluationResult r = decode_result(out.substr(0, newline));
    EXPECT_EQ(r.id, 17u);
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_TRUE(r.worker_exiting);
    EXPECT_EQ(r.detail.rfind("no GPU: ", 0), 0u) << r.detail;
    EXPECT_NE(out.find("exit=2"), std::string::npos) << out;
}

TEST(EvaluatorWithoutGpu, StdoutCarriesOnlyProtocolLines) {
    if (driver_present()) GTEST_SKIP() << "a CUDA driver is present here: the no-GPU path cannot be reached";
    EvaluationRequest device;
    device.id = 3;
    device.op = RequestOp::Device;
    const std::string out =
        run_shell("printf '%s\\n' '" + encode_request(device) + "' | " AK_EVALUATOR_PATH " 2>/dev/null");
    ASSERT_FALSE(out.empty());
    std::size_t start = 0;
    int lines = 0;
    while (start < out.size()) {
        const auto end = out.find('\n', start);
        const std::string line = out.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty()) {
            EXPECT_NO_THROW(decode_worker_line(line)) << line;
            ++lines;
        }
        if (end == std::string::npos) break;
        start = end + 1;
    }
    EXPECT_EQ(lines, 1);
}

TEST(EvaluatorWithoutGpu, TheClientReportsNoGpuAndSurvives) {
    if (driver_present()) GTEST_SKIP() << "a CUDA driver is present here: the no-GPU path cannot be reached";
    EvaluatorClientOptions options;
    options.worker_path = AK_EVALUATOR_PATH;
    options.start_timeout_s = 60;
    EvaluatorClient client(options);
    std::string why;
    EXPECT_FALSE(client.start(&why));
    EXPECT_NE(why.find("no GPU"), std::string::npos) << why;

    EvaluationRequest req;
    req.type = KernelType::RmsNorm;
    req.source = "// @autokernel type rmsnorm\n";
    const EvaluationResult r = client.evaluate(req);
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("no GPU"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace ak
