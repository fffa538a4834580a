#include "profile/aggregation.h"

#include <algorithm>
#include <unordered_map>

namespace ak::profile {

DurationStats duration_stats(std::vector<std::uint64_t> durations) {
    DurationStats s;
    if (durations.empty()) return s;
    std::sort(durations.begin(), durations.end());
    s.count = durations.size();
    for (const auto d : durations) s.total_ns += d;
    s.mean_ns = double(s.total_ns) / double(s.count);
    const std::size_t mid = durations.size() / 2;
    s.median_ns = durations.size() % 2 ? double(durations[mid]) : (double(durations[mid - 1]) + double(durations[mid])) / 2;
    s.min_ns = durations.front();
    s.max_ns = durations.back();
    return s;
}

std::vector<KernelNameStats> per_kernel_name(const Profile& profile) {
    std::unordered_map<std::string_view, std::vector<std::uint64_t>> by_name;
    for (const KernelRecord& k : profile.kernels) by_name[k.name].push_back(k.end_ns - k.start_ns);
    std::vector<KernelNameStats> rows;
    rows.reserve(by_name.size());
    for (auto& [name, durations] : by_name) rows.push_back({std::string(name), duration_stats(std::move(durations))});
    std::sort(rows.begin(), rows.end(), [](const KernelNameStats& a, const KernelNameStats& b) {
        if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
        return a.name < b.name;
    });
    return rows;
}

namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// Sorted, disjoint stretches covering the intervals.
std::vector<Interval> merged(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end());
    std::vector<Interval> out;
    for (const auto& [start, end] : intervals) {
        if (end <= start) continue;
        if (!out.empty() && start <= out.back().second)
            out.back().second = std::max(out.back().second, end);
        else
            out.emplace_back(start, end);
    }
    return out;
}

}  // namespace

std::uint64_t union_ns(std::vector<Interval> intervals) {
    std::uint64_t total = 0;
    for (const auto& [start, end] : merged(std::move(intervals))) total += end - start;
    return total;
}

GpuTimeline gpu_timeline(const Profile& profile) {
    GpuTimeline t;
    t.iterations = std::max(1, profile.origin.measured_iterations);
    std::vector<Interval> activity;
    activity.reserve(profile.kernels.size() + profile.memory.size());
    for (const KernelRecord& k : profile.kernels) {
        t.kernel_sum_ns += k.end_ns - k.start_ns;
        activity.emplace_back(k.start_ns, k.end_ns);
    }
    for (const MemoryRecord& m : profile.memory) {
        t.memory_sum_ns += m.end_ns - m.start_ns;
        activity.emplace_back(m.start_ns, m.end_ns);
    }
    t.kernels = profile.kernels.size();
    t.memory_ops = profile.memory.size();
    t.activity_sum_ns = t.kernel_sum_ns + t.memory_sum_ns;
    for (const IterationRecord& it : profile.iterations) t.host_wall_ms += it.wall_ms;

    const std::vector<Interval> busy = merged(std::move(activity));
    for (const auto& [start, end] : busy) t.busy_ns += end - start;
    if (busy.empty()) return t;

    // The wall windows: the measured iterations' GPU spans, or the whole activity.
    std::vector<Interval> windows;
    for (const IterationRecord& it : profile.iterations)
        if (it.gpu_end_ns > it.gpu_start_ns) windows.emplace_back(it.gpu_start_ns, it.gpu_end_ns);
    windows = merged(std::move(windows));
    if (windows.empty()) windows.emplace_back(busy.front().first, busy.back().second);
    std::uint64_t busy_inside = 0;
    std::size_t b = 0;
    for (const auto& [wstart, wend] : windows) {
        t.wall_ns += wend - wstart;
        // Walk the busy stretches overlapping this window; the holes between them are idle gaps.
        while (b < busy.size() && busy[b].second <= wstart) ++b;
        std::uint64_t cursor = wstart;
        std::size_t i = b;
        for (; i < busy.size() && busy[i].first < wend; ++i) {
            const std::uint64_t s = std::max(busy[i].first, wstart), e = std::min(busy[i].second, wend);
            if (s > cursor) {
                ++t.idle_gaps;
                t.largest_gap_ns = std::max(t.largest_gap_ns, s - cursor);
            }
            busy_inside += e - s;
            cursor = std::max(cursor, e);
        }
        if (wend > cursor) {
            ++t.idle_gaps;
            t.largest_gap_ns = std::max(t.largest_gap_ns, wend - cursor);
        }
    }
    t.idle_ns = t.wall_ns > busy_inside ? t.wall_ns - busy_inside : 0;
    return t;
}

}  // namespace ak::profile
