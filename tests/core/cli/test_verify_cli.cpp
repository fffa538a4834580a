// `autokernel verify` as a user runs it, for what needs no GPU: usage errors, a missing session, and
// exit 2 on a machine without a GPU (the GPU side is tests/core/engine/gpu/test_verify_gpu.cpp).
#include "gpu/device_query.h"
#include "util/durable_file.h"
#include "cli_runner.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

extern char** environ;

namespace {

namespace fs = std::filesystem;

using ak::test::CliRun;

class VerifyCli : public ::testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("ak_verify_cli_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    CliRun cli(const std::vector<std::string>& args) { return ak::test::run_cli(AK_CLI_PATH, args, dir); }

    fs::path session() {
        const fs::path s = dir / "s";
        const CliRun r = cli({"new", s.string(), "--kernel", "rmsnorm", "--shapes", "rmsnorm:128x768"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return s;
    }

    void expect(const std::vector<std::string>& args, int code, const std::string& message) {
        const CliRun r = cli(args);
        EXPECT_EQ(r.exit_code, code) << r.out << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
};

TEST_F(VerifyCli, UsageErrorsNameTheProblem) {
    const std::string s = session().string();
    expect({"verify"}, 64, "SESSION");
    expect({"verify", s}, 64, "which model?");
    expect({"verify", s, "--model", "gpt5"}, 64, "unknown model 'gpt5'");
    expect({"verify", s, "--model", "gpt2", "--torchscript", "m.pt"}, 64, "not both");
    expect({"verify", s, "--model", "gpt2", "--input", "8x128:int64"}, 64, "--input belongs to --torchscript");
    expect({"verify", s, "--torchscript", (dir / "missing.pt").string(), "--input", "8x128:int64"}, 64, "does not exist");
    expect({"verify", s, "--model", "gpt2", "--batch", "0"}, 64, "--batch takes a whole number");
    expect({"verify", s, "--model", "gpt2", "--dtype", "fp64"}, 64, "unknown dtype 'fp64'");
    expect({"verify", s, "--model", "gpt2", "--kernel", "softmax"}, 64, "the session has no kernel 'softmax'");
    expect({"verify", s, "--model", "gpt2", "--frobnicate"}, 64, "--frobnicate");
    expect({"verify", s, "--model", "gpt2", "--min-speedup", "1.1"}, 64, "--min-speedup goes with --faster-only");
    expect({"verify", s, "--model", "gpt2", "--faster-only", "--min-speedup", "0.9"}, 64,
           "--min-speedup takes a speedup of 1 or more");
}

TEST_F(VerifyCli, AMissingSessionIsAnError) {
    expect({"verify", (dir / "nowhere").string(), "--model", "gpt2"}, 1, "does not exist");
    fs::create_directories(dir / "plain");
    const CliRun r = cli({"verify", (dir / "plain").string(), "--model", "gpt2"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("plain"), std::string::npos) << r.err;
}

TEST_F(VerifyCli, WithoutAGpuItExits2AndWritesNothing) {
    bool gpu = true;
    try {
        (void)ak::query_device(0);
    } catch (const ak::Error&) {
        gpu = false;
    }
    if (gpu) GTEST_SKIP() << "this machine has a GPU (tests/core/engine/gpu/test_verify_gpu.cpp covers it)";
    const fs::path s = session();
    const CliRun r = cli({"verify", s.string(), "--model", "llama-160m"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("autokernel verify:"), std::string::npos) << r.err;
    // A session straight from `new`: nothing evaluated, so nothing would be substituted without --unevaluated.
    EXPECT_NE(r.err.find("is substituted"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(s / "verify.json"));
}

TEST_F(VerifyCli, WithoutModelItRunsTheModelTheSessionWasProfiledFrom) {
    const fs::path s = dir / "from-profile";
    const CliRun made = cli({"new", s.string(), "--from-profile", std::string(AK_FIXTURES_DIR) + "/profile/gpt2-synthetic.json"});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    // The profile was gpt2, batch 4, seq 512, fp16: verify takes all of it, and --seq still overrides.
    // Without a GPU it stops at the preflight (exit 2), after naming the model; with one it would run it.
    bool gpu = true;
    try {
        (void)ak::query_device(0);
    } catch (const ak::Error&) {
        gpu = false;
    }
    if (gpu) GTEST_SKIP() << "this machine has a GPU: the run itself is tests/core/engine/gpu/test_verify_gpu.cpp";
    const CliRun r = cli({"verify", s.string(), "--unevaluated"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("model from the session's profile: gpt2 batch 4 seq 512 fp16"), std::string::npos) << r.err;
    const CliRun shorter = cli({"verify", s.string(), "--seq", "128"});
    EXPECT_NE(shorter.err.find("gpt2 batch 4 seq 512 fp16"), std::string::npos) << shorter.err;  // the profile's, then --seq
    EXPECT_EQ(shorter.exit_code, 2) << shorter.err;
}

}  // namespace
