#include "engine/evaluation_report.h"

#include <gtest/gtest.h>

using namespace ak;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string line_containing(const std::string& text, const std::string& part) {
    const auto pos = text.find(part);
    if (pos == std::string::npos) return "";
    const auto start = text.rfind('\n', pos) + 1;
    return text.substr(start, text.find('\n', pos) - start);
}

CheckRecord check(CheckStage stage, Shape shape, DType dtype, bool passed, double err, double tol) {
    CheckRecord c;
    c.stage = stage;
    c.shape = std::move(shape);
    c.dtype = dtype;
    c.passed = passed;
    c.max_abs_err = err;
    c.norm_rel_err = err / 10;
    c.tolerance = tol;
    return c;
}

EvaluationResult passing_rmsnorm() {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.device = "NVIDIA H200";
    r.seed = 99;
    r.wall_ms = 640;
    r.worker_pid = 1234;
    r.compile.push_back({DType::fp16, true, "", 30, 0, 0, 21.3, false, {}});
    r.compile.push_back({DType::bf16, true, "", 32, 0, 0, 0.2, true, {}});
    r.checks.push_back(check(CheckStage::Smoke, Shape{{64, 1024}}, DType::fp16, true, 1e-3, 1e-2));
    r.checks.push_back(check(CheckStage::Sweep, Shape{{256, 4096}}, DType::fp16, true, 2e-3, 1e-2));
    r.checks.push_back(check(CheckStage::Sweep, Shape{{1024, 2048}}, DType::bf16, true, 1.5e-2, 2e-2));
    r.checks.push_back(check(CheckStage::Sweep, Shape{{512, 8192}}, DType::fp16, true, 1e-3, 1e-2));
    TimingRecord t;
    t.shape = Shape{{4096, 8192}};
    t.dtype = DType::bf16;
    t.median_us = 40.2;
    t.iqr_us = 0.31;
    t.samples = 200;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = 57.2;
    t.baseline_iqr_us = 0.4;
    t.speedup = 57.2 / 40.2;
    t.gb_s = 3342;
    t.pct_peak = 69.6;
    t.bound = "memory";
    t.pct_copy_ceiling = 90.2;
    r.timing.push_back(t);
    return r;
}

}  // namespace

TEST(EvaluationReport, PassShowsHeaderCompileChecksAndTiming) {
    const auto text = format_evaluation_report(passing_rmsnorm(), KernelType::RmsNorm, "rmsnorm.cu");
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "rmsnorm.cu (rmsnorm) on NVIDIA H200: PASS  (seed 99, 640 ms, worker pid 1234)");
    EXPECT_TRUE(has(line_containing(text, "  fp16 "), "21.3 ms")) << text;
    EXPECT_TRUE(has(line_containing(text, "  fp16 "), " ok ")) << text;
    EXPECT_TRUE(has(line_containing(text, "  bf16 "), "cached")) << text;
    // The sweep's worst case is the bf16 check (closest to its tolerance), with 3 of 3 passed.
    const auto sweep = line_containing(text, "  sweep ");
    EXPECT_TRUE(has(sweep, "3/3")) << sweep;
    EXPECT_TRUE(has(sweep, "1024x2048 bf16")) << sweep;
    EXPECT_TRUE(has(sweep, "1.50e-02")) << sweep;
    const auto row = line_containing(text, "4096x8192");
    EXPECT_TRUE(has(row, "40.2 ± 0.31")) << row;
    EXPECT_TRUE(has(row, "at::rms_norm")) << row;
    EXPECT_TRUE(has(row, "57.2 ± 0.40")) << row;
    EXPECT_TRUE(has(row, "1.42x")) << row;
    EXPECT_TRUE(has(row, "3342 GB/s")) << row;
    EXPECT_TRUE(has(row, "69.6%")) << row;
    EXPECT_TRUE(has(row, "90.2% of copy")) << row;
    EXPECT_TRUE(has(row, "memory")) << row;
    EXPECT_FALSE(has(text, "reference"));
}

TEST(EvaluationReport, ColumnsAlignDespiteMultiByteCharacters) {
    const auto text = format_evaluation_report(passing_rmsnorm(), KernelType::RmsNorm, "rmsnorm.cu");
    const auto header = line_containing(text, "ours µs");
    const auto row = line_containing(text, "4096x8192");
    // "baseline" starts in the same screen column in the header and the row.
    auto column = [](const std::string& line, std::size_t byte) {
        std::size_t cols = 0;
        for (std::size_t i = 0; i < byte; ++i) cols += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
        return cols;
    };
    EXPECT_EQ(column(header, header.find("baseline")), column(row, row.find("at::rms_norm")));
}

TEST(EvaluationReport, ComputeBoundRowsShowTflopsAndGemmCeiling) {
    auto r = passing_rmsnorm();
    r.timing[0].bound = "compute";
    r.timing[0].tflops = 612.4;
    r.timing[0].pct_copy_ceiling.reset();
    r.timing[0].pct_gemm_ceiling = 84.9;
    const auto row = line_containing(format_evaluation_report(r, KernelType::Matmul, "mm.cu"), "4096x8192");
    EXPECT_TRUE(has(row, "612.4 TFLOP/s")) << row;
    EXPECT_TRUE(has(row, "84.9% of GEMM")) << row;
    EXPECT_FALSE(has(row, "GB/s")) << row;
}

TEST(EvaluationReport, FailureNamesStageAndSaysItWasNotTimed) {
    auto r = passing_rmsnorm();
    r.verdict = Verdict::Fail;
    r.failed_stage = CheckStage::Sweep;
    r.detail = "sweep 1024x2048 bf16: max abs err 0.5 > tolerance 0.02 at index 777";
    r.checks[2].passed = false;
    r.checks[2].max_abs_err = 0.5;
    r.timing.clear();
    const auto text = format_evaluation_report(r, KernelType::RmsNorm, "rmsnorm.cu");
    EXPECT_TRUE(has(text, ": FAIL at sweep")) << text;
    EXPECT_TRUE(has(line_containing(text, "  sweep "), "2/3")) << text;
    EXPECT_TRUE(has(text, "FAIL: sweep 1024x2048 bf16: max abs err 0.5 > tolerance 0.02 at index 777")) << text;
    EXPECT_TRUE(has(text, "not timed")) << text;
}

TEST(EvaluationReport, CompileErrorPrintsTheLogOfTheFailedDtype) {
    EvaluationResult r;
    r.verdict = Verdict::CompileError;
    r.compile.push_back({DType::fp16, false, "k.cu(4): error: expected a \";\"\n", 0, 0, 0, 18, false, {}});
    const auto text = format_evaluation_report(r, KernelType::Softmax, "k.cu");
    EXPECT_TRUE(has(line_containing(text, "  fp16 "), " ERROR ")) << text;
    EXPECT_TRUE(has(text, "fp16 compiler log:\n  k.cu(4): error: expected a \";\"")) << text;
}

TEST(EvaluationReport, ReferenceTimingGetsItsOwnTable) {
    auto r = passing_rmsnorm();
    r.reference_timing = r.timing;
    r.reference_timing[0].median_us = 44.0;
    const auto text = format_evaluation_report(r, KernelType::RmsNorm, "rmsnorm.cu");
    const auto ref = text.find("reference (the current best");
    ASSERT_NE(ref, std::string::npos);
    EXPECT_TRUE(has(text.substr(ref), "44.0 ±"));
}

TEST(CeilingsReport, ComparesWithTheDatasheet) {
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.copy_gb_s[134217728] = 3705;
    c.copy_gb_s[4294967296ull] = 4257;
    c.gemm_tflops[DType::bf16] = 721;
    const auto spec = find_gpu_spec("NVIDIA H200", 9, 0);
    ASSERT_TRUE(spec);
    const auto text = format_ceilings_report(c, &*spec);
    const auto big = line_containing(text, "4.29 GB");
    EXPECT_TRUE(has(big, "4257")) << text;
    const auto pct = 100.0 * 4257 / spec->bandwidth_gb_s;
    char expected[32];
    std::snprintf(expected, sizeof expected, "%.1f%%", pct);
    EXPECT_TRUE(has(big, expected)) << big;
    EXPECT_TRUE(has(line_containing(text, "134 MB"), "3705")) << text;
    EXPECT_TRUE(has(line_containing(text, "bf16"), "721")) << text;
    EXPECT_TRUE(has(line_containing(text, "bf16"), " of " + std::to_string(static_cast<int>(spec->peak_tflops(DType::bf16) + 0.5))))
        << text;
}

TEST(CeilingsReport, WithoutASpecShowsOnlyMeasurements) {
    MeasuredCeilings c;
    c.gemm_tflops[DType::fp16] = 100;
    const auto text = format_ceilings_report(c, nullptr);
    EXPECT_TRUE(has(text, "not measured")) << "no copy sizes were measured";
    EXPECT_FALSE(has(text, "datasheet"));
}

TEST(FormatByteSize, UsesDecimalUnits) {
    EXPECT_EQ(format_byte_size(512), "512 B");
    EXPECT_EQ(format_byte_size(134217728), "134 MB");
    EXPECT_EQ(format_byte_size(4294967296.0), "4.29 GB");
    EXPECT_EQ(format_byte_size(16.5e6), "16.5 MB");
}
