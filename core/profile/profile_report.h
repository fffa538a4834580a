#pragma once
// The readable report of a profile (what `autokernel profile` and `autokernel profile --show` print):
// a summary (what was profiled, GPU time vs busy vs wall, idle, kernels, attribution coverage, profiling
// overhead), the kernel types with their shares and what-if, then the top groups (op, shapes, share,
// achieved rate, % of ceiling, up to X end to end) and the top kernels by name. Also the same as JSON.
#include "profile/breakdown.h"
#include "profile/profile.h"

#include <string>

namespace ak::profile {

struct ReportOptions {
    std::size_t top_groups = 15;
    std::size_t top_kernels = 10;
};

std::string format_profile_report(const Profile& profile, const Breakdown& breakdown, const ReportOptions& options = {});

// The breakdown as one JSON object (summary, types, groups, kernels), for `--json`.
std::string breakdown_json(const Profile& profile, const Breakdown& breakdown);

}  // namespace ak::profile
