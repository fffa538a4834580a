// Aggregation: statistics per kernel name, the sum vs the union of overlapping intervals, wall and idle.
#include "profile/aggregation.h"

#include <gtest/gtest.h>

namespace ak::profile {
namespace {

KernelRecord kernel(std::string name, std::uint64_t start, std::uint64_t end, std::uint32_t stream = 7) {
    KernelRecord k;
    k.name = std::move(name);
    k.start_ns = start;
    k.end_ns = end;
    k.stream = stream;
    return k;
}

TEST(Aggregation, DurationStats) {
    const DurationStats s = duration_stats({30, 10, 20, 40});
    EXPECT_EQ(s.count, 4u);
    EXPECT_EQ(s.total_ns, 100u);
    EXPECT_DOUBLE_EQ(s.mean_ns, 25);
    EXPECT_DOUBLE_EQ(s.median_ns, 25);
    EXPECT_EQ(s.min_ns, 10u);
    EXPECT_EQ(s.max_ns, 40u);
    EXPECT_DOUBLE_EQ(duration_stats({5, 1, 9}).median_ns, 5);
    EXPECT_EQ(duration_stats({}).count, 0u);
}

TEST(Aggregation, PerKernelNameLargestFirst) {
    Profile p;
    p.kernels = {kernel("a", 0, 10), kernel("b", 10, 60), kernel("a", 60, 90), kernel("c", 90, 130)};
    const auto rows = per_kernel_name(p);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].name, "b");
    EXPECT_EQ(rows[1].name, "a");  // 40 ns, tie with c broken by name
    EXPECT_EQ(rows[1].stats.count, 2u);
    EXPECT_EQ(rows[1].stats.max_ns, 30u);
    EXPECT_EQ(rows[2].name, "c");
}

TEST(Aggregation, UnionCountsOverlapsOnce) {
    EXPECT_EQ(union_ns({{0, 10}, {5, 15}, {20, 30}}), 25u);
    EXPECT_EQ(union_ns({{20, 30}, {0, 100}}), 100u);
    EXPECT_EQ(union_ns({{0, 10}, {10, 20}}), 20u);
    EXPECT_EQ(union_ns({}), 0u);
}

TEST(Aggregation, TwoStreamsOverlap) {
    // Stream 7: [0,100) and [150,250); stream 9: [50,200). Sum 350, busy = [0,250) = 250.
    Profile p;
    p.origin.measured_iterations = 1;
    p.kernels = {kernel("a", 0, 100, 7), kernel("b", 50, 200, 9), kernel("a", 150, 250, 7)};
    MemoryRecord m;
    m.kind = MemoryKind::MemcpyDtoH;
    m.start_ns = 300;
    m.end_ns = 340;
    p.memory = {m};
    const GpuTimeline t = gpu_timeline(p);
    EXPECT_EQ(t.kernel_sum_ns, 350u);
    EXPECT_EQ(t.memory_sum_ns, 40u);
    EXPECT_EQ(t.activity_sum_ns, 390u);
    EXPECT_EQ(t.busy_ns, 290u);
    EXPECT_EQ(t.wall_ns, 340u);  // first start to last end
    EXPECT_EQ(t.idle_ns, 50u);   // [250, 300)
    EXPECT_EQ(t.idle_gaps, 1u);
    EXPECT_EQ(t.largest_gap_ns, 50u);
}

TEST(Aggregation, WallFromIterationWindows) {
    // Two iterations with a host pause between them that is not wall time of either.
    Profile p;
    p.origin.measured_iterations = 2;
    p.kernels = {kernel("a", 1000, 1100), kernel("a", 1130, 1200), kernel("a", 5000, 5100), kernel("a", 5150, 5200)};
    p.iterations = {{0, 0.5, 0, 1000, 1200}, {1, 0.25, 0, 5000, 5200}};
    const GpuTimeline t = gpu_timeline(p);
    EXPECT_EQ(t.busy_ns, 320u);
    EXPECT_EQ(t.wall_ns, 400u);
    EXPECT_EQ(t.idle_ns, 80u);
    EXPECT_EQ(t.idle_gaps, 2u);
    EXPECT_EQ(t.largest_gap_ns, 50u);
    EXPECT_DOUBLE_EQ(t.host_wall_ms, 0.75);
    EXPECT_EQ(t.iterations, 2);
}

}  // namespace
}  // namespace ak::profile
