#include "engine/evaluation_protocol.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ak;

namespace {

EvaluationResult sample_result() {
    EvaluationResult r;
    r.id = 42;
    r.verdict = Verdict::Fail;
    r.failed_stage = CheckStage::Edge;
    r.detail = "edge 1023x4097 bf16: max abs err 0.5 > tol 0.02 at index 4096";
    CompileRecord c;
    c.dtype = DType::bf16;
    c.ok = true;
    c.log = "warning: unused variable \"é\"";
    c.registers = 40;
    c.spills = 8;
    c.shared_bytes = 1024;
    c.compile_ms = 21.5;
    c.cache_hit = true;
    c.functions.push_back({"ak_kernel0", 40, 8, 1024});
    r.compile.push_back(c);
    CheckRecord k;
    k.stage = CheckStage::Edge;
    k.shape = Shape{{1023, 4097}};
    k.dtype = DType::bf16;
    k.seed = 0xFFFFFFFFFFFFFFF0ull;
    k.passed = false;
    k.max_abs_err = std::nan("");
    k.norm_rel_err = INFINITY;
    k.tolerance = 0.02;
    k.detail = "NaN at index 7";
    r.checks.push_back(k);
    TimingRecord t;
    t.shape = Shape{{2, 32, 1024, 64, 1}};
    t.dtype = DType::fp16;
    t.median_us = 75.5;
    t.iqr_us = 0.75;
    t.samples = 200;
    t.baseline_name = "SDPA (flash)";
    t.baseline_median_us = 37.9;
    t.baseline_iqr_us = 0.25;
    t.speedup = 37.9 / 75.5;
    t.tflops = 228.0;
    t.gb_s = 111.0;
    t.pct_peak = 23.0;
    t.bound = "compute";
    t.pct_gemm_ceiling = 34.5;
    r.timing.push_back(t);
    r.reference_timing.push_back(t);
    r.reference_compile = c;
    r.seed = 123456789;
    r.wall_ms = 812.25;
    r.worker_pid = 4242;
    r.device = "NVIDIA H200";
    r.worker_exiting = true;
    return r;
}

}  // namespace

TEST(Verdict, NamesRoundTrip) {
    for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::CompileError, Verdict::Timeout, Verdict::Crash})
        EXPECT_EQ(parse_verdict(verdict_to_string(v)), v);
    EXPECT_EQ(verdict_to_string(Verdict::CompileError), "COMPILE_ERROR");
    EXPECT_FALSE(parse_verdict("pass"));
    EXPECT_EQ(parse_check_stage("determinism"), CheckStage::Determinism);
    EXPECT_EQ(parse_request_op("ceilings"), RequestOp::Ceilings);
}

TEST(ProtocolRequest, RoundTripsEveryField) {
    EvaluationRequest r;
    r.id = 9;
    r.type = KernelType::FlashAttention;
    r.source = "extern \"C\" __global__ void ak_kernel0() {}\n// \"quotes\" and \\ backslashes\ttabs";
    r.source_name = "attn.cu";
    r.dtypes = {DType::bf16};
    r.timing_dtype = DType::bf16;
    r.timing_shapes = {Shape{{1, 32, 4096, 64, 1}}};
    r.correctness_shapes = {Shape{{1, 2, 128, 64, 0}}, Shape{{1, 2, 255, 128, 1}}};
    r.seed = 77;
    r.timeout_s = 12.5;
    r.reference_source = "// best so far";
    r.iterations_hint = 50;
    const std::string line = encode_request(r);
    EXPECT_EQ(line.find('\n'), std::string::npos) << "one request per line";
    const auto back = decode_request(line);
    EXPECT_EQ(back.id, 9u);
    EXPECT_EQ(back.op, RequestOp::Evaluate);
    EXPECT_EQ(back.type, KernelType::FlashAttention);
    EXPECT_EQ(back.source, r.source);
    EXPECT_EQ(back.source_name, "attn.cu");
    EXPECT_EQ(back.dtypes, r.dtypes);
    EXPECT_EQ(back.timing_dtype, DType::bf16);
    EXPECT_EQ(back.timing_shapes, r.timing_shapes);
    EXPECT_EQ(back.correctness_shapes, r.correctness_shapes);
    EXPECT_EQ(back.seed, 77u);
    EXPECT_DOUBLE_EQ(back.timeout_s, 12.5);
    EXPECT_EQ(back.reference_source, r.reference_source);
    EXPECT_EQ(back.iterations_hint, 50);
}

TEST(ProtocolRequest, MissingOptionalFieldsTakeTheDefaults) {
    const auto r = decode_request(R"({"id":1,"op":"evaluate","type":"rmsnorm","source":"x"})");
    EXPECT_EQ(r.dtypes, (std::vector<DType>{DType::fp16, DType::bf16, DType::fp32}));
    EXPECT_EQ(r.timing_dtype, DType::fp16);
    EXPECT_TRUE(r.timing_shapes.empty());
    EXPECT_TRUE(r.correctness_shapes.empty());
    EXPECT_EQ(r.seed, 0u);
    EXPECT_FALSE(r.reference_source);
    EXPECT_GT(r.timeout_s, 0);
}

TEST(ProtocolRequest, AcceptsShapeTextAndValidatesIt) {
    const auto r = decode_request(
        R"({"id":1,"op":"evaluate","type":"flash_attention","source":"","timing_shapes":["2x32x1024x64 causal"]})");
    ASSERT_EQ(r.timing_shapes.size(), 1u);
    EXPECT_EQ(r.timing_shapes[0], (Shape{{2, 32, 1024, 64, 1}}));
    EXPECT_THROW(decode_request(R"({"id":1,"op":"evaluate","type":"softmax","source":"","timing_shapes":[[4096]]})"),
                 Error);
}

TEST(ProtocolRequest, ControlOpsNeedOnlyIdAndOp) {
    EvaluationRequest ping;
    ping.id = 3;
    ping.op = RequestOp::Ping;
    const auto back = decode_request(encode_request(ping));
    EXPECT_EQ(back.op, RequestOp::Ping);
    EXPECT_EQ(back.id, 3u);
    EXPECT_EQ(encode_request(ping).find("source"), std::string::npos);
}

TEST(ProtocolRequest, ErrorsNameTheField) {
    auto message = [](const char* json) {
        try {
            decode_request(json);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(message("[1,2]").find("not a JSON object"), std::string::npos);
    EXPECT_NE(message(R"({"op":"ping"})").find("'id'"), std::string::npos);
    EXPECT_NE(message(R"({"id":1,"op":"explode"})").find("unknown op 'explode'"), std::string::npos);
    EXPECT_NE(message(R"({"id":1,"op":"evaluate","source":""})").find("'type'"), std::string::npos);
    EXPECT_NE(message(R"({"id":1,"op":"evaluate","type":"reduce"})").find("'source'"), std::string::npos);
    EXPECT_NE(message(R"({"id":1,"op":"evaluate","type":"reduce","source":"","dtypes":["fp8"]})").find("dtypes[0]"),
              std::string::npos);
    EXPECT_NE(message(R"({"id":1,"op":"evaluate","type":"reduce","source":"","seed":"x"})").find("'seed'"),
              std::string::npos);
    EXPECT_NE(message(R"({"id":-1,"op":"ping"})").find("negative"), std::string::npos);
}

TEST(ProtocolResult, RoundTripsEveryFieldIncludingNonFiniteErrors) {
    const auto r = sample_result();
    const std::string line = encode_result(r);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    const auto back = decode_result(line);
    EXPECT_EQ(back.id, 42u);
    EXPECT_EQ(back.verdict, Verdict::Fail);
    EXPECT_EQ(back.failed_stage, CheckStage::Edge);
    EXPECT_EQ(back.detail, r.detail);
    ASSERT_EQ(back.compile.size(), 1u);
    EXPECT_EQ(back.compile[0].log, r.compile[0].log);
    EXPECT_EQ(back.compile[0].registers, 40);
    EXPECT_EQ(back.compile[0].spills, 8);
    EXPECT_EQ(back.compile[0].shared_bytes, 1024);
    EXPECT_DOUBLE_EQ(back.compile[0].compile_ms, 21.5);
    EXPECT_TRUE(back.compile[0].cache_hit);
    ASSERT_EQ(back.compile[0].functions.size(), 1u);
    EXPECT_EQ(back.compile[0].functions[0].name, "ak_kernel0");
    EXPECT_EQ(back.compile[0].functions[0].spill_bytes, 8);
    ASSERT_EQ(back.checks.size(), 1u);
    EXPECT_EQ(back.checks[0].shape, (Shape{{1023, 4097}}));
    EXPECT_EQ(back.checks[0].seed, 0xFFFFFFFFFFFFFFF0ull);
    EXPECT_TRUE(std::isnan(back.checks[0].max_abs_err));
    EXPECT_TRUE(std::isinf(back.checks[0].norm_rel_err));
    EXPECT_EQ(back.checks[0].detail, "NaN at index 7");
    ASSERT_EQ(back.timing.size(), 1u);
    const auto& t = back.timing[0];
    EXPECT_EQ(t.shape, (Shape{{2, 32, 1024, 64, 1}}));
    EXPECT_DOUBLE_EQ(t.median_us, 75.5);
    EXPECT_EQ(t.samples, 200);
    EXPECT_EQ(t.baseline_name, "SDPA (flash)");
    EXPECT_DOUBLE_EQ(t.speedup, 37.9 / 75.5);
    EXPECT_EQ(t.bound, "compute");
    EXPECT_FALSE(t.pct_copy_ceiling);
    EXPECT_EQ(t.pct_gemm_ceiling, 34.5);
    EXPECT_EQ(back.reference_timing.size(), 1u);
    ASSERT_TRUE(back.reference_compile);
    EXPECT_FALSE(back.reference_failure);
    EXPECT_EQ(back.seed, 123456789u);
    EXPECT_DOUBLE_EQ(back.wall_ms, 812.25);
    EXPECT_EQ(back.worker_pid, 4242);
    EXPECT_EQ(back.device, "NVIDIA H200");
    EXPECT_TRUE(back.worker_exiting);
}

TEST(ProtocolResult, TheTimingStageAndAReferenceFailureRoundTrip) {
    auto r = sample_result();
    r.failed_stage = CheckStage::Timing;
    r.reference_failure = "the reference candidate fails its own checks: smoke 64x1024 fp16 (seed 1): NaN";
    const auto back = decode_result(encode_result(r));
    EXPECT_EQ(back.failed_stage, CheckStage::Timing);
    ASSERT_TRUE(back.reference_failure);
    EXPECT_EQ(*back.reference_failure, *r.reference_failure);
    EXPECT_EQ(to_string(CheckStage::Timing), "timing");
    EXPECT_EQ(parse_check_stage("timing"), CheckStage::Timing);
    EXPECT_THROW(decode_result(R"({"id":1,"verdict":"PASS","reference_failure":3})"), Error);
}

TEST(ProtocolResult, CeilingsAndDeviceRoundTrip) {
    EvaluationResult r;
    r.id = 5;
    r.verdict = Verdict::Pass;
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.measured_utc = "2026-11-29T08:00:00Z";
    c.copy_gb_s[134217728] = 3705;
    c.copy_gb_s[4294967296ull] = 4257;
    c.gemm_tflops[DType::bf16] = 721;
    c.gemm_tflops[DType::fp16] = 665;
    r.ceilings = c;
    DeviceDescription d;
    d.name = "NVIDIA H200";
    d.cc_major = 9;
    d.sm_count = 132;
    d.l2_mb = 60;
    r.device_info = d;
    const auto back = decode_result(encode_result(r));
    ASSERT_TRUE(back.ceilings);
    EXPECT_EQ(back.ceilings->copy_gb_s, c.copy_gb_s);
    EXPECT_EQ(back.ceilings->gemm_tflops, c.gemm_tflops);
    EXPECT_EQ(back.ceilings->measured_utc, c.measured_utc);
    ASSERT_TRUE(back.device_info);
    EXPECT_EQ(back.device_info->sm_count, 132);
    EXPECT_EQ(back.device_info->cc_major, 9);
    // The cache file form round-trips on its own.
    const auto cached = decode_ceilings(encode_ceilings(c));
    EXPECT_EQ(cached.copy_gb_s, c.copy_gb_s);
    EXPECT_EQ(cached.device_name, c.device_name);
}

TEST(ProtocolResult, PrettyFormDecodesToTheSameResult) {
    const auto r = sample_result();
    const auto pretty = encode_result_pretty(r);
    EXPECT_NE(pretty.find('\n'), std::string::npos);
    EXPECT_EQ(encode_result(decode_result(pretty)), encode_result(r));
}

TEST(ProtocolResult, RejectsUnknownVerdictsAndMissingIds) {
    EXPECT_THROW(decode_result(R"({"id":1,"verdict":"MAYBE"})"), Error);
    EXPECT_THROW(decode_result(R"({"verdict":"PASS"})"), Error);
    EXPECT_THROW(decode_result(R"({"id":1})"), Error);
    EXPECT_THROW(decode_result(R"({"id":1,"verdict":"FAIL","failed_stage":"vibes"})"), Error);
}

TEST(WorkerLine, DistinguishesProgressFromResults) {
    ProgressEvent e{7, "sweep", "4096x4096 bf16"};
    const auto progress = decode_worker_line(encode_progress(e));
    ASSERT_TRUE(std::holds_alternative<ProgressEvent>(progress));
    EXPECT_EQ(std::get<ProgressEvent>(progress).stage, "sweep");
    EXPECT_EQ(std::get<ProgressEvent>(progress).message, "4096x4096 bf16");
    EXPECT_EQ(std::get<ProgressEvent>(progress).id, 7u);
    const auto result = decode_worker_line(encode_result(sample_result()));
    ASSERT_TRUE(std::holds_alternative<EvaluationResult>(result));
    EXPECT_THROW(decode_worker_line("Segmentation fault"), Error);
    EXPECT_THROW(decode_worker_line(R"({"id":1,"event":"party"})"), Error);
}

TEST(SummaryLine, PassShowsTimeBaselineAndCeiling) {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    TimingRecord t;
    t.shape = Shape{{4096, 8192}};
    t.dtype = DType::bf16;
    t.median_us = 40.2;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = 57.2;
    t.speedup = 57.2 / 40.2;
    t.gb_s = 3342;
    t.pct_peak = 69.6;
    t.bound = "memory";
    t.pct_copy_ceiling = 90.2;
    r.timing.push_back(t);
    EXPECT_EQ(summary_line(r), "PASS  4096x8192 bf16: 40.2 us (at::rms_norm 57.2 us, 1.42x), 3342 GB/s, 90% of copy");
    r.timing[0].pct_copy_ceiling.reset();
    EXPECT_EQ(summary_line(r), "PASS  4096x8192 bf16: 40.2 us (at::rms_norm 57.2 us, 1.42x), 3342 GB/s, 70% of peak");
}

TEST(SummaryLine, FailuresNameStageAndFirstErrorLine) {
    auto r = sample_result();
    r.worker_exiting = false;
    EXPECT_EQ(summary_line(r), "FAIL at edge: " + r.detail);
    EvaluationResult c;
    c.verdict = Verdict::CompileError;
    c.compile.push_back({DType::fp16, true, "", 0, 0, 0, 0, false, {}});
    c.compile.push_back({DType::bf16, false, "k.cu(3): warning: x\nk.cu(9): error: identifier \"q\" is undefined\n", 0,
                         0, 0, 0, false, {}});
    EXPECT_EQ(summary_line(c), "COMPILE_ERROR bf16: k.cu(9): error: identifier \"q\" is undefined");
    EvaluationResult t;
    t.verdict = Verdict::Timeout;
    t.detail = "no result within 5 s; worker killed";
    EXPECT_EQ(summary_line(t), "TIMEOUT: no result within 5 s; worker killed");
}
