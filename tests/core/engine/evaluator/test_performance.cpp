#include "engine/evaluator/performance.h"

#include "util/error.h"

#include <gtest/gtest.h>

namespace ak::eval {
namespace {

std::optional<GpuSpec> h200() { return find_gpu_spec("NVIDIA H200", 9, 0); }

TEST(Performance, MemoryBoundKernelsAreJudgedAgainstTheCopyCeiling) {
    ASSERT_TRUE(h200());
    TimingRecord row;
    row.shape = Shape{{4096, 8192}};
    row.dtype = DType::bf16;
    row.median_us = 40.2;
    row.baseline_median_us = 57.2;
    fill_performance(row, KernelType::RmsNorm, h200(), 3705, 700);
    const double bytes = min_bytes(KernelType::RmsNorm, row.shape, DType::bf16);
    EXPECT_DOUBLE_EQ(row.gb_s, bytes / 40.2e-6 / 1e9);
    EXPECT_EQ(row.bound, "memory");
    ASSERT_TRUE(row.pct_copy_ceiling);
    EXPECT_NEAR(*row.pct_copy_ceiling, 100.0 * row.gb_s / 3705, 1e-9);
    EXPECT_FALSE(row.pct_gemm_ceiling);
    EXPECT_NEAR(row.speedup, 57.2 / 40.2, 1e-12);
    // % of the datasheet's 4.8 TB/s.
    EXPECT_NEAR(row.pct_peak, 100.0 * row.gb_s / h200()->bandwidth_gb_s, 0.5);
}

TEST(Performance, ComputeBoundKernelsAreJudgedAgainstTheGemmCeiling) {
    TimingRecord row;
    row.shape = Shape{{4096, 11008, 4096}};
    row.dtype = DType::fp16;
    row.median_us = 590.8;
    fill_performance(row, KernelType::Matmul, h200(), 4000, 665);
    EXPECT_NEAR(row.tflops, 2.0 * 4096 * 11008 * 4096 / 590.8e-6 / 1e12, 1e-9);
    EXPECT_EQ(row.bound, "compute");
    ASSERT_TRUE(row.pct_gemm_ceiling);
    EXPECT_NEAR(*row.pct_gemm_ceiling, 100.0 * row.tflops / 665, 1e-9);
    EXPECT_FALSE(row.pct_copy_ceiling);
    EXPECT_EQ(row.speedup, 0);  // no baseline given
}

TEST(Performance, WithoutASpecTheTypesExpectationDecidesTheBound) {
    TimingRecord row;
    row.shape = Shape{{4096, 4096}};
    row.dtype = DType::fp16;
    row.median_us = 25;
    fill_performance(row, KernelType::Softmax, std::nullopt, 0, 0);
    EXPECT_EQ(row.bound, "memory");
    EXPECT_EQ(row.pct_peak, 0);
    EXPECT_FALSE(row.pct_copy_ceiling);  // no measured ceiling given
    EXPECT_TRUE(memory_bound(row, KernelType::Softmax, std::nullopt));
}

TEST(Performance, RejectsRowsWithoutAPositiveMedian) {
    TimingRecord row;
    row.shape = Shape{{64, 64}};
    EXPECT_THROW(fill_performance(row, KernelType::Reduce, h200(), 1, 1), Error);
}

}  // namespace
}  // namespace ak::eval
