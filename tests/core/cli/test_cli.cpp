// Runs the `autokernel` binary as a user would and checks what it prints and its exit status.
#include "gpu/cuda_driver.h"
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
#include <regex>

extern char** environ;

namespace ak {
namespace {
namespace fs = std::filesystem;

using test::CliRun;

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        dir_ = fs::temp_directory_path() / ("ak-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    // Runs autokernel with `args`; stdout and stderr go to files in the test folder. The NVRTC cache
    // lives in the test folder too (XDG_CACHE_HOME).
    CliRun run(const std::vector<std::string>& args) {
        return test::run_cli(AK_CLI_PATH, args, dir_, {"XDG_CACHE_HOME=" + (dir_ / "cache").string()});
    }

    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        replace_durably(p, text);
        return p;
    }

    fs::path dir_;
};

// ---------------------------------------------------------------- usage and --version

TEST_F(CliTest, VersionListsEveryDependency) {
    const CliRun r = run({"--version"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("^autokernel \\d+\\.\\d+\\.\\d+"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("libgit2 +\\d+\\.\\d+\\.\\d+\n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("NVRTC +\\d+\\.\\d+\n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("nlohmann_json +\\d+\\.\\d+\\.\\d+\n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("CUDA headers +\\d+\\.\\d+\n"))) << r.out;
    EXPECT_NE(r.out.find("CUDA driver"), std::string::npos);
    EXPECT_NE(r.out.find("evaluator"), std::string::npos);
    EXPECT_NE(r.out.find("compiler"), std::string::npos);
    if (!cuda_driver().loaded()) {
        EXPECT_NE(r.out.find("no driver (libcuda.so.1 not found"), std::string::npos) << r.out;
    }
}

TEST_F(CliTest, UnknownCommandIsAUsageError) {
    const CliRun r = run({"frobnicate"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("autokernel: unknown command 'frobnicate'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: autokernel"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST_F(CliTest, NoArgumentsIsAUsageError) {
    const CliRun r = run({});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("usage: autokernel"), std::string::npos);
}

TEST_F(CliTest, UnknownOptionAndMissingArgumentAreUsageErrors) {
    CliRun r = run({"compile", "--fast", "k.cu"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown option '--fast'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: autokernel compile"), std::string::npos) << r.err;

    r = run({"compile"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("missing FILE.cu"), std::string::npos) << r.err;

    r = run({"compile", "k.cu", "--arch"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("option --arch needs a value"), std::string::npos) << r.err;

    r = run({"session", "explode", "x"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown subcommand 'explode'"), std::string::npos) << r.err;

    r = run({"session", "summary"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("missing the session folder DIR"), std::string::npos) << r.err;
}

TEST_F(CliTest, EveryCommandHasHelp) {
    for (const auto& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--help"}, "usage: autokernel <command>"},
             {{"info", "--help"}, "usage: autokernel info"},
             {{"compile", "--help"}, "usage: autokernel compile FILE.cu"},
             {{"session", "--help"}, "usage: autokernel session summary DIR"},
             {{"session", "repair", "--help"}, "autokernel session repair DIR"},
             {{"--version", "--help"}, "usage: autokernel --version"}}) {
        const CliRun r = run(args);
        EXPECT_EQ(r.exit_code, 0) << args[0];
        EXPECT_NE(r.out.find(expected), std::string::npos) << args[0] << ":\n" << r.out;
    }
}

// ---------------------------------------------------------------- info

TEST_F(CliTest, InfoWithoutADriverSaysSoAndExitsTwo) {
    if (cuda_driver().loaded()) GTEST_SKIP() << "a GPU driver is present, so info succeeds here";
    const CliRun r = run({"info"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "autokernel: no GPU available: " + cuda_driver().status().error + "\n");
    EXPECT_NE(r.err.find("no NVIDIA driver on this machine"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliTest, InfoWithAGpuDescribesIt) {
    if (!cuda_driver().loaded()) GTEST_SKIP() << "no GPU driver: " << cuda_driver().status().error;
    const CliRun r = run({"info"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("GPU 0: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("compute capability"), std::string::npos);
    EXPECT_NE(r.out.find("driver: CUDA "), std::string::npos);
}

// ---------------------------------------------------------------- compile

TEST_F(CliTest, CompileGoodKernelPrintsResourcesPerEntryPoint) {
    const fs::path file = write("kernels/staged.cu", R"(extern "C" __global__ void staged(float* out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}
extern "C" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
)");
    CliRun r = run({"compile", file.string(), "--arch", "sm_90"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(file.string() + ": sm_90, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(compiled)"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("entry point +registers +spill stores +spill loads +shared +stack")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\nstaged +\\d+ +0 B +0 B +1024 B +0 B\n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\nscale +\\d+ +0 B +0 B +0 B +0 B\n"))) << r.out;

    // The second run finds the cubin in the disk cache.
    r = run({"compile", file.string(), "--arch=sm_90"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(disk cache hit)"), std::string::npos) << r.out;
}

TEST_F(CliTest, CompilePassesDefinesIncludeDirsAndArch) {
    write("include/tile.h", "#define TILE 128\n");
    const fs::path file = write("k.cu", R"(#include "tile.h"
#ifndef MUST_BE_SET
#error MUST_BE_SET is not defined
#endif
extern "C" __global__ void k(float* x) { x[threadIdx.x % TILE] = MUST_BE_SET; }
)");
    const CliRun r = run({"compile", file.string(), "-I" + (dir_ / "include").string(), "-D", "MUST_BE_SET=2", "--arch",
                       "sm_80", "--no-cache"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("sm_80"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nk "), std::string::npos) << r.out;

    const CliRun without_define = run({"compile", file.string(), "-I", (dir_ / "include").string(), "--arch", "sm_80"});
    EXPECT_EQ(without_define.exit_code, 1);
    EXPECT_NE(without_define.err.find("MUST_BE_SET is not defined"), std::string::npos) << without_define.err;
}

TEST_F(CliTest, CompileBrokenKernelPrintsTheLogAndExitsOne) {
    const fs::path file = write("broken.cu", R"(extern "C" __global__ void broken(float* x) {
    x[0] = 1.0f;
    x[1] = undefined_thing;
}
)");
    const CliRun r = run({"compile", file.string(), "--arch", "sm_90a"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(file.string() + "(3): error: identifier \"undefined_thing\" is undefined"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("autokernel: " + file.string() + " does not compile for sm_90a"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

// Issue 13: NVRTC silently ignores everything after a NUL or a 0xFF byte, and an empty file
// compiled "fine" with "(no __global__ entry points)". Each is now an error naming the file.
TEST_F(CliTest, CompileRefusesSourcesTheCompilerWouldTruncateAndFilesWithoutEntryPoints) {
    const std::string kernel = "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n";
    const std::string cases[][2] = {
        {"ff.cu", "// caf\xFF comment\n" + kernel},
        {"nul.cu", std::string("// a\0b\n", 7) + kernel},
        {"empty.cu", ""},
        {"nothing.cu", "// only a comment\n"},
    };
    for (const auto& [name, text] : cases) {
        const fs::path file = write(name, text);
        for (const bool typed : {false, true}) {
            std::vector<std::string> args{"compile", file.string(), "--arch", "sm_90"};
            if (typed) args.insert(args.end(), {"--type", "reduce", "--dtype", "fp32"});
            const CliRun r = run(args);
            EXPECT_NE(r.exit_code, 0) << name << (typed ? " --type" : "") << "\n" << r.out << r.err;
            EXPECT_NE(r.err.find(file.string()), std::string::npos) << name << ": " << r.err;
        }
    }
    const CliRun ff = run({"compile", (dir_ / "ff.cu").string(), "--arch", "sm_90"});
    EXPECT_NE(ff.err.find("line 1, byte 7 of the line: not UTF-8 (0xFF)"), std::string::npos) << ff.err;
    const CliRun nul = run({"compile", (dir_ / "nul.cu").string(), "--arch", "sm_90"});
    EXPECT_NE(nul.err.find("a NUL byte"), std::string::npos) << nul.err;
    const CliRun empty = run({"compile", (dir_ / "empty.cu").string(), "--arch", "sm_90"});
    EXPECT_NE(empty.err.find("no __global__ entry point"), std::string::npos) << empty.err;
}

TEST_F(CliTest, CompileWithAnUnknownKernelTypeIsAUsageError) {
    const fs::path file = write("k.cu", "extern \"C\" __global__ void k() {}\n");
    const CliRun r = run({"compile", file.string(), "--type", "no_such_type"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("unknown kernel type 'no_such_type'"), std::string::npos) << r.err;
}

TEST_F(CliTest, CompileMissingFileNamesIt) {
    const CliRun r = run({"compile", (dir_ / "nope.cu").string(), "--arch", "sm_90"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("nope.cu"), std::string::npos) << r.err;
}

TEST_F(CliTest, CompileVirtualArchIsAUsageError) {
    const fs::path file = write("k.cu", "extern \"C\" __global__ void k() {}\n");
    const CliRun r = run({"compile", file.string(), "--arch", "compute_90"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("'compute_90' is not a real GPU architecture"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------- session

NewExperiment experiment(const std::string& kernel, int n, Outcome outcome, double latency_us,
                         std::optional<double> vs_pytorch = std::nullopt) {
    NewExperiment e;
    e.kernel_name = kernel;
    e.source = "// " + kernel + " candidate " + std::to_string(n) + "\n__global__ void " + kernel + "_kernel() {}\n";
    e.metrics.outcome = outcome;
    e.metrics.correctness = outcome == Outcome::Failed ? Correctness::Fail : Correctness::Pass;
    e.metrics.latency_us = latency_us;
    e.metrics.speedup_vs_pytorch = vs_pytorch;
    e.metrics.kernel_type = "rmsnorm";
    e.metrics.description = "candidate " + std::to_string(n);
    e.metrics.agent = "test";
    return e;
}

// A session with a baseline (40 us) and three experiments: kept at 25 us, reverted, failed.
fs::path make_session(const fs::path& dir) {
    SessionInfo info;
    info.name = "cli-test";
    info.gpu = "NVIDIA H200";
    KernelEntry rms;
    rms.name = "rmsnorm";
    rms.type = "rmsnorm";
    Experiment starter;
    starter.latency_us = 40.0;
    starter.speedup_vs_pytorch = 1.4;
    starter.kernel_type = "rmsnorm";
    Session s = Session::create(dir, info, {{rms, "// starter\n__global__ void rmsnorm_kernel() {}\n"}}, {starter});
    s.record(experiment("rmsnorm", 1, Outcome::Kept, 25.0, 2.2));
    s.record(experiment("rmsnorm", 2, Outcome::Reverted, 30.0));
    s.record(experiment("rmsnorm", 3, Outcome::Failed, 10.0));
    return dir;
}

TEST_F(CliTest, SessionSummaryPrintsCountsAndTheBest) {
    const fs::path session = make_session(dir_ / "session");
    const CliRun r = run({"session", "summary", session.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Session cli-test on NVIDIA H200"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4 experiments: 1 baseline, 1 kept, 1 reverted, 1 failed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernels/rmsnorm.cu"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("40.00 us"), std::string::npos) << r.out;  // starter
    EXPECT_NE(r.out.find("25.00 us"), std::string::npos) << r.out;  // best: the kept one, not the failed 10 us
    EXPECT_NE(r.out.find("1.60x"), std::string::npos) << r.out;     // 40 / 25
    EXPECT_EQ(r.out.find("10.00 us"), std::string::npos) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(CliTest, SessionSummaryOfAFolderThatIsNotASessionFailsNamingIt) {
    const fs::path plain = dir_ / "just-a-folder";
    fs::create_directories(plain);
    CliRun r = run({"session", "summary", plain.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with("autokernel: ")) << r.err;
    EXPECT_NE(r.err.find(plain.string()), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;

    r = run({"session", "summary", (dir_ / "missing").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find((dir_ / "missing").string()), std::string::npos) << r.err;
}

TEST_F(CliTest, SessionRepairRebuildsResultsFromGit) {
    const fs::path session = make_session(dir_ / "session");
    // Lose every row: keep only the header line.
    const std::string full = read_file(session / "results.tsv");
    replace_durably(session / "results.tsv", full.substr(0, full.find('\n') + 1));

    const CliRun r = run({"session", "repair", session.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rebuilt " + (session / "results.tsv").string() + " from git: 4 rows"), std::string::npos)
        << r.out;
    EXPECT_EQ(read_file(session / "results.tsv"), full);
    bool backup = false;
    for (const auto& entry : fs::directory_iterator(session))
        backup = backup || entry.path().filename().string().starts_with("results.tsv.bak-");
    EXPECT_TRUE(backup) << "the old results.tsv is kept as a backup";
    EXPECT_EQ(Session::open(session, OpenOptions{.read_only = true}).experiments().size(), 4u);

    // A second repair finds nothing to do and says so.
    const CliRun again = run({"session", "repair", session.string()});
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find((session / "results.tsv").string() + " already matches git: 4 rows"), std::string::npos)
        << again.out;
    EXPECT_EQ(read_file(session / "results.tsv"), full);
}

TEST_F(CliTest, SessionRepairOfAFolderThatIsNotASessionFails) {
    fs::create_directories(dir_ / "plain");
    const CliRun r = run({"session", "repair", (dir_ / "plain").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find((dir_ / "plain").string()), std::string::npos) << r.err;
}

TEST_F(CliTest, ImportAutokernelResultsCreatesASession) {
    const fs::path tsv = write("ak/results.tsv",
                               "experiment\ttag\tkernel_type\tthroughput_tflops\tlatency_us\tpct_peak\t"
                               "speedup_vs_pytorch\tcorrectness\tpeak_vram_mb\tdescription\n"
                               "0\trun1\trmsnorm\t0.9\t40.1\t70.5\t1.0\tPASS\t512\tbaseline starter\n"
                               "1\trun1\trmsnorm\t1.1\t33.0\t80.2\t1.2\tPASS\t512\tvectorized loads\n"
                               "2\trun1\trmsnorm\t\t\t\t\tFAIL\t\twrong reduction\n");
    const fs::path session = dir_ / "imported";
    const CliRun r = run({"session", "import-autokernel", tsv.string(), session.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("imported 3 experiments from " + tsv.string()), std::string::npos) << r.out;
    ASSERT_TRUE(Session::is_session(session));
    const Session s = Session::open(session, OpenOptions{.read_only = true});
    ASSERT_EQ(s.experiments().size(), 3u);
    EXPECT_EQ(s.experiments()[1].description, "vectorized loads");
    EXPECT_EQ(s.experiments()[2].correctness, Correctness::Fail);

    // Importing into an existing session is refused, naming the folder.
    const CliRun again = run({"session", "import-autokernel", tsv.string(), session.string()});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find(session.string()), std::string::npos) << again.err;
}

TEST_F(CliTest, ImportAutokernelOfAMissingFileFailsNamingIt) {
    const CliRun r = run({"session", "import-autokernel", (dir_ / "none.tsv").string(), (dir_ / "s").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("none.tsv"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "s" / "session.json"));
}

}  // namespace
}  // namespace ak
