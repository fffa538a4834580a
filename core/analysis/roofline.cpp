#include "analysis/roofline.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace ak {
namespace {

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void check_roofs(const Ceilings& c) {
    if (!(c.peak_tflops > 0) || !std::isfinite(c.peak_tflops))
        throw Error(ErrorKind::Usage, "roofline: the compute peak is " + number(c.peak_tflops) + " TFLOP/s; it must be above 0");
    if (!(c.bandwidth_gb_s > 0) || !std::isfinite(c.bandwidth_gb_s))
        throw Error(ErrorKind::Usage, "roofline: the bandwidth is " + number(c.bandwidth_gb_s) + " GB/s; it must be above 0");
}

std::string size_text(std::uint64_t bytes) {
    if (bytes >= 1000000000ULL) return number(static_cast<double>(bytes) / 1e9) + " GB";
    if (bytes >= 1000000ULL) return number(static_cast<double>(bytes) / 1e6) + " MB";
    if (bytes >= 1000ULL) return number(static_cast<double>(bytes) / 1e3) + " kB";
    return std::to_string(bytes) + " bytes";
}

}  // namespace

Ceilings datasheet_ceilings(const GpuSpec& spec, DType dtype) {
    return {spec.peak_tflops(dtype), spec.bandwidth_gb_s, spec.model + " datasheet"};
}

std::optional<double> measured_copy_gb_s(const MeasuredCeilings& measured, std::uint64_t bytes) {
    const auto& m = measured.copy_gb_s;
    if (m.empty()) return std::nullopt;
    auto above = m.lower_bound(bytes);
    if (above == m.end()) return std::prev(m.end())->second;
    if (above->first == bytes || above == m.begin()) return above->second;
    auto below = std::prev(above);
    const double x0 = std::log(static_cast<double>(below->first));
    const double x1 = std::log(static_cast<double>(above->first));
    const double x = std::log(static_cast<double>(std::max<std::uint64_t>(bytes, 1)));
    const double t = (x - x0) / (x1 - x0);
    return below->second + t * (above->second - below->second);
}

Ceilings ceilings_for(const GpuSpec& spec, DType dtype, const MeasuredCeilings& measured, std::uint64_t bytes) {
    Ceilings c;
    std::string source;
    if (auto it = measured.gemm_tflops.find(dtype); it != measured.gemm_tflops.end()) {
        c.peak_tflops = it->second;
        source = "measured " + std::string(to_string(dtype)) + " GEMM";
    } else {
        c.peak_tflops = spec.peak_tflops(dtype);
        source = spec.model + " datasheet " + std::string(to_string(dtype)) + " peak";
    }
    if (auto copy = measured_copy_gb_s(measured, bytes)) {
        c.bandwidth_gb_s = *copy;
        source += ", measured copy of " + size_text(bytes);
    } else {
        c.bandwidth_gb_s = spec.bandwidth_gb_s;
        source += ", " + spec.model + " datasheet bandwidth";
    }
    c.source = std::move(source);
    return c;
}

double arithmetic_intensity(double flops, double bytes) {
    if (!(bytes > 0) || !std::isfinite(bytes))
        throw Error(ErrorKind::Usage, "arithmetic intensity: bytes moved is " + number(bytes) + "; it must be above 0");
    if (!(flops >= 0) || !std::isfinite(flops))
        throw Error(ErrorKind::Usage, "arithmetic intensity: the FLOP count is " + number(flops) + "; it cannot be negative");
    return flops / bytes;
}

double ridge_point(const Ceilings& c) {
    check_roofs(c);
    // TFLOP/s over GB/s: (1e12 FLOP/s) / (1e9 byte/s) = 1000 FLOP/byte per unit.
    return c.peak_tflops * 1000.0 / c.bandwidth_gb_s;
}

double attainable_tflops(double intensity, const Ceilings& c) {
    check_roofs(c);
    return std::min(c.peak_tflops, intensity * c.bandwidth_gb_s / 1000.0);
}

RooflinePoint roofline_point(double flops, double bytes, double seconds, const Ceilings& c) {
    if (!(seconds > 0) || !std::isfinite(seconds))
        throw Error(ErrorKind::Usage, "roofline: the kernel time is " + number(seconds) + " s; it must be above 0");
    RooflinePoint p;
    p.intensity = arithmetic_intensity(flops, bytes);
    p.ridge = ridge_point(c);
    p.memory_bound = p.intensity < p.ridge;
    p.achieved_tflops = flops / seconds / 1e12;
    p.achieved_gb_s = bytes / seconds / 1e9;
    p.attainable_tflops = attainable_tflops(p.intensity, c);
    p.pct_peak = p.memory_bound ? 100.0 * p.achieved_gb_s / c.bandwidth_gb_s : 100.0 * p.achieved_tflops / c.peak_tflops;
    return p;
}

}  // namespace ak
