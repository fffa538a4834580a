#include "engine/evaluator/launch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace ak::eval {
namespace {

ak_stage zero_stage() {
    ak_stage s;
    std::memset(&s, 0, sizeof s);
    return s;
}

ak_stage rows_stage(int threads, int rows_per_block = 1) {
    ak_stage s = zero_stage();
    s.kind = AK_STAGE_KERNEL;
    s.block_x = threads;
    s.grid = AK_GRID_ROWS;
    s.rows_per_block = rows_per_block;
    return s;
}

DeviceLimits hopper() {
    DeviceLimits d;
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.max_shared_per_block_optin = 232448;
    d.cluster_launch = true;
    d.l2_bytes = 60 << 20;
    return d;
}

DeviceLimits ampere() {
    DeviceLimits d = hopper();
    d.cc_major = 8;
    d.sm_count = 108;
    d.cluster_launch = false;
    d.max_shared_per_block_optin = 166912;
    return d;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
    return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

TEST(LaunchPlan, AValidRowStageHasNoProblemsAndOneBlockPerRowGroup) {
    const ak_stage s = rows_stage(256, 4);
    FunctionLimits f;
    EXPECT_TRUE(stage_problems(s, 0, hopper(), &f, 2, 0).empty());
    GridInputs g;
    g.rows = 1023;
    const LaunchDims d = launch_dims(s, 0, g, hopper());
    EXPECT_EQ(d.grid[0], 256u);  // ceil(1023 / 4)
    EXPECT_EQ(d.grid[1], 1u);
    EXPECT_EQ(d.block[0], 256u);
    EXPECT_EQ(d.block[1], 1u);  // 0 means 1
    EXPECT_FALSE(d.has_cluster);
}

TEST(LaunchPlan, BlockProblemsNameTheField) {
    auto p = stage_problems(rows_stage(0), 0, hopper(), nullptr, 2, 0);
    EXPECT_TRUE(mentions(p, "ak_launch0.block_x = 0")) << p.at(0);

    p = stage_problems(rows_stage(2048), 1, hopper(), nullptr, 2, 0);
    EXPECT_TRUE(mentions(p, "ak_launch1.block_x = 2048 exceeds the device's maximum of 1024"));

    ak_stage s = rows_stage(512);
    s.block_y = 4;
    p = stage_problems(s, 0, hopper(), nullptr, 2, 0);
    EXPECT_TRUE(mentions(p, "2048 threads exceeds the device's maximum of 1024"));

    s = rows_stage(128);
    s.block_z = -1;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 0), "ak_launch0.block_z = -1 must not be negative"));
}

TEST(LaunchPlan, ThreadsAboveTheFunctionsRegisterLimitAreNamed) {
    FunctionLimits f;
    f.max_threads_per_block = 512;
    f.registers = 128;
    const auto p = stage_problems(rows_stage(1024), 0, hopper(), &f, 2, 0);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_NE(p[0].find("ak_kernel0's limit of 512 threads"), std::string::npos) << p[0];
    EXPECT_NE(p[0].find("128 registers"), std::string::npos) << p[0];
}

TEST(LaunchPlan, UnknownKindGridRuleAndLibraryOpAreRejected) {
    ak_stage s = rows_stage(128);
    s.grid = 9;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 0), "ak_launch0.grid = 9 is not a grid rule"));
    s = rows_stage(128);
    s.kind = 5;
    EXPECT_TRUE(mentions(stage_problems(s, 2, hopper(), nullptr, 2, 0), "ak_launch2.kind = 5"));
    s = zero_stage();
    s.kind = AK_STAGE_LIBRARY;
    s.library_op = 7;
    EXPECT_TRUE(mentions(stage_problems(s, 1, hopper(), nullptr, 2, 0), "ak_launch1.library_op = 7"));
    s.library_op = AK_LIB_MLP_DOWN_GEMM;
    EXPECT_TRUE(stage_problems(s, 1, hopper(), nullptr, 2, 0).empty());
}

TEST(LaunchPlan, TilesRuleNeedsTileSizes) {
    ak_stage s = rows_stage(128);
    s.grid = AK_GRID_TILES;
    const auto p = stage_problems(s, 0, hopper(), nullptr, 2, 3);
    EXPECT_TRUE(mentions(p, "ak_launch0.tile_m = 0"));
    EXPECT_TRUE(mentions(p, "ak_launch0.tile_n = 0"));
}

TEST(LaunchPlan, SharedMemoryAboveTheOptInMaximumIsRejectedCountingStaticMemory) {
    ak_stage s = rows_stage(128);
    s.dynamic_smem_bytes = 200 * 1024;
    FunctionLimits f;
    EXPECT_TRUE(stage_problems(s, 0, hopper(), &f, 2, 0).empty());  // 200 KiB fits in 227 KiB
    f.static_shared_bytes = 40 * 1024;
    const auto p = stage_problems(s, 0, hopper(), &f, 2, 0);
    EXPECT_TRUE(mentions(p, "ak_launch0.dynamic_smem_bytes = 204800 plus 40960 bytes of static shared memory exceeds "
                            "the device's maximum of 232448"));
    s.dynamic_smem_bytes = -4;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 0), "dynamic_smem_bytes = -4"));
}

TEST(LaunchPlan, ClustersNeedHopperAndAtMostSixteenBlocks) {
    ak_stage s = rows_stage(128);
    s.cluster_x = 2;
    EXPECT_TRUE(stage_problems(s, 0, hopper(), nullptr, 2, 0).empty());
    EXPECT_TRUE(mentions(stage_problems(s, 0, ampere(), nullptr, 2, 0), "cannot launch clusters"));
    s.cluster_x = 4;
    s.cluster_y = 4;
    s.cluster_z = 2;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 0), "= 32 blocks exceeds the maximum of 16"));
}

TEST(LaunchPlan, TmaBoxesAreCheckedAgainstTheTypeAndTheDtype) {
    ak_stage s = rows_stage(128);
    s.tma_box_rows[0] = 64;
    s.tma_box_cols[0] = 64;
    // Softmax's arguments hold no tensor maps.
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 0), "hold no tensor maps"));
    // Matmul's do; 64 fp16 columns = 128 bytes is fine without swizzle and with 128-byte swizzle.
    EXPECT_TRUE(stage_problems(s, 0, hopper(), nullptr, 2, 3).empty());
    s.tma_swizzle = AK_SWIZZLE_128B;
    EXPECT_TRUE(stage_problems(s, 0, hopper(), nullptr, 2, 3).empty());
    // ... but not in fp32 (256 bytes > 128-byte swizzle span).
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 4, 3), "exceeds the 128-byte swizzle span"));
    // Rows of 12 bytes cannot be described.
    s.tma_swizzle = AK_SWIZZLE_NONE;
    s.tma_box_cols[0] = 6;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 3), "ak_launch0.tma_box_cols[0] = 6: a box row of 12 bytes"));
    s.tma_box_cols[0] = 300;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 3), "ak_launch0.tma_box_cols[0] = 300 must be in 1..256"));
    s.tma_box_cols[0] = 64;
    s.tma_swizzle = 9;
    EXPECT_TRUE(mentions(stage_problems(s, 0, hopper(), nullptr, 2, 3), "ak_launch0.tma_swizzle = 9"));
    s.tma_swizzle = 0;
    EXPECT_TRUE(mentions(stage_problems(s, 0, ampere(), nullptr, 2, 3), "no tensor memory accelerator"));
}

TEST(LaunchPlan, StageSequencesMustStartAtZeroWithoutGaps) {
    std::vector<ak_stage> slots(4, zero_stage());
    EXPECT_TRUE(mentions(sequence_problems(slots), "declares no stage"));
    slots[0] = rows_stage(128);
    EXPECT_TRUE(sequence_problems(slots).empty());
    slots[2] = rows_stage(128);
    EXPECT_TRUE(mentions(sequence_problems(slots), "ak_launch2 declares a stage after an empty slot"));
}

TEST(LaunchPlan, ThrowIfProblemsListsEveryProblemAsACompileError) {
    EXPECT_NO_THROW(throw_if_problems({}));
    try {
        throw_if_problems({"first problem", "second problem"});
        FAIL() << "expected ContractViolation";
    } catch (const ContractViolation& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Compile);
        const std::string what = e.what();
        EXPECT_NE(what.find("first problem"), std::string::npos);
        EXPECT_NE(what.find("second problem"), std::string::npos);
    }
}

TEST(LaunchPlan, GridRulesComputeTheDocumentedGrids) {
    GridInputs g;
    g.rows = 10;
    g.tiles_m = 1000;
    g.tiles_n = 300;
    g.tiles_batch = 6;

    ak_stage tiles = rows_stage(128);
    tiles.grid = AK_GRID_TILES;
    tiles.tile_m = 128;
    tiles.tile_n = 64;
    LaunchDims d = launch_dims(tiles, 0, g, hopper());
    EXPECT_EQ(d.grid, (std::array<unsigned, 3>{5, 8, 6}));  // ceil(300/64), ceil(1000/128), batch

    ak_stage attention = rows_stage(128);
    attention.grid = AK_GRID_ATTENTION;
    attention.tile_m = 64;
    d = launch_dims(attention, 0, g, hopper());
    EXPECT_EQ(d.grid, (std::array<unsigned, 3>{16, 6, 1}));  // ceil(1000/64), batch*heads

    ak_stage persistent = rows_stage(128);
    persistent.grid = AK_GRID_PERSISTENT;
    persistent.grid_x = 2;
    EXPECT_EQ(launch_dims(persistent, 0, g, hopper()).grid[0], 264u);
    persistent.grid_x = 0;
    EXPECT_EQ(launch_dims(persistent, 0, g, hopper()).grid[0], 132u);

    ak_stage fixed = rows_stage(128);
    fixed.grid = AK_GRID_FIXED;
    fixed.grid_x = 7;
    fixed.grid_z = 3;
    EXPECT_EQ(launch_dims(fixed, 0, g, hopper()).grid, (std::array<unsigned, 3>{7, 1, 3}));
}

TEST(LaunchPlan, GridsAreRoundedUpToWholeClusters) {
    ak_stage s = rows_stage(128);
    s.cluster_x = 2;
    GridInputs g;
    g.rows = 33;
    const LaunchDims d = launch_dims(s, 0, g, hopper());
    EXPECT_TRUE(d.has_cluster);
    EXPECT_EQ(d.grid[0], 34u);
    EXPECT_EQ(d.cluster, (std::array<unsigned, 3>{2, 1, 1}));
}

TEST(LaunchPlan, AGridAboveTheDeviceLimitIsALaunchErrorNamingTheAxis) {
    ak_stage s = rows_stage(128);
    s.grid = AK_GRID_TILES;
    s.tile_m = 1;
    s.tile_n = 1;
    GridInputs g;
    g.tiles_m = 70000;
    try {
        launch_dims(s, 3, g, hopper());
        FAIL() << "expected LaunchError";
    } catch (const LaunchError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ak_launch3: grid.y = 70000 exceeds the device's limit of 65535"), std::string::npos) << what;
    }
}

TEST(LaunchPlan, WorkspaceIsTheLargestRequestOfAllStages) {
    std::vector<ak_stage> stages{rows_stage(128), rows_stage(128)};
    stages[0].workspace_bytes_per_row = 4;
    stages[0].workspace_bytes = 16;
    stages[1].workspace_bytes = 1000;
    EXPECT_EQ(workspace_bytes(stages, 100), 1000);
    EXPECT_EQ(workspace_bytes(stages, 1000), 4016);
    stages[0].workspace_bytes_per_row = 1 << 30;
    EXPECT_THROW(workspace_bytes(stages, std::int64_t(1) << 40), LaunchError);
    EXPECT_TRUE(mentions(stage_problems([] {
                                            ak_stage s = rows_stage(64);
                                            s.workspace_bytes = -1;
                                            return s;
                                        }(),
                                        0, hopper(), nullptr, 2, 0),
                         "ak_launch0.workspace_bytes = -1"));
}

TEST(LaunchPlan, TheWorkspaceIsKeptZeroOnlyWhenEveryStageThatDeclaresOneSaysSo) {
    std::vector<ak_stage> stages{rows_stage(128), rows_stage(64)};
    EXPECT_FALSE(workspace_kept_zero(stages));  // no workspace at all
    stages[0].workspace_bytes_per_row = 8;
    EXPECT_FALSE(workspace_kept_zero(stages));  // the default: zeroed in every launch
    stages[0].workspace_init = AK_WORKSPACE_KEPT_ZERO;
    EXPECT_TRUE(workspace_kept_zero(stages));   // the second stage declares none: it does not count
    stages[1].workspace_bytes = 4;
    EXPECT_FALSE(workspace_kept_zero(stages));  // it declares some and does not keep it zero
    stages[1].workspace_init = AK_WORKSPACE_KEPT_ZERO;
    EXPECT_TRUE(workspace_kept_zero(stages));
    stages.push_back(zero_stage());  // an unused slot never counts
    stages.back().workspace_bytes = 64;
    EXPECT_TRUE(workspace_kept_zero(stages));
    ak_stage bad = rows_stage(64);
    bad.workspace_init = 2;
    EXPECT_TRUE(mentions(stage_problems(bad, 0, hopper(), nullptr, 2, 0),
                         "ak_launch0.workspace_init = 2 is not AK_WORKSPACE_ZEROED (0) or AK_WORKSPACE_KEPT_ZERO (1)"));
    bad.workspace_init = AK_WORKSPACE_KEPT_ZERO;
    EXPECT_TRUE(stage_problems(bad, 0, hopper(), nullptr, 2, 0).empty());
}

TEST(LaunchPlan, DescribeStageSaysWhatRuns) {
    ak_stage s = rows_stage(256, 2);
    s.dynamic_smem_bytes = 1024;
    EXPECT_EQ(describe_stage(s, 0), "kernel ak_kernel0: block 256x1x1, grid AK_GRID_ROWS (2 rows/block), 1024 B dynamic smem");
    ak_stage lib = zero_stage();
    lib.kind = AK_STAGE_LIBRARY;
    lib.library_op = AK_LIB_MLP_GATE_UP_GEMM;
    EXPECT_EQ(describe_stage(lib, 1), "library stage 1: AK_LIB_MLP_GATE_UP_GEMM");
}

}  // namespace
}  // namespace ak::eval
