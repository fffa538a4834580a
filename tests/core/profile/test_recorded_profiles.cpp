// Profiles recorded on an H200 (torch 2.11, autokernel-profiler, 2026-12-02): the bundled demo profile
// (resources/demo-profile.json: GPT-2, batch 8, seq 1024, fp16 inference) and LLaMA-7B layers
// (tests/fixtures/profile/llama-7b-layers-fp16-inference-h200.json: two layers, batch 8, seq 1024, fp16).
// Real kernel names and op stacks through classification, shape mapping, the breakdown and session
// extraction.
#include "profile/breakdown.h"
#include "profile/bundled_profile.h"
#include "profile/profile_json.h"
#include "profile/session_from_profile.h"
#include "profile/shape_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace ak::profile {
namespace {

namespace fs = std::filesystem;

fs::path gpt2_path() { return bundled_profile_path({}); }
fs::path llama_path() { return fs::path(AK_FIXTURES_DIR) / "profile/llama-7b-layers-fp16-inference-h200.json"; }

std::set<std::string> type_labels(const Breakdown& b) {
    std::set<std::string> out;
    for (const BreakdownType& t : b.types) out.insert(t.type_label);
    return out;
}

const BreakdownType* find_type(const Breakdown& b, const std::string& label) {
    for (const BreakdownType& t : b.types)
        if (t.type_label == label) return &t;
    return nullptr;
}

// What holds for every recorded profile: shares of the types (other included) sum to 1, every kernel
// was launched by a recorded op, groups' and types' times agree, and the file round-trips.
void expect_consistent(const Profile& profile, const Breakdown& b) {
    double type_shares = 0, group_shares = 0;
    std::uint64_t type_ns = 0, group_ns = 0;
    for (const BreakdownType& t : b.types) type_shares += t.share, type_ns += t.total_ns;
    for (const BreakdownGroup& g : b.groups) group_shares += g.share, group_ns += g.total_ns;
    EXPECT_NEAR(type_shares, 1.0, 1e-9);
    EXPECT_NEAR(group_shares, 1.0, 1e-9);
    EXPECT_EQ(type_ns, b.timeline.activity_sum_ns);
    EXPECT_EQ(group_ns, b.timeline.activity_sum_ns);
    EXPECT_DOUBLE_EQ(b.attributed_share, 1.0);
    EXPECT_GT(b.classified_share, 0.9);
    EXPECT_EQ(b.timeline.kernels, profile.kernels.size());
    EXPECT_LE(b.timeline.busy_ns, b.timeline.wall_ns);

    const Profile again = profile_from_json(to_json(profile), "round trip");
    const Breakdown b2 = compute_breakdown(again);
    ASSERT_EQ(b2.groups.size(), b.groups.size());
    for (std::size_t i = 0; i < b.groups.size(); ++i) {
        EXPECT_EQ(b2.groups[i].op, b.groups[i].op);
        EXPECT_EQ(b2.groups[i].input_shapes, b.groups[i].input_shapes);
        EXPECT_EQ(b2.groups[i].total_ns, b.groups[i].total_ns);
    }
}

// Every group of a type with a shape rule maps, and its shape survives text and back (the form
// session.json stores).
void expect_shapes_map(const Breakdown& b, std::initializer_list<KernelType> types) {
    for (const KernelType type : types) {
        const auto groups = groups_of(b, type);
        ASSERT_FALSE(groups.empty()) << to_string(type);
        for (const BreakdownGroup* g : groups) {
            if (type == KernelType::FusedMlp && g->op != "aten::mm") continue;  // silu, mul: no shape
            if (type == KernelType::RotaryEmbedding && !g->type_shape) continue;
            ASSERT_TRUE(g->type_shape) << g->type_label << " " << g->op << " " << g->input_shapes;
            EXPECT_EQ(parse_shape(type, to_string(*g->type_shape)), *g->type_shape) << to_string(*g->type_shape);
        }
    }
}

TEST(RecordedProfiles, TheBundledProfileIsFoundAndIsGpt2) {
    ASSERT_FALSE(gpt2_path().empty()) << "resources/demo-profile.json is missing";
    const Profile p = read_profile_json(gpt2_path());
    EXPECT_EQ(p.origin.model, "gpt2");
    EXPECT_EQ(p.origin.gpu_name, "NVIDIA H200");
    EXPECT_EQ(p.origin.measured_iterations, 10);
    // The source tree's copy wins over an install tree's, wherever the executable runs.
    EXPECT_EQ(bundled_profile_path("/nonexistent/bin"), gpt2_path());
    EXPECT_EQ(gpt2_path().filename(), "demo-profile.json");
}

TEST(RecordedProfiles, Gpt2Fp16Inference) {
    const Profile p = read_profile_json(gpt2_path());
    const Breakdown b = compute_breakdown(p);
    expect_consistent(p, b);
    EXPECT_EQ(type_labels(b), (std::set<std::string>{"matmul", "flash_attention", "layernorm", "other"}));
    // The LM head (vocabulary 50257: CUTLASS's align1 GEMM on an H200) dominates.
    const BreakdownGroup& top = b.groups.front();
    EXPECT_EQ(top.type, KernelType::Matmul);
    EXPECT_EQ(top.op, "aten::mm");
    EXPECT_EQ(top.module_path, "lm_head");
    ASSERT_TRUE(top.type_shape);
    EXPECT_EQ(to_string(*top.type_shape), "8192x50257x768");
    EXPECT_GT(top.share, 0.5);
    ASSERT_TRUE(top.headroom);
    EXPECT_FALSE(top.headroom->memory_bound);
    EXPECT_LT(top.headroom->pct_of_ceiling, 20);
    EXPECT_GT(find_type(b, "matmul")->share, 0.8);
    expect_shapes_map(b, {KernelType::Matmul, KernelType::FlashAttention, KernelType::LayerNorm});
    const auto attn = groups_of(b, KernelType::FlashAttention);
    EXPECT_EQ(to_string(*attn.front()->type_shape), "8x12x1024x64 causal");
    EXPECT_EQ(to_string(*groups_of(b, KernelType::LayerNorm).front()->type_shape), "8192x768");

    // new --from-profile: the LM head's GEMM first, then the block GEMMs as one family, attention, norm.
    const auto kernels = choose_kernels(b, {});
    ASSERT_GE(kernels.size(), 3u);
    EXPECT_EQ(kernels[0].type, KernelType::Matmul);
    EXPECT_EQ(kernels[0].shapes.front(), parse_shape(KernelType::Matmul, "8192x50257x768"));
    EXPECT_NEAR(kernels[0].share, top.share, 1e-12);
    EXPECT_EQ(kernels[0].dtype, "fp16");
    double total = 0;
    std::set<KernelType> types;
    for (const ProfileKernel& k : kernels) {
        EXPECT_GE(k.share, 0.01) << k.name;
        EXPECT_FALSE(k.shapes.empty()) << k.name;
        EXPECT_EQ(k.entry().model_fraction, k.share);
        total += k.share;
        types.insert(k.type);
    }
    EXPECT_LE(total, find_type(b, "matmul")->share + find_type(b, "flash_attention")->share +
                         find_type(b, "layernorm")->share + 1e-9);
    EXPECT_TRUE(types.count(KernelType::FlashAttention));
    EXPECT_TRUE(types.count(KernelType::LayerNorm));
}

TEST(RecordedProfiles, Llama7bLayersFp16Inference) {
    const Profile p = read_profile_json(llama_path());
    const Breakdown b = compute_breakdown(p);
    expect_consistent(p, b);
    EXPECT_EQ(type_labels(b), (std::set<std::string>{"fused_mlp", "matmul", "rotary_embedding", "flash_attention",
                                                     "rmsnorm", "other"}));
    // The SwiGLU MLP's GEMMs lead, then the LM head and the attention projections.
    EXPECT_EQ(b.types.front().type, KernelType::FusedMlp);
    const BreakdownGroup& top = b.groups.front();
    EXPECT_EQ(top.type, KernelType::FusedMlp);
    EXPECT_EQ(top.op, "aten::mm");
    EXPECT_EQ(to_string(*top.type_shape), "8192x4096x11008");
    // The gate/up GEMM of the MLP has its rate as a GEMM: 2*M*N*K per call.
    ASSERT_TRUE(top.headroom);
    const double seconds = double(top.total_ns) / double(top.calls) * 1e-9;
    EXPECT_NEAR(top.headroom->achieved_tflops, 2.0 * 8192 * 11008 * 4096 / seconds / 1e12, 1e-6);
    EXPECT_FALSE(top.headroom->memory_bound);
    for (const BreakdownGroup* g : groups_of(b, KernelType::FusedMlp))
        if (g->op == "aten::silu" || g->op == "aten::mul") EXPECT_FALSE(g->headroom) << g->op;
    const auto mm = groups_of(b, KernelType::Matmul);
    EXPECT_EQ(to_string(*mm.front()->type_shape), "8192x32000x4096");
    EXPECT_EQ(mm.front()->module_path, "lm_head");
    // The rms-norm kernel is ATen's layer-norm kernel; it is rmsnorm, at the model's [8192, 4096].
    const auto rms = groups_of(b, KernelType::RmsNorm);
    ASSERT_EQ(rms.size(), 1u);
    EXPECT_EQ(to_string(*rms.front()->type_shape), "8192x4096");
    EXPECT_NE(rms.front()->kernel_names.front().find("vectorized_layer_norm_kernel"), std::string::npos);
    EXPECT_EQ(to_string(*groups_of(b, KernelType::FlashAttention).front()->type_shape), "8x32x1024x128 causal");
    expect_shapes_map(b, {KernelType::Matmul, KernelType::FusedMlp, KernelType::FlashAttention, KernelType::RmsNorm,
                          KernelType::RotaryEmbedding});

    const auto kernels = choose_kernels(b, {});
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0].type, KernelType::FusedMlp);
    EXPECT_EQ(kernels[0].shapes.front(), parse_shape(KernelType::FusedMlp, "8192x4096x11008"));
    // The MLP's silu and mul have no shape but are the fused kernel's work: its share is the type's.
    EXPECT_NEAR(kernels[0].share, find_type(b, "fused_mlp")->share, 1e-9);
    std::set<KernelType> types;
    for (const ProfileKernel& k : kernels) types.insert(k.type);
    for (const KernelType t : {KernelType::Matmul, KernelType::RotaryEmbedding, KernelType::FlashAttention,
                               KernelType::RmsNorm})
        EXPECT_TRUE(types.count(t)) << to_string(t);
}

}  // namespace
}  // namespace ak::profile
