#pragma once
// Turns what was recorded (CUPTI activity, op calls, iteration windows) into a Profile: each kernel and
// memory operation is given the measured iteration whose host window contains its GPU start (everything
// else, the warm-up, is dropped), the op that launched it (through the external correlation id pushed
// for that op) and the NVTX range it was launched in; ops that launched nothing are dropped; every
// iteration gets the bounds of its GPU activity. Torch-free, so the CPU tests check it with made-up records.
#include "profile/profile.h"
#include "profiler/cupti_activity.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ak::profiler {

// One measured iteration on the CUPTI clock: from just before its first launch to just after the device
// was synchronised at its end.
struct IterationWindow {
    int index = 0;
    std::uint64_t begin_ns = 0;
    std::uint64_t end_ns = 0;
    double wall_ms = 0;
    double event_ms = 0;
};

// `ops` are all op calls recorded (any iteration); `range_names` maps pushed NVTX range ids to their
// names. Fills profile.ops, kernels, memory, iterations and adds a warning when CUPTI dropped records.
void assemble_profile(profile::Profile& profile, ActivityData data, std::vector<profile::OpCall> ops,
                      const std::vector<IterationWindow>& windows,
                      const std::unordered_map<std::uint64_t, std::string>& range_names = {});

// Share of kernel time (sum of durations) that has an op_id; 1 when there are no kernels.
double attributed_fraction(const profile::Profile& profile);

}  // namespace ak::profiler
