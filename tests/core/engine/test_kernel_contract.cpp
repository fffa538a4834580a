#include "engine/kernel_contract.h"

#include "gpu/nvrtc_compiler.h"
#include "util/error.h"

#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

using namespace ak;

namespace {

const char* kRmsnorm = R"(// An RMSNorm candidate.
// @autokernel type rmsnorm
// @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512, 1024} tier 1 -- threads per block
//   @autokernel   tunable VEC=1{1,2,4,8} tier 2 -- elements per 16-byte load
// @autokernel tunable USE_SHUFFLE = 1 {0, 1}
#include <autokernel/contract.cuh>
extern "C" __global__ void ak_kernel0(ak_rmsnorm_args a) {}
)";

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string error_message(const KernelContract& c, std::size_t i = 0) {
    return i < c.errors.size() ? c.errors[i].message : std::string("no error");
}

}  // namespace

TEST(ParseContract, ReadsTypeAndTunablesWithTiersAndHelp) {
    const auto c = parse_contract(kRmsnorm);
    ASSERT_TRUE(c.ok()) << c.error_text("k.cu");
    EXPECT_EQ(c.type, KernelType::RmsNorm);
    EXPECT_EQ(c.type_line, 2);
    ASSERT_EQ(c.tunables.size(), 3u);
    const auto& block = c.tunables[0];
    EXPECT_EQ(block.name, "BLOCK_THREADS");
    EXPECT_EQ(block.value, "256");
    EXPECT_EQ(block.allowed, (std::vector<std::string>{"64", "128", "256", "512", "1024"}));
    EXPECT_EQ(block.tier, 1);
    EXPECT_EQ(block.help, "threads per block");
    EXPECT_EQ(block.line, 3);
    const auto& vec = c.tunables[1];
    EXPECT_EQ(vec.name, "VEC");
    EXPECT_EQ(vec.value, "1");
    EXPECT_EQ(vec.allowed.size(), 4u);
    EXPECT_EQ(vec.tier, 2);
    EXPECT_EQ(vec.line, 4);
    EXPECT_EQ(c.tunables[2].tier, 4) << "tier defaults to 4";
    EXPECT_EQ(c.tunables[2].help, "");
    ASSERT_NE(c.find("VEC"), nullptr);
    EXPECT_EQ(c.find("NOPE"), nullptr);
}

TEST(ParseContract, SourceWithoutAnnotationsIsEmptyAndOk) {
    const auto c = parse_contract("extern \"C\" __global__ void k() {}\n// plain comment mentioning autokernel\n");
    EXPECT_TRUE(c.ok());
    EXPECT_TRUE(c.empty());
}

TEST(ParseContract, IgnoresAnnotationsOutsideLineComments) {
    const auto c = parse_contract("/* @autokernel type softmax */\nint x; // @autokernel type reduce\n");
    EXPECT_TRUE(c.empty());
}

TEST(ParseContract, ValueOutsideAllowedIsAnErrorOnItsLine) {
    const auto c = parse_contract("\n\n// @autokernel tunable VEC = 3 {1, 2, 4, 8}\n");
    ASSERT_EQ(c.errors.size(), 1u);
    EXPECT_EQ(c.errors[0].line, 3);
    EXPECT_EQ(error_message(c), "tunable VEC = 3 is not in {1, 2, 4, 8}");
    EXPECT_TRUE(c.tunables.empty());
    EXPECT_EQ(c.error_text("k.cu"), "k.cu:3: tunable VEC = 3 is not in {1, 2, 4, 8}\n");
}

// Issue 13: a tunable becomes an int -D define; 4294967296 wrapped silently.
TEST(ParseContract, TunableValuesOutsideThe32BitRangeAreErrors) {
    for (const std::string v : {"4294967296", "2147483648", "-2147483649", "99999999999999999999999"}) {
        const auto k = parse_contract("// @autokernel tunable X = 1 {1, " + v + "}\n");
        ASSERT_EQ(k.errors.size(), 1u) << v;
        EXPECT_NE(k.errors[0].message.find("value " + v + " is outside the 32-bit range"), std::string::npos)
            << k.errors[0].message;
    }
    for (const std::string v : {"2147483647", "-2147483648", "0007", "1.5e40", "fast"})
        EXPECT_TRUE(parse_contract("// @autokernel tunable X = " + v + " {" + v + "}\n").ok()) << v;
}

TEST(ParseContract, ANulOrInvalidUtf8ByteIsAnErrorOnItsLine) {
    const auto k = parse_contract(std::string("// ok\n// a\0b\n", 12));
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.errors[0].line, 2);
    EXPECT_NE(k.errors[0].message.find("a NUL byte"), std::string::npos) << k.errors[0].message;
    EXPECT_FALSE(parse_contract("x \xFF\n").ok());
}

TEST(ParseContract, MalformedAnnotationsNameTheProblem) {
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable 9LIVES = 1 {1}")).find("not a valid C identifier"),
              std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable AK_DTYPE = 1 {1}")).find("reserved"), std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X 1 {1}")).find("expected '='"), std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X = 1 {1, 2")).find("missing '}'"), std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X = 1 {}")).find("empty"), std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X = 1 {1, 1}")).find("listed twice"), std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X = 1 {1} tier zero")).find("tier must be"),
              std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tunable X = 1 {1} fast")).find("unexpected 'fast'"),
              std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel type gemm")).find("unknown kernel type 'gemm'"),
              std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tuneable X = 1 {1}")).find("unknown keyword 'tuneable'"),
              std::string::npos);
    EXPECT_NE(error_message(parse_contract("// @autokernel tuneable X = 1 {1}")).find("expected 'type', 'tunable' or 'preset'"),
              std::string::npos);
}

TEST(ParseContract, DuplicatesAreErrorsNamingTheFirstLine) {
    const auto c = parse_contract("// @autokernel type reduce\n// @autokernel tunable X = 1 {1, 2}\n"
                                  "// @autokernel tunable X = 2 {1, 2}\n// @autokernel type softmax\n");
    ASSERT_EQ(c.errors.size(), 2u);
    EXPECT_EQ(c.errors[0].line, 3);
    EXPECT_NE(c.errors[0].message.find("first on line 2"), std::string::npos);
    EXPECT_EQ(c.errors[1].line, 4);
    EXPECT_EQ(c.type, KernelType::Reduce);
    EXPECT_EQ(c.tunables.size(), 1u);
}

// `when OTHER=V1|V2`: a tunable that only matters in some variants (the search leaves it alone elsewhere).
TEST(ParseContract, WhenNamesTheTunableAndValuesUnderWhichATunableMatters) {
    const auto c = parse_contract("// @autokernel tunable MMA = 0 {0, 1, 3} tier 1 -- structure\n"
                                  "// @autokernel tunable STAGES = 4 {2, 4} tier 2 when MMA=3 -- ring depth\n"
                                  "// @autokernel tunable BLOCK_K = 16 {16, 32} when MMA=0|1 tier 1\n"
                                  "// @autokernel tunable VEC = 1 {1, 2}\n");
    ASSERT_TRUE(c.ok()) << c.error_text("k.cu");
    ASSERT_EQ(c.tunables.size(), 4u);
    EXPECT_EQ(c.tunables[0].when, "");
    EXPECT_TRUE(c.tunables[0].when_values.empty());
    EXPECT_EQ(c.tunables[1].when, "MMA");
    EXPECT_EQ(c.tunables[1].when_values, (std::vector<std::string>{"3"}));
    EXPECT_EQ(c.tunables[1].tier, 2);
    EXPECT_EQ(c.tunables[1].help, "ring depth");
    EXPECT_EQ(c.tunables[2].when_values, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(c.tunables[2].tier, 1) << "'tier' may follow 'when'";
    EXPECT_EQ(c.tunables[3].when, "");
}

TEST(ParseContract, AWhenThatCannotHoldIsAnErrorOnItsLine) {
    const auto first = [](const std::string& text) {
        const auto c = parse_contract(text);
        return c.errors.empty() ? std::string("no error") : std::to_string(c.errors[0].line) + ": " + c.errors[0].message;
    };
    EXPECT_EQ(first("// @autokernel tunable A = 1 {1, 2}\n// @autokernel tunable B = 1 {1, 2} when C=1\n"),
              "2: tunable B: 'when C=...': no tunable C is declared");
    EXPECT_EQ(first("// @autokernel tunable A = 1 {1, 2}\n// @autokernel tunable B = 1 {1, 2} when A=3\n"),
              "2: tunable B: 'when A=3': 3 is not in A's {1, 2}");
    EXPECT_EQ(first("// @autokernel tunable B = 1 {1, 2} when B=1\n"), "1: tunable B: 'when' names the tunable itself");
    EXPECT_EQ(first("// @autokernel tunable A = 1 {1, 2}\n// @autokernel tunable B = 1 {1, 2} when A=1\n"
                    "// @autokernel tunable C = 1 {1, 2} when B=2\n"),
              "3: tunable C: 'when B=...': B has a 'when' of its own (conditions do not chain)");
    EXPECT_NE(first("// @autokernel tunable A = 1 {1} when A\n").find("expected 'when NAME=VALUE'"), std::string::npos);
    EXPECT_NE(first("// @autokernel tunable A = 1 {1} when =1\n").find("expected 'when NAME=VALUE'"), std::string::npos);
    EXPECT_NE(first("// @autokernel tunable A = 1 {1, 2}\n// @autokernel tunable B = 1 {1} when A=1||2\n")
                  .find("value '' is empty or malformed"),
              std::string::npos);
    EXPECT_NE(first("// @autokernel tunable A = 1 {1} tier 1 tier 2\n").find("unexpected 'tier 2'"), std::string::npos);
}

// `preset NAME [sm_XY|sm_XY+] A=V ...`: a known-good configuration the search agent evaluates first.
TEST(ParseContract, PresetsReadTheirGpuConditionSettingsAndHelp) {
    const auto c = parse_contract("// @autokernel preset early MMA=1\n"
                                  "// @autokernel tunable MMA = 0 {0, 1, 3} tier 1\n"
                                  "// @autokernel tunable STAGES = 4 {2, 4} tier 2 when MMA=3\n"
                                  "// @autokernel preset hopper sm_90 MMA=3 STAGES=2 -- 0.99x cuBLAS\n"
                                  "// @autokernel preset newer sm_80+ MMA=1\n");
    ASSERT_TRUE(c.ok()) << c.error_text("k.cu");
    ASSERT_EQ(c.presets.size(), 3u);
    EXPECT_EQ(c.presets[0].name, "early") << "a preset may come before the tunables it sets";
    EXPECT_EQ(c.presets[0].sm, 0);
    EXPECT_EQ(c.presets[0].line, 1);
    const Preset& hopper = c.presets[1];
    EXPECT_EQ(hopper.name, "hopper");
    EXPECT_EQ(hopper.sm, 90);
    EXPECT_FALSE(hopper.sm_or_newer);
    EXPECT_EQ(hopper.values, (std::vector<std::pair<std::string, std::string>>{{"MMA", "3"}, {"STAGES", "2"}}));
    EXPECT_EQ(hopper.help, "0.99x cuBLAS");
    EXPECT_EQ(hopper.line, 4);
    EXPECT_EQ(c.presets[2].sm, 80);
    EXPECT_TRUE(c.presets[2].sm_or_newer);
    EXPECT_EQ(preset_condition_text(c.presets[0]), "every GPU");
    EXPECT_EQ(preset_condition_text(hopper), "sm_90");
    EXPECT_EQ(preset_condition_text(c.presets[2]), "sm_80+");
}

TEST(PresetApplies, MatchesTheComputeCapabilityExactlyOrFromAVersionOn) {
    Preset exact;
    exact.sm = 90;
    Preset newer;
    newer.sm = 80;
    newer.sm_or_newer = true;
    const Preset any;
    EXPECT_TRUE(preset_applies(exact, "9.0"));
    EXPECT_FALSE(preset_applies(exact, "10.0")) << "sm_90a code does not run on a newer GPU";
    EXPECT_FALSE(preset_applies(exact, "8.9"));
    EXPECT_TRUE(preset_applies(newer, "8.0"));
    EXPECT_TRUE(preset_applies(newer, "8.6"));
    EXPECT_TRUE(preset_applies(newer, "12.0"));
    EXPECT_FALSE(preset_applies(newer, "7.5"));
    EXPECT_FALSE(preset_applies(exact, "")) << "unknown capability: only presets without a condition";
    EXPECT_FALSE(preset_applies(newer, "nine"));
    EXPECT_TRUE(preset_applies(any, ""));
    EXPECT_TRUE(preset_applies(any, "7.0"));
}

TEST(ParseContract, BadPresetsAreErrorsOnTheirLine) {
    const auto first = [](const std::string& text) {
        const auto c = parse_contract("// @autokernel tunable A = 1 {1, 2}\n// @autokernel tunable B = 1 {1, 2}\n" + text);
        return c.errors.empty() ? std::string("no error") : std::to_string(c.errors[0].line) + ": " + c.errors[0].message;
    };
    EXPECT_EQ(first("// @autokernel preset\n"), "3: preset: expected a name after 'preset'");
    EXPECT_EQ(first("// @autokernel preset 9x A=2\n"), "3: preset: '9x' is not a valid name (letters, digits, '_')");
    EXPECT_EQ(first("// @autokernel preset p sm_90\n"), "3: preset p: sets no tunable (expected NAME=VALUE settings)");
    EXPECT_EQ(first("// @autokernel preset p A=2 -- help only after settings\n// @autokernel preset q -- none\n"),
              "4: preset q: sets no tunable (expected NAME=VALUE settings)");
    EXPECT_EQ(first("// @autokernel preset p sm_nine A=2\n"),
              "3: preset p: GPU condition 'sm_nine' is not sm_XY or sm_XY+ (a compute capability, e.g. sm_90 or sm_80+)");
    EXPECT_EQ(first("// @autokernel preset p A = 2\n"),
              "3: preset p: expected NAME=VALUE settings (and an optional sm_XY condition first), got 'A'");
    EXPECT_EQ(first("// @autokernel preset p A=2 sm_90\n"),
              "3: preset p: expected NAME=VALUE settings (and an optional sm_XY condition first), got 'sm_90'");
    EXPECT_EQ(first("// @autokernel preset p A=2 A=1\n"), "3: preset p: A is set twice");
    EXPECT_EQ(first("// @autokernel preset p C=2\n"), "3: preset p: C is not a declared tunable");
    EXPECT_EQ(first("// @autokernel preset p A=3\n"), "3: preset p: A=3 is not in {1, 2}");
    EXPECT_EQ(first("// @autokernel preset p A=2\n// @autokernel preset p B=2\n"),
              "4: preset p: declared again (first on line 3)");
    EXPECT_EQ(first("// @autokernel preset p sm_90+ A=2 B=2 -- fine\n"), "no error");
}

TEST(SetTunable, RewritesOnlyThatValue) {
    const std::string source = kRmsnorm;
    const std::string changed = set_tunable(source, "VEC", "8");
    const auto c = parse_contract(changed);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.find("VEC")->value, "8");
    EXPECT_EQ(c.find("BLOCK_THREADS")->value, "256");
    // Exactly one character differs: the value on line 4, layout untouched.
    ASSERT_EQ(changed.size(), source.size());
    std::size_t differences = 0;
    for (std::size_t i = 0; i < source.size(); ++i) differences += source[i] != changed[i];
    EXPECT_EQ(differences, 1u);
    EXPECT_NE(changed.find("//   @autokernel   tunable VEC=8{1,2,4,8} tier 2"), std::string::npos);
}

TEST(SetTunable, HandlesValuesOfDifferentLength) {
    const std::string changed = set_tunable(kRmsnorm, "BLOCK_THREADS", "1024");
    EXPECT_NE(changed.find("BLOCK_THREADS = 1024 {64, 128, 256, 512, 1024} tier 1 -- threads per block"),
              std::string::npos);
    EXPECT_EQ(set_tunable(changed, "BLOCK_THREADS", "64").size() + 2, changed.size());
}

TEST(SetTunable, RejectsUnknownNamesAndValuesOutsideAllowed) {
    try {
        set_tunable(kRmsnorm, "VEC", "3");
        FAIL() << "accepted VEC = 3";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("{1, 2, 4, 8}"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos);
    }
    try {
        set_tunable(kRmsnorm, "TILE", "3");
        FAIL() << "accepted an undeclared tunable";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("declared: BLOCK_THREADS, VEC, USE_SHUFFLE"), std::string::npos);
    }
}

TEST(ContractOptions, DtypeDefineTunablesAndLanguageOptions) {
    const auto options = contract_options(parse_contract(kRmsnorm), DType::fp32);
    EXPECT_EQ(options, (std::vector<std::string>{"-DAK_DTYPE_FP32", "-DBLOCK_THREADS=256", "-DVEC=1", "-DUSE_SHUFFLE=1",
                                                 "--std=c++17", "-default-device"}));
    EXPECT_EQ(contract_options(parse_contract(""), DType::fp16),
              (std::vector<std::string>{"-DAK_DTYPE_FP16", "--std=c++17", "-default-device"}));
}

TEST(NvrtcOptions, DefinesDtypeAndEveryTunable) {
    const auto c = parse_contract(set_tunable(kRmsnorm, "VEC", "4"));
    const auto options = nvrtc_options(c, DType::bf16, "sm_90a", {"/k/include", "/cuda/include"});
    EXPECT_EQ(options.front(), "-DAK_DTYPE_BF16");
    EXPECT_TRUE(contains(options, "-DBLOCK_THREADS=256"));
    EXPECT_TRUE(contains(options, "-DVEC=4"));
    EXPECT_TRUE(contains(options, "-DUSE_SHUFFLE=1"));
    EXPECT_TRUE(contains(options, "--std=c++17"));
    EXPECT_TRUE(contains(options, "-default-device"));
    EXPECT_TRUE(contains(options, "-I/k/include"));
    EXPECT_TRUE(contains(options, "-I/cuda/include"));
    EXPECT_EQ(options.back(), "--gpu-architecture=sm_90a");
    EXPECT_THROW(nvrtc_options(c, DType::tf32, "sm_90a", {}), Error);
    EXPECT_THROW(nvrtc_options(parse_contract("// @autokernel tunable X = 5 {1}"), DType::fp16, "sm_90a", {}), Error);
}

TEST(KernelsIncludeDir, EnvironmentOverridesTheBuildTimeDefault) {
    ::unsetenv("AK_KERNELS_DIR");
    EXPECT_EQ(kernels_include_dir(), AK_TEST_KERNELS_INCLUDE_DIR);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(kernels_include_dir()) / "autokernel" / "contract.cuh"));
    // Pointing at the kernels/ folder resolves to its include/ folder.
    const auto kernels = std::filesystem::path(AK_TEST_KERNELS_INCLUDE_DIR).parent_path();
    ::setenv("AK_KERNELS_DIR", kernels.c_str(), 1);
    EXPECT_EQ(kernels_include_dir(), (kernels / "include").string());
    ::setenv("AK_KERNELS_DIR", "/elsewhere/include", 1);
    EXPECT_EQ(kernels_include_dir(), "/elsewhere/include");
    ::unsetenv("AK_KERNELS_DIR");
}

// The options really work with this machine's NVRTC: contract.cuh and cuda_fp16.h / cuda_bf16.h are
// found, tunables arrive as macros, and sm_90a enables Hopper-only instructions (wgmma).
class NvrtcCompile : public ::testing::TestWithParam<DType> {};

TEST_P(NvrtcCompile, ContractOptionsCompileAHopperKernel) {
    const std::string source = std::string(kRmsnorm) + R"(
#if BLOCK_THREADS != 512 || VEC != 2
#error "tunables did not arrive"
#endif
extern "C" __global__ void ak_kernel1(ak_rmsnorm_args a) {
    asm volatile("wgmma.fence.sync.aligned;");
    a.y[threadIdx.x] = ak_from_float(ak_to_float(a.x[threadIdx.x]) * 2.0f);
}
)";
    const auto contract = parse_contract(set_tunable(set_tunable(source, "BLOCK_THREADS", "512"), "VEC", "2"));
    ASSERT_TRUE(contract.ok());
    const auto options = nvrtc_options(contract, GetParam(), arch_for(9, 0, true),
                                       {kernels_include_dir(), cuda_include_dir()});
    EXPECT_EQ(options.back(), "--gpu-architecture=sm_90a");
    std::vector<const char*> raw;
    for (const auto& o : options) raw.push_back(o.c_str());
    nvrtcProgram program;
    ASSERT_EQ(nvrtcCreateProgram(&program, source.c_str(), "candidate.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
    const auto rc = nvrtcCompileProgram(program, static_cast<int>(raw.size()), raw.data());
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::size_t cubin_size = 0;
    nvrtcGetCUBINSize(program, &cubin_size);
    nvrtcDestroyProgram(&program);
    EXPECT_EQ(rc, NVRTC_SUCCESS) << log;
    EXPECT_GT(cubin_size, 0u) << "expected machine code (cubin), not PTX";
}

INSTANTIATE_TEST_SUITE_P(AllKernelDtypes, NvrtcCompile, ::testing::Values(DType::fp16, DType::bf16, DType::fp32),
                         [](const auto& info) { return std::string(to_string(info.param)); });
