#pragma once
// The derived numbers of a timing row: TFLOP/s and GB/s from the type's FLOP count and minimal bytes,
// % of the binding datasheet roof and whether the kernel is memory- or compute-bound (roofline with
// the GPU's spec), and % of the measured ceilings (a copy of the same bytes when memory-bound, a
// cuBLAS GEMM of the same dtype when compute-bound). Pure C++.
#include "analysis/gpu_specs.h"
#include "engine/evaluation_protocol.h"

#include <optional>

namespace ak::eval {

// Whether `row` (shape, dtype, median_us already set) is memory-bound: by the roofline when `spec` is
// known, else by the type's expectation.
bool memory_bound(const TimingRecord& row, KernelType type, const std::optional<GpuSpec>& spec);

// Fills tflops, gb_s, pct_peak, bound, speedup (when baseline_median_us > 0), and pct_copy_ceiling /
// pct_gemm_ceiling when the matching ceiling is > 0 (which one depends on the bound). Throws
// Error(Usage) when median_us <= 0.
void fill_performance(TimingRecord& row, KernelType type, const std::optional<GpuSpec>& spec, double copy_ceiling_gb_s,
                      double gemm_ceiling_tflops);

}  // namespace ak::eval
