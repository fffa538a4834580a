#pragma once
// The conversation between the caller (EvaluatorClient) and the evaluator worker process
// (autokernel-evaluator): one JSON object per line, requests on the worker's stdin, progress events and
// results on its stdout. Nothing else may appear on the worker's stdout.
//
//   -> {"id":7,"op":"evaluate","type":"rmsnorm","source":"...","dtypes":["fp16","bf16","fp32"],...}
//   <- {"id":7,"event":"progress","stage":"sweep","message":"4096x4096 bf16"}
//   <- {"id":7,"verdict":"PASS","checks":[...],"timing":[...],...}
//
// Pure data plus JSON (nlohmann is a private dependency); no process handling here.
#include "analysis/dtype.h"
#include "analysis/measured_ceilings.h"
#include "engine/kernel_type.h"
#include "engine/verify_protocol.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ak {

enum class Verdict { Pass, Fail, CompileError, Timeout, Crash };
std::string_view verdict_to_string(Verdict v);  // "PASS", "FAIL", "COMPILE_ERROR", "TIMEOUT", "CRASH"
std::optional<Verdict> parse_verdict(std::string_view s);

// The five correctness stages, in the order they run, and the checks made while timing (launches
// verified at random among the timed ones, inputs, guards, the plausibility gate): a candidate that
// fails those has passed the five stages and then misbehaved under timing.
enum class CheckStage { Smoke, Sweep, Adversarial, Determinism, Edge, Timing };
std::string_view to_string(CheckStage s);  // "smoke", "sweep", "adversarial", "determinism", "edge", "timing"
std::optional<CheckStage> parse_check_stage(std::string_view s);

enum class RequestOp {
    Evaluate,  // compile, five correctness stages, timing
    Ceilings,  // measure this GPU's copy and GEMM ceilings
    Ping,      // answer at once (start-up handshake, liveness)
    Device,    // describe the GPU and the worker's libraries
    Verify,    // a whole model, unmodified and with session kernels substituted (verify_protocol.h)
};
std::string_view to_string(RequestOp op);  // "evaluate", "ceilings", "ping", "device", "verify"
std::optional<RequestOp> parse_request_op(std::string_view s);

struct EvaluationRequest {
    std::uint64_t id = 0;                // set by the client; echoed in every reply
    RequestOp op = RequestOp::Evaluate;
    KernelType type = KernelType::Matmul;
    std::string source;                  // the candidate's CUDA C++ (device code only)
    std::string source_name = "candidate.cu";  // shown in compile logs
    std::vector<DType> dtypes{DType::fp16, DType::bf16, DType::fp32};  // correctness dtypes
    DType timing_dtype = DType::fp16;
    std::vector<Shape> timing_shapes;       // empty: the type's large and larger sizes
    std::vector<Shape> correctness_shapes;  // empty: the type's sweep set
    std::uint64_t seed = 0;              // 0: the worker picks one and records it in the result
    double timeout_s = 120;              // whole request; the client kills the worker after this
    std::optional<std::string> reference_source;  // the current best, re-timed in the same run
    int iterations_hint = 0;             // timing iterations per shape; 0: the worker decides
    std::optional<VerifyRequest> verify; // op "verify" only (required there)
};

struct FunctionResources {
    std::string name;         // entry point, e.g. "ak_kernel0"
    int registers = 0;        // per thread
    int spill_bytes = 0;      // local memory per thread (spills and stack)
    int shared_bytes = 0;     // static shared memory per block
};

struct CompileRecord {
    DType dtype = DType::fp16;
    bool ok = false;
    std::string log;           // NVRTC's log (errors, warnings); may be empty
    int registers = 0;         // maximum over the entry points
    int spills = 0;            // maximum spill bytes over the entry points
    int shared_bytes = 0;      // maximum static shared memory over the entry points
    double compile_ms = 0;
    bool cache_hit = false;
    std::vector<FunctionResources> functions;
};

struct CheckRecord {
    CheckStage stage = CheckStage::Smoke;
    Shape shape;
    DType dtype = DType::fp16;
    std::uint64_t seed = 0;
    bool passed = false;
    double max_abs_err = 0;
    double norm_rel_err = 0;   // ||out - ref|| / ||ref||
    double tolerance = 0;
    std::string detail;        // why it failed (first bad index, NaN, guard region, ...); empty on pass
};

struct TimingRecord {
    Shape shape;
    DType dtype = DType::fp16;
    double median_us = 0;
    double iqr_us = 0;
    int samples = 0;
    std::string baseline_name;  // e.g. "at::rms_norm"
    double baseline_median_us = 0;
    double baseline_iqr_us = 0;
    double speedup = 0;         // baseline_median_us / median_us
    double tflops = 0;
    double gb_s = 0;
    double pct_peak = 0;        // of the binding datasheet roof
    std::string bound;          // "memory" or "compute"
    std::optional<double> pct_copy_ceiling;  // of a measured device copy of the same bytes
    std::optional<double> pct_gemm_ceiling;  // of the measured cuBLAS GEMM at this dtype
};

// What the worker knows about its GPU and libraries (op "device"; also the `device` of every result).
struct DeviceDescription {
    std::string name;          // cuDeviceGetName
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    double memory_gb = 0;
    double l2_mb = 0;
    std::string driver_version;
    std::string torch_version;
    std::string cuda_runtime;  // which CUDA libraries were loaded (path or version)
};

struct EvaluationResult {
    std::uint64_t id = 0;
    Verdict verdict = Verdict::Crash;
    std::optional<CheckStage> failed_stage;  // FAIL only
    std::string detail;        // one paragraph: stage, shape, dtype, max error, norm error, tolerance, index
    std::vector<CompileRecord> compile;
    std::vector<CheckRecord> checks;
    std::vector<TimingRecord> timing;
    std::vector<TimingRecord> reference_timing;  // when the request had a reference_source
    std::optional<CompileRecord> reference_compile;
    // The reference candidate failed its own checks (smoke and the timing shapes before timing, or the
    // checks made while timing): why. It was then not timed, and reference_timing is empty.
    std::optional<std::string> reference_failure;
    std::uint64_t seed = 0;
    double wall_ms = 0;
    int worker_pid = 0;
    std::string device;        // device name
    std::optional<DeviceDescription> device_info;  // op "device"
    std::optional<MeasuredCeilings> ceilings;       // op "ceilings"
    std::optional<VerifyMeasurement> verify;        // op "verify" (also with FAIL: what was measured)
    bool worker_exiting = false;  // the worker exits after this result (sticky CUDA error): restart it
};

struct ProgressEvent {
    std::uint64_t id = 0;
    std::string stage;    // "compile", "smoke", ..., "timing"
    std::string message;
};

// ---- JSON -------------------------------------------------------------------------------------------
// Every decode throws Error(BadFormat) naming the field that is missing or malformed.
std::string encode_request(const EvaluationRequest& r);           // one line, no trailing newline
EvaluationRequest decode_request(std::string_view json);
std::string encode_result(const EvaluationResult& r);             // one line, no trailing newline
EvaluationResult decode_result(std::string_view json);
std::string encode_progress(const ProgressEvent& e);
std::string encode_ceilings(const MeasuredCeilings& c);           // for the per-GPU cache file
MeasuredCeilings decode_ceilings(std::string_view json);
// Pretty-printed result (the CLI's --json).
std::string encode_result_pretty(const EvaluationResult& r);

// A line the worker wrote: a progress event (has "event") or a result.
using WorkerMessage = std::variant<ProgressEvent, EvaluationResult>;
WorkerMessage decode_worker_line(std::string_view line);

// ---- presentation -----------------------------------------------------------------------------------
// One line, e.g.
//   PASS  rmsnorm 4096x4096 fp16: 40.2 us (at::rms_norm 57.2 us, 1.42x), 3342 GB/s, 90% of copy
//   FAIL at sweep: 1024x4096 bf16 max abs err 0.31 > tol 0.02 ...
//   COMPILE_ERROR fp16: candidate.cu(12): error: identifier "x" is undefined
std::string summary_line(const EvaluationResult& r);

}  // namespace ak
