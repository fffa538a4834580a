#include "profile/chrome_trace.h"

#include "profile/classification.h"
#include "profile/shape_mapping.h"
#include "util/durable_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

namespace ak::profile {

std::string chrome_trace_json(const Profile& p) {
    using nlohmann::json;
    std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
    for (const KernelRecord& k : p.kernels) origin = std::min(origin, k.start_ns);
    for (const MemoryRecord& m : p.memory) origin = std::min(origin, m.start_ns);
    if (origin == std::numeric_limits<std::uint64_t>::max()) origin = 0;
    const auto us = [&](std::uint64_t ns) { return double(ns - origin) / 1000.0; };

    std::unordered_map<std::uint64_t, const OpCall*> ops;
    for (const OpCall& op : p.ops) ops.emplace(op.id, &op);
    const std::string model = p.origin.kind == SourceKind::BuiltinModel ? p.origin.model : "";

    // Streams become threads of one process per device; an extra track for memory traffic is not needed
    // (memcpys run on streams too).
    std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    const auto emit = [&](const json& e) {
        out += first ? "" : ",\n";
        out += e.dump(-1, ' ', false, json::error_handler_t::replace);
        first = false;
    };
    std::set<std::pair<std::uint32_t, std::uint32_t>> tracks;
    for (const KernelRecord& k : p.kernels) tracks.emplace(k.device, k.stream);
    for (const MemoryRecord& m : p.memory) tracks.emplace(0, m.stream);
    std::set<std::uint32_t> devices;
    for (const auto& [device, stream] : tracks) {
        if (devices.insert(device).second)
            emit({{"ph", "M"}, {"name", "process_name"}, {"pid", device}, {"args", {{"name", "GPU " + std::to_string(device) +
                                                                                               (p.origin.gpu_name.empty() ? "" : " (" + p.origin.gpu_name + ")")}}}});
        emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", device}, {"tid", stream},
              {"args", {{"name", "stream " + std::to_string(stream)}}}});
    }
    for (const KernelRecord& k : p.kernels) {
        const OpCall* op = nullptr;
        if (k.op_id)
            if (const auto it = ops.find(*k.op_id); it != ops.end()) op = it->second;
        const Classification c = classify(k.name, op, model);
        json args{{"type", type_label(c.type)},
                  {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                  {"block", {k.block[0], k.block[1], k.block[2]}},
                  {"registers per thread", k.registers_per_thread},
                  {"static shared memory", k.static_smem_bytes},
                  {"dynamic shared memory", k.dynamic_smem_bytes},
                  {"correlation", k.correlation_id},
                  {"iteration", k.iteration}};
        if (k.cluster[0] || k.cluster[1] || k.cluster[2]) args["cluster"] = {k.cluster[0], k.cluster[1], k.cluster[2]};
        if (op) {
            args["op"] = op->name;
            args["input shapes"] = input_shapes_text(*op);
            if (!op->module_path.empty()) args["module"] = op->module_path;
            if (op->stack.size() > 1) {
                std::string stack;
                for (const auto& s : op->stack) stack += (stack.empty() ? "" : " > ") + s;
                args["op stack"] = stack;
            }
        }
        if (!k.nvtx_range.empty()) args["nvtx"] = k.nvtx_range;
        if (k.graph_id) args["graph"] = k.graph_id;
        emit({{"ph", "X"}, {"cat", "kernel"}, {"name", k.name}, {"pid", k.device}, {"tid", k.stream},
              {"ts", us(k.start_ns)}, {"dur", double(k.end_ns - k.start_ns) / 1000.0}, {"args", std::move(args)}});
    }
    for (const MemoryRecord& m : p.memory) {
        json args{{"bytes", m.bytes}, {"iteration", m.iteration}};
        if (m.op_id)
            if (const auto it = ops.find(*m.op_id); it != ops.end()) args["op"] = it->second->name;
        emit({{"ph", "X"}, {"cat", m.kind == MemoryKind::Memset ? "memset" : "memcpy"}, {"name", std::string(to_string(m.kind))},
              {"pid", 0}, {"tid", m.stream}, {"ts", us(m.start_ns)}, {"dur", double(m.end_ns - m.start_ns) / 1000.0},
              {"args", std::move(args)}});
    }
    out += "\n]}\n";
    return out;
}

void write_chrome_trace(const Profile& profile, const std::filesystem::path& path) {
    replace_durably(path, chrome_trace_json(profile));
}

}  // namespace ak::profile
