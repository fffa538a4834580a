// Runs `autokernel bench`, `ceilings` and the contract-aware `compile` as a user would. On a machine
// without a GPU (CI), bench and ceilings must say so plainly and exit 2 before starting any worker.
#include "gpu/cuda_driver.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class BenchCli : public ::testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() /
                   ("ak_bench_cli_" + std::to_string(::getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());

    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }

    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return dir / name;
    }

    // Runs autokernel with `args`, stdout and stderr captured in files; the NVRTC cache stays in `dir`.
    CliResult run(std::vector<std::string> args, std::vector<std::string> extra_env = {}) {
        const fs::path out = dir / "out.txt", err = dir / "err.txt";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> env{"XDG_CACHE_HOME=" + (dir / "cache").string()};
        env.insert(env.end(), extra_env.begin(), extra_env.end());
        for (char** e = environ; *e; ++e)
            if (!std::string_view(*e).starts_with("XDG_CACHE_HOME=")) env.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& s : env) envp.push_back(s.data());
        envp.push_back(nullptr);
        args.insert(args.begin(), AK_CLI_PATH);
        std::vector<char*> argv;
        for (auto& s : args) argv.push_back(s.data());
        argv.push_back(nullptr);
        pid_t pid = -1;
        CliResult r;
        if (::posix_spawn(&pid, AK_CLI_PATH, &actions, nullptr, argv.data(), envp.data()) != 0) return r;
        posix_spawn_file_actions_destroy(&actions);
        int status = 0;
        ::waitpid(pid, &status, 0);
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }
};

const char* kRmsnorm = R"(// @autokernel type rmsnorm
// @autokernel tunable BLOCK_THREADS = 256 {128, 256} tier 1 -- threads per block
#include <autokernel/contract.cuh>
extern "C" __global__ void ak_kernel0(ak_rmsnorm_args a) {
    __shared__ float partial[BLOCK_THREADS];
    partial[threadIdx.x] = ak_to_float(a.x[threadIdx.x]);
    __syncthreads();
    a.y[threadIdx.x] = ak_from_float(partial[BLOCK_THREADS - 1 - threadIdx.x] * a.eps);
}
)";

}  // namespace

TEST_F(BenchCli, BenchWithoutAGpuSaysSoAndExitsTwo) {
    if (ak::cuda_driver().loaded()) GTEST_SKIP() << "this machine has a GPU";
    const auto file = write("rmsnorm.cu", kRmsnorm);
    const auto r = run({"bench", file.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "autokernel bench: no GPU available: " + ak::cuda_driver().status().error + "\n");
    EXPECT_EQ(r.out, "");
}

TEST_F(BenchCli, CeilingsWithoutAGpuSaysSoAndExitsTwo) {
    if (ak::cuda_driver().loaded()) GTEST_SKIP() << "this machine has a GPU";
    const auto r = run({"ceilings", "--json"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "autokernel ceilings: no GPU available: " + ak::cuda_driver().status().error + "\n");
    EXPECT_EQ(r.out, "");
}

TEST_F(BenchCli, NoGpuIsReportedBeforeLookingForTheEvaluator) {
    if (ak::cuda_driver().loaded()) GTEST_SKIP() << "this machine has a GPU";
    const auto file = write("rmsnorm.cu", kRmsnorm);
    const auto r = run({"bench", file.string()}, {"AK_EVALUATOR=/nonexistent/autokernel-evaluator"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no GPU available"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("evaluator"), std::string::npos) << r.err;
}

TEST_F(BenchCli, BenchUsageErrorsComeBeforeTheGpuCheck) {
    const auto plain = write("plain.cu", "extern \"C\" __global__ void ak_kernel0() {}\n");
    auto r = run({"bench", plain.string()});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("declares no '// @autokernel type' line: pass --type TYPE"), std::string::npos) << r.err;

    const auto file = write("rmsnorm.cu", kRmsnorm);
    r = run({"bench", file.string(), "--type", "softmax"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("rmsnorm.cu:1 declares type rmsnorm, not softmax"), std::string::npos) << r.err;

    r = run({"bench", file.string(), "--shapes", "4096x"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("not a whole number"), std::string::npos) << r.err;

    r = run({"bench", file.string(), "--dtype", "tf32"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown dtype 'tf32'"), std::string::npos) << r.err;

    const auto broken = write("broken.cu", "// @autokernel type rmsnorm\n// @autokernel tunable VEC = 3 {1, 2}\n");
    r = run({"bench", broken.string()});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("broken.cu:2: tunable VEC = 3 is not in {1, 2}"), std::string::npos) << r.err;
}

TEST_F(BenchCli, HelpDescribesTheOptions) {
    const auto r = run({"bench", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--shapes LIST"), std::string::npos);
    EXPECT_NE(run({"ceilings", "--help"}).out.find("copy bandwidth"), std::string::npos);
}

TEST_F(BenchCli, CompileWithAContractReportsEveryDtype) {
    const auto file = write("rmsnorm.cu", kRmsnorm);
    const auto r = run({"compile", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rmsnorm, sm_"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tunables BLOCK_THREADS=256"), std::string::npos) << r.out;
    for (const char* dtype : {"\nfp16 ", "\nbf16 ", "\nfp32 "}) EXPECT_NE(r.out.find(dtype), std::string::npos) << r.out;
    // BLOCK_THREADS floats of static shared memory.
    EXPECT_NE(r.out.find("1024 B"), std::string::npos) << r.out;
}

TEST_F(BenchCli, CompileWithOneDtypeAndAContractError) {
    const auto file = write("rmsnorm.cu", kRmsnorm);
    auto r = run({"compile", file.string(), "--dtype", "bf16"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nbf16 "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\nfp16 "), std::string::npos) << r.out;

    const auto broken = write("broken.cu", "// @autokernel type rmsnorm\n// @autokernel tunable VEC = 3 {1, 2}\n");
    r = run({"compile", broken.string()});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("broken.cu:2: tunable VEC = 3 is not in {1, 2}"), std::string::npos) << r.err;
}

// A compile that succeeds with messages (warnings, ptxas' "Potential Performance Loss" notes) shows them.
TEST_F(BenchCli, CompileShowsTheMessagesOfACompileThatSucceeded) {
    const auto file = write("warns.cu", std::string(kRmsnorm) + "#warning \"tile too small\"\n");
    const auto r = run({"compile", file.string(), "--dtype", "fp16"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("fp16 compiler messages:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tile too small"), std::string::npos) << r.err;
}

TEST_F(BenchCli, CompileErrorInOneDtypeFailsWithItsLog) {
    const auto file = write("fp32only.cu", std::string(kRmsnorm) + "#ifndef AK_DTYPE_FP32\n#error \"only fp32 here\"\n#endif\n");
    const auto r = run({"compile", file.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("only fp32 here"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("does not compile"), std::string::npos) << r.out;
}
