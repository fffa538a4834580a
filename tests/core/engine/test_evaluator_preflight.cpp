#include "engine/evaluator_preflight.h"

#include "gpu/cuda_driver.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ak;

TEST(EvaluatorPreflight, WithoutADriverSaysNoGpuAndTheDriversReason) {
    if (cuda_driver().loaded()) GTEST_SKIP() << "this machine has a working CUDA driver";
    const auto p = evaluator_preflight();
    EXPECT_FALSE(p.ok());
    EXPECT_EQ(p.problem, PreflightProblem::NoGpu);
    EXPECT_EQ(p.message, "no GPU available: " + cuda_driver().status().error);
    EXPECT_FALSE(cuda_driver().status().error.empty());
}

TEST(EvaluatorPreflight, WithAGpuAMissingEvaluatorIsNamed) {
    if (!cuda_driver().loaded()) GTEST_SKIP() << "no GPU: " << cuda_driver().status().error;
    ::setenv("AK_EVALUATOR", "/nonexistent/autokernel-evaluator", 1);
    const auto p = evaluator_preflight();
    ::unsetenv("AK_EVALUATOR");
    EXPECT_EQ(p.problem, PreflightProblem::EvaluatorMissing);
    EXPECT_NE(p.message.find("/nonexistent/autokernel-evaluator"), std::string::npos);
    EXPECT_FALSE(p.device.name.empty());
}
