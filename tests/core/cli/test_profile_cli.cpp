// `autokernel profile` and `autokernel new --from-profile` as a user runs them: the bad-input paths
// (no GPU needed), `profile --show` of the fixture, and a session made from it.
#include "session/session.h"
#include "util/durable_file.h"
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>

extern char** environ;

namespace ak {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = std::string(AK_FIXTURES_DIR) + "/profile/gpt2-synthetic.json";

using CliResult = test::CliRun;

class ProfileCliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        dir_ = fs::temp_directory_path() / ("ak-profile-cli-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    CliResult run(const std::vector<std::string>& args) {
        return test::run_cli(AK_CLI_PATH, args, dir_,
                             {"AK_KERNELS_DIR=" + std::string(AK_KERNELS_DIR), "XDG_CACHE_HOME=" + (dir_ / "cache").string()});
    }
    fs::path dir_;
};

// Bad arguments are refused before anything needs a GPU.
TEST_F(ProfileCliTest, BadInputIsAUsageErrorNamingTheProblem) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{}, "say what to profile"},
        {{"--model", "gpt3"}, "--model gpt3: unknown model (gpt2, llama-160m, llama-7b-layers, bert-base)"},
        {{"--model", "gpt2", "--seq", "2048"}, "gpt2 has 1024 positions"},
        {{"--model", "bert-base", "--seq", "1024"}, "bert-base has 512 positions"},
        {{"--model", "gpt2", "--dtype", "fp8"}, "--dtype fp8: use fp16, bf16 or fp32"},
        {{"--model", "gpt2", "--mode", "eval"}, "--mode eval: use inference or training"},
        {{"--model", "gpt2", "--batch", "0"}, "--batch 0: expected a whole number >= 1"},
        {{"--model", "gpt2", "--iterations", "x"}, "--iterations x: expected a whole number"},
        {{"--model", "gpt2", "--input", "8x1024:int64"}, "--input is for --torchscript"},
        {{"--model", "gpt2", "--torchscript", "m.pt"}, "give only one of"},
        {{"--model", "gpt2", "--frobnicate"}, "unknown option '--frobnicate'"},
        {{"--torchscript", "m.pt", "--batch", "2"}, "--batch is for --model"},
        {{"--"}, "nothing after '--'"},
        {{"--show", "p.json", "--iterations", "3"}, "--iterations does not apply to --show"},
        {{"--model", "gpt2", "--trace", "t.json"}, "--trace is for --show"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> full{"profile"};
        full.insert(full.end(), args.begin(), args.end());
        const CliResult r = run(full);
        EXPECT_EQ(r.exit_code, 64) << message << "\n" << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
}

TEST_F(ProfileCliTest, TorchScriptFileAndInputsAreChecked) {
    CliResult r = run({"profile", "--torchscript", (dir_ / "missing.pt").string(), "--input", "8x1024:int64"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("missing.pt: file not found"), std::string::npos) << r.err;

    r = run({"profile", "--torchscript", dir_.string(), "--input", "8x1024:int64"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("not a file"), std::string::npos) << r.err;

    replace_durably(dir_ / "m.pt", "not really TorchScript");
    const std::string model = (dir_ / "m.pt").string();
    r = run({"profile", "--torchscript", model});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("needs one --input"), std::string::npos) << r.err;
    r = run({"profile", "--torchscript", model, "--input", "8x1024"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--input '8x1024': no dtype"), std::string::npos) << r.err;
    r = run({"profile", "--torchscript", model, "--input", "8x0:int64"});
    EXPECT_NE(r.err.find("size '0' is not a positive integer"), std::string::npos) << r.err;
    r = run({"profile", "--torchscript", model, "--input", "8x1024:int4"});
    EXPECT_NE(r.err.find("unknown dtype 'int4' (known: fp16, bf16, fp32, fp64, int64, int32, int8, uint8, bool)"),
              std::string::npos) << r.err;
    r = run({"profile", "--torchscript", model, "--input", "8x1024:fp16:0-9"});
    EXPECT_NE(r.err.find("a value range is only allowed for integer inputs"), std::string::npos) << r.err;
    r = run({"profile", "--torchscript", model, "--input", "8x1024:int64:9-9"});
    EXPECT_NE(r.err.find("range 9-9 is empty"), std::string::npos) << r.err;
}

// The CLI checks --input with the profiler's own parser: every form autokernel-profiler takes (a value
// range, int8 and uint8) gets past the CLI's check, which ends the run before any GPU or file is touched.
TEST_F(ProfileCliTest, AcceptsEveryInputFormTheProfilerTakes) {
    replace_durably(dir_ / "m.pt", "not really TorchScript");
    const std::string model = (dir_ / "m.pt").string();
    for (const char* spec : {"8x1024:int64:0-50257", "8x1024:int8", "2x3:uint8", "4x3x224x224:fp16", "1:bool"}) {
        const CliResult r = run({"profile", "--torchscript", model, "--input", spec, "--out", (dir_ / "out").string()});
        EXPECT_NE(r.exit_code, 64) << spec << ": " << r.err;
        EXPECT_EQ(r.err.find("--input"), std::string::npos) << spec << ": " << r.err;
    }
}

TEST_F(ProfileCliTest, ValidRequestWithoutAGpuExitsTwo) {
    const CliResult r = run({"profile", "--model", "gpt2", "--out", (dir_ / "out").string()});
    if (r.exit_code != 2) GTEST_SKIP() << "a GPU driver is present here (exit " << r.exit_code << ")";
    EXPECT_NE(r.err.find("no GPU available"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "profile.json"));
}

TEST_F(ProfileCliTest, ShowReportsAnExistingProfileWithoutAGpu) {
    const fs::path trace = dir_ / "trace.json";
    CliResult r = run({"profile", "--show", kFixture, "--trace", trace.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("profile: model gpt2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel types"), std::string::npos);
    EXPECT_NE(r.out.find("matmul "), std::string::npos);
    EXPECT_TRUE(fs::exists(trace));
    EXPECT_NE(read_file(trace).find("\"traceEvents\""), std::string::npos);

    r = run({"profile", "--show", kFixture, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.front(), '{');
    EXPECT_NE(r.out.find("\"types\""), std::string::npos);

    r = run({"profile", "--show", (dir_ / "nope.json").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("nope.json"), std::string::npos) << r.err;

    replace_durably(dir_ / "bad.json", "{\"format_version\": 1, \"origin\": {\"kind\": \"builtin\"}}");
    r = run({"profile", "--show", (dir_ / "bad.json").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("bad.json: origin.measured_iterations: missing"), std::string::npos) << r.err;
}

TEST_F(ProfileCliTest, NewFromProfile) {
    const fs::path session_dir = dir_ / "s";
    CliResult r = run({"new", session_dir.string(), "--from-profile", kFixture, "--top", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("matmul_2048x3072x768"), std::string::npos) << r.out;
    const Session s = Session::open(session_dir, OpenOptions{true});
    ASSERT_EQ(s.info().kernels.size(), 3u);
    EXPECT_EQ(s.info().kernels[0].type, "matmul");
    EXPECT_EQ(s.info().kernels[0].shapes, "2048x3072x768,2048x2304x768");
    EXPECT_GT(s.info().kernels[0].model_fraction, 0.3);
    ASSERT_TRUE(s.info().profile);
    EXPECT_EQ(s.info().profile->model, "gpt2");
    EXPECT_EQ(s.info().profile->gpu, "NVIDIA H200");

    r = run({"new", (dir_ / "t").string(), "--from-profile", kFixture, "--types", "flash_attention,layernorm"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Session t = Session::open(dir_ / "t", OpenOptions{true});
    ASSERT_EQ(t.info().kernels.size(), 2u);
    EXPECT_EQ(t.info().kernels[0].name, "layernorm");
    EXPECT_EQ(t.info().kernels[1].shapes, "4x12x512x64 causal");

    r = run({"new", (dir_ / "u").string(), "--from-profile", kFixture, "--min-share", "0.9"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("nothing to optimize"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "u"));
    r = run({"new", (dir_ / "u").string(), "--from-profile", kFixture, "--types", "conv"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown kernel type 'conv'"), std::string::npos) << r.err;
    r = run({"new", (dir_ / "u").string(), "--from-profile", kFixture, "--min-share", "2"});
    EXPECT_NE(r.err.find("--min-share 2"), std::string::npos) << r.err;
    r = run({"new", (dir_ / "u").string(), "--kernel", "matmul", "--top", "2"});
    EXPECT_NE(r.err.find("--top is for --from-profile"), std::string::npos) << r.err;
    r = run({"new", (dir_ / "u").string(), "--from-profile", (dir_ / "none.json").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("none.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ak
