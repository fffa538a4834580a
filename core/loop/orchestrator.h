#pragma once
// Which kernel of a session to work on next, and the aggregate Amdahl projection.
//
// Priority = fraction of model GPU time x remaining headroom to the kernel's ceiling. The fraction
// comes from a profile when one exists (KernelEntry::model_fraction), otherwise from the user; when no
// kernel has one, every kernel counts equally.
#include "engine/evaluation_protocol.h"
#include "loop/move_on_rules.h"
#include "session/experiment.h"
#include "session/session_info.h"

#include <map>
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

// Experiment number -> % of its measured ceiling (copy ceiling when memory-bound, GEMM when
// compute-bound). results.tsv has no column for it, so the loop keeps what its evaluations reported in
// memory; a kernel whose best is not in the map has best_pct_of_ceiling nullopt (rule not applied).
using CeilingShares = std::map<int, double>;

// The % of the measured ceiling of one timing row: pct_gemm_ceiling when compute-bound, else
// pct_copy_ceiling; nullopt when the evaluator had no measured ceiling.
std::optional<double> pct_of_ceiling(const TimingRecord& timing);

// Statuses of every kernel in the session, from its experiments:
//   starter   the newest Baseline experiment of the kernel's file that has a latency (the loop records
//             a measured Baseline when the starter was created unmeasured), else its first Baseline;
//   best      the newest on-frontier experiment of the file (with append-only history, the branch's
//             version: kept experiments always move the branch);
//   progress  experiments off the frontier (reverted, failed) at the tail of the file's history, hours from the sum of
//             duration_s, speedup over the starter by latency, % of ceiling from `shares`.
// moved_on is left false: whether a kernel is moved on from depends on the rules, which the caller has.
std::vector<KernelStatus> kernel_statuses(const SessionInfo& info, const std::vector<Experiment>& experiments,
                                          const CeilingShares& shares = {});

// Ranked, highest priority first (ties keep the session's order); kernels already moved on from are left
// out. Fractions: KernelEntry::model_fraction where given; kernels without one share what is left of 1
// equally; when no kernel has one, every kernel counts equally.
std::vector<KernelPriority> rank_kernels(const std::vector<KernelStatus>& statuses);

// Text report: per kernel starter, best, speedup, % of ceiling, and the aggregate Amdahl projection
// 1 / (1 - sum f_i (1 - 1/s_i)) with the fractions above (s_i = speedup over the starter; 1 when
// unknown). Says when the fractions are assumed equal shares rather than known.
std::string orchestrator_report(const std::vector<KernelStatus>& statuses);

}  // namespace ak
