#pragma once
// The "verify" request of the evaluation protocol (evaluation_protocol.h, op "verify") and what the
// worker measures for it: a whole model run unmodified and with a session's kernels substituted
// (docs/verify.md). Pure data plus JSON; no LibTorch, no Qt.
//
//   -> {"id":3,"op":"verify","timeout_s":600,"verify":{"model":{...},"kernels":[...],...}}
//   <- {"id":3,"event":"progress","stage":"verify","message":"timing 30 forward passes of each model"}
//   <- {"id":3,"verdict":"PASS","detail":"...","verify":{"output":{...},"coverage":[...],...}}
#include "analysis/dtype.h"
#include "engine/kernel_type.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ak {

// The model to run. Exactly one of `builtin` and `torchscript` is set.
struct VerifyModelSpec {
    std::string builtin;              // a built-in model of models/ ("gpt2", "llama-160m", ...)
    std::string torchscript;          // path of a TorchScript file (torch::jit::load)
    std::vector<std::string> inputs;  // TorchScript inputs, one spec each: "8x1024:int64[:LOW-HIGH]", "8x64x768:fp16"
    int batch = 0;                    // built-in models; 0: the model's default
    int seq = 0;
    DType dtype = DType::fp16;        // weights and activations of built-in models
    std::uint64_t seed = 0;           // weights and inputs; 0: the worker picks one
    std::string label() const;        // "gpt2 batch 8 seq 512 fp16", "model.pt (8x1024:int64)"
};

// One session kernel to substitute: its source and where the harness verified it. A call is routed to
// the kernel only when its dtype is in `dtypes` and its shape in `shapes`, or its dtype is
// `timing_dtype` and its shape in `timing_shapes` (or `any_shape` of the request is set).
struct VerifyKernel {
    std::string name;                 // session kernel name ("rmsnorm")
    KernelType type = KernelType::Matmul;
    std::string source;               // kernels/<name>.cu at the session branch's tip
    std::vector<DType> dtypes{DType::fp16, DType::bf16, DType::fp32};
    std::vector<Shape> shapes;        // verified in every dtype of `dtypes` (smoke, sweep, edge sizes)
    DType timing_dtype = DType::fp16;
    std::vector<Shape> timing_shapes; // verified in timing_dtype (the timed shapes are checked too)
};

struct VerifyRequest {
    VerifyModelSpec model;
    std::vector<VerifyKernel> kernels;
    int iterations = 30;              // timed samples of each model (interleaved), per timing mode
    int warmup = 3;                   // untimed samples of each model first
    int passes_per_sample = 0;        // forward passes (or graph replays) per sample; 0: enough for ~5 ms of GPU time
    bool graphs = true;               // also time CUDA graph replays of each model's forward pass (GPU time)
    bool any_shape = false;           // route every call a kernel can take, verified shape or not
    bool copy_layouts = true;         // copy non-contiguous inputs to contiguous ones (counted); false: fall back
    bool check_only = false;          // outputs, per-call checks and coverage, no timing
};

// The model's output with our kernels against the unmodified model's, on the same inputs.
struct VerifyOutputAgreement {
    std::string name = "logits";      // what was compared
    std::vector<std::int64_t> sizes;
    double max_abs_err = 0;
    double max_rel_err = 0;           // max |d| / max(|ref|, 1e-3 * max|ref|)
    double norm_rel_err = 0;          // ||out - ref|| / ||ref||
    double noise_norm_rel_err = 0;    // the unmodified model against a second run of itself
    double tolerance = 0;             // allowed norm_rel_err for the dtype
    bool finite = true;               // every output element finite
    bool passed = false;
};

struct VerifyLatency {
    double median_ms = 0;
    double q1_ms = 0;
    double q3_ms = 0;
    double iqr_ms = 0;
    int samples = 0;
};

// Per-sample ratios of two implementations timed in the same interleaving (a / b, sample by sample).
struct VerifyRatio {
    double median = 0;
    double q1 = 0;
    double q3 = 0;
};

// One timing mode of the verify run. Three implementations, interleaved sample by sample in an order
// that cycles through all six permutations: the unmodified model, the unmodified model again (the A/A
// control: same kernels, same inputs, a separate capture / call path), and the model with our kernels.
// Each sample is `passes_per_sample` forward passes back to back between two CUDA events, from an idle
// GPU (synchronised) with L2 flushed, identically for all three. Latencies are per forward pass.
//   "graph": each model's forward pass captured once in a CUDA graph, samples are graph replays: the
//            GPU time of the pass without the host's launch overhead;
//   "eager": the forward pass called op by op, as a user runs it today (host launch overhead included).
struct VerifyTiming {
    std::string mode;                 // "graph" or "eager"
    bool measured = false;
    std::string reason;               // why not measured (the capture failed: ...)
    int passes_per_sample = 0;
    VerifyLatency unmodified;
    VerifyLatency control;            // the unmodified model again: the A/A control
    VerifyLatency substituted;
    VerifyRatio control_ratio;        // unmodified / control: the noise floor (ideally 1.00)
    VerifyRatio speedup;              // unmodified / substituted
};

// The noise floor of a timing: how far from 1.00 a ratio of two identical models gets in this run,
// max(0.005, |A/A median - 1| + A/A IQR / 2). A speedup whose median is within 1 +- floor is "no
// measurable difference".
double verify_noise_floor(const VerifyRatio& control_ratio);
enum class SpeedupVerdict { Faster, Slower, NoMeasurableDifference };
SpeedupVerdict classify_speedup(const VerifyTiming& timing);
std::string_view to_string(SpeedupVerdict v);  // "faster", "slower", "no measurable difference"
// Forward passes per timing sample for a pass of `pass_ms`: ceil(target_ms / pass_ms) clamped to
// [2, 50]; `fixed` when it is > 0.
int verify_passes_per_sample(double pass_ms, double target_ms, int fixed);
// Median, quartiles of a / b sample by sample (equal lengths, b > 0); throws Error(Usage) otherwise.
VerifyRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b);

// Calls of one kernel type's ops in the model: routed to kernel `kernel` (its GPU time measured with
// CUDA events around each call, in one pass) or, with `kernel` empty, fallen back to ATen.
struct VerifyCoverage {
    KernelType type = KernelType::Matmul;
    std::string kernel;               // session kernel the calls were routed to; "" for fallbacks
    std::int64_t calls = 0;
    double gpu_us = 0;                // sum over the calls, one forward pass
    std::int64_t copied_calls = 0;    // routed calls whose inputs were copied to contiguous tensors first
    std::vector<std::pair<std::string, std::int64_t>> reasons;  // fallbacks: why -> calls
    std::vector<std::string> shapes;  // distinct problem shapes ("512x2304x768 fp16")
};

// The same ops in the unmodified model (all ATen), one forward pass: the denominator of each type's
// in-model speedup and share.
struct VerifyAtenTime {
    KernelType type = KernelType::Matmul;
    std::int64_t calls = 0;
    double gpu_us = 0;
};

// Each routed call's output compared with ATen's for the same call (one pass).
struct VerifyKernelCheck {
    std::string kernel;
    KernelType type = KernelType::Matmul;
    std::int64_t calls = 0;
    double max_abs_err = 0;
    double norm_rel_err = 0;          // worst call
    bool passed = true;
    std::string detail;               // the first failing call: op, shape, dtype, errors, tolerance
};

// A kernel that could not run inside the model (compile error, launch error, crash, wrong output).
struct VerifyFailure {
    std::string kernel;
    std::string what;                 // "compile", "launch", "crash", "output"
    std::string detail;
};

struct VerifyMeasurement {
    std::string model_description;    // "gpt2: 124.4M parameters, batch 8, seq 512, fp16, inference"
    std::uint64_t seed = 0;
    VerifyOutputAgreement output;
    std::optional<VerifyLatency> unmodified;   // eager latencies; absent with check_only
    std::optional<VerifyLatency> substituted;
    std::vector<VerifyTiming> timings;         // "graph" (when requested) then "eager"
    double forward_gpu_us = 0;        // GPU time of the intercepted ops' pass in the unmodified model (events)
    std::vector<VerifyCoverage> coverage;
    std::vector<VerifyAtenTime> aten;
    std::vector<VerifyKernelCheck> checks;
    std::vector<VerifyFailure> failures;
    std::vector<std::string> notes;   // weight transposes, layout copies, ...
    // The median per-sample speedup of the graph timing when it was measured, else of the eager timing,
    // else (older verify.json) unmodified median / substituted median.
    std::optional<double> measured_speedup() const;
    const VerifyTiming* timing(std::string_view mode) const;  // nullptr when absent or not measured
    const VerifyTiming* primary_timing() const;               // graph if measured, else eager, else nullptr
};

// The norm-relative error a model's output may have against the unmodified model, per dtype: fp16 1e-2,
// bf16 5e-2, fp32 1e-4 (a correct kernel's rounding differs from cuBLAS's and compounds over the layers;
// each report also shows the unmodified model against a second run of itself). Throws Error(Usage) for
// tf32 / fp8.
double verify_output_tolerance(DType dtype);

// ---- JSON (one object; embedded in the protocol's "verify" field and in verify.json) -------------------
// Decoding throws Error(BadFormat) naming `origin` and the field ("verify.kernels[1].type").
std::string encode_verify_request(const VerifyRequest& r);
VerifyRequest decode_verify_request(std::string_view json_object, std::string_view origin = "verify");
std::string encode_verify_measurement(const VerifyMeasurement& m);
VerifyMeasurement decode_verify_measurement(std::string_view json_object, std::string_view origin = "verify");

}  // namespace ak
