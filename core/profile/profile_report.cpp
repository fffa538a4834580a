#include "profile/profile_report.h"

#include "util/text.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace ak::profile {
namespace {

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s + ' ';
}
std::string pct(double share) { return format_fixed(share * 100.0, 1) + "%"; }
std::string times(double x) { return std::isfinite(x) ? format_fixed(x, 3) + "x" : "inf"; }
std::string us(double value) { return format_fixed(value, value < 10 ? 2 : 1) + " us"; }
std::string ns_as_ms(std::uint64_t ns) { return format_fixed(double(ns) / 1e6, 3) + " ms"; }

std::string shorten(const std::string& s, std::size_t n) {
    if (s.size() <= n) return s;
    return s.substr(0, n - 3) + "...";
}

std::string rate(const Headroom& h) {
    if (h.memory_bound) return format_fixed(h.achieved_gb_s, 0) + " GB/s";
    return format_fixed(h.achieved_tflops, 1) + " TFLOP/s";
}

std::string origin_text(const Origin& o) {
    std::string s;
    switch (o.kind) {
    case SourceKind::BuiltinModel:
        s = "model " + o.model + ", batch " + std::to_string(o.batch) + ", seq " + std::to_string(o.seq) + ", " + o.dtype +
            ", " + o.mode;
        break;
    case SourceKind::TorchScript: {
        s = "TorchScript " + o.model;
        for (const auto& i : o.inputs) s += " --input " + i;
        break;
    }
    case SourceKind::Command: {
        s = "command";
        for (const auto& c : o.command) s += " " + c;
        break;
    }
    }
    return s;
}

}  // namespace

std::string format_profile_report(const Profile& p, const Breakdown& b, const ReportOptions& options) {
    const GpuTimeline& t = b.timeline;
    const double it = t.iterations;
    std::string out;
    out += "profile: " + origin_text(p.origin) + "\n";
    out += "GPU: " + (p.origin.gpu_name.empty() ? std::string("unknown") : p.origin.gpu_name);
    if (!p.origin.torch_version.empty()) out += ", torch " + p.origin.torch_version;
    if (!p.origin.recorded_utc.empty()) out += ", recorded " + p.origin.recorded_utc;
    out += "\n";
    out += std::to_string(t.iterations) + " measured iterations after " + std::to_string(p.origin.warmup_iterations) +
           " warm-up; per iteration:\n";
    out += "  GPU time (sum of kernels, memcpys, memsets)  " + us(double(t.activity_sum_ns) / it / 1000) + "  (" +
           std::to_string(t.kernels) + " kernels, " + std::to_string(t.memory_ops) + " memcpy/memset in all)\n";
    out += "  GPU busy (union of intervals)                " + us(double(t.busy_ns) / it / 1000);
    if (t.activity_sum_ns > t.busy_ns)
        out += "  (streams overlap: " + us(double(t.activity_sum_ns - t.busy_ns) / it / 1000) + " counted once)";
    out += "\n";
    out += "  GPU wall (first to last activity)            " + us(double(t.wall_ns) / it / 1000) + "\n";
    out += "  GPU idle (waiting on the host)               " + us(double(t.idle_ns) / it / 1000) + " in " +
           std::to_string(t.idle_gaps) + " gaps, largest " + us(double(t.largest_gap_ns) / 1000) + "\n";
    if (t.host_wall_ms > 0) out += "  host wall                                    " + us(t.host_wall_ms * 1000 / it) + "\n";
    out += "  attribution: " + pct(b.attributed_share) + " of kernel time launched by a recorded op; " +
           pct(b.classified_share) + " of GPU time in the nine kernel types\n";
    if (p.overhead && p.overhead->unprofiled_iteration_ms > 0)
        out += "  profiling overhead: " + format_fixed(p.overhead->profiled_iteration_ms, 3) + " ms profiled vs " +
               format_fixed(p.overhead->unprofiled_iteration_ms, 3) + " ms unprofiled per iteration (" +
               format_fixed((p.overhead->profiled_iteration_ms / p.overhead->unprofiled_iteration_ms - 1) * 100, 1) +
               "%)\n";
    for (const auto& w : p.warnings) out += "  warning: " + w + "\n";

    out += "\nkernel types (share of GPU time; end-to-end speedup if the type got 1.5x/2x/3x/5x faster)\n";
    out += pad("type", 17) + pad("per iter", 11) + pad("share", 7) + pad("kernels", 8) + pad("1.5x", 7) + pad("2x", 7) +
           pad("3x", 7) + pad("5x", 7) + "limit\n";
    for (const BreakdownType& ty : b.types) {
        out += pad(ty.type_label, 17) + pad(us(ty.per_iteration_us), 11) + pad(pct(ty.share), 7) +
               pad(std::to_string(ty.launches), 8);
        for (const WhatIf& w : ty.what_if) out += pad(times(w.end_to_end), 7);
        out += times(ty.limit) + "\n";
    }

    out += "\ntop groups (op, input shapes; achieved rate and % of the ceiling at the type's shape)\n";
    out += pad("type", 17) + pad("share", 7) + pad("per iter", 11) + pad("calls", 6) + pad("achieved", 15) +
           pad("% ceil", 7) + pad("at ceiling", 11) + pad("2x", 7) + "op and shapes\n";
    std::size_t shown = 0;
    for (const BreakdownGroup& g : b.groups) {
        if (shown++ == options.top_groups) break;
        out += pad(g.type_label, 17) + pad(pct(g.share), 7) + pad(us(g.per_iteration_us), 11) +
               pad(std::to_string(g.calls), 6);
        if (g.headroom) {
            out += pad(rate(*g.headroom), 15) + pad(format_fixed(g.headroom->pct_of_ceiling, 0) + "%", 7) +
                   pad("up to " + times(g.headroom->end_to_end_bound), 11);
        } else {
            out += pad("-", 15) + pad("-", 7) + pad("-", 11);
        }
        out += pad(g.what_if.size() > 1 ? times(g.what_if[1].end_to_end) : "-", 7);
        out += shorten(g.op, 60);
        if (!g.input_shapes.empty()) out += " " + g.input_shapes;
        if (g.type_shape) out += " -> " + to_string(*g.type_shape);
        if (!g.module_path.empty()) out += "  (" + g.module_path + ")";
        out += "\n";
    }
    if (b.groups.size() > options.top_groups)
        out += "(" + std::to_string(b.groups.size() - options.top_groups) + " more groups)\n";
    out += b.ceiling_note + "\n";

    out += "\ntop kernels by name\n";
    out += pad("total", 12) + pad("count", 7) + pad("mean", 11) + pad("median", 11) + pad("min", 11) + pad("max", 11) +
           "name\n";
    shown = 0;
    for (const KernelNameStats& k : b.kernels) {
        if (shown++ == options.top_kernels) break;
        out += pad(ns_as_ms(k.stats.total_ns), 12) + pad(std::to_string(k.stats.count), 7) +
               pad(us(k.stats.mean_ns / 1000), 11) + pad(us(k.stats.median_ns / 1000), 11) +
               pad(us(double(k.stats.min_ns) / 1000), 11) + pad(us(double(k.stats.max_ns) / 1000), 11) +
               shorten(k.name, 100) + "\n";
    }
    return out;
}

std::string breakdown_json(const Profile& p, const Breakdown& b) {
    using nlohmann::ordered_json;
    const auto what_if = [](const std::vector<WhatIf>& rows) {
        ordered_json a = ordered_json::array();
        for (const WhatIf& w : rows) a.push_back({{"kernel_speedup", w.kernel_speedup}, {"end_to_end", w.end_to_end}});
        return a;
    };
    const GpuTimeline& t = b.timeline;
    ordered_json j;
    j["origin"] = {{"kind", std::string(to_string(p.origin.kind))}, {"model", p.origin.model},
                   {"gpu_name", p.origin.gpu_name}, {"measured_iterations", p.origin.measured_iterations},
                   {"recorded_utc", p.origin.recorded_utc}};
    j["summary"] = {{"gpu_time_ns", t.activity_sum_ns}, {"kernel_time_ns", t.kernel_sum_ns},
                    {"memory_time_ns", t.memory_sum_ns}, {"busy_ns", t.busy_ns}, {"wall_ns", t.wall_ns},
                    {"idle_ns", t.idle_ns}, {"idle_gaps", t.idle_gaps}, {"largest_gap_ns", t.largest_gap_ns},
                    {"kernels", t.kernels}, {"memory_ops", t.memory_ops}, {"host_wall_ms", t.host_wall_ms},
                    {"attributed_share", b.attributed_share}, {"classified_share", b.classified_share},
                    {"ceiling_note", b.ceiling_note}};
    if (p.overhead)
        j["summary"]["overhead"] = {{"profiled_iteration_ms", p.overhead->profiled_iteration_ms},
                                    {"unprofiled_iteration_ms", p.overhead->unprofiled_iteration_ms}};
    j["types"] = ordered_json::array();
    for (const BreakdownType& ty : b.types) {
        const double limit = std::isfinite(ty.limit) ? ty.limit : 0.0;
        j["types"].push_back({{"type", ty.type_label}, {"total_ns", ty.total_ns}, {"per_iteration_us", ty.per_iteration_us},
                              {"share", ty.share}, {"launches", ty.launches}, {"groups", ty.groups},
                              {"what_if", what_if(ty.what_if)}, {"limit", limit}});
    }
    j["groups"] = ordered_json::array();
    for (const BreakdownGroup& g : b.groups) {
        ordered_json e{{"type", g.type_label},       {"op", g.op},
                       {"input_shapes", g.input_shapes}, {"dtype", g.dtype},
                       {"type_shape", g.type_shape ? to_string(*g.type_shape) : ""},
                       {"module_path", g.module_path}, {"classified_by", std::string(to_string(g.classified_by))},
                       {"calls", g.calls},            {"launches", g.launches},
                       {"total_ns", g.total_ns},      {"per_iteration_us", g.per_iteration_us},
                       {"share", g.share},            {"what_if", what_if(g.what_if)},
                       {"kernel_names", g.kernel_names}};
        if (g.headroom)
            e["headroom"] = {{"bound", g.headroom->memory_bound ? "memory" : "compute"},
                             {"achieved_tflops", g.headroom->achieved_tflops},
                             {"achieved_gb_s", g.headroom->achieved_gb_s},
                             {"ceiling", g.headroom->ceiling},
                             {"pct_of_ceiling", g.headroom->pct_of_ceiling},
                             {"end_to_end_bound", g.headroom->end_to_end_bound},
                             {"ceiling_source", g.headroom->ceiling_source}};
        j["groups"].push_back(std::move(e));
    }
    j["kernels"] = ordered_json::array();
    for (const KernelNameStats& k : b.kernels)
        j["kernels"].push_back({{"name", k.name}, {"count", k.stats.count}, {"total_ns", k.stats.total_ns},
                                {"mean_ns", k.stats.mean_ns}, {"median_ns", k.stats.median_ns},
                                {"min_ns", k.stats.min_ns}, {"max_ns", k.stats.max_ns}});
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ak::profile
