// Classification: the fixture table of kernel names (tests/fixtures/profile/kernel_names.tsv), and the
// rules' order (scope, module path, op stack outermost first, kernel name).
#include "profile/classification.h"
#include "util/durable_file.h"
#include "util/text.h"

#include <gtest/gtest.h>

namespace ak::profile {
namespace {

OpCall op_with_stack(const std::string& stack_text) {
    OpCall op;
    std::size_t start = 0;
    while (true) {
        const std::size_t sep = stack_text.find(" > ", start);
        op.stack.push_back(stack_text.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
        if (sep == std::string::npos) break;
        start = sep + 3;
    }
    op.name = op.stack.back();
    return op;
}

TEST(Classification, FixtureTable) {
    const std::string text = read_file(std::string(AK_FIXTURES_DIR) + "/profile/kernel_names.tsv");
    int rows = 0;
    for (const auto line : split(text, '\n')) {
        if (line.empty() || line.front() == '#') continue;
        const auto fields = split(line, '\t');
        ASSERT_EQ(fields.size(), 3u) << line;
        const std::string name(fields[0]), stack(fields[1]), expected(fields[2]);
        ASSERT_TRUE(expected == "other" || parse_kernel_type(expected)) << "unknown type in fixture: " << expected;
        const OpCall op = stack == "-" ? OpCall{} : op_with_stack(stack);
        const Classification c = classify(name, stack == "-" ? nullptr : &op, "gpt2");
        EXPECT_EQ(type_label(c.type), expected) << name << "  [" << stack << "]  by " << to_string(c.by) << " " << c.rule;
        ++rows;
    }
    EXPECT_GE(rows, 40);
}

TEST(Classification, OutermostOpWins) {
    const OpCall ce = op_with_stack("aten::cross_entropy_loss > aten::log_softmax > aten::_log_softmax");
    EXPECT_EQ(classify("whatever", &ce).type, KernelType::CrossEntropy);
    const OpCall sdpa = op_with_stack("aten::scaled_dot_product_attention > aten::_scaled_dot_product_attention_math > aten::_softmax");
    EXPECT_EQ(classify("softmax_warp_forward", &sdpa).type, KernelType::FlashAttention);
    // An unclassified outer op (a user's scope) is skipped.
    const OpCall wrapped = op_with_stack("forward > aten::linear > aten::addmm");
    const Classification c = classify("x", &wrapped);
    EXPECT_EQ(c.type, KernelType::Matmul);
    EXPECT_EQ(c.by, ClassifiedBy::Op);
    EXPECT_EQ(c.rule, "op aten::linear");
}

TEST(Classification, OpDecidesBeforeTheName) {
    // cuBLAS's split-K reduction inside aten::mm is matmul; a reduce kernel launched by aten::sum is reduce.
    const OpCall mm = op_with_stack("aten::mm");
    EXPECT_EQ(classify("void at::native::reduce_kernel<512, 1>", &mm).type, KernelType::Matmul);
    // The layer-norm kernel that aten::_fused_rms_norm launches is rmsnorm.
    const OpCall rms = op_with_stack("aten::_fused_rms_norm");
    EXPECT_EQ(classify("vectorized_layer_norm_kernel", &rms).type, KernelType::RmsNorm);
    // An op with no rule falls back to the kernel name.
    const OpCall add = op_with_stack("aten::add");
    const Classification c = classify("nvjet_sm90_tst_x", &add);
    EXPECT_EQ(c.type, KernelType::Matmul);
    EXPECT_EQ(c.by, ClassifiedBy::KernelName);
}

TEST(Classification, ModulePathOfLlamaModels) {
    OpCall gate = op_with_stack("aten::linear > aten::mm");
    gate.module_path = "layers.3.mlp.gate_proj";
    EXPECT_EQ(classify("nvjet_sm90_tst", &gate, "llama-160m").type, KernelType::FusedMlp);
    EXPECT_EQ(classify("nvjet_sm90_tst", &gate, "llama-160m").by, ClassifiedBy::ModulePath);
    // GPT-2's MLP (GELU, not SwiGLU) stays matmul.
    EXPECT_EQ(classify("nvjet_sm90_tst", &gate, "gpt2").type, KernelType::Matmul);
    OpCall rope = op_with_stack("aten::mul");
    rope.module_path = "layers.0.attn.rotary_emb";
    EXPECT_EQ(classify("vectorized_elementwise_kernel", &rope, "llama-7b-layers").type, KernelType::RotaryEmbedding);
    // "mlp" must be a whole component.
    rope.module_path = "layers.0.mlpx";
    EXPECT_EQ(classify("vectorized_elementwise_kernel", &rope, "llama-160m").type, std::nullopt);
}

TEST(Classification, ScopeWinsOverEverything) {
    const OpCall inside = op_with_stack("autokernel::rotary_embedding > aten::mm");
    const Classification c = classify("nvjet", &inside, "gpt2");
    EXPECT_EQ(c.type, KernelType::RotaryEmbedding);
    EXPECT_EQ(c.by, ClassifiedBy::Scope);
    EXPECT_EQ(classify_op("autokernel::fused_mlp"), KernelType::FusedMlp);
}

TEST(Classification, OpNames) {
    EXPECT_EQ(classify_op("aten::addmm"), KernelType::Matmul);
    EXPECT_EQ(classify_op("aten::_scaled_dot_product_cudnn_attention"), KernelType::FlashAttention);
    EXPECT_EQ(classify_op("autograd::engine::evaluate_function: ScaledDotProductEfficientAttentionBackward0"),
              KernelType::FlashAttention);
    EXPECT_EQ(classify_op("autograd::engine::evaluate_function: AddmmBackward0"), KernelType::Matmul);
    EXPECT_EQ(classify_op("aten::mean"), KernelType::Reduce);
    EXPECT_EQ(classify_op("aten::add"), std::nullopt);
    EXPECT_EQ(classify_op("addmm"), std::nullopt);  // only aten:: ops
    EXPECT_EQ(type_label(std::nullopt), "other");
}

}  // namespace
}  // namespace ak::profile
