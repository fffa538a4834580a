#pragma once
// A profile: what the GPU ran while a PyTorch model (or any CUDA process) did N measured iterations,
// kernel by kernel, and which ATen op (with its input shapes and dtypes) and which module launched
// each kernel.
//
// Pure data, no Qt, no LibTorch, no CUPTI. The profiler process (autokernel-profiler: LibTorch +
// CUPTI) fills it; the CLI (`autokernel profile`), the GUI's Profile page and `autokernel new
// --from-profile` read it. Its file form is profile.json (docs/profile-json.md, versioned by
// kFormatVersion); profile_json.h reads and writes it.
//
// Only GPU activity is recorded as time: kernels, memcpys and memsets with their GPU start/end
// timestamps. Ops carry shapes, never time, so nothing can be counted twice.
#include "analysis/measured_ceilings.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ak::profile {

inline constexpr int kFormatVersion = 1;

// How the profiled work was started.
enum class SourceKind {
    BuiltinModel,  // one of models/ (gpt2, llama-160m, llama-7b-layers, bert-base)
    TorchScript,   // torch::jit::load of a user's file, inputs given on the command line
    Command,       // any CUDA process, through the CUPTI injection library
};

struct Origin {
    SourceKind kind = SourceKind::BuiltinModel;
    std::string model;                 // built-in model name, or the TorchScript file as given
    std::vector<std::string> inputs;   // TorchScript: the --input specs as given ("8x1024:int64")
    std::vector<std::string> command;  // Command: argv of the profiled process
    int batch = 0;                     // built-in models (0 when not applicable)
    int seq = 0;
    std::string dtype;                 // "fp16", "bf16", "fp32" (built-in models, TorchScript)
    std::string mode;                  // "inference" or "training"
    int warmup_iterations = 0;
    int measured_iterations = 0;
    std::string gpu_name;              // cuDeviceGetName
    std::string driver_version;
    std::string cuda_version;          // CUDA runtime / CUPTI version used
    std::string torch_version;         // empty for the Command route when unknown
    std::string tool_version;          // autokernel version line
    std::string recorded_utc;          // ISO 8601
};

// One argument of an op call. A tensor has its dtype, sizes and strides; a non-tensor argument has
// empty dtype and sizes, and `values` holds its value when it is a number, a bool (1 or 0) or a list
// of ints (SDPA's is_causal, softmax's dim, sum's dim list); `values` is empty for anything else
// (None, strings, tensor lists). Shape mapping (shape_mapping.h) reads these values.
struct TensorArg {
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    std::string dtype;                 // "fp16", "bf16", "fp32", "fp64", "int64", "int32", "bool", ...
    std::vector<double> values;        // non-tensor arguments only: the scalar, bool or int-list value

    bool is_tensor() const { return !dtype.empty(); }
};

// One ATen op call that launched at least one kernel, recorded by RecordFunction callbacks.
// Kernels point at the innermost op that was running when they were launched (CUPTI external
// correlation); `stack` names the enclosing ops too, outermost first, so a kernel of aten::addmm
// inside aten::linear can be classified by either.
struct OpCall {
    std::uint64_t id = 0;              // unique in the profile (the external correlation id)
    std::string name;                  // "aten::addmm"
    std::vector<TensorArg> inputs;     // in the op's argument order
    std::vector<std::string> stack;    // enclosing op names, outermost first, ending with `name`
    std::string module_path;           // "blocks.3.attn" (built-in models); "" when unknown
    std::string nvtx_range;            // Command route: the innermost NVTX range; "" when none
    int iteration = -1;                // measured iteration index, -1 outside the measured iterations
};

// One kernel launch, from a CUPTI kernel activity record.
struct KernelRecord {
    std::string name;                  // demangled
    std::uint64_t start_ns = 0;        // GPU timestamps (CUPTI clock), end > start
    std::uint64_t end_ns = 0;
    std::uint32_t device = 0;
    std::uint32_t stream = 0;
    std::array<std::uint32_t, 3> grid{};
    std::array<std::uint32_t, 3> block{};
    std::array<std::uint32_t, 3> cluster{};  // all zero when launched without a cluster
    int registers_per_thread = 0;
    int static_smem_bytes = 0;
    int dynamic_smem_bytes = 0;
    std::uint64_t correlation_id = 0;  // CUPTI correlation id of the launching API call
    std::optional<std::uint64_t> op_id;  // OpCall::id when attributed
    std::string nvtx_range;            // Command route: the innermost NVTX range at launch; "" when none
    std::uint32_t graph_id = 0;        // CUDA graph the kernel was replayed from, 0 when none
    int iteration = -1;                // measured iteration index
};

enum class MemoryKind { MemcpyHtoD, MemcpyDtoH, MemcpyDtoD, MemcpyOther, Memset };

// One memcpy or memset on the GPU.
struct MemoryRecord {
    MemoryKind kind = MemoryKind::MemcpyOther;
    std::uint64_t bytes = 0;
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint32_t stream = 0;
    std::optional<std::uint64_t> op_id;
    int iteration = -1;
};

// One measured iteration as seen from the host and by CUDA events around it.
struct IterationRecord {
    int index = 0;
    double wall_ms = 0;                // host clock, start of the iteration to the device synchronised after it
    double event_ms = 0;               // CUDA events recorded on the work's stream around it (0 when not measured)
    std::uint64_t gpu_start_ns = 0;    // CUPTI clock: first GPU activity of the iteration
    std::uint64_t gpu_end_ns = 0;      //              end of its last GPU activity
};

// Profiling overhead: the same iteration with and without the profiler attached.
struct Overhead {
    double profiled_iteration_ms = 0;    // median over the measured iterations
    double unprofiled_iteration_ms = 0;  // median over as many iterations run with CUPTI off
};

struct Profile {
    int format_version = kFormatVersion;
    Origin origin;
    std::vector<OpCall> ops;
    std::vector<KernelRecord> kernels;   // measured iterations only, in start order
    std::vector<MemoryRecord> memory;    // measured iterations only, in start order
    std::vector<IterationRecord> iterations;
    std::optional<Overhead> overhead;
    std::optional<MeasuredCeilings> ceilings;  // the recording GPU's copy/GEMM ceilings, when known
    std::vector<std::string> warnings;   // e.g. "CUPTI dropped 12 records"
};

std::string_view to_string(SourceKind k);   // "builtin", "torchscript", "command"
std::optional<SourceKind> parse_source_kind(std::string_view s);
std::string_view to_string(MemoryKind k);   // "memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memcpy", "memset"
std::optional<MemoryKind> parse_memory_kind(std::string_view s);

}  // namespace ak::profile
