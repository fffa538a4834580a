#include "profile/breakdown.h"

#include "analysis/amdahl.h"
#include "analysis/gpu_specs.h"
#include "analysis/roofline.h"
#include "profile/shape_mapping.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ak::profile {
namespace {

double clamp_share(double share) { return std::clamp(share, 0.0, 1.0); }

std::vector<WhatIf> what_ifs(double share) {
    std::vector<WhatIf> rows;
    for (const double s : what_if_speedups()) rows.push_back({s, amdahl_speedup(clamp_share(share), s)});
    return rows;
}

// Accumulates one group while the kernels are walked.
struct GroupBuilder {
    BreakdownGroup group;
    const OpCall* representative = nullptr;
    std::set<std::uint64_t> op_ids;
    std::map<std::string, std::uint64_t> kernel_ns;
    std::map<std::string, std::uint64_t> module_count;
};

// The roofs for `dtype` at a transfer of `bytes`: measured where the profile has them, else the datasheet.
std::optional<Ceilings> roofs(const std::optional<GpuSpec>& spec, const std::optional<MeasuredCeilings>& measured,
                              DType dtype, std::uint64_t bytes) {
    try {
        if (spec && measured) return ceilings_for(*spec, dtype, *measured, bytes);
        if (spec) return datasheet_ceilings(*spec, dtype);
        if (measured) {
            const auto gemm = measured->gemm_tflops.find(dtype);
            const auto copy = measured_copy_gb_s(*measured, bytes);
            if (gemm == measured->gemm_tflops.end() || !copy) return std::nullopt;
            return Ceilings{gemm->second, *copy, "measured " + std::string(to_string(dtype)) + " GEMM and copy"};
        }
    } catch (const Error&) {
        // the GPU has no such unit (fp8 on an A100): no headroom
    }
    return std::nullopt;
}

std::optional<Headroom> headroom_of(const BreakdownGroup& g, DType dtype, const std::optional<GpuSpec>& spec,
                                    const std::optional<MeasuredCeilings>& measured) {
    if (!g.type || !g.type_shape || g.calls == 0 || g.total_ns == 0) return std::nullopt;
    const double flops = flop_count(*g.type, *g.type_shape);
    const double bytes = min_bytes(*g.type, *g.type_shape, dtype);
    const auto c = roofs(spec, measured, dtype, static_cast<std::uint64_t>(bytes));
    if (!c || c->peak_tflops <= 0 || c->bandwidth_gb_s <= 0 || bytes <= 0) return std::nullopt;
    const double seconds = double(g.total_ns) / double(g.calls) * 1e-9;
    const RooflinePoint p = roofline_point(flops, bytes, seconds, *c);
    Headroom h;
    h.memory_bound = p.memory_bound;
    h.achieved_tflops = p.achieved_tflops;
    h.achieved_gb_s = p.achieved_gb_s;
    h.ceiling = p.memory_bound ? c->bandwidth_gb_s : c->peak_tflops;
    h.pct_of_ceiling = p.pct_peak;
    h.ceiling_source = c->source;
    const double possible = p.pct_peak > 0 ? 100.0 / p.pct_peak : 1.0;
    h.end_to_end_bound = possible > 1.0 ? amdahl_speedup(clamp_share(g.share), possible) : 1.0;
    return h;
}

}  // namespace

Breakdown compute_breakdown(const Profile& profile, const BreakdownOptions& options) {
    Breakdown b;
    b.timeline = gpu_timeline(profile);
    b.kernels = per_kernel_name(profile);
    const double denominator = double(b.timeline.activity_sum_ns);
    const double iterations = b.timeline.iterations;
    const std::string model = profile.origin.kind == SourceKind::BuiltinModel ? profile.origin.model : "";

    std::unordered_map<std::uint64_t, const OpCall*> ops;
    ops.reserve(profile.ops.size());
    for (const OpCall& op : profile.ops) ops.emplace(op.id, &op);

    std::unordered_map<std::string, std::size_t> index;
    std::vector<GroupBuilder> builders;
    const auto builder = [&](const std::string& key) -> GroupBuilder& {
        const auto [it, inserted] = index.try_emplace(key, builders.size());
        if (inserted) builders.emplace_back();
        return builders[it->second];
    };

    std::uint64_t attributed_ns = 0;
    for (const KernelRecord& k : profile.kernels) {
        const std::uint64_t ns = k.end_ns - k.start_ns;
        const OpCall* op = nullptr;
        if (k.op_id)
            if (const auto it = ops.find(*k.op_id); it != ops.end()) op = it->second;
        if (op) attributed_ns += ns;
        const Classification c = classify(k.name, op, model);
        const std::string label = type_label(c.type);
        const std::string shapes = op ? input_shapes_text(*op) : "";
        GroupBuilder& g = builder(label + '\x1f' + (op ? op->name : k.name) + '\x1f' + shapes);
        if (g.group.launches == 0) {
            g.group.type = c.type;
            g.group.type_label = label;
            g.group.op = op ? op->name : k.name;
            g.group.input_shapes = shapes;
            g.group.classified_by = c.by;
            g.representative = op;
            if (op)
                for (const TensorArg& a : op->inputs)
                    if (a.is_tensor()) {
                        g.group.dtype = a.dtype;
                        break;
                    }
        }
        ++g.group.launches;
        g.group.total_ns += ns;
        g.kernel_ns[k.name] += ns;
        if (op) {
            g.op_ids.insert(op->id);
            if (!op->module_path.empty()) ++g.module_count[op->module_path];
        }
    }
    for (const MemoryRecord& m : profile.memory) {
        const std::string name(to_string(m.kind));
        GroupBuilder& g = builder("other\x1f" + name + "\x1f");
        if (g.group.launches == 0) {
            g.group.type_label = "other";
            g.group.op = name;
        }
        ++g.group.launches;
        g.group.total_ns += m.end_ns - m.start_ns;
        g.kernel_ns[name] += m.end_ns - m.start_ns;
    }

    const std::string gpu = options.gpu_name.empty() ? profile.origin.gpu_name : options.gpu_name;
    std::optional<GpuSpec> spec;
    if (!gpu.empty()) spec = find_gpu_spec(gpu, 0, 0);
    if (profile.ceilings && spec)
        b.ceiling_note = "ceilings: measured on " + profile.ceilings->device_name + " where measured, else the " +
                         spec->model + " datasheet";
    else if (profile.ceilings)
        b.ceiling_note = "ceilings: measured on " + profile.ceilings->device_name;
    else if (spec)
        b.ceiling_note = "ceilings: " + spec->model + " datasheet (no measured ceilings in the profile)" +
                         (spec->approximate() ? "; " + spec->match_note : "");
    else
        b.ceiling_note = gpu.empty() ? "no headroom: the profile names no GPU and has no measured ceilings"
                                     : "no headroom: no datasheet for '" + gpu + "' and no measured ceilings";

    std::uint64_t classified_ns = 0;
    for (GroupBuilder& gb : builders) {
        BreakdownGroup& g = gb.group;
        g.calls = gb.representative ? gb.op_ids.size() : g.launches;
        g.per_iteration_us = double(g.total_ns) / iterations / 1000.0;
        g.share = denominator > 0 ? clamp_share(double(g.total_ns) / denominator) : 0.0;
        g.what_if = what_ifs(g.share);
        std::vector<std::pair<std::uint64_t, std::string>> names;
        for (const auto& [name, ns] : gb.kernel_ns) names.emplace_back(ns, name);
        std::sort(names.begin(), names.end(), [](const auto& x, const auto& y) {
            return x.first != y.first ? x.first > y.first : x.second < y.second;
        });
        for (auto& [ns, name] : names) g.kernel_names.push_back(std::move(name));
        std::uint64_t best = 0;
        for (const auto& [path, count] : gb.module_count)
            if (count > best) {
                best = count;
                g.module_path = path;
            }
        if (g.type) classified_ns += g.total_ns;
        if (g.type && gb.representative)
            if (const auto mapped = map_shape(*g.type, *gb.representative)) {
                g.type_shape = mapped->shape;
                // A pattern's group (a scope or module rule) is one op of several: its shape is the
                // pattern's, its time only a part, so it has no headroom of its own.
                if (g.classified_by == ClassifiedBy::Op || g.classified_by == ClassifiedBy::KernelName)
                    g.headroom = headroom_of(g, mapped->dtype, spec, profile.ceilings);
            }
        b.groups.push_back(std::move(g));
    }
    std::sort(b.groups.begin(), b.groups.end(), [](const BreakdownGroup& x, const BreakdownGroup& y) {
        if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
        if (x.op != y.op) return x.op < y.op;
        return x.input_shapes < y.input_shapes;
    });

    std::map<std::string, BreakdownType> types;
    for (const BreakdownGroup& g : b.groups) {
        BreakdownType& t = types[g.type_label];
        t.type = g.type;
        t.type_label = g.type_label;
        t.total_ns += g.total_ns;
        t.launches += g.launches;
        ++t.groups;
    }
    for (auto& [label, t] : types) {
        t.per_iteration_us = double(t.total_ns) / iterations / 1000.0;
        t.share = denominator > 0 ? clamp_share(double(t.total_ns) / denominator) : 0.0;
        t.what_if = what_ifs(t.share);
        t.limit = t.share < 1.0 ? 1.0 / (1.0 - t.share) : std::numeric_limits<double>::infinity();
        b.types.push_back(t);
    }
    std::sort(b.types.begin(), b.types.end(), [](const BreakdownType& x, const BreakdownType& y) {
        if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
        return x.type_label < y.type_label;
    });
    b.attributed_share = b.timeline.kernel_sum_ns ? double(attributed_ns) / double(b.timeline.kernel_sum_ns) : 0.0;
    b.classified_share = denominator > 0 ? double(classified_ns) / denominator : 0.0;
    return b;
}

std::vector<const BreakdownGroup*> groups_of(const Breakdown& breakdown, std::optional<KernelType> type) {
    std::vector<const BreakdownGroup*> out;
    for (const BreakdownGroup& g : breakdown.groups)
        if (g.type == type) out.push_back(&g);
    return out;
}

}  // namespace ak::profile
