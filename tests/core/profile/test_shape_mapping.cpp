// Shape mapping: one test per kernel type, from an op's recorded inputs to the type's problem shape.
#include "profile/shape_mapping.h"

#include <gtest/gtest.h>

namespace ak::profile {
namespace {

TensorArg t(std::vector<std::int64_t> sizes, std::string dtype = "bf16") { return {std::move(sizes), {}, std::move(dtype), {}}; }
TensorArg v(std::vector<double> values) { return {{}, {}, "", std::move(values)}; }
TensorArg none() { return {}; }

OpCall op(std::string name, std::vector<TensorArg> inputs) {
    OpCall o;
    o.name = std::move(name);
    o.inputs = std::move(inputs);
    o.stack = {o.name};
    return o;
}

Shape mapped(KernelType type, const OpCall& o) {
    const auto m = map_shape(type, o);
    return m ? m->shape : Shape{};
}

TEST(ShapeMapping, Matmul) {
    using enum KernelType;
    EXPECT_EQ(mapped(Matmul, op("aten::mm", {t({2048, 768}), t({768, 3072})})), (Shape{{2048, 3072, 768}}));
    EXPECT_EQ(mapped(Matmul, op("aten::addmm", {t({3072}), t({2048, 768}), t({768, 3072}), v({1}), v({1})})),
              (Shape{{2048, 3072, 768}}));
    // linear: weight [N, K], x [B, S, K] -> M = B*S
    EXPECT_EQ(mapped(Matmul, op("aten::linear", {t({4, 512, 768}), t({2304, 768}), t({2304})})),
              (Shape{{2048, 2304, 768}}));
    EXPECT_EQ(mapped(Matmul, op("aten::bmm", {t({48, 512, 64}), t({48, 64, 512})})), (Shape{{512, 512, 64}}));
    EXPECT_EQ(mapped(Matmul, op("aten::matmul", {t({4, 512, 768}), t({768, 50257})})), (Shape{{2048, 50257, 768}}));
    EXPECT_EQ(mapped(Matmul, op("aten::matmul", {t({4, 12, 512, 64}), t({4, 12, 64, 512})})), (Shape{{512, 512, 64}}));
    // K mismatch, too few dims, a non-float dtype: no shape
    EXPECT_FALSE(map_shape(Matmul, op("aten::mm", {t({16, 8}), t({9, 4})})));
    EXPECT_FALSE(map_shape(Matmul, op("aten::mm", {t({16})})));
    EXPECT_FALSE(map_shape(Matmul, op("aten::mm", {t({16, 8}, "int64"), t({8, 4}, "int64")})));
    EXPECT_FALSE(map_shape(Matmul, op("aten::add", {t({16, 8}), t({16, 8})})));
    EXPECT_EQ(map_shape(Matmul, op("aten::mm", {t({16, 8}, "fp32"), t({8, 4}, "fp32")}))->dtype, DType::fp32);
}

TEST(ShapeMapping, NormsSoftmaxCrossEntropy) {
    using enum KernelType;
    EXPECT_EQ(mapped(RmsNorm, op("aten::rms_norm", {t({4, 512, 2048}), v({2048}), t({2048}), v({1e-6})})),
              (Shape{{2048, 2048}}));
    EXPECT_EQ(mapped(RmsNorm, op("aten::_fused_rms_norm", {t({8, 1024, 4096})})), (Shape{{8192, 4096}}));
    EXPECT_EQ(mapped(LayerNorm, op("aten::native_layer_norm", {t({4, 512, 768}, "fp16"), v({768}), t({768}), t({768})})),
              (Shape{{2048, 768}}));
    EXPECT_EQ(mapped(LayerNorm, op("aten::layer_norm", {t({2048, 768})})), (Shape{{2048, 768}}));
    EXPECT_EQ(mapped(Softmax, op("aten::_softmax", {t({4, 12, 512, 512}), v({-1}), v({0})})), (Shape{{24576, 512}}));
    EXPECT_EQ(mapped(Softmax, op("aten::_softmax", {t({4, 12, 512, 512}), v({3}), v({0})})), (Shape{{24576, 512}}));
    EXPECT_FALSE(map_shape(Softmax, op("aten::_softmax", {t({4, 12, 512, 512}), v({1}), v({0})})));
    EXPECT_EQ(mapped(CrossEntropy, op("aten::cross_entropy_loss", {t({2048, 50257}, "fp32"), t({2048}, "int64")})),
              (Shape{{2048, 50257}}));
    EXPECT_EQ(mapped(CrossEntropy, op("aten::_log_softmax", {t({4, 512, 32000}), v({-1}), v({0})})),
              (Shape{{2048, 32000}}));
}

TEST(ShapeMapping, Attention) {
    using enum KernelType;
    // SDPA: q [B, H, S, D]; is_causal is argument 5
    EXPECT_EQ(mapped(FlashAttention, op("aten::scaled_dot_product_attention",
                                        {t({4, 12, 512, 64}), t({4, 12, 512, 64}), t({4, 12, 512, 64}), none(), v({0}),
                                         v({1}), none()})),
              (Shape{{4, 12, 512, 64, 1}}));
    EXPECT_EQ(mapped(FlashAttention, op("aten::scaled_dot_product_attention",
                                        {t({4, 12, 512, 64}), t({4, 12, 512, 64}), t({4, 12, 512, 64}), none(), v({0}), v({0})})),
              (Shape{{4, 12, 512, 64, 0}}));
    // not recorded: not causal
    EXPECT_EQ(mapped(FlashAttention, op("aten::scaled_dot_product_attention", {t({1, 8, 128, 128})})),
              (Shape{{1, 8, 128, 128, 0}}));
    // _scaled_dot_product_flash_attention: is_causal is argument 4
    EXPECT_EQ(mapped(FlashAttention, op("aten::_scaled_dot_product_flash_attention",
                                        {t({2, 32, 1024, 64}), t({2, 8, 1024, 64}), t({2, 8, 1024, 64}), v({0}), v({1})})),
              (Shape{{2, 32, 1024, 64, 1}}));
    // _flash_attention_forward: q [B, S, H, D], is_causal argument 8
    EXPECT_EQ(mapped(FlashAttention, op("aten::_flash_attention_forward",
                                        {t({2, 1024, 32, 64}), t({2, 1024, 8, 64}), t({2, 1024, 8, 64}), none(), none(),
                                         v({1024}), v({1024}), v({0}), v({1})})),
              (Shape{{2, 32, 1024, 64, 1}}));
    // _efficient_attention_forward: custom_mask_type (argument 9) 1 = causal
    std::vector<TensorArg> eff{t({2, 1024, 32, 64}), t({2, 1024, 32, 64}), t({2, 1024, 32, 64})};
    for (int i = 0; i < 5; ++i) eff.push_back(none());
    eff.push_back(v({0}));
    eff.push_back(v({1}));
    EXPECT_EQ(mapped(FlashAttention, op("aten::_efficient_attention_forward", eff)), (Shape{{2, 32, 1024, 64, 1}}));
    EXPECT_FALSE(map_shape(FlashAttention, op("aten::scaled_dot_product_attention", {t({12, 512, 64})})));
}

TEST(ShapeMapping, ReduceFusedMlpRotary) {
    using enum KernelType;
    EXPECT_EQ(mapped(Reduce, op("aten::sum", {t({4, 512, 768}), v({-1}), v({0}), none()})), (Shape{{2048, 768}}));
    EXPECT_EQ(mapped(Reduce, op("aten::mean", {t({4, 512, 768}), v({1}), v({1})})), (Shape{{3072, 512}}));
    EXPECT_EQ(mapped(Reduce, op("aten::sum", {t({4, 512}, "fp32"), none()})), (Shape{{1, 2048}}));
    EXPECT_FALSE(map_shape(Reduce, op("aten::sum", {t({4, 512, 768}), v({0, 1})})));
    // fused_mlp from any GEMM of the MLP: M rows, D = smaller, F = larger dim
    EXPECT_EQ(mapped(FusedMlp, op("aten::linear", {t({4, 512, 2048}), t({5632, 2048})})), (Shape{{2048, 2048, 5632}}));
    EXPECT_EQ(mapped(FusedMlp, op("aten::linear", {t({4, 512, 5632}), t({2048, 5632})})), (Shape{{2048, 2048, 5632}}));
    EXPECT_FALSE(map_shape(FusedMlp, op("aten::silu", {t({4, 512, 5632})})));
    EXPECT_EQ(mapped(RotaryEmbedding, op("aten::mul", {t({4, 32, 512, 64}), t({512, 64})})), (Shape{{4, 32, 512, 64}}));
    EXPECT_FALSE(map_shape(RotaryEmbedding, op("aten::mul", {t({4, 32, 512, 63})})));  // odd head_dim
}

TEST(ShapeMapping, InputShapesText) {
    EXPECT_EQ(input_shapes_text(op("aten::addmm", {t({3072}), t({2048, 768}), t({768, 3072}), v({1})})),
              "[3072] x [2048,768] x [768,3072] bf16");
    EXPECT_EQ(input_shapes_text(op("aten::relu", {})), "");
}

}  // namespace
}  // namespace ak::profile
