#include "gpu/nvrtc_compiler.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

namespace ak {
namespace {
namespace fs = std::filesystem;

constexpr const char* kScale = R"(extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
)";

// Static shared memory (1024 floats) and a local array that lives on the stack.
constexpr const char* kSharedAndStack = R"(extern "C" __global__ void staged(float* out) {
    __shared__ float tile[1024];
    float local[64];
    for (int i = 0; i < 64; ++i) local[i] = out[i * threadIdx.x];
    tile[threadIdx.x] = local[threadIdx.x % 64];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % 1024] + local[(threadIdx.x * 7) % 64];
}
)";

constexpr const char* kBroken = R"(extern "C" __global__ void broken(float* x) {
    x[0] = 1.0f;
    x[1] = undefined_thing;
}
)";

constexpr const char* kTemplateHalf = R"(#include <cuda_fp16.h>
template <int N>
__global__ void fill(__half* h) { h[threadIdx.x] = __float2half(static_cast<float>(N)); }
)";

class NvrtcCompilerTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        cache_ = fs::temp_directory_path() / ("ak-nvrtc-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(cache_, ec);
    }
    fs::path cache_;
};

TEST_F(NvrtcCompilerTest, CompilesForHopperAndAmpereAndReportsRegisters) {
    NvrtcCompiler compiler(cache_);
    for (const char* arch : {"sm_90", "sm_80", "sm_90a"}) {
        SCOPED_TRACE(arch);
        CompileOptions o;
        o.arch = arch;
        const CompileResult r = compiler.compile(kScale, "scale.cu", o);
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_EQ(r.arch, arch);
        ASSERT_GE(r.cubin.size(), 4u);
        EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");  // a cubin is an ELF file
        ASSERT_EQ(r.kernels.size(), 1u);
        EXPECT_EQ(r.kernels[0].name, "scale");
        EXPECT_EQ(r.kernels[0].demangled, "scale");
        EXPECT_GT(r.kernels[0].registers, 0);
        EXPECT_LT(r.kernels[0].registers, 64);
        EXPECT_EQ(r.kernels[0].spill_store_bytes, 0);
        EXPECT_EQ(r.kernels[0].shared_bytes, 0);
        EXPECT_TRUE(r.log.empty()) << r.log;                           // no warnings; resource lines go elsewhere
        EXPECT_NE(r.ptxas_info.find("Compiling entry function 'scale'"), std::string::npos);
        EXPECT_EQ(r.cache_key.size(), 64u);
    }
}

TEST_F(NvrtcCompilerTest, ReportsSharedMemoryStackAndBarriers) {
    NvrtcCompiler compiler(cache_);
    const CompileResult r = compiler.compile(kSharedAndStack, "staged.cu", {});
    ASSERT_TRUE(r.ok) << r.log;
    const KernelResources* k = r.kernel("staged");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->shared_bytes, 4096);       // 1024 floats
    EXPECT_EQ(k->stack_frame_bytes, 256);   // 64 floats
    EXPECT_EQ(k->barriers, 1);
}

TEST_F(NvrtcCompilerTest, ReportsSpillsUnderARegisterLimit) {
    const char* hungry = R"(extern "C" __global__ void hungry(float* x, int n) {
    float a[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) a[i] = x[i * n + threadIdx.x];
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; ++i)
#pragma unroll
        for (int j = 0; j < 32; ++j) s += a[i] * a[j] * x[j];
    x[threadIdx.x] = s;
}
)";
    NvrtcCompiler compiler(cache_);
    CompileOptions o;
    o.options = {"--maxrregcount=24"};
    const CompileResult r = compiler.compile(hungry, "hungry.cu", o);
    ASSERT_TRUE(r.ok) << r.log;
    const KernelResources* k = r.kernel("hungry");
    ASSERT_NE(k, nullptr);
    EXPECT_LE(k->registers, 24);
    EXPECT_GT(k->spill_store_bytes, 0);
    EXPECT_GT(k->spill_load_bytes, 0);
}

TEST_F(NvrtcCompilerTest, RepeatedCompilesInOneProcessStillReportResources) {
    // With a driver present, NVRTC 13 would answer a repeated compile from the driver's compute cache
    // without running ptxas, and print no resource lines; the compiler switches that cache off.
    NvrtcCompiler compiler(cache_);
    CompileOptions o;
    o.use_cache = false;
    for (int attempt = 0; attempt < 3; ++attempt) {
        const CompileResult r = compiler.compile(kSharedAndStack, "staged.cu", o);
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_TRUE(r.resources_reported) << "attempt " << attempt;
        ASSERT_NE(r.kernel("staged"), nullptr) << "attempt " << attempt;
        EXPECT_EQ(r.kernel("staged")->shared_bytes, 4096);
    }
    EXPECT_EQ(compiler.stats().compiles, 3);
}

TEST_F(NvrtcCompilerTest, SourceWithoutKernelsReportsNoEntryPoints) {
    NvrtcCompiler compiler(cache_);
    const CompileResult r = compiler.compile("__device__ float twice(float x) { return 2 * x; }\n", "helpers.cu", {});
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_TRUE(r.resources_reported);
    EXPECT_TRUE(r.kernels.empty());
}

TEST_F(NvrtcCompilerTest, BrokenKernelGivesALogNamingFileAndLine) {
    NvrtcCompiler compiler(cache_);
    const CompileResult r = compiler.compile(kBroken, "kernels/broken.cu", {});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_TRUE(r.kernels.empty());
    EXPECT_NE(r.log.find("kernels/broken.cu(3): error"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("undefined_thing"), std::string::npos) << r.log;
    // Failures are not cached: a second attempt compiles again.
    compiler.compile(kBroken, "kernels/broken.cu", {});
    EXPECT_EQ(compiler.stats().compiles, 2);
}

TEST_F(NvrtcCompilerTest, ArchitectureNvrtcDoesNotSupportIsACompileFailure) {
    NvrtcCompiler compiler(cache_);
    CompileOptions o;
    o.arch = "sm_70";  // Volta: dropped by NVRTC 13
    const CompileResult r = compiler.compile(kScale, "scale.cu", o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("--gpu-architecture"), std::string::npos) << r.log;
}

TEST_F(NvrtcCompilerTest, VirtualArchitectureIsAUsageError) {
    NvrtcCompiler compiler(cache_);
    CompileOptions o;
    o.arch = "compute_90";
    try {
        compiler.compile(kScale, "scale.cu", o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("'compute_90' is not a real GPU architecture"), std::string::npos);
    }
}

TEST_F(NvrtcCompilerTest, SecondCompileIsAMemoryHitThenADiskHitInANewCompiler) {
    CompileResult first, second, third;
    {
        NvrtcCompiler compiler(cache_);
        first = compiler.compile(kSharedAndStack, "staged.cu", {});
        ASSERT_TRUE(first.ok);
        EXPECT_EQ(first.cache_hit, CacheHit::none);
        ASSERT_TRUE(first.resources_reported);
        ASSERT_EQ(first.kernels.size(), 1u);
        second = compiler.compile(kSharedAndStack, "staged.cu", {});
        EXPECT_EQ(second.cache_hit, CacheHit::memory);
        EXPECT_EQ(compiler.stats().compiles, 1);
        EXPECT_EQ(compiler.stats().memory_hits, 1);
    }
    const fs::path on_disk = cache_ / first.cache_key.substr(0, 2) / (first.cache_key + ".cubin");
    EXPECT_TRUE(fs::exists(on_disk)) << on_disk;

    NvrtcCompiler fresh(cache_);
    third = fresh.compile(kSharedAndStack, "staged.cu", {});
    EXPECT_EQ(third.cache_hit, CacheHit::disk);
    EXPECT_EQ(fresh.stats().compiles, 0);
    EXPECT_EQ(third.cubin, first.cubin);
    EXPECT_TRUE(third.resources_reported);
    ASSERT_EQ(third.kernels.size(), 1u);
    EXPECT_EQ(third.kernels[0].shared_bytes, first.kernels[0].shared_bytes);
    EXPECT_EQ(third.kernels[0].registers, first.kernels[0].registers);
    EXPECT_EQ(third.cache_key, first.cache_key);
    // After a disk hit the entry is in memory too.
    EXPECT_EQ(fresh.compile(kSharedAndStack, "staged.cu", {}).cache_hit, CacheHit::memory);
}

TEST_F(NvrtcCompilerTest, ChangedSourceOptionsOrArchMiss) {
    NvrtcCompiler compiler(cache_);
    const CompileResult base = compiler.compile(kScale, "scale.cu", {});
    CompileOptions other_arch;
    other_arch.arch = "sm_80";
    CompileOptions other_option;
    other_option.options = {"-DUNUSED=1"};
    CompileOptions no_cache;
    no_cache.use_cache = false;
    const std::string other_source = std::string(kScale) + "// a comment\n";
    for (const CompileResult& r : {compiler.compile(kScale, "scale.cu", other_arch),
                                   compiler.compile(kScale, "scale.cu", other_option),
                                   compiler.compile(other_source, "scale.cu", {}),
                                   compiler.compile(kScale, "scale.cu", no_cache)}) {
        EXPECT_EQ(r.cache_hit, CacheHit::none);
        EXPECT_TRUE(r.ok);
    }
    EXPECT_EQ(compiler.stats().compiles, 5);
}

TEST_F(NvrtcCompilerTest, NameExpressionsGiveLoweredNamesAndHalfHeadersResolve) {
    NvrtcCompiler compiler(cache_);
    CompileOptions o;
    o.name_expressions = {"fill<3>"};
    const CompileResult r = compiler.compile(kTemplateHalf, "fill.cu", o);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(r.lowered_names.size(), 1u);
    EXPECT_EQ(r.lowered_names[0].first, "fill<3>");
    EXPECT_EQ(r.lowered_names[0].second, "_Z4fillILi3EEvP6__half");
    const KernelResources* k = r.kernel("fill<3>");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->name, "_Z4fillILi3EEvP6__half");
    EXPECT_EQ(k->demangled, "void fill<3>(__half*)");
    // Lowered names survive the disk cache.
    compiler.clear_memory_cache();
    const CompileResult again = compiler.compile(kTemplateHalf, "fill.cu", o);
    EXPECT_EQ(again.cache_hit, CacheHit::disk);
    EXPECT_EQ(again.lowered_names, r.lowered_names);
}

TEST(NvrtcInfo, VersionArchsAndIncludeDir) {
    const std::string version = nvrtc_version();
    ASSERT_NE(version.find('.'), std::string::npos) << version;
    EXPECT_GE(std::stoi(version), 12);
    const std::vector<int> archs = nvrtc_supported_archs();
    EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
    EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
    EXPECT_TRUE(fs::exists(fs::path(cuda_include_dir()) / "cuda_fp16.h")) << cuda_include_dir();
}

TEST(NvrtcInfo, ArchForComputeCapability) {
    EXPECT_EQ(arch_for(9, 0), "sm_90");
    EXPECT_EQ(arch_for(9, 0, true), "sm_90a");
    EXPECT_EQ(arch_for(8, 0, true), "sm_80");   // no arch-specific variant before Hopper
    EXPECT_EQ(arch_for(10, 0, true), "sm_100a");
}

TEST(NvrtcInfo, DefaultCacheDirFollowsXdgCacheHome) {
    const char* saved = std::getenv("XDG_CACHE_HOME");
    const std::string saved_value = saved ? saved : "";
    ::setenv("XDG_CACHE_HOME", "/tmp/ak-xdg", 1);
    EXPECT_EQ(default_nvrtc_cache_dir(), fs::path("/tmp/ak-xdg/autokernel/nvrtc"));
    ::unsetenv("XDG_CACHE_HOME");
    if (const char* home = std::getenv("HOME")) {
        EXPECT_EQ(default_nvrtc_cache_dir(), fs::path(home) / ".cache/autokernel/nvrtc");
    }
    if (saved) ::setenv("XDG_CACHE_HOME", saved_value.c_str(), 1);
}

}  // namespace
}  // namespace ak
