#pragma once
// Datasheet numbers of the GPUs we know, looked up by the device name the driver reports
// (cuDeviceGetName), e.g. "NVIDIA H100 80GB HBM3" or "NVIDIA H200".
//
// All tensor-core peaks are DENSE (datasheets often print the 2:4-sparsity figure, twice as high)
// and assume FP32 accumulation. Every number's source is noted beside it in gpu_specs.cpp.
#include "analysis/dtype.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

// How a spec was found for a device.
enum class GpuMatch {
    exact,                  // the driver's name is in the table
    by_name_keyword,        // an unknown name containing a known model's keywords ("H100" + "PCIe")
    by_compute_capability,  // only the compute capability matched: the closest known GPU of that generation
};
std::string_view to_string(GpuMatch m);

struct GpuSpec {
    std::string name;         // the driver's device name of the table entry, e.g. "NVIDIA H100 80GB HBM3"
    std::string model;        // what people call it, e.g. "H100 SXM5 80GB"
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    std::string memory;       // "HBM3", "GDDR6X", ...
    double memory_gb = 0;     // capacity
    double bandwidth_gb_s = 0;  // DRAM bandwidth, GB/s (10^9 bytes/s)
    double l2_mb = 0;         // L2 cache, MB as the datasheet gives it
    // Dense peak TFLOP/s (10^12 FLOP/s); nullopt where the GPU has no such unit.
    std::optional<double> fp32_tflops;  // CUDA cores, no tensor cores
    std::optional<double> tf32_tflops;
    std::optional<double> fp16_tflops;
    std::optional<double> bf16_tflops;
    std::optional<double> fp8_tflops;
    std::string source;       // which datasheet / whitepaper the numbers come from

    // --- filled in by find_gpu_spec ---
    GpuMatch match = GpuMatch::exact;
    std::string queried_name;  // the name that was looked up
    std::string match_note;    // empty for exact matches; otherwise says which GPU's numbers are used

    bool approximate() const { return match != GpuMatch::exact; }
    bool supports(DType t) const;
    // Dense peak in TFLOP/s. Throws Error(NotFound) naming the GPU and type when it has none (fp8 on A100).
    double peak_tflops(DType t) const;
};

// Looks up the driver's device name. Unknown names fall back to keywords of a known model, then to
// the closest known GPU with the same compute capability; both fallbacks are flagged approximate
// with a note. nullopt when nothing fits (an unknown generation): better no numbers than wrong ones.
std::optional<GpuSpec> find_gpu_spec(std::string_view device_name, int cc_major, int cc_minor);

// Every entry of the table (match = exact).
const std::vector<GpuSpec>& known_gpu_specs();

}  // namespace ak
