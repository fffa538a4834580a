#include "engine/evaluator/check_plan.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace ak::eval {
namespace {

CheckPlanInput rmsnorm_input() {
    CheckPlanInput in;
    in.type = KernelType::RmsNorm;
    in.dtypes = {DType::fp16, DType::bf16, DType::fp32};
    in.timing_dtype = DType::bf16;
    in.timing_shapes = {kernel_type_info(KernelType::RmsNorm).large};
    in.seed = 42;
    return in;
}

std::size_t count(const std::vector<CheckCase>& plan, CheckStage stage) {
    return std::size_t(std::count_if(plan.begin(), plan.end(), [&](const CheckCase& c) { return c.stage == stage; }));
}

TEST(CheckPlan, StagesRunInOrderWithTheDocumentedCases) {
    const auto in = rmsnorm_input();
    const auto plan = plan_checks(in);
    const auto& info = kernel_type_info(KernelType::RmsNorm);
    ASSERT_FALSE(plan.empty());
    for (std::size_t i = 1; i < plan.size(); ++i) EXPECT_LE(int(plan[i - 1].stage), int(plan[i].stage)) << i;

    EXPECT_EQ(count(plan, CheckStage::Smoke), 3u);
    EXPECT_EQ(count(plan, CheckStage::Sweep), info.sweep.size() * 3 + 1);  // + the timed shape in bf16
    EXPECT_EQ(count(plan, CheckStage::Adversarial), 2u * 3);
    // The largest correctness shape in every dtype, the smoke shape and the timed shape in bf16.
    EXPECT_EQ(count(plan, CheckStage::Determinism), 3u + 2);
    EXPECT_EQ(count(plan, CheckStage::Edge), info.edge.size() * 3);

    for (const auto& c : plan) {
        EXPECT_EQ(c.adversarial, c.stage == CheckStage::Adversarial);
        EXPECT_EQ(c.runs, c.stage == CheckStage::Determinism ? 3 : 1);
        EXPECT_NE(c.stage, CheckStage::Timing) << "the timing checks are not planned cases";
        if (c.stage == CheckStage::Smoke) {
            EXPECT_EQ(c.shape, info.smoke);
        }
    }
    // The timed shape is checked in the timing dtype before it is ever timed.
    EXPECT_TRUE(std::any_of(plan.begin(), plan.end(), [&](const CheckCase& c) {
        return c.stage == CheckStage::Sweep && c.shape == info.large && c.dtype == DType::bf16;
    }));
}

TEST(CheckPlan, DeterminismCoversTheLargestCorrectnessShapeASmallShapeAndTheLargestTimingShape) {
    auto in = rmsnorm_input();
    in.correctness_shapes = {Shape{{64, 64}}, Shape{{512, 4096}}, Shape{{128, 128}}};
    in.timing_shapes = {Shape{{1024, 1024}}, Shape{{4096, 8192}}, Shape{{2048, 2048}}};
    const auto plan = plan_checks(in);
    std::vector<std::pair<Shape, DType>> determinism;
    for (const auto& c : plan)
        if (c.stage == CheckStage::Determinism) determinism.emplace_back(c.shape, c.dtype);
    const auto& info = kernel_type_info(KernelType::RmsNorm);
    const std::vector<std::pair<Shape, DType>> expected = {
        {Shape{{512, 4096}}, DType::fp16}, {Shape{{512, 4096}}, DType::bf16}, {Shape{{512, 4096}}, DType::fp32},
        {info.smoke, DType::bf16},  // small grid, in the timing dtype
        {Shape{{4096, 8192}}, DType::bf16},  // the largest timed shape, where a race on a large grid shows
    };
    EXPECT_EQ(determinism, expected);
    // Requested correctness shapes replace the sweep set; the three timed shapes are checked in bf16.
    EXPECT_EQ(count(plan, CheckStage::Sweep), 3u * 3 + 3);
}

TEST(CheckPlan, ATimedShapeAlreadyInTheSweepIsNotCheckedTwice) {
    auto in = rmsnorm_input();
    in.correctness_shapes = {Shape{{256, 4096}}};
    in.timing_shapes = {Shape{{256, 4096}}};
    EXPECT_EQ(count(plan_checks(in), CheckStage::Sweep), 3u);
}

TEST(CheckPlan, EveryCaseHasItsOwnReproducibleSeed) {
    const auto a = plan_checks(rmsnorm_input());
    const auto b = plan_checks(rmsnorm_input());
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].seed, b[i].seed);
        EXPECT_NE(a[i].seed, 0u);
        EXPECT_EQ(a[i].seed, case_seed(42, a[i].stage, a[i].index));
        seen.insert(a[i].seed);
    }
    EXPECT_EQ(seen.size(), a.size());
    auto other = rmsnorm_input();
    other.seed = 43;
    EXPECT_NE(plan_checks(other)[0].seed, a[0].seed);
}

TEST(CheckPlan, RandomSeedsDiffer) { EXPECT_NE(random_seed(), random_seed()); }

TEST(CheckPlan, RejectsMissingOrNonKernelDtypes) {
    auto in = rmsnorm_input();
    in.dtypes.clear();
    EXPECT_THROW(plan_checks(in), Error);
    in.dtypes = {DType::tf32};
    EXPECT_THROW(plan_checks(in), Error);
}

TEST(CheckPlan, AttentionDeterminismIgnoresTheCausalFlagWhenSizing) {
    CheckPlanInput in;
    in.type = KernelType::FlashAttention;
    in.dtypes = {DType::fp16};
    in.correctness_shapes = {Shape{{1, 2, 512, 64, 1}}, Shape{{1, 2, 256, 64, 0}}};
    const auto plan = plan_checks(in);
    const auto first = std::find_if(plan.begin(), plan.end(), [](const CheckCase& c) { return c.stage == CheckStage::Determinism; });
    ASSERT_NE(first, plan.end());
    EXPECT_EQ(first->shape, (Shape{{1, 2, 512, 64, 1}}));
}

TEST(CheckPlan, ADeterminismCaseIsNotRepeatedWhenShapesCoincide) {
    auto in = rmsnorm_input();
    in.dtypes = {DType::bf16};
    in.correctness_shapes = {Shape{{4096, 4096}}};
    in.timing_shapes = {Shape{{4096, 4096}}};
    EXPECT_EQ(count(plan_checks(in), CheckStage::Determinism), 2u);  // 4096x4096 once, and the smoke shape
}

TEST(CheckPlan, EveryRowTypeChecksShortRowsAndOddRowCounts) {
    for (KernelType t : {KernelType::Softmax, KernelType::LayerNorm, KernelType::RmsNorm, KernelType::CrossEntropy,
                         KernelType::Reduce}) {
        std::set<std::int64_t> cols;
        bool odd_rows = false;
        for (const Shape& s : kernel_type_info(t).edge) {
            cols.insert(s.dims[1]);
            odd_rows |= s.dims[0] % 2 == 1;
        }
        for (std::int64_t c : {1, 2, 7, 33, 63, 127}) EXPECT_TRUE(cols.count(c)) << to_string(t) << " has no row of " << c << " columns";
        EXPECT_TRUE(odd_rows) << to_string(t);
    }
    // The other types check tiny extents too: attention and rotary a sequence of 1, matmul a K of 1.
    auto has = [](KernelType t, std::size_t dim, std::int64_t v) {
        for (const Shape& s : kernel_type_info(t).edge)
            if (s.dims[dim] == v) return true;
        return false;
    };
    EXPECT_TRUE(has(KernelType::FlashAttention, 2, 1));
    EXPECT_TRUE(has(KernelType::RotaryEmbedding, 2, 1));
    EXPECT_TRUE(has(KernelType::Matmul, 2, 1));
    EXPECT_TRUE(has(KernelType::Matmul, 0, 1));
    EXPECT_TRUE(has(KernelType::FusedMlp, 0, 1));
}

TEST(CheckPlan, TheReferenceCandidateGetsTheSmokeShapeAndEveryTimingShapeInTheTimingDtype) {
    auto in = rmsnorm_input();
    in.timing_shapes = {Shape{{4096, 4096}}, Shape{{4096, 8192}}};
    const auto plan = plan_reference_checks(in);
    ASSERT_EQ(plan.size(), 3u);
    EXPECT_EQ(plan[0].stage, CheckStage::Smoke);
    EXPECT_EQ(plan[0].shape, kernel_type_info(KernelType::RmsNorm).smoke);
    EXPECT_EQ(plan[1].shape, (Shape{{4096, 4096}}));
    EXPECT_EQ(plan[2].shape, (Shape{{4096, 8192}}));
    for (const auto& c : plan) {
        EXPECT_EQ(c.dtype, DType::bf16);
        EXPECT_EQ(c.runs, 1);
        EXPECT_NE(c.seed, 0u);
    }
    in.timing_dtype = DType::tf32;
    EXPECT_THROW(plan_reference_checks(in), Error);
}

TEST(CheckPlan, IndexTextUnravelsRowMajorIndices) {
    EXPECT_EQ(index_text(3 * 100 + 17, {10, 100}), "[3, 17]");
    EXPECT_EQ(index_text(0, {4}), "[0]");
    EXPECT_EQ(index_text(1 * 12 + 2 * 4 + 3, {2, 3, 4}), "[1, 2, 3]");
    EXPECT_EQ(index_text(0, {}), "[0]");
    EXPECT_EQ(element_count({2, 3, 4}), 24);
    EXPECT_EQ(element_count({}), 1);
}

}  // namespace
}  // namespace ak::eval
