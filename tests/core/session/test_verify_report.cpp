// verify.json (session/verify_report.h): round trip, errors naming the field, the Amdahl prediction,
// coverage aggregation and the explanations.
#include "session/verify_report.h"
#include "util/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

namespace ak {
namespace {

namespace fs = std::filesystem;

VerifyCoverage coverage(KernelType t, std::string kernel, std::int64_t calls, double us,
                        std::vector<std::pair<std::string, std::int64_t>> reasons = {}, std::int64_t copied = 0) {
    VerifyCoverage c;
    c.type = t;
    c.kernel = std::move(kernel);
    c.calls = calls;
    c.gpu_us = us;
    c.reasons = std::move(reasons);
    c.copied_calls = copied;
    return c;
}

// A report as `autokernel verify` writes it for a llama-style model.
VerifyReport sample_report() {
    VerifyReport r;
    r.created_utc = "2026-12-02T05:00:00Z";
    r.session = "llama";
    r.device = "NVIDIA H200";
    r.tool_version = "autokernel 0.1.0";
    r.model.builtin = "llama-160m";
    r.model.batch = 8;
    r.model.seq = 512;
    r.model.dtype = DType::fp16;
    r.model.seed = 42;
    r.verdict = "PASS";
    r.detail = "output within tolerance";
    r.kernels = {{"matmul", KernelType::Matmul, 0.6, 1.10, 4, std::string(40, 'a')},
                 {"rmsnorm", KernelType::RmsNorm, 0.05, 1.8, 7, std::string(40, 'a')},
                 {"softmax", KernelType::Softmax, 0.1, 0.5, 9, std::string(40, 'a'), false, "not faster than PyTorch (0.50x)"}};
    VerifyMeasurement m;
    m.model_description = "llama-160m: 162.0M parameters, batch 8, seq 512, fp16, inference";
    m.seed = 42;
    m.output.sizes = {8, 512, 32000};
    m.output.max_abs_err = 0.0123;
    m.output.max_rel_err = 0.5;
    m.output.norm_rel_err = 1.5e-3;
    m.output.noise_norm_rel_err = 0;
    m.output.tolerance = 1e-2;
    m.output.passed = true;
    m.unmodified = VerifyLatency{10.0, 9.9, 10.2, 0.3, 30};
    m.substituted = VerifyLatency{9.0, 8.9, 9.1, 0.2, 30};
    m.forward_gpu_us = 10000;
    m.coverage = {coverage(KernelType::Matmul, "matmul", 84, 5000, {}, 0),
                  coverage(KernelType::Matmul, "", 1, 900, {{"aten::mm: shape 4096x32000x768 fp16 not among the verified shapes", 1}}),
                  coverage(KernelType::RmsNorm, "rmsnorm", 25, 200, {}, 3)};
    m.aten = {{KernelType::Matmul, 85, 7200}, {KernelType::RmsNorm, 25, 400}};
    m.checks = {{"matmul", KernelType::Matmul, 84, 1e-3, 2e-4, true, ""}, {"rmsnorm", KernelType::RmsNorm, 25, 2e-3, 3e-4, true, ""}};
    m.notes = {"84 Linear weight(s) passed as w.t() were transposed once"};
    r.measurement = m;
    return r;
}

TEST(VerifyReport, RoundTripKeepsEveryField) {
    VerifyReport r = sample_report();
    complete_report(r);
    const std::string text = verify_report_to_json(r);
    const VerifyReport back = verify_report_from_json(text, "verify.json");
    EXPECT_EQ(verify_report_to_json(back), text);
    ASSERT_TRUE(back.measurement);
    EXPECT_EQ(back.measurement->coverage.size(), 3u);
    EXPECT_EQ(back.measurement->coverage[1].reasons.at(0).second, 1);
    EXPECT_EQ(back.kernels.at(1).best_experiment, 7);
    EXPECT_TRUE(back.kernels.at(1).substituted);
    EXPECT_FALSE(back.kernels.at(2).substituted);
    EXPECT_EQ(back.kernels.at(2).skipped, "not faster than PyTorch (0.50x)");
    EXPECT_DOUBLE_EQ(*back.kernels.at(0).kernel_speedup, 1.10);
    EXPECT_EQ(back.model.builtin, "llama-160m");
    EXPECT_EQ(back.model.seq, 512);
    ASSERT_TRUE(back.measured_speedup());
    EXPECT_NEAR(*back.measured_speedup(), 10.0 / 9.0, 1e-12);
}

TEST(VerifyReport, NonFiniteErrorsSurviveTheRoundTrip) {
    VerifyReport r = sample_report();
    r.verdict = "FAIL";
    r.measurement->output.norm_rel_err = INFINITY;
    r.measurement->output.finite = false;
    r.measurement->output.passed = false;
    const VerifyReport back = verify_report_from_json(verify_report_to_json(r), "verify.json");
    EXPECT_TRUE(std::isinf(back.measurement->output.norm_rel_err));
    EXPECT_FALSE(back.measurement->output.finite);
}

// Reading `text` throws BadFormat whose message contains `where`.
void expect_bad(const std::string& text, const std::string& where) {
    try {
        (void)verify_report_from_json(text, "s/verify.json");
        ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
        EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("s/verify.json"), std::string::npos) << e.what();
    }
}

TEST(VerifyReport, ErrorsNameTheFileAndTheField) {
    using nlohmann::json;
    const json good = json::parse(verify_report_to_json(sample_report()));
    auto with = [&](const std::function<void(json&)>& change) {
        json j = good;
        change(j);
        return j.dump(2);
    };
    expect_bad("not json", "not valid JSON");
    expect_bad("[1, 2]", "not a JSON object");
    expect_bad(with([](json& j) { j["format_version"] = 7; }), "format_version");
    expect_bad(with([](json& j) { j.erase("format_version"); }), "missing field 'format_version'");
    expect_bad(with([](json& j) { j["verdict"] = "GREAT"; }), "verdict");
    expect_bad(with([](json& j) { j["kernels"][1]["type"] = "rms"; }), "kernels[1].type");
    expect_bad(with([](json& j) { j["kernels"][0]["model_fraction"] = 1.6; }), "kernels[0].model_fraction");
    expect_bad(with([](json& j) { j["measurement"]["coverage"][0]["calls"] = -84; }), "measurement.coverage[0]");
    expect_bad(with([](json& j) { j["measurement"]["coverage"][0]["calls"] = "many"; }), "measurement.coverage[0].calls");
    expect_bad(with([](json& j) { j["measurement"]["checks"][1]["calls"] = -1; }), "measurement.checks[1]");
    expect_bad(with([](json& j) { j["measurement"]["unmodified"]["median_ms"] = true; }), "measurement.unmodified.median_ms");
    expect_bad(with([](json& j) { j["measurement"].erase("output"); }), "measurement: missing field 'output'");
    expect_bad(with([](json& j) { j["model"]["dtype"] = "fp64"; }), "model.dtype");
}

TEST(VerifyReport, WritesAndReadsVerifyJsonInTheSession) {
    const fs::path dir = fs::temp_directory_path() / ("ak_verify_report_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    EXPECT_THROW((void)read_verify_report(dir), Error);
    try {
        (void)read_verify_report(dir);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find("verify.json"), std::string::npos);
    }
    VerifyReport r = sample_report();
    complete_report(r);
    write_verify_report(dir, r);
    EXPECT_EQ(verify_report_path(dir), dir / "verify.json");
    const VerifyReport back = read_verify_report(dir);
    EXPECT_EQ(verify_report_to_json(back), verify_report_to_json(r));
    fs::remove_all(dir);
}

TEST(VerifyPrediction, AmdahlOverTheKernelsWithShares) {
    std::vector<VerifyKernelRow> k{{"a", KernelType::Matmul, 0.3, 2.0, {}, ""}, {"b", KernelType::RmsNorm, 0.2, 1.5, {}, ""}};
    // 1 / (1 - 0.3 (1 - 1/2) - 0.2 (1 - 1/1.5))
    EXPECT_NEAR(*predict_speedup(k), 1.0 / (1.0 - 0.15 - 0.2 / 3.0), 1e-12);
    // A kernel without a measured speedup counts as 1x.
    k[1].kernel_speedup.reset();
    EXPECT_NEAR(*predict_speedup(k), 1.0 / (1.0 - 0.15), 1e-12);
    // A kernel left out of the run does not enter.
    k.push_back({"c", KernelType::Softmax, 0.4, 0.5, {}, "", false, "not faster than PyTorch (0.50x)"});
    EXPECT_NEAR(*predict_speedup(k), 1.0 / (1.0 - 0.15), 1e-12);
    k.pop_back();
    // Kernels without a share do not enter; none with a share: no prediction.
    k[0].model_fraction = 0;
    k[1].model_fraction = 0;
    EXPECT_FALSE(predict_speedup(k).has_value());
    // Shares above 1 in total are an error.
    k[0].model_fraction = 0.7;
    k[1].model_fraction = 0.6;
    EXPECT_THROW((void)predict_speedup(k), Error);
}

TEST(VerifyPrediction, InModelPredictionUsesThisRunsGpuTimes) {
    TypeCoverage mm;
    mm.type = KernelType::Matmul;
    mm.routed_calls = 10;
    mm.routed_us = 300;
    mm.aten_calls = 10;
    mm.aten_us = 600;
    TypeCoverage rms;
    rms.type = KernelType::RmsNorm;
    rms.routed_calls = 5;
    rms.routed_us = 40;
    rms.fallback_calls = 1;
    rms.fallback_us = 10;
    rms.aten_calls = 6;
    rms.aten_us = 100;
    // 1000 us before; after: 1000 - 600 + 300 - 100 + 50 = 650 us.
    EXPECT_NEAR(*in_model_prediction({mm, rms}, 1000), 1000.0 / 650.0, 1e-12);
    EXPECT_FALSE(in_model_prediction({mm, rms}, 0).has_value());
    EXPECT_FALSE(in_model_prediction({}, 1000).has_value());
}

TEST(VerifyCoverage, AggregatesPerTypeOverKernelsAndFallbacks) {
    VerifyMeasurement m;
    m.coverage = {coverage(KernelType::Matmul, "matmul_qkv", 24, 300, {}, 2), coverage(KernelType::Matmul, "matmul_mlp", 24, 500),
                  coverage(KernelType::Matmul, "", 2, 200, {{"aten::bmm: batched", 1}, {"aten::mm: dtype fp32 not verified", 1}}),
                  coverage(KernelType::Matmul, "", 1, 0, {{"aten::bmm: batched", 1}}), coverage(KernelType::Softmax, "", 4, 40, {{"half_to_float", 4}})};
    m.aten = {{KernelType::Matmul, 51, 1500}, {KernelType::Softmax, 4, 40}, {KernelType::RmsNorm, 3, 30}};
    const auto c = aggregate_coverage(m);
    ASSERT_EQ(c.size(), 3u);  // matmul, softmax, rmsnorm in kernel-type order
    EXPECT_EQ(c[0].type, KernelType::Matmul);
    EXPECT_EQ(c[0].routed_calls, 48);
    EXPECT_EQ(c[0].fallback_calls, 3);
    EXPECT_EQ(c[0].copied_calls, 2);
    EXPECT_DOUBLE_EQ(c[0].routed_us, 800);
    EXPECT_DOUBLE_EQ(c[0].fallback_us, 200);
    EXPECT_NEAR(c[0].call_coverage(), 48.0 / 51.0, 1e-12);
    EXPECT_NEAR(c[0].time_coverage(), 0.8, 1e-12);
    EXPECT_NEAR(*c[0].in_model_speedup(), 1.5, 1e-12);
    // Reasons merged, most frequent first.
    ASSERT_EQ(c[0].fallback_reasons.size(), 2u);
    EXPECT_EQ(c[0].fallback_reasons[0].first, "aten::bmm: batched");
    EXPECT_EQ(c[0].fallback_reasons[0].second, 2);
    EXPECT_EQ(c[1].type, KernelType::Softmax);
    EXPECT_DOUBLE_EQ(c[1].time_coverage(), 0.0);
    EXPECT_EQ(c[2].type, KernelType::RmsNorm);
    EXPECT_EQ(c[2].routed_calls + c[2].fallback_calls, 0);
    EXPECT_DOUBLE_EQ(c[2].call_coverage(), 1.0);  // no calls with our kernels in: nothing fell back
    EXPECT_FALSE(c[2].in_model_speedup().has_value());
}

TEST(VerifyExplanations, NameFallbacksInModelSpeedAndFailuresWhenTheGapIsLarge) {
    VerifyReport r = sample_report();
    // Predicted 1 / (1 - 0.6 (1 - 1/1.1) - 0.05 (1 - 1/1.8)) = 1.0807...; measured 10 / 9 = 1.111 (+2.8 %).
    complete_report(r);
    ASSERT_TRUE(r.predicted_speedup);
    EXPECT_NEAR(*r.predicted_speedup, 1.0 / (1.0 - 0.6 * (1 - 1 / 1.1) - 0.05 * (1 - 1 / 1.8)), 1e-12);
    EXPECT_TRUE(r.explanations.empty()) << r.explanations.front();

    // Now the model barely got faster: the fallback, the in-model speed and the host gap are named.
    r.measurement->substituted->median_ms = 10.5;
    r.measurement->failures.push_back({"rotary", "launch", "grid too large"});
    complete_report(r);
    std::string all;
    for (const auto& e : r.explanations) all += e + "\n";
    EXPECT_NE(all.find("kernel rotary failed inside the model (launch): grid too large"), std::string::npos) << all;
    EXPECT_NE(all.find("fallbacks: matmul ran 1 of 85 calls"), std::string::npos) << all;
    EXPECT_NE(all.find("not among the verified shapes"), std::string::npos) << all;
    EXPECT_NE(all.find("layout copies: 3 rmsnorm calls"), std::string::npos) << all;
    // rmsnorm: 400 us on ATen, 200 us with ours: 2.00x in the model against 1.8x at the session's shapes.
    EXPECT_NE(all.find("in-model speed: rmsnorm is 1.80x"), std::string::npos) << all;
    EXPECT_NE(all.find("2.00x inside the model"), std::string::npos) << all;
    // Shares: the profile says 60 % for matmul, this run's ATen time says 72 %.
    EXPECT_NE(all.find("shares: matmul has 60 %"), std::string::npos) << all;
    EXPECT_NE(all.find("72 %"), std::string::npos) << all;
    EXPECT_NE(all.find("host overhead"), std::string::npos) << all;
    EXPECT_EQ(all.find("softmax"), std::string::npos) << "softmax was not substituted:\n" << all;

    // A type slower inside the model than on ATen is named first among the causes, and a kernel without
    // a measured speedup is said to count as 1x.
    r.measurement->coverage[0].gpu_us = 14000;
    r.measurement->substituted->median_ms = 11.0;
    r.kernels[1].kernel_speedup.reset();
    complete_report(r);
    all.clear();
    for (const auto& e : r.explanations) all += e + "\n";
    EXPECT_NE(all.find("slower than ATen: matmul took 14900 us with our kernels against 7200 us on ATen (0.48x)"),
              std::string::npos) << all;
    EXPECT_LT(all.find("slower than ATen"), all.find("fallbacks:")) << all;
    EXPECT_NE(all.find("not measured: rmsnorm"), std::string::npos) << all;
}

TEST(VerifyReportText, ShowsVerdictSpeedupsCoverageAndChecks) {
    VerifyReport r = sample_report();
    complete_report(r);
    const std::string s = format_verify_report(r);
    EXPECT_NE(s.find("verify PASS: llama on llama-160m batch 8 seq 512 fp16"), std::string::npos) << s;
    EXPECT_NE(s.find("measured 1.11x"), std::string::npos) << s;
    EXPECT_NE(s.find("matmul"), std::string::npos);
    EXPECT_NE(s.find("84/85"), std::string::npos) << s;
    EXPECT_NE(s.find("fallback: aten::mm: shape 4096x32000x768"), std::string::npos) << s;
    EXPECT_NE(s.find("per-call checks against ATen"), std::string::npos) << s;
    EXPECT_NE(s.find("not substituted: not faster than PyTorch (0.50x)"), std::string::npos) << s;
}

// A timing of one mode with its A/A ratio and speedup (latencies per pass).
VerifyTiming timing(const std::string& mode, VerifyRatio control, VerifyRatio speedup) {
    VerifyTiming t;
    t.mode = mode;
    t.measured = true;
    t.passes_per_sample = 4;
    t.unmodified = VerifyLatency{6.0, 5.99, 6.01, 0.02, 30};
    t.control = VerifyLatency{6.0, 5.99, 6.01, 0.02, 30};
    t.substituted = VerifyLatency{6.0 / speedup.median, 0, 0, 0.02, 30};
    t.control_ratio = control;
    t.speedup = speedup;
    return t;
}

TEST(VerifyExplanations, TheAaFloorSaysWhenASpeedupIsNoMeasurableDifference) {
    VerifyReport r = sample_report();
    // Graph replays: A/A 1.002 [0.998-1.004] -> floor 0.2 + 0.3 = 0.5 %; speedup 1.004: within it.
    r.measurement->timings = {timing("graph", {1.002, 0.998, 1.004}, {1.004, 1.0, 1.008}),
                              timing("eager", {0.99, 0.95, 1.03}, {0.90, 0.85, 0.95})};
    complete_report(r);
    ASSERT_TRUE(r.measured_speedup());
    EXPECT_DOUBLE_EQ(*r.measured_speedup(), 1.004);  // the graph timing's, not the eager 10 / 9
    std::string all;
    for (const auto& e : r.explanations) all += e + "\n";
    EXPECT_NE(all.find("noise floor (graph): the unmodified model against itself measured 1.002x [0.998-1.004], floor +-0.5 %; "
                       "the measured 1.00x is within it: no measurable difference"),
              std::string::npos) << all;
    // Eager 0.90x against 1.00x in graphs: more than either floor apart, so the host path is named.
    EXPECT_NE(all.find("eager passes measured 0.90x against 1.00x in graph replays"), std::string::npos) << all;
    const std::string text = format_verify_report(r);
    EXPECT_NE(text.find("graph (30 samples of 4 passes each): unmodified 6.000 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("A/A ratio 1.002 [0.998-1.004] (noise floor +-0.5 %), speedup 1.004 [1.000-1.008]: no measurable difference"),
              std::string::npos) << text;
    EXPECT_NE(text.find("measured 1.00x (graph, no measurable difference)"), std::string::npos) << text;

    // A clear speedup is "faster"; a capture that failed is named with its reason and eager is the measurement.
    VerifyTiming failed;
    failed.mode = "graph";
    failed.reason = "capturing the unmodified forward pass failed: operation not permitted when stream is capturing";
    r.measurement->timings = {failed, timing("eager", {1.0, 0.99, 1.01}, {1.2, 1.19, 1.21})};
    complete_report(r);
    all.clear();
    for (const auto& e : r.explanations) all += e + "\n";
    EXPECT_DOUBLE_EQ(*r.measured_speedup(), 1.2);
    EXPECT_NE(all.find("noise floor (eager)"), std::string::npos) << all;
    EXPECT_NE(all.find("the measured 1.20x is faster"), std::string::npos) << all;
    EXPECT_NE(all.find("graph timing not measured: capturing the unmodified forward pass failed"), std::string::npos) << all;
    // The report round-trips with its timings.
    const VerifyReport back = verify_report_from_json(verify_report_to_json(r), "verify.json");
    ASSERT_TRUE(back.measurement);
    ASSERT_EQ(back.measurement->timings.size(), 2u);
    EXPECT_EQ(back.measurement->timings[0].reason, failed.reason);
    EXPECT_DOUBLE_EQ(back.measurement->timings[1].speedup.median, 1.2);
}

}  // namespace
}  // namespace ak

TEST(FasterOnly, AKernelMustBeatPyTorchByMoreThanTheMargin) {
    EXPECT_EQ(ak::faster_only_skip_reason(std::nullopt, 1.05), "no measured speedup");
    EXPECT_EQ(ak::faster_only_skip_reason(0.84, 1.05), "not faster than PyTorch (0.84x)");
    EXPECT_EQ(ak::faster_only_skip_reason(1.0, 1.05), "not faster than PyTorch (1.00x)");
    EXPECT_EQ(ak::faster_only_skip_reason(1.03, 1.05), "within 5 % of PyTorch (1.03x; --faster-only needs more than 1.05x)");
    EXPECT_EQ(ak::faster_only_skip_reason(1.05, 1.05), "within 5 % of PyTorch (1.05x; --faster-only needs more than 1.05x)");
    EXPECT_FALSE(ak::faster_only_skip_reason(1.28, 1.05).has_value());
    EXPECT_FALSE(ak::faster_only_skip_reason(1.01, 1.0).has_value()) << "--min-speedup 1: any gain";
}
