#include "engine/evaluator/performance.h"

#include "analysis/roofline.h"
#include "util/error.h"

namespace ak::eval {

bool memory_bound(const TimingRecord& row, KernelType type, const std::optional<GpuSpec>& spec) {
    const double flops = flop_count(type, row.shape);
    const double bytes = min_bytes(type, row.shape, row.dtype);
    if (spec && spec->supports(row.dtype) && bytes > 0) {
        const Ceilings c = datasheet_ceilings(*spec, row.dtype);
        return arithmetic_intensity(flops, bytes) < ridge_point(c);
    }
    return !kernel_type_info(type).compute_bound_expected;
}

void fill_performance(TimingRecord& row, KernelType type, const std::optional<GpuSpec>& spec, double copy_ceiling_gb_s,
                      double gemm_ceiling_tflops) {
    if (!(row.median_us > 0)) throw Error(ErrorKind::Usage, "timing row without a positive median");
    const double seconds = row.median_us * 1e-6;
    const double flops = flop_count(type, row.shape);
    const double bytes = min_bytes(type, row.shape, row.dtype);
    row.tflops = flops / seconds / 1e12;
    row.gb_s = bytes / seconds / 1e9;
    if (row.baseline_median_us > 0) row.speedup = row.baseline_median_us / row.median_us;
    const bool mem = memory_bound(row, type, spec);
    row.bound = mem ? "memory" : "compute";
    if (spec && spec->supports(row.dtype) && bytes > 0) {
        const RooflinePoint point = roofline_point(flops, bytes, seconds, datasheet_ceilings(*spec, row.dtype));
        row.pct_peak = point.pct_peak;
    }
    row.pct_copy_ceiling.reset();
    row.pct_gemm_ceiling.reset();
    if (mem && copy_ceiling_gb_s > 0) row.pct_copy_ceiling = 100.0 * row.gb_s / copy_ceiling_gb_s;
    if (!mem && gemm_ceiling_tflops > 0) row.pct_gemm_ceiling = 100.0 * row.tflops / gemm_ceiling_tflops;
}

}  // namespace ak::eval
