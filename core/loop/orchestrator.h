#pragma once
// Which kernel of a session to work on next, and the aggregate Amdahl projection.
//
// Priority = fraction of model GPU time x remaining headroom to the kernel's ceiling. The fraction
// comes from a profile when one exists (KernelEntry::model_fraction), otherwise from the user; when no
// kernel has one, every kernel counts equally.
#include "loop/move_on_rules.h"
#include "session/experiment.h"
#include "session/session_info.h"

#include <optional>
#include <string>
#include <vector>

namespace ak {

struct KernelStatus {
    KernelEntry kernel;
    std::string kernel_file;
    std::optional<Experiment> starter;
    std::optional<Experiment> best;
    KernelProgress progress;
    bool moved_on = false;
    std::string moved_on_reason;
};

struct KernelPriority {
    std::string kernel_name;
    double fraction = 0;        // of model GPU time (equal shares when unknown)
    double headroom = 1;        // 1 - best's fraction of its ceiling (1 when unmeasured)
    double priority = 0;        // fraction x headroom
};

// Statuses of every kernel in the session, from its experiments.
std::vector<KernelStatus> kernel_statuses(const SessionInfo& info, const std::vector<Experiment>& experiments);

// Ranked, highest priority first; kernels already moved on from are left out.
std::vector<KernelPriority> rank_kernels(const std::vector<KernelStatus>& statuses);

// Text report: per kernel starter, best, speedup, % of ceiling, and the aggregate Amdahl projection
// 1 / (1 - sum f_i (1 - 1/s_i)) with the fractions above.
std::string orchestrator_report(const std::vector<KernelStatus>& statuses);

}  // namespace ak
