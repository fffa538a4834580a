#include "engine/evaluator/plausibility.h"

#include "engine/kernel_type.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak::eval {
namespace {

// rmsnorm 4096 x 4096 fp16 on an H200: 67.1 MB of minimum traffic.
PlausibilityInput rmsnorm_h200(double median_us) {
    PlausibilityInput in;
    const Shape s{{4096, 4096}};
    in.median_us = median_us;
    in.iqr_us = 0.2;
    in.bytes = min_bytes(KernelType::RmsNorm, s, DType::fp16);
    in.flops = flop_count(KernelType::RmsNorm, s);
    in.measured_copy_gb_s = 3705;
    in.measured_gemm_tflops = 665;
    in.datasheet_gb_s = 4800;
    in.datasheet_tflops = 989.4;
    return in;
}

TEST(Plausibility, TheReportedImpossibleRmsNormFailsWithANamedReason) {
    // The case that started this: PASS at 7.9 us, about 8.5 TB/s.
    const auto r = check_plausibility(rmsnorm_h200(7.9));
    EXPECT_FALSE(r.plausible);
    EXPECT_NEAR(r.achieved_gb_s, 8495.8, 1);
    EXPECT_NE(r.reason.find("faster than physically possible"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("8.50 TB/s"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("copy of the same bytes"), std::string::npos) << r.reason;
    ASSERT_TRUE(r.bound_gb_s);
    EXPECT_LT(*r.bound_gb_s, 4800 * 1.05 * 1.1);
}

TEST(Plausibility, AGoodKernelNearTheCopyCeilingPasses) {
    // 23.0 us (the demo session's best) is 2.9 TB/s, 79 % of the copy; even 100 % of the copy passes.
    EXPECT_TRUE(check_plausibility(rmsnorm_h200(23.0)).plausible);
    const double at_copy_us = rmsnorm_h200(1).bytes / 3705e9 * 1e6;
    EXPECT_TRUE(check_plausibility(rmsnorm_h200(at_copy_us)).plausible);
    // 1.2x the copy is still within the 1.25x margin, 1.3x is not.
    EXPECT_TRUE(check_plausibility(rmsnorm_h200(at_copy_us / 1.2)).plausible);
    auto fast = rmsnorm_h200(at_copy_us / 1.3);
    fast.iqr_us = 0;
    EXPECT_FALSE(check_plausibility(fast).plausible);
}

TEST(Plausibility, TheBoundIsTheLowerOfMeasuredAndDatasheetRoofs) {
    auto in = rmsnorm_h200(10);
    in.iqr_us = 0;
    auto r = check_plausibility(in);
    ASSERT_TRUE(r.bound_gb_s);
    EXPECT_NEAR(*r.bound_gb_s, 1.25 * 3705, 1e-6);  // 4631 < 1.05 x 4800 = 5040
    in.measured_copy_gb_s = 4200;                   // 5250 > 5040: the datasheet bounds it
    r = check_plausibility(in);
    EXPECT_NEAR(*r.bound_gb_s, 1.05 * 4800, 1e-6);
    in.measured_copy_gb_s.reset();
    in.datasheet_gb_s.reset();
    r = check_plausibility(in);
    EXPECT_FALSE(r.bound_gb_s);
    EXPECT_NE(r.note.find("memory"), std::string::npos) << "an unchecked roof is said, not passed silently";
}

TEST(Plausibility, NoiseWidensTheBoundByTheRelativeSpread) {
    auto in = rmsnorm_h200(13.5);  // 4.97 TB/s: above 1.25 x copy = 4.63
    in.iqr_us = 0;
    EXPECT_FALSE(check_plausibility(in).plausible);
    in.iqr_us = 13.5 * 0.1;  // +10 %: 5.09 TB/s bound
    EXPECT_TRUE(check_plausibility(in).plausible);
}

TEST(Plausibility, ComputeBoundKernelsAreJudgedAgainstTheGemmRoof) {
    // matmul 4096^3 fp16 at 30 us would be 4.6 PFLOP/s: a cached result, not a GEMM.
    PlausibilityInput in;
    const Shape s{{4096, 4096, 4096}};
    in.flops = flop_count(KernelType::Matmul, s);
    in.bytes = min_bytes(KernelType::Matmul, s, DType::fp16);
    in.measured_gemm_tflops = 665;
    in.datasheet_tflops = 989.4;
    in.measured_copy_gb_s = 3705;
    in.datasheet_gb_s = 4800;
    in.median_us = 30;
    auto r = check_plausibility(in);
    EXPECT_FALSE(r.plausible);
    EXPECT_NE(r.reason.find("PFLOP/s"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("vendor GEMM"), std::string::npos) << r.reason;
    // cuBLAS-class (665 TFLOP/s = 207 us) passes, and so does 20 % above it.
    in.median_us = in.flops / 665e12 * 1e6;
    EXPECT_TRUE(check_plausibility(in).plausible);
    in.median_us /= 1.2;
    EXPECT_TRUE(check_plausibility(in).plausible);
}

TEST(Plausibility, Fp32AboveTheCudaCorePeakIsImpossibleWithoutTf32) {
    PlausibilityInput in;
    const Shape s{{4096, 4096, 4096}};
    in.flops = flop_count(KernelType::Matmul, s);
    in.bytes = min_bytes(KernelType::Matmul, s, DType::fp32);
    in.datasheet_tflops = 66.9;  // H200 fp32, CUDA cores
    in.median_us = in.flops / 150e12 * 1e6;  // 150 TFLOP/s: TF32 tensor cores, or no work
    EXPECT_FALSE(check_plausibility(in).plausible);
}

TEST(Plausibility, ANonPositiveMedianIsAUsageError) {
    auto in = rmsnorm_h200(0);
    EXPECT_THROW(check_plausibility(in), Error);
}

}  // namespace
}  // namespace ak::eval
