// The evaluator on a real GPU, end to end through the client and the worker process: every starter
// passes all five stages and is timed against its baseline; every planted fault gets its verdict
// while this process survives, and the restarted worker then passes a good kernel; ceilings and
// device description are plausible. Every test skips, with the reason, on a machine without a GPU.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator_client.h"
#include "engine/kernel_contract.h"
#include "gpu/device_query.h"
#include "../flash_attention_variants.h"
#include "../row_kernel_variants.h"
#include "../gemm_variants.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

namespace ak {
namespace {

// Empty when a GPU is usable, else why not.
std::string no_gpu_reason() {
    static const std::string reason = [] {
        try {
            if (query_devices().empty()) return std::string("the driver reports no device");
            return std::string();
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
    }();
    return reason;
}

#define SKIP_WITHOUT_GPU()                                                                                  \
    do {                                                                                                    \
        if (!no_gpu_reason().empty()) GTEST_SKIP() << "no CUDA driver/GPU on this machine: " << no_gpu_reason(); \
    } while (0)

// One client (one persistent worker, restarted after faults) for the whole suite, as the product uses it.
EvaluatorClient& client() {
    static EvaluatorClient* c = [] {
        EvaluatorClientOptions o;
        // $AK_EVALUATOR overrides the worker this test was built with (e.g. a copy on another machine).
        const char* env = std::getenv("AK_EVALUATOR");
        o.worker_path = env && *env ? env : AK_EVALUATOR_PATH;
        o.start_timeout_s = 120;
        // $AK_WORKER_LOG: keep every byte the workers write to stderr (their logs) in this file.
        if (const char* log = std::getenv("AK_WORKER_LOG"); log && *log) o.stderr_log_path = log;
        return new EvaluatorClient(o);
    }();
    return *c;
}

std::string read_source(const std::string& path) { return read_file(path); }

EvaluationRequest request_for(const std::string& path, double timeout_s = 300) {
    EvaluationRequest r;
    r.source = read_source(path);
    r.source_name = path.substr(path.rfind('/') + 1);
    const KernelContract contract = parse_contract(r.source);
    if (!contract.type) throw Error(ErrorKind::BadFormat, path + " has no @autokernel type annotation");
    r.type = *contract.type;
    r.timeout_s = timeout_s;
    return r;
}

std::string starter_path(KernelType t) { return std::string(AK_STARTERS_DIR) + "/" + std::string(to_string(t)) + ".cu"; }
std::string fault_path(const std::string& name) { return std::string(AK_FAULTS_DIR) + "/" + name + ".cu"; }

std::string explain(const EvaluationResult& r) { return summary_line(r) + "\n" + r.detail; }

// A quick evaluation of a good kernel (small timing shape): the worker after a fault must pass it.
void expect_worker_healthy() {
    EvaluationRequest r = request_for(starter_path(KernelType::RmsNorm));
    r.timing_shapes = {Shape{{256, 4096}}};
    const EvaluationResult result = client().evaluate(r);
    EXPECT_EQ(result.verdict, Verdict::Pass) << "the worker after the fault: " << explain(result);
}

// ---- starters ---------------------------------------------------------------------------------------

class StarterPasses : public ::testing::TestWithParam<KernelType> {};

TEST_P(StarterPasses, AllFiveStagesInEveryDtypeAndTimedAgainstTheBaseline) {
    SKIP_WITHOUT_GPU();
    const KernelType type = GetParam();
    const EvaluationRequest req = request_for(starter_path(type));
    ASSERT_EQ(req.type, type);
    const EvaluationResult r = client().evaluate(req);
    std::cout << "[starter] " << summary_line(r) << "  (wall " << r.wall_ms << " ms)\n";
    for (const auto& t : r.timing)
        std::cout << "[timing] " << to_string(type) << " " << to_string(t.shape) << " " << to_string(t.dtype) << ": "
                  << t.median_us << " us (IQR " << t.iqr_us << ", n " << t.samples << ") vs " << t.baseline_name << " "
                  << t.baseline_median_us << " us; " << t.gb_s << " GB/s, " << t.tflops << " TFLOP/s, " << t.bound
                  << ", " << t.pct_peak << "% of peak"
                  << (t.pct_copy_ceiling ? ", " + std::to_string(*t.pct_copy_ceiling) + "% of copy" : std::string())
                  << (t.pct_gemm_ceiling ? ", " + std::to_string(*t.pct_gemm_ceiling) + "% of GEMM" : std::string()) << "\n";
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);

    std::set<CheckStage> stages;
    std::set<DType> dtypes;
    for (const auto& c : r.checks) {
        EXPECT_TRUE(c.passed) << c.detail;
        EXPECT_TRUE(std::isfinite(c.max_abs_err)) << to_string(c.stage) << " " << to_string(c.shape);
        EXPECT_TRUE(std::isfinite(c.norm_rel_err)) << to_string(c.stage) << " " << to_string(c.shape);
        EXPECT_GT(c.tolerance, 0);
        stages.insert(c.stage);
        dtypes.insert(c.dtype);
    }
    EXPECT_EQ(stages.size(), 5u);
    EXPECT_EQ(dtypes, (std::set<DType>{DType::fp16, DType::bf16, DType::fp32}));
    ASSERT_EQ(r.compile.size(), 3u);
    for (const auto& c : r.compile) EXPECT_TRUE(c.ok) << c.log;

    const auto& info = kernel_type_info(type);
    ASSERT_EQ(r.timing.size(), 2u);
    EXPECT_EQ(r.timing[0].shape, info.large);
    EXPECT_EQ(r.timing[1].shape, info.larger);
    for (const auto& t : r.timing) {
        EXPECT_GT(t.median_us, 0);
        EXPECT_GE(t.iqr_us, 0);
        EXPECT_GE(t.samples, 30);
        EXPECT_FALSE(t.baseline_name.empty());
        EXPECT_GT(t.baseline_median_us, 0) << "baseline row missing for " << to_string(t.shape);
        EXPECT_GE(t.baseline_iqr_us, 0);
        EXPECT_NEAR(t.speedup, t.baseline_median_us / t.median_us, 1e-9);
        EXPECT_GT(t.tflops + t.gb_s, 0);
        EXPECT_TRUE(t.bound == "memory" || t.bound == "compute") << t.bound;
        EXPECT_TRUE(t.pct_copy_ceiling || t.pct_gemm_ceiling) << "no measured ceiling for " << to_string(t.shape);
        if (t.pct_copy_ceiling) {
            EXPECT_GT(*t.pct_copy_ceiling, 0);
        }
        if (t.pct_gemm_ceiling) {
            EXPECT_GT(*t.pct_gemm_ceiling, 0);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Gpu, StarterPasses, ::testing::ValuesIn(all_kernel_types().begin(), all_kernel_types().end()),
                         [](const ::testing::TestParamInfo<KernelType>& info) { return std::string(to_string(info.param)); });

// ---- variants the starters offer (tier-3 switches), with the settings the search agent reaches -------

struct Variant {
    KernelType type;
    std::vector<std::pair<std::string, std::string>> tunables;
};

std::string variant_name(const Variant& v) {
    std::string name(to_string(v.type));
    for (const auto& [k, value] : v.tunables) name += "_" + k + value;
    return name;
}

// How gtest prints a Variant (test listings, failures): its name rather than its bytes.
void PrintTo(const Variant& v, std::ostream* os) { *os << variant_name(v); }

class StarterVariantPasses : public ::testing::TestWithParam<Variant> {};

TEST_P(StarterVariantPasses, AllFiveStagesInEveryDtype) {
    SKIP_WITHOUT_GPU();
    const Variant& v = GetParam();
    EvaluationRequest req = request_for(starter_path(v.type));
    for (const auto& [name, value] : v.tunables) {
        const std::string changed = set_tunable(req.source, name, value);
        ASSERT_NE(changed, req.source) << name << "=" << value << " did not change the source";
        req.source = changed;
    }
    req.timing_shapes = {kernel_type_info(v.type).large};
    const EvaluationResult r = client().evaluate(req);
    std::cout << "[variant] " << variant_name(v) << ": " << summary_line(r) << "\n";
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    std::set<CheckStage> stages;
    std::set<DType> dtypes;
    for (const auto& c : r.checks) {
        EXPECT_TRUE(c.passed) << c.detail;
        stages.insert(c.stage);
        dtypes.insert(c.dtype);
    }
    EXPECT_EQ(stages.size(), 5u);
    EXPECT_EQ(dtypes.size(), 3u);
}

// The register-cached rows (ROW_CACHE) take their cached path at the timing sizes and in most of the
// sweep; rows too long for the cache (edge sizes, 50257 columns) take the re-reading path in the same run.
INSTANTIATE_TEST_SUITE_P(
    Gpu, StarterVariantPasses,
    ::testing::Values(Variant{KernelType::RmsNorm, {{"VEC", "8"}, {"ROW_CACHE", "16"}}},
                      Variant{KernelType::RmsNorm, {{"BLOCK_THREADS", "1024"}, {"ROW_CACHE", "8"}}},
                      Variant{KernelType::Softmax, {{"VEC", "8"}, {"ROW_CACHE", "16"}}},
                      Variant{KernelType::Softmax, {{"VEC", "4"}, {"ONLINE", "1"}}},
                      Variant{KernelType::Softmax, {{"ROWS_PER_BLOCK", "8"}, {"ROW_CACHE", "64"}}},
                      Variant{KernelType::LayerNorm, {{"VEC", "8"}, {"ROW_CACHE", "16"}}},
                      Variant{KernelType::LayerNorm, {{"ROWS_PER_BLOCK", "4"}, {"ROW_CACHE", "32"}}},
                      Variant{KernelType::LayerNorm, {{"VEC", "8"}, {"FUSED_STATS", "1"}}},
                      Variant{KernelType::LayerNorm,
                              {{"ROWS_PER_BLOCK", "8"}, {"VEC", "8"}, {"ROW_CACHE", "64"}, {"FUSED_STATS", "1"}}},
                      Variant{KernelType::Softmax, {{"VEC", "8"}, {"ROW_CACHE", "16"}, {"FAST_EXP", "1"}}},
                      Variant{KernelType::CrossEntropy, {{"VEC", "8"}, {"ONLINE", "1"}, {"FAST_EXP", "1"}}},
                      Variant{KernelType::CrossEntropy,
                              {{"VEC", "8"}, {"UNROLL", "4"}, {"ONLINE", "1"}, {"FAST_EXP", "1"}, {"FUSED_MEAN", "1"}}},
                      Variant{KernelType::CrossEntropy, {{"VEC", "8"}, {"ONLINE", "1"}}},
                      Variant{KernelType::CrossEntropy,
                              {{"BLOCK_THREADS", "1024"}, {"VEC", "8"}, {"ONLINE", "1"}, {"ROW_CACHE", "32"}}}),
    [](const ::testing::TestParamInfo<Variant>& info) { return variant_name(info.param); });

// The flash_attention variants (flash_attention_variants.h, also compiled by test_engine without a GPU):
// every one passes the five stages in fp16, bf16 and fp32 (fp32 on the FMA path), the edge sizes (seq 1023
// and 257, head_dim 64 and 128, causal and not) and the adversarial large logits included.
std::vector<Variant> flash_attention_suite() {
    std::vector<Variant> out;
    for (const auto& settings : test::flash_attention_variants()) out.push_back({KernelType::FlashAttention, settings});
    return out;
}
INSTANTIATE_TEST_SUITE_P(GpuFlashAttention, StarterVariantPasses, ::testing::ValuesIn(flash_attention_suite()),
                         [](const ::testing::TestParamInfo<Variant>& info) { return variant_name(info.param); });

// The row starters' long-row variants (row_kernel_variants.h, also compiled by test_engine without a GPU):
// the peeled vector body, rows staged in shared memory and rows split across clusters pass the five stages
// in fp16, bf16 and fp32, the odd-length rows (50257, 4097, 1537, 1023 columns, where every row starts at
// another element offset) and the short rows of the edge stage included.
std::vector<Variant> row_kernel_suite() {
    std::vector<Variant> out;
    for (const auto& v : test::row_kernel_variants()) {
        const auto type = parse_kernel_type(v.type);
        if (!type) throw Error(ErrorKind::BadFormat, "row_kernel_variants.h: unknown kernel type " + v.type);
        out.push_back({*type, v.tunables});
    }
    return out;
}
INSTANTIATE_TEST_SUITE_P(GpuRowVariants, StarterVariantPasses, ::testing::ValuesIn(row_kernel_suite()),
                         [](const ::testing::TestParamInfo<Variant>& info) { return variant_name(info.param); });

// The matmul variants (gemm_variants.h, also compiled by test_engine without a GPU): every one passes the
// five stages in fp16, bf16 and fp32 (fp32 on the FMA path); the wgmma ones take TMA at the smoke, sweep
// and timing shapes and the bounds-checked fill at the edge sizes (k or n not a multiple of 8).
std::vector<Variant> matmul_suite() {
    std::vector<Variant> out;
    for (const auto& settings : test::matmul_variants()) out.push_back({KernelType::Matmul, settings});
    return out;
}
INSTANTIATE_TEST_SUITE_P(GpuMatmul, StarterVariantPasses, ::testing::ValuesIn(matmul_suite()),
                         [](const ::testing::TestParamInfo<Variant>& info) { return variant_name(info.param); });

// The fused_mlp variants (gemm_variants.h): the fused gate/up + SwiGLU kernel before the library down GEMM
// passes the five stages in fp16 and bf16 (TMA at the smoke, sweep and timing shapes, D = 512 with F = 1537
// and 2753 included; the bounds-checked fill at D = 33 and 127), fp32 on the library path.
std::vector<Variant> fused_mlp_suite() {
    std::vector<Variant> out;
    for (const auto& settings : test::fused_mlp_variants()) out.push_back({KernelType::FusedMlp, settings});
    return out;
}
INSTANTIATE_TEST_SUITE_P(GpuFusedMlp, StarterVariantPasses, ::testing::ValuesIn(fused_mlp_suite()),
                         [](const ::testing::TestParamInfo<Variant>& info) { return variant_name(info.param); });

// flash_attention is timed against every SDPA backend that takes the inputs (cuDNN, flash, memory-efficient
// on an H200 in fp16) in the same run; the report names the fastest, the others' medians, and which one
// at::scaled_dot_product_attention itself would pick.
TEST(FlashAttention, IsTimedAgainstTheFastestSdpaBackend) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req = request_for(starter_path(KernelType::FlashAttention));
    req.source = set_tunable(req.source, "MMA", "2");
    req.dtypes = {DType::fp16};
    req.timing_shapes = {kernel_type_info(KernelType::FlashAttention).large};
    const EvaluationResult r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_EQ(r.timing.size(), 1u);
    const std::string& name = r.timing[0].baseline_name;
    std::cout << "[sdpa] " << to_string(r.timing[0].shape) << " fp16: " << name << " " << r.timing[0].baseline_median_us
              << " us\n";
    EXPECT_EQ(name.rfind("SDPA ", 0), 0u) << name;
    EXPECT_NE(name.find("fastest of"), std::string::npos) << name;
    EXPECT_NE(name.find("SDPA's pick"), std::string::npos) << name;
    EXPECT_NE(name.find("flash"), std::string::npos) << name;
}

// ---- planted faults -----------------------------------------------------------------------------------

TEST(PlantedFaults, RacyReductionFailsTheDeterminismStage) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("racy_reduce")));
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    ASSERT_TRUE(r.failed_stage);
    EXPECT_EQ(*r.failed_stage, CheckStage::Determinism) << r.detail;
    EXPECT_NE(r.detail.find("not deterministic"), std::string::npos) << r.detail;
    EXPECT_TRUE(r.timing.empty()) << "a failed candidate must never be timed";
    expect_worker_healthy();
}

TEST(PlantedFaults, PartialWriteFailsOnUnwrittenElements) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("partial_write")));
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    EXPECT_NE(r.detail.find("never written"), std::string::npos) << r.detail;
    EXPECT_TRUE(r.timing.empty());
    expect_worker_healthy();
}

TEST(PlantedFaults, OutOfBoundsWriteFailsNamingTheGuardRegion) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("oob_write")));
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    EXPECT_NE(r.detail.find("guard region after the output"), std::string::npos) << r.detail;
    expect_worker_healthy();
}

TEST(PlantedFaults, InfiniteLoopTimesOutAndTheWorkerIsReplaced) {
    SKIP_WITHOUT_GPU();
    const auto before = client().stats();
    const EvaluationResult r = client().evaluate(request_for(fault_path("infinite_loop"), 20));
    ASSERT_EQ(r.verdict, Verdict::Timeout) << explain(r);
    EXPECT_EQ(client().stats().worker_kills, before.worker_kills + 1);
    expect_worker_healthy();
}

TEST(PlantedFaults, IllegalAddressCrashesWithTheCudaErrorAndTheCallerSurvives) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("illegal_address")));
    ASSERT_EQ(r.verdict, Verdict::Crash) << explain(r);
    EXPECT_NE(r.detail.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("smoke"), std::string::npos) << "the stage should be named: " << r.detail;
    EXPECT_TRUE(r.worker_exiting);
    expect_worker_healthy();
}

TEST(PlantedFaults, AHugeAllocationIsACrashAndTheSameWorkerServesTheNextRequest) {
    SKIP_WITHOUT_GPU();
    // A correct kernel whose launch asks for 2 GiB of workspace per row: 512 GiB at the first check shape
    // (tests/fixtures/kernels/faults/huge_workspace.cu). LibTorch's allocator throws; the worker frees its
    // cache and keeps serving. (A huge input shape cannot do it: the contract caps every tensor at 2^31 - 1
    // elements and rejects larger shapes as a bad request.)
    const EvaluationRequest req = request_for(fault_path("huge_workspace"));
    const EvaluationResult r = client().evaluate(req);
    std::cout << "[huge allocation] " << explain(r) << "\n";
    ASSERT_EQ(r.verdict, Verdict::Crash) << explain(r);
    EXPECT_NE(r.detail.find("out of memory"), std::string::npos) << r.detail;
    EXPECT_FALSE(r.worker_exiting) << "out of memory is not a sticky error: the worker must stay";
    EXPECT_TRUE(r.timing.empty());
    const int pid = r.worker_pid;
    ASSERT_TRUE(client().worker_pid());
    EXPECT_EQ(*client().worker_pid(), pid);
    EvaluationRequest next = request_for(starter_path(KernelType::RmsNorm));
    next.timing_shapes = {Shape{{256, 4096}}};
    const EvaluationResult after = client().evaluate(next);
    EXPECT_EQ(after.verdict, Verdict::Pass) << "the worker after the huge allocation: " << explain(after);
    EXPECT_EQ(after.worker_pid, pid) << "the same worker process served the next request";
}

TEST(PlantedFaults, NanOutputFails) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("nan_output")));
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    EXPECT_NE(r.detail.find("NaN"), std::string::npos) << r.detail;
    expect_worker_healthy();
}

TEST(PlantedFaults, LayerNormIgnoringWeightAndBiasFailsAtTheFirstStage) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("layernorm_no_affine")));
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    ASSERT_TRUE(r.failed_stage);
    EXPECT_EQ(*r.failed_stage, CheckStage::Smoke) << r.detail;
    expect_worker_healthy();
}

TEST(PlantedFaults, BrokenSourceIsACompileErrorWithTheCompilersWords) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = client().evaluate(request_for(fault_path("broken")));
    ASSERT_EQ(r.verdict, Verdict::CompileError) << explain(r);
    EXPECT_NE(r.detail.find("n_cols"), std::string::npos) << r.detail;
    ASSERT_FALSE(r.compile.empty());
    EXPECT_FALSE(r.compile.back().ok);
    EXPECT_NE(r.compile.back().log.find("broken.cu"), std::string::npos) << r.compile.back().log;
}

// ---- harness trust: one planted fault per class of trick (bench/2026-12-02-h200-harness.md) --------------
// Each of these passed the harness of 2026-11-29 (the report shows the verdicts before and after).

EvaluationResult evaluate_fault(const std::string& name, DType timing_dtype = DType::fp16) {
    EvaluationRequest r = request_for(fault_path(name));
    r.timing_dtype = timing_dtype;
    const EvaluationResult result = client().evaluate(r);
    std::cout << "[fault] " << name << ": " << summary_line(result) << "\n";
    return result;
}

void expect_fail(const EvaluationResult& r, CheckStage stage, const std::string& words) {
    ASSERT_EQ(r.verdict, Verdict::Fail) << explain(r);
    ASSERT_TRUE(r.failed_stage) << explain(r);
    EXPECT_EQ(*r.failed_stage, stage) << explain(r);
    EXPECT_NE(r.detail.find(words), std::string::npos) << r.detail;
    EXPECT_TRUE(r.timing.empty()) << "no numbers from a failed candidate";
}

TEST(HarnessTrust, ACandidateThatStopsWorkingAfterTheChecksFailsWhileTimed) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("timed_counter"), CheckStage::Timing, "chosen at random among its timed runs");
}

TEST(HarnessTrust, ACandidateThatRecognisesTheCheckPoisonIsCaughtByAPoisonThatChanges) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = evaluate_fault("poison_aware_memo");
    expect_fail(r, CheckStage::Determinism, "never written");
}

TEST(HarnessTrust, CachedResultsNoLongerPayBecauseEveryTimedRunSeesNewContents) {
    SKIP_WITHOUT_GPU();
    // It passed at 898 % of a copy before; now its cache never hits and it is timed doing the work.
    const EvaluationResult r = evaluate_fault("cached_result");
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_EQ(r.timing.size(), 2u);
    for (const auto& t : r.timing) {
        ASSERT_TRUE(t.pct_copy_ceiling) << to_string(t.shape);
        EXPECT_LT(*t.pct_copy_ceiling, 100.0) << to_string(t.shape) << ": faster than a copy of the same bytes";
        EXPECT_LT(t.iqr_us, 0.2 * t.median_us) << to_string(t.shape) << ": a bimodal timing means some runs hit a cache";
    }
}

TEST(HarnessTrust, DroppingSmallSoftmaxProbabilitiesFailsTheNormGate) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = evaluate_fault("drops_small_probs");
    expect_fail(r, CheckStage::Smoke, "norm-relative error");
}

TEST(HarnessTrust, ACrossEntropyMeanOverTooFewRowsFailsTheTightLossTolerance) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("ce_drops_rows"), CheckStage::Smoke, "fail |out - ref|");
}

TEST(HarnessTrust, WritingIntoAConstInputFailsNamingTheInput) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("writes_input"), CheckStage::Smoke, "wrote into its input 'x'");
}

TEST(HarnessTrust, RowsShorterThanTheKernelAssumesFailTheEdgeStage) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("short_rows"), CheckStage::Edge, "never written");
}

TEST(HarnessTrust, ARaceOnlyAtTheTimingShapeFailsDeterminismThere) {
    SKIP_WITHOUT_GPU();
    const EvaluationResult r = evaluate_fault("racy_timing_shape", DType::fp32);
    expect_fail(r, CheckStage::Determinism, "not deterministic");
    EXPECT_NE(r.detail.find("8192x32768"), std::string::npos) << "at the largest timing shape: " << r.detail;
}

TEST(HarnessTrust, AStrayStoreFarPastTheOutputHitsTheLargeGuard) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("far_stray"), CheckStage::Smoke, "guard region after the output");
}

TEST(HarnessTrust, AStorePastTheWorkspaceHitsItsGuard) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("workspace_overrun"), CheckStage::Smoke, "guard region after the workspace");
}

TEST(HarnessTrust, AWorkspaceDeclaredKeptZeroThatALaunchLeavesDirtyFails) {
    SKIP_WITHOUT_GPU();
    expect_fail(evaluate_fault("kept_zero_left_dirty"), CheckStage::Smoke,
                "declare AK_WORKSPACE_KEPT_ZERO (they leave their workspace zero) but the launch left");
}

TEST(HarnessTrust, AReferenceCandidateIsCheckedBeforeItIsTimed) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req = request_for(starter_path(KernelType::RmsNorm));
    req.reference_source = read_source(fault_path("far_stray"));  // an rmsnorm that strays on small outputs
    req.timing_shapes = {kernel_type_info(KernelType::RmsNorm).large};
    const EvaluationResult r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_TRUE(r.reference_failure) << "a failing best must be named";
    EXPECT_NE(r.reference_failure->find("guard region"), std::string::npos) << *r.reference_failure;
    EXPECT_NE(r.reference_failure->find("fails its own checks"), std::string::npos) << *r.reference_failure;
    EXPECT_TRUE(r.reference_timing.empty()) << "a failing best is never timed";
    EXPECT_EQ(r.timing.size(), 1u);
}

TEST(HarnessTrust, AReferenceCandidateThatCheatsWhileTimedIsNotTimed) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req = request_for(starter_path(KernelType::RmsNorm));
    req.reference_source = read_source(fault_path("timed_counter"));
    req.timing_shapes = {kernel_type_info(KernelType::RmsNorm).large};
    const EvaluationResult r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_TRUE(r.reference_failure) << explain(r);
    EXPECT_NE(r.reference_failure->find("while timed"), std::string::npos) << *r.reference_failure;
    EXPECT_TRUE(r.reference_timing.empty());
}

// ---- contract violations caught at load time -----------------------------------------------------------

EvaluationRequest inline_rmsnorm(const std::string& launch, const std::string& kernel) {
    EvaluationRequest r;
    r.type = KernelType::RmsNorm;
    r.source_name = "inline.cu";
    r.source = "// @autokernel type rmsnorm\n#include <autokernel/contract.cuh>\n" + launch + "\n" + kernel + "\n";
    r.timeout_s = 120;
    return r;
}

const char* kTrivialKernel =
    "extern \"C\" __global__ void ak_kernel0(const ak_rmsnorm_args a) { if (a.rows < 0) a.y[0] = ak_from_float(0.f); }";

TEST(ContractViolations, ABlockAboveTheDeviceLimitIsNamedByField) {
    SKIP_WITHOUT_GPU();
    const auto r = client().evaluate(inline_rmsnorm("AK_LAUNCH(0) = {AK_STAGE_KERNEL, 0, 2048, 1, 1, AK_GRID_ROWS, 1};", kTrivialKernel));
    ASSERT_EQ(r.verdict, Verdict::CompileError) << explain(r);
    EXPECT_NE(r.detail.find("ak_launch0.block_x = 2048"), std::string::npos) << r.detail;
}

TEST(ContractViolations, AMissingEntryPointIsNamed) {
    SKIP_WITHOUT_GPU();
    const auto r = client().evaluate(inline_rmsnorm("AK_LAUNCH(0) = {AK_STAGE_KERNEL, 0, 256, 1, 1, AK_GRID_ROWS, 1};",
                                                    "extern \"C\" __global__ void other(const ak_rmsnorm_args a) {}"));
    ASSERT_EQ(r.verdict, Verdict::CompileError) << explain(r);
    EXPECT_NE(r.detail.find("no entry point ak_kernel0"), std::string::npos) << r.detail;
}

TEST(ContractViolations, AKernelTakingTheWrongArgumentStructIsNamed) {
    SKIP_WITHOUT_GPU();
    const auto r = client().evaluate(
        inline_rmsnorm("AK_LAUNCH(0) = {AK_STAGE_KERNEL, 0, 256, 1, 1, AK_GRID_ROWS, 1};",
                       "extern \"C\" __global__ void ak_kernel0(const ak_softmax_args a) { if (a.rows < 0) a.y[0] = ak_from_float(0.f); }"));
    ASSERT_EQ(r.verdict, Verdict::CompileError) << explain(r);
    EXPECT_NE(r.detail.find("ak_kernel0 takes a first parameter of"), std::string::npos) << r.detail;
}

TEST(ContractViolations, AnUnknownGridRuleIsNamed) {
    SKIP_WITHOUT_GPU();
    const auto r = client().evaluate(inline_rmsnorm("AK_LAUNCH(0) = {AK_STAGE_KERNEL, 0, 256, 1, 1, 42, 1};", kTrivialKernel));
    ASSERT_EQ(r.verdict, Verdict::CompileError) << explain(r);
    EXPECT_NE(r.detail.find("ak_launch0.grid = 42"), std::string::npos) << r.detail;
}

// ---- Hopper launch features: a thread-block cluster, a TMA tensor map, dynamic shared memory > 48 KB ----

// A naive matmul (one 16x16 tile of C per block, fp32 accumulation in k order) that exercises what the
// launcher must set up for Hopper kernels, and poisons its output when any of it is missing:
//   - a cluster of 2 blocks along x (the launcher rounds grid.x up to even): %cluster_nctarank == 2;
//   - 100 KB of dynamic shared memory (above the 48 KB default): the launch itself fails without the
//     attribute, and the last byte must be usable;
//   - A's 16x16 tiles come through TMA (cp.async.bulk.tensor with the map in args.tma[0], passed as a
//     __grid_constant__ parameter) whenever the map can exist (K * sizeof(ak_t) % 16 == 0); the edge
//     sizes with odd K take the plain-load path, with args.tma[0] left all zero by the launcher.
const char* kHopperFeaturesMatmul = R"CUDA(
// @autokernel type matmul
#include <autokernel/contract.cuh>

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ 16, 16, 1,
    /* grid */ AK_GRID_TILES, /* rows_per_block */ 0, /* tile_m */ 16, /* tile_n */ 16,
    /* grid_x, y, z */ 0, 0, 0,
    /* dynamic_smem_bytes */ 100000,
    /* cluster */ 2, 1, 1,
    /* tma_box_rows */ {16, 0, 0}, /* tma_box_cols */ {16, 0, 0}, /* tma_swizzle */ AK_SWIZZLE_NONE,
};

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void ak_kernel0(const __grid_constant__ ak_matmul_args args) {
    __shared__ __align__(128) ak_t a_tile[16 * 16];
    __shared__ __align__(8) unsigned long long bar;
    extern __shared__ unsigned char dyn[];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    unsigned cluster_blocks = 0;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(cluster_blocks));
    const bool use_tma = (args.k * (int)sizeof(ak_t)) % 16 == 0;
    if (tid == 0) {
        dyn[99999] = 7;
        if (use_tma) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)));
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        }
    }
    __syncthreads();
    float acc = 0.f;
    unsigned phase = 0;
    for (int k0 = 0; k0 < args.k; k0 += 16) {
        if (use_tma) {
            if (tid == 0) {
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                             :: "r"(smem_u32(&bar)), "r"((unsigned)sizeof(a_tile)) : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                             " [%0], [%1, {%2, %3}], [%4];"
                             :: "r"(smem_u32(a_tile)), "l"((unsigned long long)&args.tma[0]), "r"(k0),
                                "r"((int)(blockIdx.y * 16)), "r"(smem_u32(&bar)) : "memory");
            }
            unsigned done = 0;
            while (!done) {
                asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(done) : "r"(smem_u32(&bar)), "r"(phase) : "memory");
            }
            phase ^= 1;
        } else {
            const int r = blockIdx.y * 16 + ty, c = k0 + tx;
            a_tile[tid] = (r < args.m && c < args.k) ? ((const ak_t*)args.a)[(long long)r * args.k + c] : ak_from_float(0.f);
            __syncthreads();
        }
        if (col < args.n)
            for (int kk = 0; kk < 16 && k0 + kk < args.k; ++kk)
                acc += ak_to_float(a_tile[ty * 16 + kk]) *
                       ak_to_float(((const ak_t*)args.b)[(long long)(k0 + kk) * args.n + col]);
        __syncthreads();
    }
    const bool ok = cluster_blocks == 2 && dyn[99999] == 7;
    if (row < args.m && col < args.n)
        ((ak_t*)args.c)[(long long)row * args.n + col] = ok ? ak_from_float(acc) : ak_from_float(__int_as_float(0x7fc00000));
}
)CUDA";

TEST(HopperLaunchFeatures, ClusterTmaAndLargeDynamicSharedMemoryWork) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest r;
    r.type = KernelType::Matmul;
    r.source_name = "hopper_features.cu";
    r.source = kHopperFeaturesMatmul;
    r.timing_shapes = {Shape{{512, 512, 512}}};
    r.timeout_s = 300;
    const EvaluationResult result = client().evaluate(r);
    ASSERT_EQ(result.verdict, Verdict::Pass) << explain(result);
    EXPECT_EQ(result.timing.size(), 1u);
}

// ---- seeds, reference timing, ceilings, device ----------------------------------------------------------

TEST(Evaluation, TheRequestSeedIsRecordedForEveryCase) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req = request_for(starter_path(KernelType::Softmax));
    req.seed = 12345;
    req.timing_shapes = {Shape{{1024, 1024}}};
    const auto r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    EXPECT_EQ(r.seed, 12345u);
    std::set<std::uint64_t> seeds;
    for (const auto& c : r.checks) seeds.insert(c.seed);
    EXPECT_EQ(seeds.size(), r.checks.size()) << "every case draws its own inputs";
    EXPECT_EQ(r.checks.front().seed, eval::case_seed(12345, CheckStage::Smoke, 0));
}

TEST(Evaluation, AReferenceSourceIsTimedInTheSameRun) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req = request_for(starter_path(KernelType::RmsNorm));
    req.reference_source = req.source;
    req.timing_shapes = {kernel_type_info(KernelType::RmsNorm).large};
    const auto r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_TRUE(r.reference_compile);
    EXPECT_TRUE(r.reference_compile->ok) << r.reference_compile->log;
    ASSERT_EQ(r.reference_timing.size(), 1u);
    ASSERT_EQ(r.timing.size(), 1u);
    EXPECT_GT(r.reference_timing[0].median_us, 0);
    // The same kernel timed interleaved with itself: the medians agree within 15 %.
    EXPECT_NEAR(r.reference_timing[0].median_us / r.timing[0].median_us, 1.0, 0.15)
        << r.timing[0].median_us << " us vs " << r.reference_timing[0].median_us << " us";
    EXPECT_EQ(r.reference_timing[0].baseline_median_us, r.timing[0].baseline_median_us);
}

TEST(Evaluation, CeilingsArePositiveAndPlausible) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req;
    req.op = RequestOp::Ceilings;
    req.timeout_s = 300;
    const auto r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_TRUE(r.ceilings);
    std::cout << "[ceilings] " << r.detail << "\n";
    ASSERT_GE(r.ceilings->copy_gb_s.size(), 5u);
    for (const auto& [bytes, gb_s] : r.ceilings->copy_gb_s) {
        EXPECT_GT(gb_s, 50) << bytes;      // any GPU of the last decade copies faster
        EXPECT_LT(gb_s, 20000) << bytes;   // no HBM is this fast yet
    }
    for (DType d : {DType::fp16, DType::bf16, DType::fp32}) {
        ASSERT_TRUE(r.ceilings->gemm_tflops.count(d)) << to_string(d);
        EXPECT_GT(r.ceilings->gemm_tflops.at(d), 1) << to_string(d);
        EXPECT_LT(r.ceilings->gemm_tflops.at(d), 5000) << to_string(d);
    }
    // Tensor-core half precision beats fp32 without TF32 by far.
    EXPECT_GT(r.ceilings->gemm_tflops.at(DType::bf16), 2 * r.ceilings->gemm_tflops.at(DType::fp32));
    // Large copies reach at least as much as small ones (within noise).
    EXPECT_GT(r.ceilings->copy_gb_s.rbegin()->second, 0.8 * r.ceilings->copy_gb_s.begin()->second);
}

TEST(Evaluation, DeviceDescriptionNamesTheGpuAndTheLibraries) {
    SKIP_WITHOUT_GPU();
    EvaluationRequest req;
    req.op = RequestOp::Device;
    const auto r = client().evaluate(req);
    ASSERT_EQ(r.verdict, Verdict::Pass) << explain(r);
    ASSERT_TRUE(r.device_info);
    EXPECT_FALSE(r.device_info->name.empty());
    EXPECT_GE(r.device_info->cc_major, 7);
    EXPECT_GT(r.device_info->sm_count, 0);
    EXPECT_GT(r.device_info->l2_mb, 0);
    EXPECT_FALSE(r.device_info->torch_version.empty());
    EXPECT_NE(r.device_info->cuda_runtime.find("libcuda="), std::string::npos) << r.device_info->cuda_runtime;
    std::cout << "[device] " << r.device_info->name << ", driver " << r.device_info->driver_version << ", "
              << r.device_info->cuda_runtime << "\n";
}

}  // namespace
}  // namespace ak
