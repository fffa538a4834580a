// Session extraction: shape families, timing shapes by time, shares, and the --top / --min-share /
// --types selection, on hand-made profiles and the synthetic GPT-2 fixture.
#include "profile/profile_json.h"
#include "profile/session_from_profile.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak::profile {
namespace {

const std::string kFixture = std::string(AK_FIXTURES_DIR) + "/profile/gpt2-synthetic.json";

// A profile of GEMMs and norms with the given (op inputs, duration) pairs.
struct Builder {
    Profile p;
    std::uint64_t now = 1000;
    void add(const std::string& op_name, std::vector<TensorArg> inputs, std::uint64_t ns, const std::string& kernel,
             std::vector<std::string> stack = {}) {
        OpCall op;
        op.id = p.ops.size() + 1;
        op.name = op_name;
        op.stack = stack.empty() ? std::vector<std::string>{op_name} : stack;
        op.inputs = std::move(inputs);
        KernelRecord k;
        k.name = kernel;
        k.start_ns = now;
        k.end_ns = now + ns;
        now += ns;
        k.op_id = op.id;
        p.ops.push_back(std::move(op));
        p.kernels.push_back(std::move(k));
    }
};

TensorArg t(std::vector<std::int64_t> sizes) { return {std::move(sizes), {}, "bf16", {}}; }

Profile mixed() {
    Builder b;
    b.p.origin.measured_iterations = 1;
    b.add("aten::mm", {t({4096, 4096}), t({4096, 4096})}, 4000, "nvjet_a");           // family 1
    b.add("aten::mm", {t({4096, 4096}), t({4096, 6144})}, 3000, "nvjet_a");           // family 1 (1.5x in N)
    b.add("aten::mm", {t({4096, 4096}), t({4096, 5000})}, 100, "nvjet_a");            // family 1, < 5 %: not timed
    b.add("aten::mm", {t({4096, 4096}), t({4096, 32000})}, 2000, "nvjet_b");          // family 2 (8x in N)
    b.add("aten::rms_norm", {t({8, 512, 4096})}, 600, "vectorized_layer_norm_kernel"); // rmsnorm
    b.add("aten::add", {t({8, 512, 4096}), t({8, 512, 4096})}, 300, "vectorized_elementwise_kernel");  // other
    return b.p;
}

TEST(SessionFromProfile, FamiliesTimingShapesAndShares) {
    const Profile p = mixed();
    const auto kernels = candidate_kernels(compute_breakdown(p));
    ASSERT_EQ(kernels.size(), 3u);  // matmul x2 families, rmsnorm; "other" never
    const double total = 10000;
    EXPECT_EQ(kernels[0].name, "matmul_4096x4096x4096");
    EXPECT_DOUBLE_EQ(kernels[0].share, 7100 / total);
    ASSERT_EQ(kernels[0].shapes.size(), 2u);
    EXPECT_EQ(kernels[0].shapes[0], (Shape{{4096, 4096, 4096}}));
    EXPECT_EQ(kernels[0].shapes[1], (Shape{{4096, 6144, 4096}}));
    EXPECT_DOUBLE_EQ(kernels[0].shape_shares[1], 0.3);
    EXPECT_EQ(kernels[0].entry().shapes, "4096x4096x4096,4096x6144x4096");
    EXPECT_DOUBLE_EQ(kernels[0].entry().model_fraction, 0.71);
    EXPECT_EQ(kernels[0].entry().type, "matmul");
    EXPECT_EQ(kernels[0].dtype, "bf16");
    EXPECT_EQ(kernels[1].name, "matmul_4096x32000x4096");
    EXPECT_DOUBLE_EQ(kernels[1].share, 0.2);
    EXPECT_EQ(kernels[2].name, "rmsnorm");  // one family: named after the type
    EXPECT_EQ(kernels[2].entry().shapes, "4096x4096");
    EXPECT_DOUBLE_EQ(kernels[2].share, 0.06);
}

TEST(SessionFromProfile, TopMinShareAndTypes) {
    const Breakdown b = compute_breakdown(mixed());
    FromProfileOptions o;
    o.top = 1;
    auto chosen = choose_kernels(b, o);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].name, "matmul_4096x4096x4096");

    o = {};
    o.min_share = 0.1;
    chosen = choose_kernels(b, o);
    ASSERT_EQ(chosen.size(), 2u);
    EXPECT_EQ(chosen[1].name, "matmul_4096x32000x4096");

    o = {};
    o.types = {KernelType::RmsNorm};
    chosen = choose_kernels(b, o);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].type, KernelType::RmsNorm);

    o = {};
    o.types = {KernelType::Softmax};
    EXPECT_TRUE(choose_kernels(b, o).empty());

    o = {};
    o.max_shapes = 1;
    EXPECT_EQ(choose_kernels(b, o)[0].shapes.size(), 1u);

    o = {};
    o.min_share = 1.5;
    EXPECT_THROW(choose_kernels(b, o), Error);
}

TEST(SessionFromProfile, ShapelessTimeJoinsTheLargestFamily) {
    // A SwiGLU MLP in the fused_mlp scope: its GEMMs give the shape, its silu gives none but counts.
    Builder b;
    b.p.origin.measured_iterations = 1;
    b.add("aten::mm", {t({2048, 2048}), t({2048, 5632})}, 3000, "nvjet", {"autokernel::fused_mlp", "aten::linear", "aten::mm"});
    b.add("aten::silu", {t({4, 512, 5632})}, 500, "silu_kernel", {"autokernel::fused_mlp", "aten::silu"});
    b.add("aten::add", {t({4, 512, 2048})}, 500, "add_kernel");
    const auto kernels = candidate_kernels(compute_breakdown(b.p));
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].type, KernelType::FusedMlp);
    EXPECT_EQ(kernels[0].name, "fused_mlp");
    EXPECT_EQ(kernels[0].entry().shapes, "2048x2048x5632");
    EXPECT_DOUBLE_EQ(kernels[0].share, 3500.0 / 4000.0);
}

TEST(SessionFromProfile, BackwardOpsAreNotInTheForwardKernelsShare) {
    // A training step: the forward SDPA maps to a shape; its backward op has none and a forward kernel does
    // not replace it, so it is reported beside the share, not in it. The backward GEMM (aten::mm) counts.
    Builder b;
    b.p.origin.measured_iterations = 1;
    TensorArg causal{{}, {}, "", {1}};
    b.add("aten::_scaled_dot_product_efficient_attention",
          {t({2, 12, 512, 64}), t({2, 12, 512, 64}), t({2, 12, 512, 64}), {}, {}, {}, causal}, 3000, "fmha_fwd");
    b.add("aten::_efficient_attention_backward", {t({2, 512, 12, 64})}, 5000, "fmha_bwd",
          {"autograd::engine::evaluate_function: ScaledDotProductEfficientAttentionBackward0",
           "aten::_efficient_attention_backward"});
    b.add("aten::mm", {t({1024, 768}), t({768, 3072})}, 1500, "nvjet_bwd",
          {"autograd::engine::evaluate_function: MmBackward0", "aten::mm"});
    b.add("aten::add", {t({2, 512, 768})}, 500, "add_kernel");
    const auto kernels = candidate_kernels(compute_breakdown(b.p));
    const ProfileKernel* attention = nullptr;
    const ProfileKernel* matmul = nullptr;
    for (const auto& k : kernels) {
        if (k.type == KernelType::FlashAttention) attention = &k;
        if (k.type == KernelType::Matmul) matmul = &k;
    }
    ASSERT_NE(attention, nullptr);
    EXPECT_DOUBLE_EQ(attention->share, 3000.0 / 10000.0);
    EXPECT_DOUBLE_EQ(attention->backward_share, 5000.0 / 10000.0);
    ASSERT_NE(matmul, nullptr);
    EXPECT_DOUBLE_EQ(matmul->share, 1500.0 / 10000.0);
    EXPECT_DOUBLE_EQ(matmul->backward_share, 0.0);
    EXPECT_TRUE(is_backward_op("aten::native_layer_norm_backward"));
    EXPECT_TRUE(is_backward_op("aten::_softmax_backward_data"));
    EXPECT_FALSE(is_backward_op("aten::mm"));
}

TEST(SessionFromProfile, SyntheticGpt2AndItsOrigin) {
    const Profile p = read_profile_json(kFixture);
    const Breakdown b = compute_breakdown(p);
    const auto chosen = choose_kernels(b, {});
    ASSERT_GE(chosen.size(), 4u);
    // GPT-2's QKV (2304) and MLP up (3072) GEMMs are one family; the LM head (50257) is its own.
    EXPECT_EQ(chosen[0].entry().shapes, "2048x3072x768,2048x2304x768");
    EXPECT_EQ(chosen[1].entry().shapes, "2048x50257x768");
    bool attention = false;
    for (const auto& k : chosen)
        if (k.type == KernelType::FlashAttention) {
            attention = true;
            EXPECT_EQ(k.entry().shapes, "4x12x512x64 causal");
        }
    EXPECT_TRUE(attention);
    double sum = 0;
    for (const auto& k : chosen) sum += k.share;
    EXPECT_LE(sum, 1.0);
    const ProfileOrigin o = profile_origin(p, b, "prof.json");
    EXPECT_EQ(o.file, "prof.json");
    EXPECT_EQ(o.model, "gpt2");
    EXPECT_EQ(o.kind, "builtin");
    EXPECT_EQ(o.options, "batch 4, seq 512, fp16, inference, 2 measured iterations");
    EXPECT_EQ(o.gpu, "NVIDIA H200");
    EXPECT_EQ(o.recorded_utc, "2026-12-02T04:00:00Z");
    EXPECT_NEAR(o.gpu_time_us_per_iteration, double(b.timeline.activity_sum_ns) / 2000.0, 1e-9);
}

}  // namespace
}  // namespace ak::profile
