#pragma once
// Readable text for evaluation results and measured ceilings: what `autokernel bench` and
// `autokernel ceilings` print (their --json prints the protocol's JSON instead).
#include "analysis/gpu_specs.h"
#include "analysis/measured_ceilings.h"
#include "engine/evaluation_protocol.h"

#include <optional>
#include <string>
#include <string_view>

namespace ak {

// Header line (file, type, device, verdict, seed, wall time), the per-dtype compile table, the checks
// per stage (passed / total and the worst error against its tolerance), the failure or crash detail,
// then the timing table: shape, dtype, ours µs ± IQR, baseline name and µs ± IQR, speedup, TFLOP/s or
// GB/s, % of peak, % of the measured copy or GEMM ceiling, bound. The reference's timing (the current
// best, re-timed in the same run) follows when present.
std::string format_evaluation_report(const EvaluationResult& result, std::optional<KernelType> type,
                                     std::string_view source_name);

// Copy bandwidth per size and GEMM throughput per dtype, each with its share of the datasheet number
// when `spec` is known.
std::string format_ceilings_report(const MeasuredCeilings& ceilings, const GpuSpec* spec);

// "134.2 MB", "4.29 GB", "512 B" (decimal units, as bandwidths are quoted).
std::string format_byte_size(double bytes);

}  // namespace ak
