#pragma once
// When the orchestrator stops working on a kernel and moves to the next one. All configurable; the
// time limit is per kernel (time spent evaluating that kernel).
#include <optional>
#include <string>

namespace ak {

// A rule whose limit is 0 or negative is switched off.
struct MoveOnRules {
    int max_consecutive_reverts = 5;     // reverted or failed in a row
    double ceiling_fraction = 0.90;      // best reaches this fraction of its measured ceiling
    double max_hours = 2.0;              // per kernel
    double target_speedup = 2.0;         // best over the starter (by latency)
};

struct KernelProgress {
    int consecutive_reverts = 0;
    std::optional<double> best_pct_of_ceiling;  // 0..100 (copy ceiling for memory-bound, GEMM for compute)
    double hours_spent = 0;
    std::optional<double> speedup_over_starter;
};

// The rule that fires first, in the order of the fields above, as a one-line reason
// ("5 reverts in a row"), or nullopt to stay.
std::optional<std::string> should_move_on(const KernelProgress& progress, const MoveOnRules& rules);

}  // namespace ak
