#pragma once
// The plausibility gate: a timing that beats what the hardware can do is a failure with a named reason,
// never a win. A candidate is judged against both roofs, whatever its type's usual bound:
//   - memory: its minimum traffic (kernel_type.h's min_bytes: every input read once, every output
//     written once) over its median time must not exceed min(kMeasuredMargin x the measured copy of the
//     same bytes, kDatasheetMargin x the datasheet HBM bandwidth);
//   - compute: its FLOP count over its median time must not exceed min(kMeasuredMargin x the measured
//     GEMM rate of its dtype, kDatasheetMargin x the datasheet dense peak of its dtype).
// A roof that is unknown (no measurement, no datasheet entry) is skipped; with neither known for a roof
// the gate says so instead of passing silently. Noise widens the bound by the timing's relative IQR, so
// only a result faster than possible by more than its own spread fails.
// L2 is flushed before every timed run and inputs are rotated, so the data comes from HBM. Pure C++.
#include <optional>
#include <string>

namespace ak::eval {

inline constexpr double kMeasuredMargin = 1.25;   // a kernel may beat a plain copy / cuBLAS a little
inline constexpr double kDatasheetMargin = 1.05;  // but not the hardware

struct PlausibilityInput {
    double median_us = 0;
    double iqr_us = 0;
    double flops = 0;                            // the type's FLOP count at this shape
    double bytes = 0;                            // the type's minimum traffic at this shape and dtype
    std::optional<double> measured_copy_gb_s;    // a copy of the same bytes on this GPU
    std::optional<double> measured_gemm_tflops;  // the vendor GEMM of this dtype on this GPU
    std::optional<double> datasheet_gb_s;
    std::optional<double> datasheet_tflops;      // dense peak of this dtype (fp32: CUDA cores, no TF32)
};

struct PlausibilityResult {
    bool plausible = true;
    std::optional<double> bound_gb_s;       // the memory bound applied (noise included)
    std::optional<double> bound_tflops;     // the compute bound applied (noise included)
    double achieved_gb_s = 0;
    double achieved_tflops = 0;
    std::string reason;  // why not: "faster than physically possible: 8.50 TB/s ... > 4.63 TB/s (...)"
    std::string note;    // what could not be checked (no roof known), empty otherwise
};

// Throws Error(Usage) for a non-positive median.
PlausibilityResult check_plausibility(const PlausibilityInput& in);

}  // namespace ak::eval
