// The flash_attention starter's variants (kernels/cuda/flash_attention.cu, tier-3 switch MMA) compile
// through NVRTC for Hopper (sm_90a) the way the evaluator compiles them, and tunable combinations a
// variant cannot run are a COMPILE_ERROR whose log names the rule. No GPU needed; whether each variant
// passes the five stages is the GPU suite's job (StarterVariantPasses in test_evaluator_gpu.cpp).
#include "engine/candidate_compiler.h"
#include "engine/kernel_contract.h"
#include "flash_attention_variants.h"
#include "util/durable_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using namespace ak;

namespace {

using Tunables = test::TunableSettings;

std::string starter() { return read_file(std::string(AK_STARTERS_DIR) + "/flash_attention.cu"); }

std::string with(const Tunables& tunables) {
    std::string source = starter();
    for (const auto& [name, value] : tunables) source = set_tunable(source, name, value);
    return source;
}

std::string describe(const Tunables& tunables) {
    std::string out;
    for (const auto& [name, value] : tunables) out += (out.empty() ? "" : " ") + name + "=" + value;
    return out.empty() ? "defaults" : out;
}

class FlashAttentionVariants : public ::testing::Test {
protected:
    static std::string test_name() {  // "Compiles/MMA2" -> "Compiles_MMA2": one folder
        std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        for (char& c : name)
            if (c == '/') c = '_';
        return name;
    }
    std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                  ("ak_flash_variants_" + std::to_string(::getpid()) + "_" + test_name());
    NvrtcCompiler compiler{cache};
    void TearDown() override { std::filesystem::remove_all(cache); }

    CandidateCompileReport compile(const Tunables& tunables, std::vector<DType> dtypes, std::string arch = "sm_90a") {
        CandidateCompileOptions o;
        o.dtypes = std::move(dtypes);
        o.arch = std::move(arch);
        return compile_candidate(compiler, with(tunables), "flash_attention.cu", o);
    }
};

}  // namespace

class EveryFlashAttentionVariant : public FlashAttentionVariants,
                                   public ::testing::WithParamInterface<Tunables> {};

// The suite's variants (flash_attention_variants.h) in fp16 and bf16: the one entry point is there with
// its registers reported, the shared memory is dynamic (none static), the mma.sync block with 16 rows per
// warp (Q, S and O in registers) does not spill (with 32 rows, O of head_dim 128 alone takes 128 of the
// 255 registers and a few dozen bytes spill), and ptxas did not serialize the wgmma pipeline (its
// "Potential Performance Loss" note, which the compile log carries).
TEST_P(EveryFlashAttentionVariant, CompilesForHopperInFp16AndBf16) {
    const Tunables& t = GetParam();
    const auto report = compile(t, {DType::fp16, DType::bf16});
    ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
    EXPECT_TRUE(report.warnings.empty()) << describe(t);
    const int rows_per_warp = std::stoi(test::setting(t, "BLOCK_M", "64")) / std::stoi(test::setting(t, "NUM_WARPS", "4"));
    for (const auto& c : report.compiles) {
        ASSERT_EQ(c.result.kernels.size(), 1u) << describe(t);
        const KernelResources& k = c.result.kernels[0];
        EXPECT_EQ(k.name, "ak_kernel0");
        EXPECT_GT(k.registers, 0);
        EXPECT_EQ(k.shared_bytes, 0) << describe(t) << ": tiles live in dynamic shared memory";
        if (test::setting(t, "MMA", "0") == "2" && rows_per_warp == 16) {
            EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0) << describe(t) << " " << to_string(c.dtype);
        }
        EXPECT_EQ(c.result.log.find("Potential Performance Loss"), std::string::npos)
            << describe(t) << " " << to_string(c.dtype) << ":\n" << c.result.log;
    }
}

INSTANTIATE_TEST_SUITE_P(Starter, EveryFlashAttentionVariant, ::testing::ValuesIn(test::flash_attention_variants()),
                         [](const ::testing::TestParamInfo<Tunables>& info) {
                             std::string name;
                             for (const auto& [k, v] : info.param) name += k + v;
                             return name;
                         });

// fp32 keeps its exact CUDA-core path under every MMA value (no TF32 under a 1e-4 tolerance), in the
// starter's shape when the tunables describe tensor-core tiles it could not hold.
TEST_F(FlashAttentionVariants, Fp32TakesTheFmaPathUnderEveryVariant) {
    std::vector<Tunables> settings = test::flash_attention_variants();
    settings.insert(settings.begin(), Tunables{});
    for (const Tunables& t : settings) {
        const auto report = compile(t, {DType::fp32});
        ASSERT_TRUE(report.ok()) << describe(t) << "\n" << format_compile_report(report, true);
        EXPECT_EQ(report.compiles[0].result.kernels.size(), 1u);
    }
}

// Combinations the variants cannot run: a quick COMPILE_ERROR that explains itself.
TEST_F(FlashAttentionVariants, InvalidCombinationsAreNamedCompileErrors) {
    struct Case {
        Tunables tunables;
        std::string arch;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{{"NUM_WARPS", "8"}, {"MMA", "2"}}, "sm_90a", "MMA=2: every warp takes 16 or 32 query rows"},
        {{{"BLOCK_M", "32"}, {"MMA", "3"}}, "sm_90a", "MMA=3: one consumer warpgroup per 64 query rows"},
        {{{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "2"}}, "sm_90a",
         "MMA=2: the Q tile and STAGES K/V tiles exceed the 227 KB"},
        {{{"BLOCK_M", "192"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}}, "sm_90a",
         "MMA=3: the Q tile and STAGES K/V tiles exceed the 227 KB"},
        {{{"MMA", "3"}}, "sm_90", "MMA=3 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target"},
        {{{"BLOCK_M", "128"}, {"STAGES", "1"}, {"MMA", "3"}, {"OVERLAP", "1"}}, "sm_90a",
         "MMA=3 with OVERLAP=1 needs STAGES >= 2"},
        {{{"MMA", "2"}}, "sm_75", "MMA=2 and MMA=3 use mma.sync, ldmatrix and cp.async: they need sm_80 or newer"},
        {{{"BLOCK_M", "192"}, {"BLOCK_N", "128"}}, "sm_90a", "tiles exceed the 227 KB"},
        {{{"BLOCK_M", "64"}, {"MMA", "3"}, {"PINGPONG", "1"}}, "sm_90a",
         "MMA=3 with PINGPONG=1 needs two or three consumer warpgroups"},
    };
    for (const Case& c : cases) {
        const auto report = compile(c.tunables, {DType::fp16}, c.arch);
        ASSERT_FALSE(report.ok()) << describe(c.tunables) << " on " << c.arch << " compiled";
        EXPECT_NE(report.compiles[0].result.log.find(c.message), std::string::npos)
            << describe(c.tunables) << " on " << c.arch << ":\n"
            << report.compiles[0].result.log;
    }
}

// The knobs that only one structure reads say so (`when MMA=...`), so the search spends no experiment on
// them under another MMA, and they come in the order that pays (the sweep takes tier 1 in declaration
// order and starts again from the top after every keep): MMA, BLOCK_M, then MMA=3's schedule before the
// key tile, so a climb from the starter reaches PERSISTENT, PINGPONG and HEAD_DIM early.
TEST(FlashAttentionStarter, KnobsOfOneStructureAreDeclaredWhenThatStructure) {
    const KernelContract contract = parse_contract(starter());
    ASSERT_TRUE(contract.errors.empty()) << contract.errors[0].message;
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"MMA", {}},
        {"BLOCK_M", {}},
        {"PERSISTENT", {"3"}},
        {"PINGPONG", {"3"}},
        {"HEAD_DIM", {"3"}},
        {"OVERLAP", {"3"}},
        {"BLOCK_N", {}},
        {"STAGES", {"2", "3"}},
        {"NUM_WARPS", {"0", "1", "2"}},
        {"LAZY_RESCALE", {"3"}},
        {"MAX_HEAD_DIM", {"0", "1"}},
    };
    ASSERT_EQ(contract.tunables.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const Tunable& t = contract.tunables[i];
        EXPECT_EQ(t.name, expected[i].first);
        EXPECT_EQ(t.when, expected[i].second.empty() ? "" : "MMA") << t.name;
        EXPECT_EQ(t.when_values, expected[i].second) << t.name;
        EXPECT_EQ(t.tier, t.name == "LAZY_RESCALE" ? 2 : t.name == "MAX_HEAD_DIM" ? 4 : 1) << t.name;
    }
}
