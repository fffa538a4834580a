#include "engine/evaluator/plausibility.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace ak::eval {

namespace {

std::string rate_text(double value, const char* unit_small, const char* unit_large) {
    char buf[64];
    if (value >= 1000)
        std::snprintf(buf, sizeof buf, "%.2f %s", value / 1000, unit_large);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", value, unit_small);
    return buf;
}

std::string bytes_text(double bytes) {
    char buf[64];
    if (bytes >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.1f kB", bytes / 1e3);
    return buf;
}

std::string number(double v, const char* format = "%.3g") {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

struct Roof {
    std::optional<double> bound;  // before noise
    std::string why;              // how the bound was formed
};

Roof roof(std::optional<double> measured, std::optional<double> datasheet, const std::string& measured_name,
          const char* small, const char* large) {
    Roof r;
    const bool has_measured = measured && *measured > 0;
    const bool has_datasheet = datasheet && *datasheet > 0;
    if (has_measured && (!has_datasheet || kMeasuredMargin * *measured <= kDatasheetMargin * *datasheet)) {
        r.bound = kMeasuredMargin * *measured;
        r.why = number(kMeasuredMargin, "%.2f") + " x the " + rate_text(*measured, small, large) + " measured for " +
                measured_name + " on this GPU";
        if (has_datasheet) r.why += "; datasheet " + rate_text(*datasheet, small, large);
    } else if (has_datasheet) {
        r.bound = kDatasheetMargin * *datasheet;
        r.why = number(kDatasheetMargin, "%.2f") + " x the datasheet's " + rate_text(*datasheet, small, large);
        if (has_measured) r.why += "; measured " + measured_name + " " + rate_text(*measured, small, large);
    }
    return r;
}

}  // namespace

PlausibilityResult check_plausibility(const PlausibilityInput& in) {
    if (!(in.median_us > 0) || !std::isfinite(in.median_us))
        throw Error(ErrorKind::Usage, "plausibility: the median time must be positive, got " + number(in.median_us));
    PlausibilityResult r;
    const double seconds = in.median_us * 1e-6;
    r.achieved_gb_s = in.bytes / seconds / 1e9;
    r.achieved_tflops = in.flops / seconds / 1e12;
    const double noise = 1.0 + std::clamp(in.iqr_us / in.median_us, 0.0, 0.5);
    const std::string timing = number(in.median_us, "%.2f") + " us (median, IQR " + number(in.iqr_us, "%.2f") + " us)";

    std::vector<std::string> unchecked;
    const Roof mem = roof(in.measured_copy_gb_s, in.datasheet_gb_s, "a copy of the same bytes", "GB/s", "TB/s");
    if (in.bytes > 0 && mem.bound) {
        r.bound_gb_s = *mem.bound * noise;
        if (r.achieved_gb_s > *r.bound_gb_s) {
            r.plausible = false;
            r.reason = "faster than physically possible: " + rate_text(r.achieved_gb_s, "GB/s", "TB/s") + " (" +
                       bytes_text(in.bytes) + " of minimum traffic in " + timing + ") > " +
                       rate_text(*r.bound_gb_s, "GB/s", "TB/s") + " (" + mem.why +
                       (noise > 1.0 ? ", widened by the timing's spread" : "") + ")";
        }
    } else if (in.bytes > 0) {
        unchecked.push_back("memory (no measured copy and no datasheet bandwidth for this GPU)");
    }
    const Roof comp = roof(in.measured_gemm_tflops, in.datasheet_tflops, "the vendor GEMM of this dtype", "TFLOP/s",
                           "PFLOP/s");
    if (in.flops > 0 && comp.bound) {
        r.bound_tflops = *comp.bound * noise;
        if (r.achieved_tflops > *r.bound_tflops && r.plausible) {
            r.plausible = false;
            r.reason = "faster than physically possible: " + rate_text(r.achieved_tflops, "TFLOP/s", "PFLOP/s") + " (" +
                       number(in.flops, "%.3g") + " FLOP in " + timing + ") > " +
                       rate_text(*r.bound_tflops, "TFLOP/s", "PFLOP/s") + " (" + comp.why +
                       (noise > 1.0 ? ", widened by the timing's spread" : "") + ")";
        }
    } else if (in.flops > 0) {
        unchecked.push_back("compute (no measured GEMM and no datasheet peak for this dtype)");
    }
    for (std::size_t i = 0; i < unchecked.size(); ++i)
        r.note += (i ? "; " : "not checked against ") + unchecked[i];
    return r;
}

}  // namespace ak::eval
