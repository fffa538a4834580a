// The breakdown: shares, what-if and headroom on a hand-made profile (exact numbers) and on the
// synthetic GPT-2 fixture; the report and the Chrome trace made from it.
#include "analysis/amdahl.h"
#include "profile/breakdown.h"
#include "profile/chrome_trace.h"
#include "profile/profile_json.h"
#include "profile/profile_report.h"
#include "synthetic_profile.h"
#include "util/durable_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ak::profile {
namespace {

const std::string kFixture = std::string(AK_FIXTURES_DIR) + "/profile/gpt2-synthetic.json";

Profile tiny() {
    Profile p;
    p.origin.measured_iterations = 1;
    p.origin.gpu_name = "NVIDIA H200";
    OpCall mm;
    mm.id = 1;
    mm.name = "aten::mm";
    mm.stack = {"aten::mm"};
    mm.inputs = {{{1024, 1024}, {}, "fp16", {}}, {{1024, 1024}, {}, "fp16", {}}};
    p.ops = {mm};
    KernelRecord k;
    k.name = "nvjet_sm90_tst_128x128";
    k.start_ns = 1000;
    k.end_ns = 4000;  // 3 us: 2*1024^3 / 3e-6 = 715.8 TFLOP/s
    k.op_id = 1;
    KernelRecord other;
    other.name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
    other.start_ns = 4000;
    other.end_ns = 5000;
    p.kernels = {k, other};
    return p;
}

TEST(Breakdown, SharesWhatIfAndHeadroomOfAHandMadeProfile) {
    Profile p = tiny();
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.gemm_tflops = {{DType::fp16, 800.0}};
    c.copy_gb_s = {{1 << 20, 4000.0}};  // ridge 200 FLOP/byte, below the GEMM's 341
    p.ceilings = c;
    const Breakdown b = compute_breakdown(p);
    ASSERT_EQ(b.types.size(), 2u);
    EXPECT_EQ(b.types[0].type_label, "matmul");
    EXPECT_DOUBLE_EQ(b.types[0].share, 0.75);
    EXPECT_DOUBLE_EQ(b.types[0].limit, 4.0);
    ASSERT_EQ(b.types[0].what_if.size(), 4u);
    EXPECT_DOUBLE_EQ(b.types[0].what_if[1].kernel_speedup, 2.0);
    EXPECT_DOUBLE_EQ(b.types[0].what_if[1].end_to_end, 1.0 / (0.25 + 0.375));
    EXPECT_EQ(b.types[1].type_label, "other");
    EXPECT_DOUBLE_EQ(b.attributed_share, 0.75);
    EXPECT_DOUBLE_EQ(b.classified_share, 0.75);

    ASSERT_EQ(b.groups.size(), 2u);
    const BreakdownGroup& g = b.groups[0];
    EXPECT_EQ(g.op, "aten::mm");
    EXPECT_EQ(g.input_shapes, "[1024,1024] x [1024,1024] fp16");
    ASSERT_TRUE(g.type_shape);
    EXPECT_EQ(*g.type_shape, (Shape{{1024, 1024, 1024}}));
    EXPECT_EQ(g.calls, 1u);
    EXPECT_DOUBLE_EQ(g.per_iteration_us, 3.0);
    ASSERT_TRUE(g.headroom);
    EXPECT_FALSE(g.headroom->memory_bound);
    const double achieved = 2.0 * 1024 * 1024 * 1024 / 3e-6 / 1e12;
    EXPECT_NEAR(g.headroom->achieved_tflops, achieved, 1e-6);
    EXPECT_DOUBLE_EQ(g.headroom->ceiling, 800.0);
    EXPECT_NEAR(g.headroom->pct_of_ceiling, achieved / 800 * 100, 1e-6);
    EXPECT_NEAR(g.headroom->end_to_end_bound, amdahl_speedup(0.75, 800 / achieved), 1e-9);
    // The unattributed kernel is its own group, named by the kernel, without a shape.
    EXPECT_EQ(b.groups[1].op, p.kernels[1].name);
    EXPECT_FALSE(b.groups[1].type_shape);
    EXPECT_FALSE(b.groups[1].headroom);
}

TEST(Breakdown, DatasheetWithoutMeasuredCeilingsAndNoneWithoutAGpu) {
    Profile p = tiny();
    const Breakdown b = compute_breakdown(p);
    ASSERT_TRUE(b.groups[0].headroom);
    EXPECT_NE(b.groups[0].headroom->ceiling_source.find("datasheet"), std::string::npos);
    EXPECT_NE(b.ceiling_note.find("datasheet"), std::string::npos);
    p.origin.gpu_name.clear();
    const Breakdown none = compute_breakdown(p);
    EXPECT_FALSE(none.groups[0].headroom);
    EXPECT_NE(none.ceiling_note.find("no headroom"), std::string::npos);
}

TEST(Breakdown, FixtureIsTheGeneratorsOutput) {
    EXPECT_EQ(read_file(kFixture), to_json(testing::synthetic_gpt2_profile()))
        << "regenerate: make_profile_fixture tests/fixtures/profile/gpt2-synthetic.json";
}

TEST(Breakdown, SyntheticGpt2) {
    const Profile p = read_profile_json(kFixture);
    const Breakdown b = compute_breakdown(p);
    EXPECT_EQ(b.types.front().type_label, "matmul");
    double sum = 0;
    for (const BreakdownType& t : b.types) sum += t.share;
    EXPECT_NEAR(sum, 1.0, 1e-9);
    // Every kernel is launched by an op; the memcpys are "other".
    EXPECT_DOUBLE_EQ(b.attributed_share, 1.0);
    bool saw_memcpy = false, saw_fc = false, saw_attention = false;
    for (const BreakdownGroup& g : b.groups) {
        if (g.op == "memcpy_htod") {
            saw_memcpy = true;
            EXPECT_EQ(g.type_label, "other");
            EXPECT_EQ(g.launches, 2u);
        }
        if (g.op == "aten::addmm" && g.type_shape == Shape{{2048, 3072, 768}}) {
            saw_fc = true;
            EXPECT_EQ(g.calls, 24u);  // 12 layers x 2 iterations
            EXPECT_NE(g.module_path.find("mlp.c_fc"), std::string::npos);
            ASSERT_TRUE(g.headroom);
            // generated at 500 TFLOP/s / 1.15 against the measured 672 TFLOP/s
            EXPECT_NEAR(g.headroom->pct_of_ceiling, 500.0 / 1.15 / 672 * 100, 3.0);
        }
        if (g.type_label == "flash_attention") {
            saw_attention = true;
            ASSERT_TRUE(g.type_shape);
            EXPECT_EQ(*g.type_shape, (Shape{{4, 12, 512, 64, 1}}));
        }
    }
    EXPECT_TRUE(saw_memcpy);
    EXPECT_TRUE(saw_fc);
    EXPECT_TRUE(saw_attention);
    EXPECT_EQ(groups_of(b, KernelType::LayerNorm).size(), 1u);
    EXPECT_GT(b.timeline.idle_ns, 0u);
}

TEST(Breakdown, ReportAndJson) {
    const Profile p = read_profile_json(kFixture);
    const Breakdown b = compute_breakdown(p);
    const std::string report = format_profile_report(p, b);
    EXPECT_NE(report.find("profile: model gpt2, batch 4, seq 512, fp16, inference"), std::string::npos) << report;
    EXPECT_NE(report.find("GPU busy (union of intervals)"), std::string::npos);
    EXPECT_NE(report.find("attribution: 100.0% of kernel time"), std::string::npos) << report;
    EXPECT_NE(report.find("profiling overhead"), std::string::npos);
    EXPECT_NE(report.find("aten::addmm [3072] x [2048,768] x [768,3072] fp16 -> 2048x3072x768"), std::string::npos) << report;
    EXPECT_NE(report.find("TFLOP/s"), std::string::npos);
    EXPECT_NE(report.find("up to "), std::string::npos);
    const auto j = nlohmann::json::parse(breakdown_json(p, b));
    EXPECT_EQ(j["types"][0]["type"], "matmul");
    EXPECT_EQ(j["groups"].size(), b.groups.size());
    EXPECT_EQ(j["summary"]["kernels"], p.kernels.size());
}

TEST(ChromeTrace, KernelsPerStreamWithArgs) {
    const Profile p = read_profile_json(kFixture);
    const auto j = nlohmann::json::parse(chrome_trace_json(p));
    const auto& events = j["traceEvents"];
    std::size_t kernels = 0, memcpys = 0, threads = 0;
    for (const auto& e : events) {
        if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
        if (e["ph"] != "X") continue;
        EXPECT_GE(e["ts"].get<double>(), 0.0);
        EXPECT_GE(e["dur"].get<double>(), 0.0);
        if (e["cat"] == "kernel") {
            ++kernels;
            EXPECT_TRUE(e["args"].contains("op"));
            EXPECT_TRUE(e["args"].contains("type"));
        }
        if (e["cat"] == "memcpy") ++memcpys;
    }
    EXPECT_EQ(kernels, p.kernels.size());
    EXPECT_EQ(memcpys, p.memory.size());
    EXPECT_EQ(threads, 1u);  // one stream
}

}  // namespace
}  // namespace ak::profile
