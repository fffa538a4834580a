#pragma once
// The roofline model: a kernel moving `bytes` and doing `flops` is memory-bound when its arithmetic
// intensity (flops / bytes) is below the ridge point (peak FLOP/s / bandwidth), compute-bound above.
// Its attainable performance is min(peak, intensity * bandwidth); "% of peak" is the compute share
// when compute-bound and the bandwidth share when memory-bound (AutoKernel's pct_peak).
#include "analysis/dtype.h"
#include "analysis/gpu_specs.h"
#include "analysis/measured_ceilings.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ak {

// The two roofs a kernel is judged against.
struct Ceilings {
    double peak_tflops = 0;       // compute roof, TFLOP/s
    double bandwidth_gb_s = 0;    // memory roof, GB/s
    std::string source;           // e.g. "H200 datasheet" or "measured copy of 134 MB"
};

// The datasheet roofs of `spec` for `dtype`. Throws Error(NotFound) when the GPU has no such unit.
Ceilings datasheet_ceilings(const GpuSpec& spec, DType dtype);

// Measured roofs where available, the datasheet's otherwise: the copy bandwidth measured at the size
// closest to `bytes` (interpolated on a log scale between the two nearest sizes), and the measured
// GEMM throughput of `dtype`.
Ceilings ceilings_for(const GpuSpec& spec, DType dtype, const MeasuredCeilings& measured, std::uint64_t bytes);

// Copy bandwidth for a transfer of `bytes`, interpolated on log(bytes) between the measured sizes and
// clamped at the ends; nullopt when nothing was measured.
std::optional<double> measured_copy_gb_s(const MeasuredCeilings& measured, std::uint64_t bytes);

// flops / bytes. Throws Error(Usage) for bytes <= 0 or negative flops.
double arithmetic_intensity(double flops, double bytes);

// FLOP per byte at which the two roofs meet: peak FLOP/s / bandwidth (H200 bf16: 989.4e12 / 4.8e12 = 206).
double ridge_point(const Ceilings& c);

// min(peak, intensity * bandwidth) in TFLOP/s.
double attainable_tflops(double intensity, const Ceilings& c);

struct RooflinePoint {
    double intensity = 0;          // FLOP/byte
    double ridge = 0;              // FLOP/byte
    bool memory_bound = false;     // intensity < ridge
    double achieved_tflops = 0;
    double achieved_gb_s = 0;
    double attainable_tflops = 0;
    double pct_peak = 0;           // achieved share of the binding roof, in %
};

// Places a kernel that did `flops` and moved `bytes` in `seconds` on the roofline. Throws Error(Usage)
// for seconds <= 0, bytes <= 0 or roofs <= 0.
RooflinePoint roofline_point(double flops, double bytes, double seconds, const Ceilings& c);

}  // namespace ak
