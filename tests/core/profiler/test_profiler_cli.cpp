// autokernel-profiler run as `autokernel profile` runs it, on what needs no GPU: usage errors, a
// TorchScript file that does not exist or is not TorchScript (LibTorch loads files on the CPU), and,
// on a machine without a GPU, the plain "no GPU" message of every route.
#include "gpu/cuda_driver.h"
#include "profiler_process.h"

#include <gtest/gtest.h>

namespace ak::profiler {
namespace {

using test_support::ProcessResult;
namespace fs = std::filesystem;

bool have_gpu() {
    const auto& cu = cuda_driver();
    int count = 0;
    return cu.loaded() && cu.cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0;
}

class ProfilerCli : public test_support::TempFolderTest {
protected:
    ProcessResult profiler(std::vector<std::string> args) {
        args.insert(args.begin(), AK_PROFILER_PATH);
        return run(args);
    }
    std::string out_file() const { return (dir / "profile.json").string(); }
};

TEST_F(ProfilerCli, UsageErrorExitsTwoWithTheProblem) {
    const ProcessResult r = profiler({"--out", out_file(), "--model", "gpt3"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("unknown model 'gpt3'"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
    const ProcessResult none = profiler({});
    EXPECT_EQ(none.exit_code, 2) << none.describe();
    EXPECT_NE(none.err.find("usage: autokernel-profiler"), std::string::npos) << none.describe();
}

TEST_F(ProfilerCli, HelpMentionsTheOneCuptiClientRule) {
    const ProcessResult r = profiler({"--help"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("Only one CUPTI client"), std::string::npos) << r.describe();
}

TEST_F(ProfilerCli, MissingTorchScriptFile) {
    const std::string missing = (dir / "nope.pt").string();
    const ProcessResult r = profiler({"--out", out_file(), "--torchscript", missing, "--input", "4x16:fp32"});
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_NE(r.err.find(missing + ": no such file"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
}

TEST_F(ProfilerCli, FileThatIsNotTorchScript) {
    const fs::path bogus = write("model.pt", "this is a text file, not a TorchScript archive\n");
    const ProcessResult r = profiler({"--out", out_file(), "--torchscript", bogus.string(), "--input", "4x16:fp32"});
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_NE(r.err.find(bogus.string() + " is not a TorchScript file"), std::string::npos) << r.describe();
    EXPECT_NE(r.err.find("torch::jit::load"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
}

TEST_F(ProfilerCli, NoGpuIsSaidPlainlyOnEveryRoute) {
    if (have_gpu()) GTEST_SKIP() << "this machine has a GPU (the GPU tests cover the routes there)";
    const std::vector<std::vector<std::string>> routes = {
        {"--model", "gpt2", "--batch", "1", "--seq", "8"},
        {"--torchscript", AK_TINY_MLP_PT, "--input", "4x16:fp32"},  // loads on the CPU first, then needs the GPU
        {"--", "true"},
    };
    for (const auto& route : routes) {
        std::vector<std::string> args = {"--out", out_file()};
        args.insert(args.end(), route.begin(), route.end());
        const ProcessResult r = profiler(args);
        EXPECT_EQ(r.exit_code, 1) << route[0] << ": " << r.describe();
        EXPECT_NE(r.err.find("no GPU: "), std::string::npos) << route[0] << ": " << r.describe();
        EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.describe();
        EXPECT_FALSE(fs::exists(out_file()));
    }
}

}  // namespace
}  // namespace ak::profiler
