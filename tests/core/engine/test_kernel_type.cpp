#include "engine/kernel_type.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <set>

using namespace ak;

TEST(KernelType, NamesRoundTripForAllNineTypes) {
    ASSERT_EQ(all_kernel_types().size(), 9u);
    std::set<std::string_view> names;
    for (auto t : all_kernel_types()) {
        names.insert(to_string(t));
        EXPECT_EQ(parse_kernel_type(to_string(t)), t);
        EXPECT_EQ(kernel_type_info(t).type, t);
    }
    EXPECT_EQ(names.size(), 9u);
    EXPECT_EQ(to_string(KernelType::FlashAttention), "flash_attention");
    EXPECT_EQ(to_string(KernelType::RotaryEmbedding), "rotary_embedding");
}

TEST(KernelType, AcceptsRotaryAliasAndRejectsUnknownNames) {
    EXPECT_EQ(parse_kernel_type("rotary"), KernelType::RotaryEmbedding);
    EXPECT_FALSE(parse_kernel_type("Matmul"));
    EXPECT_FALSE(parse_kernel_type("gemm"));
    EXPECT_FALSE(parse_kernel_type(""));
}

TEST(KernelType, KernelDtypesAreTheThreeCheckedOnes) {
    ASSERT_EQ(kernel_dtypes().size(), 3u);
    EXPECT_EQ(parse_kernel_dtype("bf16"), DType::bf16);
    EXPECT_EQ(parse_kernel_dtype("half"), DType::fp16);
    EXPECT_FALSE(parse_kernel_dtype("tf32"));
    EXPECT_FALSE(parse_kernel_dtype("fp8"));
    EXPECT_EQ(dtype_bytes(DType::bf16), 2);
    EXPECT_EQ(dtype_bytes(DType::fp32), 4);
}

TEST(KernelType, TolerancesFollowTheIssue) {
    EXPECT_DOUBLE_EQ(default_tolerance(DType::fp16), 1e-2);
    EXPECT_DOUBLE_EQ(default_tolerance(DType::bf16), 2e-2);
    EXPECT_DOUBLE_EQ(default_tolerance(DType::fp32), 1e-4);
    EXPECT_THROW(default_tolerance(DType::tf32), Error);
}

TEST(KernelType, LargeSizesAreAutoKernels) {
    EXPECT_EQ(to_string(kernel_type_info(KernelType::Matmul).large), "2048x2048x2048");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::Matmul).larger), "4096x11008x4096");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::Softmax).larger), "4096x50257");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::LayerNorm).large), "4096x2048");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::RmsNorm).larger), "4096x8192");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::FlashAttention).large), "2x32x1024x64 causal");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::FlashAttention).larger), "1x32x4096x64 causal");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::FusedMlp).large), "2048x2048x5504");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::CrossEntropy).larger), "8192x50257");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::RotaryEmbedding).large), "2x32x1024x128");
    EXPECT_EQ(to_string(kernel_type_info(KernelType::Reduce).large), "8192x8192");
}

TEST(KernelType, EverySizeSetIsValidAndEdgeSizesAreNotPowersOfTwo) {
    auto is_pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
    for (auto t : all_kernel_types()) {
        const auto& info = kernel_type_info(t);
        SCOPED_TRACE(std::string(info.name));
        EXPECT_NO_THROW(check_shape(t, info.smoke));
        EXPECT_NO_THROW(check_shape(t, info.large));
        EXPECT_NO_THROW(check_shape(t, info.larger));
        EXPECT_GE(info.sweep.size(), 3u);
        for (const auto& s : info.sweep) EXPECT_NO_THROW(check_shape(t, s));
        ASSERT_GE(info.edge.size(), 2u);
        for (const auto& s : info.edge) {
            EXPECT_NO_THROW(check_shape(t, s));
            bool any_odd_size = false;
            for (std::size_t i = 0; i < s.dims.size() && i < 4; ++i) any_odd_size |= !is_pow2(s.dims[i]) && s.dims[i] > 1;
            EXPECT_TRUE(any_odd_size) << to_string(s);
        }
    }
}

TEST(KernelType, AttentionSetsMixCausalAndNonCausal) {
    const auto& info = kernel_type_info(KernelType::FlashAttention);
    std::set<int64_t> flags, head_dims;
    for (const auto& s : info.sweep) flags.insert(s.dims[4]);
    for (const auto& s : info.edge) {
        head_dims.insert(s.dims[3]);
        if (s.dims[2] == 1023) flags.insert(s.dims[4]);
    }
    EXPECT_EQ(flags, (std::set<int64_t>{0, 1}));
    EXPECT_TRUE(head_dims.count(64) && head_dims.count(128));
}

TEST(ParseShape, ParsesRowsByCols) {
    EXPECT_EQ(parse_shape(KernelType::RmsNorm, "4096x8192"), (Shape{{4096, 8192}}));
    EXPECT_EQ(parse_shape(KernelType::Matmul, " 1537x1023x4097 "), (Shape{{1537, 1023, 4097}}));
}

TEST(ParseShape, AttentionCausalFlagForms) {
    const Shape causal{{2, 32, 1024, 64, 1}};
    const Shape plain{{2, 32, 1024, 64, 0}};
    EXPECT_EQ(parse_shape(KernelType::FlashAttention, "2x32x1024x64 causal"), causal);
    EXPECT_EQ(parse_shape(KernelType::FlashAttention, "2x32x1024x64:causal"), causal);
    EXPECT_EQ(parse_shape(KernelType::FlashAttention, "2x32x1024x64x1"), causal);
    EXPECT_EQ(parse_shape(KernelType::FlashAttention, "2x32x1024x64"), plain);
    EXPECT_EQ(parse_shape(KernelType::FlashAttention, "2x32x1024x64 noncausal"), plain);
    EXPECT_THROW(parse_shape(KernelType::FlashAttention, "2x32x1024x64 sideways"), Error);
    EXPECT_THROW(parse_shape(KernelType::FlashAttention, "2x32x1024x64x0 causal"), Error);
}

TEST(ParseShape, FormatThenParseIsIdentityForEveryDefaultShape) {
    for (auto t : all_kernel_types()) {
        const auto& info = kernel_type_info(t);
        for (const auto& s : info.edge) EXPECT_EQ(parse_shape(t, to_string(s)), s);
        EXPECT_EQ(parse_shape(t, to_string(info.large)), info.large);
        EXPECT_EQ(parse_shape(t, to_string(info.sweep.front())), info.sweep.front());
    }
}

TEST(ParseShape, ErrorsNameTheProblem) {
    auto message = [](KernelType t, const char* text) {
        try {
            parse_shape(t, text);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(KernelType::Softmax, "4096x").find("not a whole number"), std::string::npos);
    EXPECT_NE(message(KernelType::Softmax, "4096x8192x2").find("expected 2 dimensions (rowsxcols)"), std::string::npos);
    EXPECT_NE(message(KernelType::Softmax, "0x8192").find("rows must be positive"), std::string::npos);
    EXPECT_NE(message(KernelType::RotaryEmbedding, "1x2x128x63").find("head_dim must be even"), std::string::npos);
    EXPECT_NE(message(KernelType::Reduce, "65536x65536").find("2^31"), std::string::npos);
    EXPECT_NE(message(KernelType::Reduce, "").find("empty shape"), std::string::npos);
}

TEST(ParseShape, ListSplitsOnCommas) {
    const auto shapes = parse_shape_list(KernelType::Softmax, "4096x4096, 4096x50257");
    ASSERT_EQ(shapes.size(), 2u);
    EXPECT_EQ(shapes[1], (Shape{{4096, 50257}}));
    EXPECT_THROW(parse_shape_list(KernelType::Softmax, "4096x4096,,1x1"), Error);
}

TEST(FlopCount, MatmulIsTwoMNK) {
    EXPECT_DOUBLE_EQ(flop_count(KernelType::Matmul, Shape{{2048, 2048, 2048}}), 2.0 * 2048 * 2048 * 2048);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::Matmul, Shape{{4096, 11008, 4096}}), 2.0 * 4096 * 11008 * 4096);
}

TEST(FlopCount, CausalAttentionIsHalfOfFull) {
    const double full = flop_count(KernelType::FlashAttention, Shape{{2, 32, 1024, 64, 0}});
    EXPECT_DOUBLE_EQ(full, 4.0 * 2 * 32 * 1024.0 * 1024 * 64);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::FlashAttention, Shape{{2, 32, 1024, 64, 1}}), full / 2);
}

TEST(FlopCount, FusedMlpCountsThreeGemmsAndTheActivation) {
    const double m = 2048, d = 2048, f = 5504;
    EXPECT_DOUBLE_EQ(flop_count(KernelType::FusedMlp, Shape{{2048, 2048, 5504}}), 6 * m * d * f + 5 * m * f);
}

TEST(FlopCount, MemoryBoundTypesCountElementwiseWork) {
    EXPECT_DOUBLE_EQ(flop_count(KernelType::Reduce, Shape{{8192, 8192}}), 8192.0 * 8192);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::Softmax, Shape{{10, 100}}), 5000);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::RmsNorm, Shape{{10, 100}}), 4000);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::LayerNorm, Shape{{10, 100}}), 8000);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::CrossEntropy, Shape{{10, 100}}), 4000 + 30);
    EXPECT_DOUBLE_EQ(flop_count(KernelType::RotaryEmbedding, Shape{{1, 2, 3, 4}}), 3 * 24);
}

TEST(MinBytes, EachInputReadOnceEachOutputWrittenOnce) {
    // rmsnorm bf16 4096x8192: x and y, plus the weight row (the anchors' 134 MB copy).
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::RmsNorm, Shape{{4096, 8192}}, DType::bf16), 2.0 * (2.0 * 4096 * 8192 + 8192));
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::Matmul, Shape{{10, 20, 30}}, DType::fp32), 4.0 * (10 * 30 + 30 * 20 + 10 * 20));
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::LayerNorm, Shape{{10, 100}}, DType::fp16), 2.0 * (2000 + 200));
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::Softmax, Shape{{10, 100}}, DType::fp16), 2.0 * 2000);
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::Reduce, Shape{{10, 100}}, DType::fp32), 4.0 * (1000 + 10));
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::FlashAttention, Shape{{1, 2, 3, 4, 1}}, DType::fp16), 2.0 * 4 * 24);
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::FusedMlp, Shape{{8, 16, 32}}, DType::bf16), 2.0 * (2 * 8 * 16 + 3 * 16 * 32));
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::RotaryEmbedding, Shape{{1, 2, 3, 4}}, DType::fp16), 2.0 * (2 * 24 + 3 * 4));
}

TEST(MinBytes, CrossEntropyReadsInt64TargetsAndWritesOneFloat) {
    EXPECT_DOUBLE_EQ(min_bytes(KernelType::CrossEntropy, Shape{{4096, 32000}}, DType::fp16),
                     2.0 * 4096 * 32000 + 8.0 * 4096 + 4);
    // Targets do not scale with the logits' dtype.
    const double fp32 = min_bytes(KernelType::CrossEntropy, Shape{{10, 100}}, DType::fp32);
    const double fp16 = min_bytes(KernelType::CrossEntropy, Shape{{10, 100}}, DType::fp16);
    EXPECT_DOUBLE_EQ(fp32 - fp16, 2.0 * 1000);
}

TEST(MinBytes, RejectsShapesOfTheWrongType) {
    EXPECT_THROW(min_bytes(KernelType::Matmul, Shape{{10, 20}}, DType::fp16), Error);
    EXPECT_THROW(flop_count(KernelType::FlashAttention, Shape{{1, 2, 3, 4, 2}}), Error);
}
