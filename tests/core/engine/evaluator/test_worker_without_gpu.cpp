// The real autokernel-evaluator on a machine without a GPU: it must answer with a plain "no GPU"
// CRASH result and exit, and the client must report that instead of hanging or dying.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator_client.h"
#include "gpu/cuda_driver.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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
