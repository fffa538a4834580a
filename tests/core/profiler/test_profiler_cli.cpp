// autokernel-profiler run as `autokernel profile` runs it, on what needs no GPU: usage errors, a
// TorchScript file that does not exist or is not TorchScript (LibTorch loads files on the CPU), on a
// machine without a GPU the plain "no GPU" message of every route, and the command route's collection
// of what the injection library wrote, with a stand-in driver (fake_libcuda.cpp) and a command that
// plays the injection library's part.
#include "gpu/cuda_driver.h"
#include "profile/profile_json.h"
#include "profiler_process.h"

#include <dirent.h>

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

// The injection folders (/tmp/ak-inject.*) that still hold a file named `name`.
int leftover_injection_folders(const std::string& name) {
    int n = 0;
    if (DIR* d = ::opendir("/tmp")) {
        while (const dirent* e = ::readdir(d))
            if (std::string(e->d_name).rfind("ak-inject.", 0) == 0 && fs::exists(fs::path("/tmp") / e->d_name / name)) ++n;
        ::closedir(d);
    }
    return n;
}

// What libautokernel-inject.so writes at exit: a command-route profile of one process.
profile::Profile injected_profile() {
    profile::Profile p;
    p.origin.kind = profile::SourceKind::Command;
    p.origin.measured_iterations = 1;
    p.origin.gpu_name = "Fake GPU";
    for (int i = 0; i < 3; ++i) {
        profile::KernelRecord k;
        k.name = "add_one(float*, int)";
        k.start_ns = 1000 + 100 * std::uint64_t(i);
        k.end_ns = k.start_ns + 50;
        k.grid = {4096, 1, 1};
        k.block = {256, 1, 1};
        k.nvtx_range = i < 2 ? "phase-a" : "";
        k.iteration = 0;
        p.kernels.push_back(k);
    }
    profile::IterationRecord it;
    it.index = 0;
    it.gpu_start_ns = 1000;
    it.gpu_end_ns = 1250;
    p.iterations.push_back(it);
    return p;
}

// Regression: the profiler links the torch wheel's libtorch.so, which exports its own std::filesystem
// functions; the route's clean-up through std::filesystem::remove_all crashed (SIGSEGV) on the H200.
TEST_F(ProfilerCli, CommandRouteCollectsWhatTheInjectionLibraryWrote) {
    const fs::path src = dir / "inject-src.json";
    profile::write_profile_json(injected_profile(), src);
    const std::string script = "cp '" + src.string() + "' \"$AK_INJECT_OUT/inject-4242.json\" && touch \"$AK_INJECT_OUT/started-4242\"";
    const ProcessResult r = run({AK_PROFILER_PATH, "--out", out_file(), "--", "sh", "-c", script}, {"AK_LIBCUDA=" AK_FAKE_LIBCUDA});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("only one CUPTI client"), std::string::npos) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    EXPECT_EQ(p.origin.kind, profile::SourceKind::Command);
    EXPECT_EQ(p.origin.command, (std::vector<std::string>{"sh", "-c", script}));
    EXPECT_EQ(p.origin.gpu_name, "Fake GPU");
    ASSERT_EQ(p.kernels.size(), 3u);
    EXPECT_EQ(p.kernels[0].nvtx_range, "phase-a");
    EXPECT_EQ(p.kernels[2].nvtx_range, "");
    ASSERT_EQ(p.iterations.size(), 1u);
    EXPECT_EQ(p.iterations[0].gpu_start_ns, 1000u);
    EXPECT_EQ(p.iterations[0].gpu_end_ns, 1250u);
    EXPECT_GT(p.iterations[0].wall_ms, 0);
    EXPECT_EQ(leftover_injection_folders("inject-4242.json"), 0) << "the temporary folder is removed";
}

// The command route's bad commands, on the stand-in libcuda: one that fails, one that cannot be run, and
// one that initialised CUDA (the injection library wrote its profile) but launched no kernel.
TEST_F(ProfilerCli, CommandRouteRefusesAFailingCommandAndOneWithoutKernels) {
    ProcessResult r = run({AK_PROFILER_PATH, "--out", out_file(), "--", "sh", "-c", "exit 3"}, {"AK_LIBCUDA=" AK_FAKE_LIBCUDA});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("the command failed: 'sh -c exit 3' exited with status 3"), std::string::npos) << r.describe();
    r = run({AK_PROFILER_PATH, "--out", out_file(), "--", (dir / "no-such-program").string()}, {"AK_LIBCUDA=" AK_FAKE_LIBCUDA});
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("cannot run '" + (dir / "no-such-program").string() + "'"), std::string::npos) << r.describe();

    profile::Profile empty = injected_profile();
    empty.kernels.clear();
    const fs::path src = dir / "inject-empty.json";
    profile::write_profile_json(empty, src);
    const std::string script = "cp '" + src.string() + "' \"$AK_INJECT_OUT/inject-4244.json\" && touch \"$AK_INJECT_OUT/started-4244\"";
    r = run({AK_PROFILER_PATH, "--out", out_file(), "--", "sh", "-c", script}, {"AK_LIBCUDA=" AK_FAKE_LIBCUDA});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("launched no CUDA kernel"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
    EXPECT_EQ(leftover_injection_folders("inject-4244.json"), 0);
}

TEST_F(ProfilerCli, CommandRouteTellsAProcessThatSkippedItsExitHandlers) {
    const ProcessResult r = run({AK_PROFILER_PATH, "--out", out_file(), "--", "sh", "-c", "touch \"$AK_INJECT_OUT/started-4243\""},
                                {"AK_LIBCUDA=" AK_FAKE_LIBCUDA});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("initialised CUDA but ended without running its exit handlers"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
    EXPECT_EQ(leftover_injection_folders("started-4243"), 0);
}

}  // namespace
}  // namespace ak::profiler
