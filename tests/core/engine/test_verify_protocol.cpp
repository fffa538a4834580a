// The "verify" op of the evaluation protocol (engine/verify_protocol.h): requests and results travel
// intact, and malformed ones are refused naming the field.
#include "engine/evaluation_protocol.h"
#include "engine/verify_protocol.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ak {
namespace {

VerifyRequest sample_request() {
    VerifyRequest r;
    r.model.builtin = "gpt2";
    r.model.batch = 4;
    r.model.seq = 256;
    r.model.dtype = DType::bf16;
    r.model.seed = 7;
    VerifyKernel k;
    k.name = "rmsnorm";
    k.type = KernelType::RmsNorm;
    k.source = "// @autokernel type rmsnorm\n\"quoted\" \\ back";
    k.dtypes = {DType::fp16, DType::fp32};
    k.shapes = {Shape{{1024, 768}}, Shape{{7, 33}}};
    k.timing_dtype = DType::bf16;
    k.timing_shapes = {Shape{{2048, 768}}};
    r.kernels.push_back(k);
    VerifyKernel fa;
    fa.name = "attention";
    fa.type = KernelType::FlashAttention;
    fa.source = "x";
    fa.timing_shapes = {Shape{{4, 12, 256, 64, 1}}};
    r.kernels.push_back(fa);
    r.iterations = 11;
    r.warmup = 2;
    r.any_shape = true;
    r.copy_layouts = false;
    r.check_only = true;
    r.passes_per_sample = 4;
    r.graphs = false;
    return r;
}

TEST(VerifyProtocol, RequestTravelsThroughTheEvaluationProtocol) {
    EvaluationRequest e;
    e.id = 9;
    e.op = RequestOp::Verify;
    e.timeout_s = 300;
    e.verify = sample_request();
    const EvaluationRequest back = decode_request(encode_request(e));
    EXPECT_EQ(back.op, RequestOp::Verify);
    EXPECT_EQ(back.id, 9u);
    EXPECT_DOUBLE_EQ(back.timeout_s, 300);
    ASSERT_TRUE(back.verify);
    EXPECT_EQ(encode_verify_request(*back.verify), encode_verify_request(*e.verify));
    const VerifyRequest& v = *back.verify;
    EXPECT_EQ(v.model.builtin, "gpt2");
    EXPECT_EQ(v.model.dtype, DType::bf16);
    ASSERT_EQ(v.kernels.size(), 2u);
    EXPECT_EQ(v.kernels[0].source, e.verify->kernels[0].source);
    EXPECT_EQ(v.kernels[0].shapes.at(1), (Shape{{7, 33}}));
    EXPECT_EQ(v.kernels[0].timing_dtype, DType::bf16);
    EXPECT_EQ(v.kernels[1].timing_shapes.at(0), (Shape{{4, 12, 256, 64, 1}}));
    EXPECT_EQ(v.iterations, 11);
    EXPECT_TRUE(v.any_shape);
    EXPECT_FALSE(v.copy_layouts);
    EXPECT_TRUE(v.check_only);
    EXPECT_EQ(v.passes_per_sample, 4);
    EXPECT_FALSE(v.graphs);
    EXPECT_EQ(to_string(RequestOp::Verify), "verify");
}

void expect_bad_request(const std::string& line, const std::string& where) {
    try {
        (void)decode_request(line);
        ADD_FAILURE() << "accepted " << line;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
        EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
}

TEST(VerifyProtocol, MalformedRequestsNameTheField) {
    expect_bad_request(R"({"id":1,"op":"verify"})", "needs the object field 'verify'");
    const std::string model = R"("model":{"builtin":"gpt2"})";
    expect_bad_request(R"({"id":1,"op":"verify","verify":{"model":{}}})", "exactly one of 'builtin' and 'torchscript'");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{"model":{"builtin":"gpt2","torchscript":"m.pt"}}})", "exactly one");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{)" + model + R"(,"kernels":[{"name":"k","type":"rms","source":""}]}})",
                       "request.verify.kernels[0].type");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{)" + model +
                           R"(,"kernels":[{"name":"k","type":"rmsnorm","source":"","shapes":[[1,2,3]]}]}})",
                       "kernels[0].shapes[0]");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{)" + model + R"(,"kernels":[{"name":"","type":"rmsnorm","source":""}]}})",
                       "kernels[0].name");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{)" + model + R"(,"iterations":0}})", "iterations");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{"model":{"builtin":"gpt2","dtype":"fp8"}}})", "model.dtype");
    expect_bad_request(R"({"id":1,"op":"verify","verify":{)" + model + R"(,"passes_per_sample":-1}})", "passes_per_sample");
}

// A measured timing: latencies per pass and the paired ratios.
VerifyTiming timing(const std::string& mode, VerifyRatio control, VerifyRatio speedup) {
    VerifyTiming t;
    t.mode = mode;
    t.measured = true;
    t.passes_per_sample = 3;
    t.unmodified = VerifyLatency{5.0, 4.9, 5.1, 0.2, 30};
    t.control = VerifyLatency{5.01, 4.9, 5.1, 0.2, 30};
    t.substituted = VerifyLatency{4.0, 3.9, 4.1, 0.2, 30};
    t.control_ratio = control;
    t.speedup = speedup;
    return t;
}

TEST(VerifyProtocol, TimingsTravelAndTheGraphTimingIsTheMeasuredSpeedup) {
    VerifyMeasurement m;
    m.output.tolerance = 1e-2;
    m.unmodified = VerifyLatency{8.0, 0, 0, 0, 30};  // eager, as older reports have it
    m.substituted = VerifyLatency{7.0, 0, 0, 0, 30};
    VerifyTiming failed;
    failed.mode = "graph";
    failed.reason = "capturing the unmodified forward pass failed: operation not permitted when stream is capturing";
    m.timings = {failed, timing("eager", {1.01, 0.99, 1.03}, {1.14, 1.12, 1.16})};
    VerifyMeasurement back = decode_verify_measurement(encode_verify_measurement(m));
    EXPECT_EQ(encode_verify_measurement(back), encode_verify_measurement(m));
    ASSERT_EQ(back.timings.size(), 2u);
    EXPECT_FALSE(back.timings[0].measured);
    EXPECT_EQ(back.timings[0].reason, failed.reason);
    EXPECT_EQ(back.timing("graph"), nullptr);  // not measured
    ASSERT_NE(back.timing("eager"), nullptr);
    EXPECT_DOUBLE_EQ(back.timing("eager")->control.median_ms, 5.01);
    EXPECT_EQ(back.timing("eager")->passes_per_sample, 3);
    // Without a graph timing the eager paired speedup is the measured one (not 8 / 7).
    EXPECT_DOUBLE_EQ(*back.measured_speedup(), 1.14);
    // With one, the graph timing is.
    back.timings[0] = timing("graph", {1.0, 0.998, 1.002}, {1.25, 1.24, 1.26});
    EXPECT_EQ(back.primary_timing(), &back.timings[0]);
    EXPECT_DOUBLE_EQ(*back.measured_speedup(), 1.25);
    // A timing of an unknown mode, or a ratio with q3 < q1, is refused naming the field.
    std::string bad = encode_verify_measurement(m);
    const auto at = bad.find("\"eager\"");
    ASSERT_NE(at, std::string::npos);
    std::string wrong_mode = bad;
    wrong_mode.replace(at, 7, "\"warp\"");
    try {
        (void)decode_verify_measurement(wrong_mode, "verify.json");
        ADD_FAILURE() << "accepted mode warp";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("timings[1].mode"), std::string::npos) << e.what();
    }
}

TEST(VerifyProtocol, PairedRatiosAreTakenSampleBySample) {
    // Sample by sample: 10/5, 12/6, 9/3, 8/8 = 2, 2, 3, 1 -> sorted 1, 2, 2, 3.
    const VerifyRatio r = paired_ratio({10, 12, 9, 8}, {5, 6, 3, 8});
    EXPECT_DOUBLE_EQ(r.median, 2.0);
    EXPECT_DOUBLE_EQ(r.q1, 1.75);
    EXPECT_DOUBLE_EQ(r.q3, 2.25);
    EXPECT_THROW((void)paired_ratio({1, 2}, {1}), Error);
    EXPECT_THROW((void)paired_ratio({}, {}), Error);
    EXPECT_THROW((void)paired_ratio({1}, {0}), Error);
}

TEST(VerifyProtocol, ASpeedupWithinTheAaFloorIsNoMeasurableDifference) {
    // A/A median 1.004 with IQR 0.990-1.010: floor = 0.004 + 0.010 = 1.4 %.
    const VerifyRatio control{1.004, 0.990, 1.010};
    EXPECT_NEAR(verify_noise_floor(control), 0.014, 1e-12);
    EXPECT_EQ(classify_speedup(timing("graph", control, {1.012, 1.0, 1.02})), SpeedupVerdict::NoMeasurableDifference);
    EXPECT_EQ(classify_speedup(timing("graph", control, {0.987, 0.98, 0.99})), SpeedupVerdict::NoMeasurableDifference);
    EXPECT_EQ(classify_speedup(timing("graph", control, {1.05, 1.04, 1.06})), SpeedupVerdict::Faster);
    EXPECT_EQ(classify_speedup(timing("graph", control, {0.95, 0.94, 0.96})), SpeedupVerdict::Slower);
    // A perfect A/A still leaves a 0.5 % floor; the old GPT-2 A/A (1.31x) makes everything below it noise.
    EXPECT_DOUBLE_EQ(verify_noise_floor({1.0, 1.0, 1.0}), 0.005);
    EXPECT_EQ(classify_speedup(timing("eager", {1.31, 1.2, 1.4}, {1.25, 1.2, 1.3})), SpeedupVerdict::NoMeasurableDifference);
    EXPECT_EQ(to_string(SpeedupVerdict::NoMeasurableDifference), "no measurable difference");
}

TEST(VerifyProtocol, PassesPerSampleFillTheTargetTime) {
    EXPECT_EQ(verify_passes_per_sample(1.2, 5.0, 0), 5);   // ceil(4.17)
    EXPECT_EQ(verify_passes_per_sample(8.0, 5.0, 0), 2);   // at least two
    EXPECT_EQ(verify_passes_per_sample(0.01, 5.0, 0), 50); // at most fifty
    EXPECT_EQ(verify_passes_per_sample(0.0, 5.0, 0), 2);
    EXPECT_EQ(verify_passes_per_sample(1.2, 5.0, 7), 7);   // --passes
}

TEST(VerifyProtocol, ResultWithAMeasurementTravels) {
    EvaluationResult r;
    r.id = 3;
    r.verdict = Verdict::Fail;
    r.detail = "kernel rmsnorm is wrong inside the model";
    VerifyMeasurement m;
    m.model_description = "gpt2: 124.4M parameters";
    m.seed = 5;
    m.output.sizes = {4, 256, 50257};
    m.output.max_abs_err = INFINITY;
    m.output.norm_rel_err = 0.3;
    m.output.tolerance = 1e-2;
    m.output.finite = false;
    m.unmodified = VerifyLatency{3.5, 3.4, 3.6, 0.2, 30};
    m.coverage.push_back({KernelType::RmsNorm, "rmsnorm", 25, 120.5, 0, {}, {"1024x768 fp16"}});
    m.coverage.push_back({KernelType::RmsNorm, "", 1, 3, 0, {{"aten::rms_norm: no weight", 1}}, {}});
    m.aten.push_back({KernelType::RmsNorm, 26, 150});
    m.checks.push_back({"rmsnorm", KernelType::RmsNorm, 25, 0.7, 0.4, false, "1024x768 Half: 9 of 786432 elements differ"});
    m.failures.push_back({"rotary", "compile", "fp16: error"});
    m.notes.push_back("a note");
    r.verify = m;
    const auto message = decode_worker_line(encode_result(r));
    ASSERT_TRUE(std::holds_alternative<EvaluationResult>(message));
    const EvaluationResult& back = std::get<EvaluationResult>(message);
    ASSERT_TRUE(back.verify);
    EXPECT_EQ(encode_verify_measurement(*back.verify), encode_verify_measurement(m));
    EXPECT_TRUE(std::isinf(back.verify->output.max_abs_err));
    EXPECT_FALSE(back.verify->substituted.has_value());
    EXPECT_FALSE(back.verify->measured_speedup().has_value());
    EXPECT_EQ(back.verify->coverage.at(1).reasons.at(0).first, "aten::rms_norm: no weight");
    EXPECT_EQ(back.verify->checks.at(0).detail, m.checks[0].detail);
}

TEST(VerifyProtocol, MeasuredSpeedupAndLabels) {
    VerifyMeasurement m;
    m.unmodified = VerifyLatency{4.0, 0, 0, 0, 10};
    m.substituted = VerifyLatency{2.0, 0, 0, 0, 10};
    EXPECT_DOUBLE_EQ(*m.measured_speedup(), 2.0);
    VerifyModelSpec s;
    s.builtin = "llama-160m";
    s.batch = 2;
    s.seq = 128;
    EXPECT_EQ(s.label(), "llama-160m batch 2 seq 128 fp16");
    VerifyModelSpec t;
    t.torchscript = "/x/model.pt";
    t.inputs = {"8x128:int64:50257"};
    EXPECT_EQ(t.label(), "/x/model.pt (8x128:int64:50257)");
}

TEST(VerifyProtocol, OutputTolerancePerDtype) {
    EXPECT_DOUBLE_EQ(verify_output_tolerance(DType::fp16), 1e-2);
    EXPECT_DOUBLE_EQ(verify_output_tolerance(DType::bf16), 5e-2);
    EXPECT_DOUBLE_EQ(verify_output_tolerance(DType::fp32), 1e-4);
    EXPECT_THROW((void)verify_output_tolerance(DType::fp8), Error);
}

}  // namespace
}  // namespace ak
