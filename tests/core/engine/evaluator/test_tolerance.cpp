#include "engine/evaluator/tolerance.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ak::eval {
namespace {

TEST(Tolerance, DefaultsPerDtypeHaveANormGateBelowTheElementwiseTolerance) {
    const Tolerance h = default_kernel_tolerance(DType::fp16);
    EXPECT_DOUBLE_EQ(h.atol, 1e-2);
    EXPECT_DOUBLE_EQ(h.rtol, 1e-2);
    EXPECT_DOUBLE_EQ(h.norm_rtol, 2e-3);
    EXPECT_DOUBLE_EQ(default_kernel_tolerance(DType::bf16).norm_rtol, 1e-2);
    EXPECT_DOUBLE_EQ(default_kernel_tolerance(DType::fp32).norm_rtol, 2e-5);
    // The starters' worst norm-relative errors on the H200 (2026-11-29) stay several times inside.
    EXPECT_LT(2.54e-4 * 5, h.norm_rtol);
    EXPECT_LT(4.44e-3 * 2, default_kernel_tolerance(DType::bf16).norm_rtol);
    EXPECT_LT(1.93e-6 * 10, default_kernel_tolerance(DType::fp32).norm_rtol);
    EXPECT_THROW(default_kernel_tolerance(DType::tf32), Error);
}

TEST(Tolerance, TheNormGateFailsAnAggregateErrorThatEveryElementHides) {
    const Tolerance t = default_kernel_tolerance(DType::fp16);
    EXPECT_FALSE(norm_gate_failure(2.5e-4, t));
    EXPECT_FALSE(norm_gate_failure(2e-3, t)) << "the bound itself passes";
    const auto why = norm_gate_failure(0.31, t);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("0.31"), std::string::npos) << *why;
    EXPECT_NE(why->find("0.002"), std::string::npos) << *why;
    EXPECT_TRUE(norm_gate_failure(NAN, t)) << "NaN never passes";
    EXPECT_TRUE(norm_gate_failure(INFINITY, t));
}

TEST(Tolerance, AZeroNormToleranceTurnsTheGateOff) {
    Tolerance t{1e-2, 1e-2, 0};
    EXPECT_FALSE(norm_gate_failure(5.0, t));
}

}  // namespace
}  // namespace ak::eval
