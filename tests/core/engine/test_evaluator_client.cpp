#include "engine/evaluator_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace ak;

namespace {

EvaluatorClientOptions fake_options(std::vector<std::string> args = {}) {
    EvaluatorClientOptions o;
    o.worker_path = AK_FAKE_EVALUATOR;
    o.worker_args = std::move(args);
    o.start_timeout_s = 10;
    return o;
}

EvaluationRequest request(std::string behaviour, double timeout_s = 10) {
    EvaluationRequest r;
    r.type = KernelType::RmsNorm;
    r.source = std::move(behaviour);
    r.timeout_s = timeout_s;
    return r;
}

bool process_exists(int pid) { return ::kill(pid, 0) == 0; }

// True once `pid` has exited (a zombie waiting to be reaped) or is gone.
bool process_has_exited(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(EvaluatorClient, PassResultComesBackFromTheWorker) {
    EvaluatorClient client(fake_options());
    auto req = request("pass");
    req.seed = 31337;
    const auto r = client.evaluate(req);
    EXPECT_EQ(r.verdict, Verdict::Pass) << r.detail;
    EXPECT_EQ(r.seed, 31337u) << "the request reached the worker intact";
    EXPECT_EQ(r.device, "fake GPU");
    ASSERT_TRUE(client.worker_pid());
    EXPECT_EQ(r.worker_pid, *client.worker_pid());
    EXPECT_GT(r.wall_ms, 0);
}

TEST(EvaluatorClient, ReusesOneWorkerAcrossRequests) {
    EvaluatorClient client(fake_options());
    const auto a = client.evaluate(request("pass"));
    const auto b = client.evaluate(request("pass"));
    const auto c = client.evaluate(request("pass"));
    EXPECT_EQ(a.verdict, Verdict::Pass);
    EXPECT_EQ(a.worker_pid, b.worker_pid);
    EXPECT_EQ(b.worker_pid, c.worker_pid);
    const auto s = client.stats();
    EXPECT_EQ(s.worker_starts, 1);
    EXPECT_EQ(s.requests, 3);
    EXPECT_EQ(s.reused, 2);
    EXPECT_GT(s.last_start_ms, 0);
    EXPECT_DOUBLE_EQ(s.start_ms_total, s.last_start_ms);
}

TEST(EvaluatorClient, ProgressEventsReachTheCallbackInOrder) {
    auto options = fake_options();
    std::vector<std::string> stages;
    options.on_progress = [&](const ProgressEvent& e) { stages.push_back(e.stage + ":" + e.message); };
    EvaluatorClient client(options);
    const auto r = client.evaluate(request("progress"));
    EXPECT_EQ(r.verdict, Verdict::Pass);
    EXPECT_EQ(stages, (std::vector<std::string>{"compile:fp16", "smoke:64x1024 fp16"}));
}

TEST(EvaluatorClient, HangIsKilledAtTheTimeoutAndTheNextRequestGetsAFreshWorker) {
    EvaluatorClient client(fake_options());
    const auto first = client.evaluate(request("pass"));
    ASSERT_EQ(first.verdict, Verdict::Pass);
    const int hung_pid = first.worker_pid;

    const auto t0 = std::chrono::steady_clock::now();
    const auto r = client.evaluate(request("hang", 0.5));
    const double took = seconds_since(t0);
    EXPECT_EQ(r.verdict, Verdict::Timeout);
    EXPECT_GE(took, 0.5);
    EXPECT_LT(took, 2.0) << "TIMEOUT must come within the timeout plus a small margin";
    EXPECT_NE(r.detail.find("no result within 0.5 s"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("during timing (4096x4096 fp16)"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("killed"), std::string::npos);
    EXPECT_FALSE(client.worker_pid());
    EXPECT_FALSE(process_exists(hung_pid)) << "the hung worker was killed and reaped";

    const auto next = client.evaluate(request("pass"));
    EXPECT_EQ(next.verdict, Verdict::Pass);
    EXPECT_NE(next.worker_pid, hung_pid);
    EXPECT_EQ(client.stats().worker_starts, 2);
    EXPECT_EQ(client.stats().worker_kills, 1);
}

TEST(EvaluatorClient, SegfaultBecomesCrashNamingTheSignalStageAndStderr) {
    EvaluatorClient client(fake_options());
    const auto r = client.evaluate(request("segv"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("SIGSEGV"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("during sweep (1024x4096 bf16)"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("about to dereference a bad pointer"), std::string::npos) << r.detail;
    EXPECT_FALSE(client.worker_pid());
    EXPECT_EQ(client.stats().worker_deaths, 1);
    // The caller carries on with a new worker.
    EXPECT_EQ(client.evaluate(request("pass")).verdict, Verdict::Pass);
}

TEST(EvaluatorClient, ExitWithoutAnswerNamesTheExitCode) {
    EvaluatorClient client(fake_options());
    const auto r = client.evaluate(request("exit7"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("exited with code 7"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("giving up"), std::string::npos) << r.detail;
}

TEST(EvaluatorClient, GarbageOnStdoutIsAProtocolErrorAndTheWorkerIsKilled) {
    EvaluatorClient client(fake_options());
    const auto pass = client.evaluate(request("pass"));
    const auto r = client.evaluate(request("garbage"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("protocol error"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("this is not json"), std::string::npos) << r.detail;
    EXPECT_FALSE(process_exists(pass.worker_pid));
    const auto next = client.evaluate(request("pass"));
    EXPECT_EQ(next.verdict, Verdict::Pass);
    EXPECT_NE(next.worker_pid, pass.worker_pid);
}

TEST(EvaluatorClient, ResultForAnotherRequestIsAProtocolError) {
    EvaluatorClient client(fake_options());
    const auto r = client.evaluate(request("wrong-id"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("result for request"), std::string::npos) << r.detail;
}

TEST(EvaluatorClient, StickyErrorResultIsReturnedAndTheWorkerIsReplaced) {
    EvaluatorClient client(fake_options());
    const auto r = client.evaluate(request("sticky"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos);
    EXPECT_TRUE(r.worker_exiting);
    EXPECT_FALSE(client.worker_pid()) << "the exiting worker was reaped";
    EXPECT_FALSE(process_exists(r.worker_pid));
    const auto next = client.evaluate(request("pass"));
    EXPECT_EQ(next.verdict, Verdict::Pass);
    EXPECT_NE(next.worker_pid, r.worker_pid);
    EXPECT_EQ(client.stats().worker_starts, 2);
}

TEST(EvaluatorClient, WorkerThatDiedWhileIdleIsRestartedTransparently) {
    EvaluatorClient client(fake_options());
    const auto first = client.evaluate(request("pass"));
    ASSERT_EQ(first.verdict, Verdict::Pass);
    ::kill(first.worker_pid, SIGKILL);
    const auto t0 = std::chrono::steady_clock::now();
    while (!process_has_exited(first.worker_pid) && seconds_since(t0) < 5) ::usleep(1000);
    const auto next = client.evaluate(request("pass"));
    EXPECT_EQ(next.verdict, Verdict::Pass) << next.detail;
    EXPECT_NE(next.worker_pid, first.worker_pid);
}

TEST(EvaluatorClient, LargeResultsArriveWhole) {
    EvaluatorClient client(fake_options());
    const auto r = client.evaluate(request("big"));
    EXPECT_EQ(r.verdict, Verdict::Pass);
    EXPECT_EQ(r.detail.size(), 1u << 20);
}

TEST(EvaluatorClient, LargeRequestsAreSentWhole) {
    EvaluatorClient client(fake_options());
    auto req = request(std::string(1 << 20, 'k'));
    const auto r = client.evaluate(req);
    EXPECT_EQ(r.verdict, Verdict::Fail) << r.detail;  // unknown behaviour, but the whole source arrived
    EXPECT_NE(r.detail.find("kkkk"), std::string::npos);
}

TEST(EvaluatorClient, HandshakeTimeoutIsReportedAsAFailedStart) {
    auto options = fake_options({"--hang-on-ping"});
    options.start_timeout_s = 0.3;
    EvaluatorClient client(options);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = client.evaluate(request("pass"));
    EXPECT_LT(seconds_since(t0), 2.0);
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("failed to start"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("did not answer the start-up ping within 0.3 s"), std::string::npos) << r.detail;
    EXPECT_EQ(client.stats().failed_starts, 1);
    EXPECT_FALSE(client.worker_pid());
}

TEST(EvaluatorClient, GarbageBeforeTheHandshakeIsAFailedStart) {
    EvaluatorClient client(fake_options({"--garbage-on-start"}));
    std::string why;
    EXPECT_FALSE(client.start(&why));
    EXPECT_NE(why.find("protocol error"), std::string::npos) << why;
    EXPECT_NE(why.find("hello from a confused worker"), std::string::npos) << why;
}

TEST(EvaluatorClient, MissingWorkerBinaryIsACrashNotAnException) {
    auto options = fake_options();
    options.worker_path = "/nonexistent/autokernel-evaluator";
    EvaluatorClient client(options);
    const auto r = client.evaluate(request("pass"));
    EXPECT_EQ(r.verdict, Verdict::Crash);
    EXPECT_NE(r.detail.find("/nonexistent/autokernel-evaluator"), std::string::npos) << r.detail;
}

TEST(EvaluatorClient, StderrIsKeptAndLoggedToAFile) {
    const auto log_path = std::filesystem::temp_directory_path() / ("ak_worker_stderr_" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log_path);
    auto options = fake_options();
    options.stderr_log_path = log_path.string();
    {
        EvaluatorClient client(options);
        client.evaluate(request("exit7"));
        EXPECT_NE(client.stderr_tail().find("giving up"), std::string::npos);
    }
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("fake worker: giving up"), std::string::npos);
    std::filesystem::remove(log_path);
}

TEST(EvaluatorClient, ShutdownEndsTheWorker) {
    EvaluatorClient client(fake_options());
    ASSERT_TRUE(client.start());
    const int pid = *client.worker_pid();
    EXPECT_TRUE(process_exists(pid));
    client.shutdown();
    EXPECT_FALSE(client.worker_pid());
    EXPECT_FALSE(process_exists(pid));
}

TEST(FindEvaluatorExecutable, EnvironmentVariableWins) {
    ::setenv("AK_EVALUATOR", "/opt/ak/autokernel-evaluator", 1);
    EXPECT_EQ(find_evaluator_executable(), "/opt/ak/autokernel-evaluator");
    ::unsetenv("AK_EVALUATOR");
    // Otherwise: autokernel-evaluator beside the running executable, if it was built.
    const auto beside = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "autokernel-evaluator";
    if (std::filesystem::exists(beside))
        EXPECT_EQ(find_evaluator_executable(), beside.string());
    else
        EXPECT_FALSE(find_evaluator_executable());
}

TEST(SignalDescription, NamesTheSignal) {
    EXPECT_EQ(signal_description(SIGSEGV).rfind("SIGSEGV (", 0), 0u);
    EXPECT_EQ(signal_description(SIGABRT).rfind("SIGABRT", 0), 0u);
}
