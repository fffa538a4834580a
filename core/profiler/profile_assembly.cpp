#include "profiler/profile_assembly.h"

#include <algorithm>
#include <unordered_set>

namespace ak::profiler {

namespace {

// Index of the window containing t, -1 when none (windows are sorted and disjoint).
int window_of(const std::vector<IterationWindow>& windows, std::uint64_t t) {
    auto it = std::upper_bound(windows.begin(), windows.end(), t,
                               [](std::uint64_t v, const IterationWindow& w) { return v < w.begin_ns; });
    if (it == windows.begin()) return -1;
    --it;
    return t <= it->end_ns ? int(it - windows.begin()) : -1;
}

}  // namespace

void assemble_profile(profile::Profile& profile, ActivityData data, std::vector<profile::OpCall> ops,
                      const std::vector<IterationWindow>& windows_in,
                      const std::unordered_map<std::uint64_t, std::string>& range_names) {
    std::vector<IterationWindow> windows = windows_in;
    std::sort(windows.begin(), windows.end(), [](const auto& a, const auto& b) { return a.begin_ns < b.begin_ns; });

    std::unordered_map<std::uint64_t, size_t> op_index;
    for (size_t i = 0; i < ops.size(); ++i) op_index[ops[i].id] = i;
    std::unordered_set<std::uint64_t> used_ops;

    auto link = [&](std::uint32_t correlation, std::optional<std::uint64_t>& op_id, std::string* nvtx) {
        if (auto it = data.op_of_correlation.find(correlation); it != data.op_of_correlation.end() && op_index.count(it->second)) {
            op_id = it->second;
            used_ops.insert(it->second);
        }
        if (nvtx) {
            if (auto it = data.range_of_correlation.find(correlation); it != data.range_of_correlation.end()) {
                if (auto n = range_names.find(it->second); n != range_names.end()) *nvtx = n->second;
            }
        }
    };

    std::vector<std::uint64_t> first(windows.size(), UINT64_MAX), last(windows.size(), 0);
    auto extend = [&](int w, std::uint64_t s, std::uint64_t e) {
        first[size_t(w)] = std::min(first[size_t(w)], s);
        last[size_t(w)] = std::max(last[size_t(w)], e);
    };

    profile.kernels.clear();
    for (auto& k : data.kernels) {
        const int w = window_of(windows, k.start_ns);
        if (w < 0) continue;
        k.iteration = windows[size_t(w)].index;
        link(std::uint32_t(k.correlation_id), k.op_id, &k.nvtx_range);
        extend(w, k.start_ns, k.end_ns);
        profile.kernels.push_back(std::move(k));
    }
    profile.memory.clear();
    for (auto& m : data.memory) {
        const int w = window_of(windows, m.record.start_ns);
        if (w < 0) continue;
        m.record.iteration = windows[size_t(w)].index;
        link(m.correlation_id, m.record.op_id, nullptr);
        extend(w, m.record.start_ns, m.record.end_ns);
        profile.memory.push_back(m.record);
    }
    std::stable_sort(profile.kernels.begin(), profile.kernels.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(profile.memory.begin(), profile.memory.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });

    profile.ops.clear();
    for (auto& op : ops)
        if (used_ops.count(op.id)) profile.ops.push_back(std::move(op));
    std::sort(profile.ops.begin(), profile.ops.end(), [](const auto& a, const auto& b) { return a.id < b.id; });

    profile.iterations.clear();
    for (size_t i = 0; i < windows.size(); ++i) {
        profile::IterationRecord r;
        r.index = windows[i].index;
        r.wall_ms = windows[i].wall_ms;
        r.event_ms = windows[i].event_ms;
        if (first[i] != UINT64_MAX) {
            r.gpu_start_ns = first[i];
            r.gpu_end_ns = last[i];
        }
        profile.iterations.push_back(r);
    }
    if (data.dropped > 0)
        profile.warnings.push_back("CUPTI dropped " + std::to_string(data.dropped) +
                                   " activity records (its buffers were full): the totals are too low");
}

double attributed_fraction(const profile::Profile& profile) {
    double total = 0, attributed = 0;
    for (const auto& k : profile.kernels) {
        const double d = double(k.end_ns - k.start_ns);
        total += d;
        if (k.op_id) attributed += d;
    }
    return total > 0 ? attributed / total : 1.0;
}

}  // namespace ak::profiler
