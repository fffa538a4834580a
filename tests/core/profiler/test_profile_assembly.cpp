// Profile assembly from made-up CUPTI records: iteration windows, op attribution through external
// correlation ids, NVTX ranges, dropped warm-up activity and pruned ops.
#include "profiler/profile_assembly.h"

#include <gtest/gtest.h>

namespace ak::profiler {
namespace {

profile::KernelRecord kernel(const std::string& name, std::uint64_t start, std::uint64_t end, std::uint64_t correlation) {
    profile::KernelRecord k;
    k.name = name;
    k.start_ns = start;
    k.end_ns = end;
    k.correlation_id = correlation;
    return k;
}

profile::OpCall op(std::uint64_t id, const std::string& name) {
    profile::OpCall o;
    o.id = id;
    o.name = name;
    o.stack = {name};
    return o;
}

TEST(ProfileAssembly, KernelsGetTheirIterationOpAndRange) {
    ActivityData data;
    data.kernels.push_back(kernel("warmup_kernel", 50, 60, 1));  // before the first window: dropped
    data.kernels.push_back(kernel("gemm", 120, 150, 2));
    data.kernels.push_back(kernel("softmax", 110, 115, 3));       // out of order on purpose
    data.kernels.push_back(kernel("gemm", 220, 260, 4));
    data.kernels.push_back(kernel("unattributed", 265, 270, 5));
    data.kernels.push_back(kernel("after", 400, 410, 6));         // after the last window: dropped
    RawMemory m;
    m.record.kind = profile::MemoryKind::Memset;
    m.record.bytes = 64;
    m.record.start_ns = 105;
    m.record.end_ns = 107;
    m.correlation_id = 7;
    data.memory.push_back(m);
    data.op_of_correlation = {{1, 10}, {2, 11}, {3, 12}, {4, 13}, {7, 12}, {6, 99}};
    data.range_of_correlation = {{2, 1}};
    std::vector<profile::OpCall> ops = {op(10, "aten::warm"), op(11, "aten::mm"), op(12, "aten::_softmax"), op(13, "aten::mm"),
                                        op(14, "aten::view")};
    std::vector<IterationWindow> windows = {{1, 200, 300, 1.5, 1.2}, {0, 100, 199, 1.0, 0.9}};

    profile::Profile p;
    assemble_profile(p, data, ops, windows, {{1, "forward"}});

    ASSERT_EQ(p.kernels.size(), 4u);
    EXPECT_EQ(p.kernels[0].name, "softmax");
    EXPECT_EQ(p.kernels[0].iteration, 0);
    EXPECT_EQ(p.kernels[0].op_id, std::optional<std::uint64_t>(12));
    EXPECT_EQ(p.kernels[1].name, "gemm");
    EXPECT_EQ(p.kernels[1].nvtx_range, "forward");
    EXPECT_EQ(p.kernels[2].iteration, 1);
    EXPECT_EQ(p.kernels[3].name, "unattributed");
    EXPECT_FALSE(p.kernels[3].op_id.has_value());
    EXPECT_EQ(p.kernels[3].nvtx_range, "");

    ASSERT_EQ(p.memory.size(), 1u);
    EXPECT_EQ(p.memory[0].op_id, std::optional<std::uint64_t>(12));
    EXPECT_EQ(p.memory[0].iteration, 0);

    // Only ops that launched something kept in this profile's iterations; sorted by id.
    ASSERT_EQ(p.ops.size(), 3u);
    EXPECT_EQ(p.ops[0].id, 11u);
    EXPECT_EQ(p.ops[1].id, 12u);
    EXPECT_EQ(p.ops[2].id, 13u);

    ASSERT_EQ(p.iterations.size(), 2u);
    EXPECT_EQ(p.iterations[0].index, 0);
    EXPECT_EQ(p.iterations[0].gpu_start_ns, 105u);
    EXPECT_EQ(p.iterations[0].gpu_end_ns, 150u);
    EXPECT_DOUBLE_EQ(p.iterations[0].event_ms, 0.9);
    EXPECT_EQ(p.iterations[1].gpu_start_ns, 220u);
    EXPECT_EQ(p.iterations[1].gpu_end_ns, 270u);
    EXPECT_TRUE(p.warnings.empty());

    // 5 + 30 + 40 of 80 ns are attributed.
    EXPECT_NEAR(attributed_fraction(p), 75.0 / 80.0, 1e-12);
}

TEST(ProfileAssembly, DroppedRecordsBecomeAWarning) {
    ActivityData data;
    data.dropped = 12;
    profile::Profile p;
    assemble_profile(p, data, {}, {{0, 0, 10, 0, 0}});
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("dropped 12"), std::string::npos);
    EXPECT_EQ(p.iterations[0].gpu_start_ns, 0u);
    EXPECT_DOUBLE_EQ(attributed_fraction(p), 1.0);
}

}  // namespace
}  // namespace ak::profiler
