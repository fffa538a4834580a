#include "analysis/gpu_specs.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <set>

namespace ak {
namespace {

TEST(GpuSpecs, H100SxmDriverNameIsAnExactMatchWithDenseNumbers) {
    const auto spec = find_gpu_spec("NVIDIA H100 80GB HBM3", 9, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::exact);
    EXPECT_FALSE(spec->approximate());
    EXPECT_TRUE(spec->match_note.empty());
    EXPECT_EQ(spec->model, "H100 SXM5 80GB");
    EXPECT_EQ(spec->sm_count, 132);
    EXPECT_DOUBLE_EQ(spec->bandwidth_gb_s, 3350);
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::bf16), 989.4);  // dense, not the 1979 sparsity figure
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::fp16), 989.4);
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::tf32), 494.7);
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::fp8), 1978.9);
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::fp32), 66.9);
}

TEST(GpuSpecs, H200IsItsOwnEntryNotAnH100Fallback) {
    const auto spec = find_gpu_spec("NVIDIA H200", 9, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::exact);
    EXPECT_EQ(spec->name, "NVIDIA H200");
    EXPECT_EQ(spec->model, "H200 SXM 141GB");
    EXPECT_DOUBLE_EQ(spec->bandwidth_gb_s, 4800);
    EXPECT_DOUBLE_EQ(spec->memory_gb, 141);
    EXPECT_DOUBLE_EQ(spec->peak_tflops(DType::bf16), 989.4);
    EXPECT_EQ(spec->sm_count, 132);
}

TEST(GpuSpecs, EveryDriverNameFromTheBriefIsKnownExactly) {
    for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200",
                             "NVIDIA H200 NVL", "NVIDIA B200", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB",
                             "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA L40S", "NVIDIA L4",
                             "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090", "NVIDIA A10",
                             "NVIDIA RTX 6000 Ada Generation"}) {
        const auto spec = find_gpu_spec(name, 0, 0);
        ASSERT_TRUE(spec.has_value()) << name;
        EXPECT_EQ(spec->match, GpuMatch::exact) << name;
        EXPECT_EQ(spec->name, name);
    }
}

TEST(GpuSpecs, SimilarNamesPickTheirOwnVariant) {
    EXPECT_EQ(find_gpu_spec("NVIDIA H100 PCIe", 9, 0)->sm_count, 114);
    EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA H100 NVL", 9, 0)->bandwidth_gb_s, 3900);
    EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA A100-SXM4-40GB", 8, 0)->bandwidth_gb_s, 1555);
    EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA A100-SXM4-80GB", 8, 0)->bandwidth_gb_s, 2039);
    EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA A100 80GB PCIe", 8, 0)->bandwidth_gb_s, 1935);
    // "A10" must not be mistaken for "A100" and vice versa.
    EXPECT_EQ(find_gpu_spec("NVIDIA A10", 8, 6)->sm_count, 72);
    EXPECT_EQ(find_gpu_spec("NVIDIA L4", 8, 9)->model, "L4");
    EXPECT_EQ(find_gpu_spec("NVIDIA L40S", 8, 9)->model, "L40S");
}

TEST(GpuSpecs, LookupIgnoresCaseAndSurroundingSpaces) {
    const auto spec = find_gpu_spec("  nvidia h200 \n", 9, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::exact);
    EXPECT_EQ(spec->name, "NVIDIA H200");
}

TEST(GpuSpecs, UnknownHopperNameIsAnApproximateMatchByComputeCapability) {
    const auto spec = find_gpu_spec("NVIDIA H20", 9, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::by_compute_capability);
    EXPECT_TRUE(spec->approximate());
    EXPECT_EQ(spec->queried_name, "NVIDIA H20");
    EXPECT_EQ(spec->cc_major, 9);
    EXPECT_NE(spec->match_note.find("'NVIDIA H20' is not in the GPU table"), std::string::npos) << spec->match_note;
    EXPECT_NE(spec->match_note.find("approximate"), std::string::npos);
    EXPECT_NE(spec->match_note.find("9.0"), std::string::npos);
}

TEST(GpuSpecs, UnknownNameWithAKnownModelWordIsAnApproximateKeywordMatch) {
    const auto spec = find_gpu_spec("NVIDIA H100 PCIe 96GB", 9, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::by_name_keyword);
    EXPECT_TRUE(spec->approximate());
    EXPECT_EQ(spec->name, "NVIDIA H100 PCIe");
    EXPECT_NE(spec->match_note.find("approximate"), std::string::npos);

    const auto h200 = find_gpu_spec("NVIDIA H200 141GB HBM3e", 9, 0);
    ASSERT_TRUE(h200.has_value());
    EXPECT_EQ(h200->match, GpuMatch::by_name_keyword);
    EXPECT_EQ(h200->name, "NVIDIA H200");
}

TEST(GpuSpecs, KeywordsMatchWholeWordsOnly) {
    // "A10G" is not an "A10" by keyword (nor an "A100"); it falls back to its compute capability.
    const auto spec = find_gpu_spec("NVIDIA A10G", 8, 6);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::by_compute_capability);
    EXPECT_EQ(spec->name, "NVIDIA A10");
    // "GH200" does not contain the word "H200".
    const auto gh = find_gpu_spec("NVIDIA GH200 480GB", 9, 0);
    ASSERT_TRUE(gh.has_value());
    EXPECT_EQ(gh->match, GpuMatch::by_compute_capability);
}

TEST(GpuSpecs, KeywordWithContradictingComputeCapabilityIsNotTrusted) {
    const auto spec = find_gpu_spec("Some H100 lookalike", 8, 0);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->match, GpuMatch::by_compute_capability);
    EXPECT_EQ(spec->cc_major, 8);
    EXPECT_EQ(spec->name, "NVIDIA A100-SXM4-80GB");
}

TEST(GpuSpecs, UnknownGenerationGivesNoNumbersRatherThanWrongOnes) {
    EXPECT_FALSE(find_gpu_spec("NVIDIA Future GPU", 42, 0).has_value());
    EXPECT_FALSE(find_gpu_spec("Mystery Accelerator", 0, 0).has_value());
}

TEST(GpuSpecs, MissingUnitThrowsNamingTheGpuAndType) {
    const auto a100 = find_gpu_spec("NVIDIA A100-SXM4-80GB", 8, 0);
    ASSERT_TRUE(a100.has_value());
    EXPECT_FALSE(a100->supports(DType::fp8));
    EXPECT_TRUE(a100->supports(DType::bf16));
    try {
        a100->peak_tflops(DType::fp8);
        FAIL() << "A100 has no fp8 tensor cores";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find("A100 SXM4 80GB has no fp8"), std::string::npos) << e.what();
    }
}

TEST(GpuSpecs, TableIsConsistent) {
    std::set<std::string> names;
    for (const GpuSpec& s : known_gpu_specs()) {
        SCOPED_TRACE(s.name);
        EXPECT_TRUE(names.insert(s.name).second) << "duplicate entry";
        EXPECT_GT(s.sm_count, 0);
        EXPECT_GT(s.bandwidth_gb_s, 0);
        EXPECT_GT(s.l2_mb, 0);
        EXPECT_FALSE(s.source.empty());
        ASSERT_TRUE(s.fp32_tflops.has_value());
        // Tensor-core rates grow as the type narrows: tf32 < fp16 == bf16 < fp8.
        if (s.tf32_tflops && s.fp16_tflops) { EXPECT_LT(*s.tf32_tflops, *s.fp16_tflops); }
        if (s.fp16_tflops && s.bf16_tflops) { EXPECT_DOUBLE_EQ(*s.fp16_tflops, *s.bf16_tflops); }
        if (s.fp8_tflops && s.fp16_tflops) { EXPECT_NEAR(*s.fp8_tflops / *s.fp16_tflops, 2.0, 0.05); }
        // Every entry finds itself exactly.
        const auto self = find_gpu_spec(s.name, s.cc_major, s.cc_minor);
        ASSERT_TRUE(self.has_value());
        EXPECT_EQ(self->match, GpuMatch::exact);
    }
}

TEST(DType, NamesRoundTrip) {
    for (DType t : {DType::fp32, DType::tf32, DType::fp16, DType::bf16, DType::fp8})
        EXPECT_EQ(parse_dtype(to_string(t)), t);
    EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
    EXPECT_FALSE(parse_dtype("int8").has_value());
}

}  // namespace
}  // namespace ak
