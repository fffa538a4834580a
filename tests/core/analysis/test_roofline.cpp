#include "analysis/roofline.h"

#include "util/error.h"

#include <gtest/gtest.h>

namespace ak {
namespace {

GpuSpec h200() {
    auto spec = find_gpu_spec("NVIDIA H200", 9, 0);
    if (!spec) throw std::runtime_error("H200 missing from the table");
    return *spec;
}

TEST(Roofline, ArithmeticIntensityIsFlopsPerByte) {
    EXPECT_DOUBLE_EQ(arithmetic_intensity(1e9, 4e9), 0.25);
    EXPECT_DOUBLE_EQ(arithmetic_intensity(0, 100), 0.0);
}

TEST(Roofline, ArithmeticIntensityRejectsZeroBytesAndNegativeFlops) {
    EXPECT_THROW(arithmetic_intensity(1e9, 0), Error);
    EXPECT_THROW(arithmetic_intensity(-1, 10), Error);
}

TEST(Roofline, H200Bf16RidgeIs206FlopPerByte) {
    const Ceilings c = datasheet_ceilings(h200(), DType::bf16);
    EXPECT_DOUBLE_EQ(c.peak_tflops, 989.4);
    EXPECT_DOUBLE_EQ(c.bandwidth_gb_s, 4800);
    EXPECT_DOUBLE_EQ(ridge_point(c), 206.125);  // 989.4e12 / 4.8e12
}

TEST(Roofline, AttainableIsTheLowerRoof) {
    const Ceilings c{989.4, 4800, "test"};
    EXPECT_DOUBLE_EQ(attainable_tflops(1.0, c), 4.8);        // on the bandwidth slope
    EXPECT_DOUBLE_EQ(attainable_tflops(100.0, c), 480.0);
    EXPECT_DOUBLE_EQ(attainable_tflops(1000.0, c), 989.4);   // under the flat compute roof
}

TEST(Roofline, LowIntensityKernelIsMemoryBoundAndJudgedOnBandwidth) {
    // 1 GFLOP over 1 GB in 1 ms: 1 TFLOP/s and 1000 GB/s.
    const RooflinePoint p = roofline_point(1e9, 1e9, 1e-3, Ceilings{989.4, 4800, "test"});
    EXPECT_DOUBLE_EQ(p.intensity, 1.0);
    EXPECT_TRUE(p.memory_bound);
    EXPECT_DOUBLE_EQ(p.achieved_gb_s, 1000.0);
    EXPECT_DOUBLE_EQ(p.achieved_tflops, 1.0);
    EXPECT_DOUBLE_EQ(p.attainable_tflops, 4.8);
    EXPECT_NEAR(p.pct_peak, 100.0 * 1000.0 / 4800.0, 1e-12);  // 20.83 %, not 1/989 of compute
}

TEST(Roofline, LargeGemmIsComputeBoundAndJudgedOnFlops) {
    // bf16 GEMM 8192^3: 2*8192^3 FLOP, three 8192^2 bf16 matrices moved, 1.5 ms.
    const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
    const double bytes = 3.0 * 8192.0 * 8192.0 * 2.0;
    const RooflinePoint p = roofline_point(flops, bytes, 1.5e-3, datasheet_ceilings(h200(), DType::bf16));
    EXPECT_NEAR(p.intensity, 2730.6666666666665, 1e-9);
    EXPECT_FALSE(p.memory_bound);
    EXPECT_NEAR(p.achieved_tflops, 733.0077518506666, 1e-9);
    EXPECT_DOUBLE_EQ(p.attainable_tflops, 989.4);
    EXPECT_NEAR(p.pct_peak, 74.08608771484401, 1e-9);
}

TEST(Roofline, RejectsNonPositiveTimeAndRoofs) {
    EXPECT_THROW(roofline_point(1, 1, 0, Ceilings{1, 1, ""}), Error);
    EXPECT_THROW(roofline_point(1, 1, 1, Ceilings{0, 1, ""}), Error);
    EXPECT_THROW(ridge_point(Ceilings{1, 0, ""}), Error);
}

TEST(MeasuredCeilings, CopyBandwidthInterpolatesOnLogSizeAndClampsAtTheEnds) {
    MeasuredCeilings m;
    EXPECT_FALSE(measured_copy_gb_s(m, 1000).has_value());
    m.copy_gb_s = {{1'000'000, 1000.0}, {100'000'000, 3000.0}};
    EXPECT_DOUBLE_EQ(*measured_copy_gb_s(m, 1'000'000), 1000.0);
    EXPECT_NEAR(*measured_copy_gb_s(m, 10'000'000), 2000.0, 1e-9);  // halfway on a log scale
    EXPECT_DOUBLE_EQ(*measured_copy_gb_s(m, 10), 1000.0);
    EXPECT_DOUBLE_EQ(*measured_copy_gb_s(m, 1'000'000'000), 3000.0);
}

TEST(MeasuredCeilings, MeasuredRoofsReplaceDatasheetOnesWhereMeasured) {
    MeasuredCeilings m;
    m.copy_gb_s = {{134'217'728, 3705.0}, {4'294'967'296ULL, 4257.0}};
    m.gemm_tflops = {{DType::bf16, 721.0}};
    const Ceilings bf16 = ceilings_for(h200(), DType::bf16, m, 134'217'728);
    EXPECT_DOUBLE_EQ(bf16.peak_tflops, 721.0);
    EXPECT_DOUBLE_EQ(bf16.bandwidth_gb_s, 3705.0);
    EXPECT_NE(bf16.source.find("measured bf16 GEMM"), std::string::npos) << bf16.source;
    EXPECT_NE(bf16.source.find("measured copy of 134.218 MB"), std::string::npos) << bf16.source;

    // No fp8 GEMM measured: the datasheet peak stays.
    const Ceilings fp8 = ceilings_for(h200(), DType::fp8, m, 134'217'728);
    EXPECT_DOUBLE_EQ(fp8.peak_tflops, 1978.9);
    EXPECT_NE(fp8.source.find("datasheet fp8 peak"), std::string::npos) << fp8.source;

    const Ceilings none = ceilings_for(h200(), DType::fp16, MeasuredCeilings{}, 1000);
    EXPECT_DOUBLE_EQ(none.bandwidth_gb_s, 4800);
    EXPECT_DOUBLE_EQ(none.peak_tflops, 989.4);
}

}  // namespace
}  // namespace ak
