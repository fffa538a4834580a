// The GEMM starters' variants (kernels/cuda/matmul.cu, tier-3 switch MMA; kernels/cuda/fused_mlp.cu, FUSE)
// compile through NVRTC for Hopper (sm_90a) the way the evaluator compiles them, and tunable combinations a
// variant cannot run are a COMPILE_ERROR whose log names the rule. No GPU needed; whether each variant
// passes the five stages is the GPU suite's job (StarterVariantPasses/GpuMatmul and GpuFusedMlp in
// test_evaluator_gpu.cpp).
#include "engine/candidate_compiler.h"
#include "engine/kernel_contract.h"
#include "gemm_variants.h"
#include "util/durable_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using namespace ak;

namespace {

using Tunables = test::TunableSettings;

std::string starter(const std::string& file) { return read_file(std::string(AK_STARTERS_DIR) + "/" + file); }

std::string with(const Tunables& tunables, const std::string& file = "matmul.cu") {
    std::string source = starter(file);
    for (const auto& [name, value] : tunables) source = set_tunable(source, name, value);
    return source;
}

std::string describe(const Tunables& tunables) {
    std::string out;
    for (const auto& [name, value] : tunables) out += (out.empty() ? "" : " ") + name + "=" + value;
    return out.empty() ? "defaults" : out;
}

class GemmVariants : public ::testing::Test {
protected:
    static std::string test_name() {  // "Compiles/MMA3" -> "Compiles_MMA3": one folder
        std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        for (char& c : name)
            if (c == '/') c = '_';
        return name;
    }
    std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                  ("ak_matmul_variants_" + std::to_string(::getpid()) + "_" + test_name());
    NvrtcCompiler compiler{cache};
    void TearDown() override { std::filesystem::remove_all(cache); }

    CandidateCompileReport compile(const Tunables& tunables, std::vector<DType> dtypes, std::string arch = "sm_90a",
                                   const std::string& file = "matmul.cu") {
        CandidateCompileOptions o;
        o.dtypes = std::move(dtypes);
        o.arch = std::move(arch);
        return compile_candidate(compiler, with(tunables, file), file, o);
    }
};

}  // namespace

class EveryMatmulVariant : public GemmVariants, public ::testing::WithParamInterface<Tunables> {};

// The suite's variants (matmul_variants.h) in fp16 and bf16: the one entry point is there with its
// registers reported and nothing spilled (the 128 x 256 tile's 128 accumulators per consumer thread fit
// the setmaxnreg share); the wgmma tiles live in dynamic shared memory (none static), and ptxas did not
// serialize the wgmma pipeline (its "Potential Performance Loss" note, which the compile log carries).
TEST_P(EveryMatmulVariant, CompilesForHopperInFp16AndBf16) {
    const Tunables& t = GetParam();
    const auto report = compile(t, {DType::fp16, DType::bf16});
    ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
    EXPECT_TRUE(report.warnings.empty()) << describe(t);
    const bool wgmma = test::setting(t, "MMA", "0") == "3";
    for (const auto& c : report.compiles) {
        ASSERT_EQ(c.result.kernels.size(), 1u) << describe(t);
        const KernelResources& k = c.result.kernels[0];
        EXPECT_EQ(k.name, "ak_kernel0");
        EXPECT_GT(k.registers, 0);
        EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0) << describe(t) << " " << to_string(c.dtype);
        if (wgmma) {
            EXPECT_EQ(k.shared_bytes, 0) << describe(t) << ": the TMA ring lives in dynamic shared memory";
        }
        EXPECT_EQ(c.result.log.find("Potential Performance Loss"), std::string::npos)
            << describe(t) << " " << to_string(c.dtype) << ":\n" << c.result.log;
    }
}

INSTANTIATE_TEST_SUITE_P(Starter, EveryMatmulVariant, ::testing::ValuesIn(test::matmul_variants()),
                         [](const ::testing::TestParamInfo<Tunables>& info) {
                             std::string name;
                             for (const auto& [k, v] : info.param) name += k + v;
                             return name;
                         });

// fp32 keeps its exact CUDA-core path under every MMA value (no TF32 under a 1e-4 tolerance), in the
// starter's shape when the tunables describe tensor-core tiles it could not hold (256 x 256 would be 4096
// FMA threads).
TEST_F(GemmVariants, Fp32TakesTheFmaPathUnderEveryVariant) {
    std::vector<Tunables> settings = test::matmul_variants();
    settings.insert(settings.begin(), Tunables{});
    settings.push_back({{"BLOCK_M", "256"}, {"BLOCK_N", "256"}, {"MMA", "1"}, {"WARP_M", "64"}, {"WARP_N", "64"}});
    for (const Tunables& t : settings) {
        const auto report = compile(t, {DType::fp32});
        ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
        ASSERT_EQ(report.compiles[0].result.kernels.size(), 1u);
        EXPECT_GT(report.compiles[0].result.kernels[0].shared_bytes, 0) << describe(t) << ": the FMA tiles are static";
    }
}

// Combinations the variants cannot run: a quick COMPILE_ERROR that explains itself.
TEST_F(GemmVariants, InvalidCombinationsAreNamedCompileErrors) {
    struct Case {
        Tunables tunables;
        std::string arch;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{{"BLOCK_M", "32"}, {"MMA", "3"}}, "sm_90a", "MMA=3: consumer warpgroups take 64-row wgmmas"},
        {{{"BLOCK_N", "32"}, {"MMA", "3"}}, "sm_90a", "MMA=3: B arrives in 64-column TMA boxes"},
        {{{"BLOCK_M", "256"}, {"BLOCK_N", "256"}, {"MMA", "3"}}, "sm_90a",
         "MMA=3: a consumer warpgroup's accumulators"},
        {{{"BLOCK_M", "128"}, {"BLOCK_N", "256"}, {"STAGES", "5"}, {"MMA", "3"}}, "sm_90a",
         "exceed the 227 KB of shared memory"},
        {{{"MMA", "3"}}, "sm_90", "MMA=3 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target"},
        {{{"BLOCK_M", "128"}, {"BLOCK_N", "256"}}, "sm_90a", "threads per block must be within 32..1024"},
    };
    for (const Case& c : cases) {
        const auto report = compile(c.tunables, {DType::fp16}, c.arch);
        ASSERT_FALSE(report.ok()) << describe(c.tunables) << " on " << c.arch << " compiled";
        EXPECT_NE(report.compiles[0].result.log.find(c.message), std::string::npos)
            << describe(c.tunables) << " on " << c.arch << ":\n"
            << report.compiles[0].result.log;
    }
}

// ---- fused_mlp ---------------------------------------------------------------------------------------------

class EveryFusedMlpVariant : public GemmVariants, public ::testing::WithParamInterface<Tunables> {};

// FUSE=1 in fp16 and bf16: the fused gate/up kernel (stage 0) is the only entry point (the down GEMM is a
// library stage), its tiles in dynamic shared memory, nothing spilled, the wgmma pipeline not serialized.
TEST_P(EveryFusedMlpVariant, CompilesForHopperInFp16AndBf16) {
    const Tunables& t = GetParam();
    const auto report = compile(t, {DType::fp16, DType::bf16}, "sm_90a", "fused_mlp.cu");
    ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
    EXPECT_TRUE(report.warnings.empty()) << describe(t);
    for (const auto& c : report.compiles) {
        ASSERT_EQ(c.result.kernels.size(), 1u) << describe(t);
        const KernelResources& k = c.result.kernels[0];
        EXPECT_EQ(k.name, "ak_kernel0");
        EXPECT_GT(k.registers, 0);
        EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0) << describe(t) << " " << to_string(c.dtype);
        EXPECT_EQ(k.shared_bytes, 0) << describe(t) << ": the TMA ring lives in dynamic shared memory";
        EXPECT_EQ(c.result.log.find("Potential Performance Loss"), std::string::npos)
            << describe(t) << " " << to_string(c.dtype) << ":\n" << c.result.log;
    }
}

INSTANTIATE_TEST_SUITE_P(Starter, EveryFusedMlpVariant, ::testing::ValuesIn(test::fused_mlp_variants()),
                         [](const ::testing::TestParamInfo<Tunables>& info) {
                             std::string name;
                             for (const auto& [k, v] : info.param) name += k + v;
                             return name;
                         });

// fp32 keeps the library GEMMs and the activation kernel (stage 1) under FUSE=1: no TF32.
TEST_F(GemmVariants, FusedMlpFp32KeepsTheLibraryGemms) {
    for (const Tunables& t : test::fused_mlp_variants()) {
        const auto report = compile(t, {DType::fp32}, "sm_90a", "fused_mlp.cu");
        ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
        ASSERT_EQ(report.compiles[0].result.kernels.size(), 1u);
        EXPECT_EQ(report.compiles[0].result.kernels[0].name, "ak_kernel1") << describe(t);
    }
}

TEST_F(GemmVariants, FusedMlpOffHopperIsANamedCompileError) {
    const auto report = compile({{"FUSE", "1"}}, {DType::fp16}, "sm_90", "fused_mlp.cu");
    ASSERT_FALSE(report.ok());
    EXPECT_NE(report.compiles[0].result.log.find("FUSE=1 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target"),
              std::string::npos)
        << report.compiles[0].result.log;
}

// fused_mlp's tunable combinations that FUSE=1 cannot run: a COMPILE_ERROR naming the rule.
TEST_F(GemmVariants, FusedMlpInvalidCombinationsAreNamedCompileErrors) {
    const std::vector<std::pair<Tunables, std::string>> cases = {
        {{{"BLOCK_F", "64"}, {"SPLIT_TAIL", "4"}, {"FUSE", "1"}},
         "FUSE=1: SPLIT_TAIL units of BLOCK_F / SPLIT_TAIL columns take wgmma N >= 32"},
        {{{"BLOCK_M", "64"}, {"STAGGER", "1"}, {"FUSE", "1"}}, "FUSE=1: STAGGER offsets the second consumer warpgroup"},
        {{{"STAGES", "2"}, {"STAGGER", "2"}, {"FUSE", "1"}}, "STAGGER < STAGES"},
    };
    for (const auto& [tunables, message] : cases) {
        const auto report = compile(tunables, {DType::fp16}, "sm_90a", "fused_mlp.cu");
        ASSERT_FALSE(report.ok()) << describe(tunables) << " compiled";
        EXPECT_NE(report.compiles[0].result.log.find(message), std::string::npos)
            << describe(tunables) << ":\n" << report.compiles[0].result.log;
    }
}

// The search sweeps the lowest tier first, in declaration order: the structural switch (matmul's MMA,
// fused_mlp's FUSE) is the first tunable it changes, so a climb from the starter reaches the tensor-core
// kernels before it spends experiments on tiles that only the FMA path reads.
TEST(GemmStarters, TheSearchTriesTheStructuralSwitchFirst) {
    const struct {
        const char* file;
        const char* name;
    } cases[] = {{"matmul.cu", "MMA"}, {"fused_mlp.cu", "FUSE"}};
    for (const auto& c : cases) {
        const KernelContract contract = parse_contract(starter(c.file));
        ASSERT_FALSE(contract.tunables.empty()) << c.file;
        int lowest = contract.tunables[0].tier;
        for (const auto& t : contract.tunables) lowest = std::min(lowest, t.tier);
        const Tunable* first = nullptr;
        for (const auto& t : contract.tunables)
            if (t.tier == lowest) {
                first = &t;
                break;
            }
        ASSERT_NE(first, nullptr);
        EXPECT_EQ(first->name, c.name) << c.file;
        EXPECT_EQ(first->value, "0") << c.file << ": the starter itself stays on the plain path";
    }
}
