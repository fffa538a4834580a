#include "engine/candidate_compiler.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

using namespace ak;

namespace {

// A reduce candidate whose register use depends on the dtype and whose shared memory depends on a
// tunable, so the per-dtype compiles can be told apart.
const char* kReduce = R"(// @autokernel type reduce
// @autokernel tunable BLOCK_THREADS = 128 {128, 256} tier 1 -- threads per block
#include <autokernel/contract.cuh>
extern "C" __global__ void ak_kernel0(ak_reduce_args a) {
    __shared__ float partial[BLOCK_THREADS];
    const int row = blockIdx.x;
    float sum = 0.f;
    for (int c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) sum += ak_to_float(a.x[(long long)row * a.cols + c]);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = BLOCK_THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) a.y[row] = ak_from_float(partial[0]);
}
)";

class CandidateCompilerTest : public ::testing::Test {
protected:
    std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                  ("ak_candidate_cache_" + std::to_string(::getpid()) + "_" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    NvrtcCompiler compiler{cache};
    void TearDown() override { std::filesystem::remove_all(cache); }
};

}  // namespace

TEST_F(CandidateCompilerTest, CompilesOncePerDtypeWithTheContractsTunables) {
    const auto report = compile_candidate(compiler, kReduce, "reduce.cu", {});
    ASSERT_TRUE(report.ok()) << format_compile_report(report, true);
    EXPECT_EQ(report.type, KernelType::Reduce);
    ASSERT_EQ(report.compiles.size(), 3u);
    EXPECT_EQ(report.compiles[0].dtype, DType::fp16);
    EXPECT_EQ(report.compiles[2].dtype, DType::fp32);
    for (const auto& c : report.compiles) {
        ASSERT_EQ(c.result.kernels.size(), 1u);
        EXPECT_EQ(c.result.kernels[0].name, "ak_kernel0");
        EXPECT_EQ(c.result.kernels[0].shared_bytes, 128 * 4) << "BLOCK_THREADS arrived as 128";
        EXPECT_GT(c.result.kernels[0].registers, 0);
    }
    // Three different programs (the dtype define differs), so three cache keys.
    EXPECT_NE(report.compiles[0].result.cache_key, report.compiles[1].result.cache_key);
    EXPECT_NE(report.compiles[1].result.cache_key, report.compiles[2].result.cache_key);
    EXPECT_TRUE(report.warnings.empty());
}

TEST_F(CandidateCompilerTest, ChangedTunableChangesTheProgram) {
    const auto report = compile_candidate(compiler, set_tunable(kReduce, "BLOCK_THREADS", "256"), "reduce.cu",
                                          {.type = {}, .dtypes = {DType::bf16}});
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report.compiles.size(), 1u);
    EXPECT_EQ(report.compiles[0].result.kernels[0].shared_bytes, 256 * 4);
}

TEST_F(CandidateCompilerTest, SecondCompileIsACacheHit) {
    compile_candidate(compiler, kReduce, "reduce.cu", {.type = {}, .dtypes = {DType::fp16}});
    const auto again = compile_candidate(compiler, kReduce, "reduce.cu", {.type = {}, .dtypes = {DType::fp16}});
    EXPECT_EQ(again.compiles[0].result.cache_hit, CacheHit::memory);
    EXPECT_NE(format_compile_report(again, false).find("cached"), std::string::npos);
}

TEST_F(CandidateCompilerTest, CompileErrorIsAResultWithTheLogNotAnException) {
    const std::string broken = std::string(kReduce) + "\nextern \"C\" __global__ void ak_kernel1(ak_reduce_args a) { undefined_thing(); }\n";
    const auto report = compile_candidate(compiler, broken, "broken.cu", {.type = {}, .dtypes = {DType::fp16}});
    EXPECT_FALSE(report.ok());
    EXPECT_NE(report.compiles[0].result.log.find("undefined_thing"), std::string::npos);
    const auto text = format_compile_report(report, true);
    EXPECT_NE(text.find("does not compile"), std::string::npos) << text;
    EXPECT_NE(text.find("fp16 compiler log:"), std::string::npos) << text;
    EXPECT_NE(text.find("broken.cu"), std::string::npos) << text;
}

TEST_F(CandidateCompilerTest, TypeMismatchAndContractErrorsAreUsageErrors) {
    try {
        compile_candidate(compiler, kReduce, "reduce.cu", {.type = KernelType::Softmax});
        FAIL() << "accepted softmax for a reduce candidate";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("reduce.cu:1: the source declares type reduce but softmax"), std::string::npos)
            << e.what();
    }
    try {
        compile_candidate(compiler, "// @autokernel tunable X = 3 {1, 2}\n", "bad.cu", {});
        FAIL() << "accepted a broken contract";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bad.cu:1: tunable X = 3 is not in {1, 2}"), std::string::npos) << e.what();
    }
}

TEST_F(CandidateCompilerTest, ASourceWithoutAnEntryPointIsAnError) {
    const auto report = compile_candidate(compiler,
                                          "#include <autokernel/contract.cuh>\n"
                                          "extern \"C\" __global__ void my_reduce(ak_reduce_args a) { a.y[0] = a.x[0]; }\n",
                                          "named.cu", {.type = KernelType::Reduce, .dtypes = {DType::fp32}});
    EXPECT_FALSE(report.ok());
    ASSERT_EQ(report.errors.size(), 1u);
    EXPECT_NE(report.errors[0].find("named.cu: no entry point named ak_kernel0"), std::string::npos) << report.errors[0];
    EXPECT_NE(format_compile_report(report, false).find("error: named.cu: no entry point"), std::string::npos);
    EXPECT_EQ(report.type, KernelType::Reduce);
}

// Issue 13: a 0xFF byte (even in a comment) or a NUL made NVRTC drop the rest of the file.
TEST_F(CandidateCompilerTest, SourcesTheCompilerWouldTruncateOrEmptySourcesAreRefusedNamingTheFile) {
    const std::string kernel = "#include <autokernel/contract.cuh>\n"
                               "extern \"C\" __global__ void ak_kernel0(ak_reduce_args a) { a.y[0] = a.x[0]; }\n";
    const std::pair<std::string, std::string> cases[] = {
        {"// \xFF\n" + kernel, "line 1, byte 4 of the line: not UTF-8 (0xFF)"},
        {kernel + std::string("// \0\n", 5), "line 3, byte 4 of the line: a NUL byte"},
        {"", "the file is empty"},
        {" \n\t\n", "the file is empty"},
    };
    for (const auto& [source, expected] : cases) {
        try {
            compile_candidate(compiler, source, "cand.cu", {.type = KernelType::Reduce, .dtypes = {DType::fp32}});
            ADD_FAILURE() << "accepted: " << expected;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find("cand.cu"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
    // NVRTC itself refuses them too (the plain `autokernel compile` path and the evaluator).
    CompileOptions o;
    o.arch = "sm_90";
    o.use_cache = false;
    const CompileResult r = compiler.compile("// \xFF\n" + kernel, "cand.cu", o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("cand.cu: line 1"), std::string::npos) << r.log;
}

TEST(ToCompileRecord, TakesTheMaximumOverEntryPoints) {
    CompileResult r;
    r.ok = true;
    r.compile_ms = 12.5;
    r.cache_hit = CacheHit::disk;
    r.kernels.push_back({"ak_kernel0", "ak_kernel0", 40, 0, 0, 2048, 0, 1});
    r.kernels.push_back({"ak_kernel1", "ak_kernel1", 96, 16, 24, 512, 64, 1});
    const auto c = to_compile_record(DType::bf16, r);
    EXPECT_TRUE(c.ok);
    EXPECT_EQ(c.dtype, DType::bf16);
    EXPECT_EQ(c.registers, 96);
    EXPECT_EQ(c.spills, 40);
    EXPECT_EQ(c.shared_bytes, 2048);
    EXPECT_TRUE(c.cache_hit);
    EXPECT_DOUBLE_EQ(c.compile_ms, 12.5);
    ASSERT_EQ(c.functions.size(), 2u);
    EXPECT_EQ(c.functions[1].name, "ak_kernel1");
    EXPECT_EQ(c.functions[1].spill_bytes, 40);
}
