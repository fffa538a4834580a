#pragma once
// Sums and statistics over a profile's GPU activity: per kernel name (count, total, mean, median, min,
// max), and the time line as a whole: the plain sum of activity, the GPU busy time (the union of the
// intervals, smaller than the sum when streams overlap), wall time and idle gaps.
#include "profile/profile.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ak::profile {

struct DurationStats {
    std::uint64_t count = 0;
    std::uint64_t total_ns = 0;
    double mean_ns = 0;
    double median_ns = 0;   // the mean of the two middle values for an even count
    std::uint64_t min_ns = 0;
    std::uint64_t max_ns = 0;
};

// Statistics of `durations` (any order); all zero when empty.
DurationStats duration_stats(std::vector<std::uint64_t> durations);

struct KernelNameStats {
    std::string name;
    DurationStats stats;
};

// One row per distinct kernel name, by total time, largest first (ties by name).
std::vector<KernelNameStats> per_kernel_name(const Profile& profile);

// Total length covered by [start, end) intervals (any order, overlaps counted once).
std::uint64_t union_ns(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals);

struct GpuTimeline {
    std::uint64_t kernel_sum_ns = 0;    // sum of kernel durations
    std::uint64_t memory_sum_ns = 0;    // sum of memcpy/memset durations
    std::uint64_t activity_sum_ns = 0;  // kernel_sum_ns + memory_sum_ns: "GPU time", the shares' denominator
    std::uint64_t busy_ns = 0;          // union of all activity intervals
    // Wall time on the GPU clock: the sum over measured iterations of gpu_end_ns - gpu_start_ns when the
    // iterations carry them, else the first activity's start to the last one's end.
    std::uint64_t wall_ns = 0;
    std::uint64_t idle_ns = 0;          // wall_ns - busy_ns: the GPU waiting on the host
    std::uint64_t idle_gaps = 0;        // holes between busy stretches inside the wall windows
    std::uint64_t largest_gap_ns = 0;
    std::uint64_t kernels = 0;          // kernel launches
    std::uint64_t memory_ops = 0;
    double host_wall_ms = 0;            // sum of IterationRecord::wall_ms
    int iterations = 0;                 // Origin::measured_iterations (at least 1)
};

GpuTimeline gpu_timeline(const Profile& profile);

}  // namespace ak::profile
