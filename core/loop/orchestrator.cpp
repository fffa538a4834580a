#include "loop/orchestrator.h"
#include "util/text.h"

#include "analysis/amdahl.h"
#include "session/session.h"

#include <algorithm>
#include <cstdio>

namespace ak {
namespace {

std::string latency_text(const std::optional<Experiment>& e) {
    if (!e) return "none";
    if (!e->latency_us) return "not measured";
    return format_fixed(*e->latency_us, *e->latency_us < 100 ? 2 : 1) + " us";
}

// Share of model GPU time per kernel, in the order of `statuses`; `known` says whether any was given.
std::vector<double> fractions_of(const std::vector<KernelStatus>& statuses, bool* known) {
    double given = 0;
    int unknown = 0;
    for (const KernelStatus& s : statuses) {
        if (s.kernel.model_fraction > 0) given += s.kernel.model_fraction;
        else ++unknown;
    }
    *known = unknown < static_cast<int>(statuses.size());
    std::vector<double> out;
    for (const KernelStatus& s : statuses) {
        if (!*known) out.push_back(1.0 / static_cast<double>(statuses.size()));
        else if (s.kernel.model_fraction > 0) out.push_back(s.kernel.model_fraction);
        else out.push_back(std::max(0.0, 1.0 - given) / unknown);
    }
    return out;
}

}  // namespace

std::optional<double> pct_of_ceiling(const TimingRecord& timing) {
    return timing.bound == "compute" ? timing.pct_gemm_ceiling : timing.pct_copy_ceiling;
}

std::vector<KernelStatus> kernel_statuses(const SessionInfo& info, const std::vector<Experiment>& experiments,
                                          const CeilingShares& shares) {
    std::vector<KernelStatus> out;
    for (const KernelEntry& k : info.kernels) {
        KernelStatus s;
        s.kernel = k;
        s.kernel_file = Session::kernel_file_of(k.name);
        double seconds = 0;
        bool tail = true;  // still counting reverts back from the newest experiment
        for (auto it = experiments.rbegin(); it != experiments.rend(); ++it) {
            const Experiment& e = *it;
            if (e.kernel_file != s.kernel_file) continue;
            if (e.duration_s) seconds += *e.duration_s;
            if (tail) {
                if (!e.on_frontier()) ++s.progress.consecutive_reverts;
                else tail = false;
            }
            if (!s.best && e.on_frontier()) s.best = e;
            if (e.outcome == Outcome::Baseline) {
                // Walking backwards: the newest measured baseline wins; otherwise the oldest baseline.
                if (!s.starter || !s.starter->latency_us) s.starter = e;
            }
        }
        s.progress.hours_spent = seconds / 3600.0;
        if (s.starter && s.best && s.starter->latency_us && s.best->latency_us && *s.best->latency_us > 0)
            s.progress.speedup_over_starter = *s.starter->latency_us / *s.best->latency_us;
        if (s.best)
            if (const auto it = shares.find(s.best->number); it != shares.end()) s.progress.best_pct_of_ceiling = it->second;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<KernelPriority> rank_kernels(const std::vector<KernelStatus>& statuses) {
    bool known = false;
    const std::vector<double> fractions = fractions_of(statuses, &known);
    std::vector<KernelPriority> out;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
        const KernelStatus& s = statuses[i];
        if (s.moved_on) continue;
        KernelPriority p;
        p.kernel_name = s.kernel.name;
        p.fraction = fractions[i];
        if (s.progress.best_pct_of_ceiling)
            p.headroom = std::clamp(1.0 - *s.progress.best_pct_of_ceiling / 100.0, 0.0, 1.0);
        p.priority = p.fraction * p.headroom;
        out.push_back(p);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelPriority& a, const KernelPriority& b) { return a.priority > b.priority; });
    return out;
}

std::string orchestrator_report(const std::vector<KernelStatus>& statuses) {
    if (statuses.empty()) return "No kernels in this session.\n";
    bool known = false;
    const std::vector<double> fractions = fractions_of(statuses, &known);
    std::string out;
    std::vector<double> speedups;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
        const KernelStatus& s = statuses[i];
        const KernelProgress& p = s.progress;
        out += s.kernel.name + " (" + s.kernel.type + ", " + format_fixed(fractions[i] * 100.0, 1) + "% of model time" +
               (known && s.kernel.model_fraction > 0 ? "" : known ? ", the remainder" : ", assumed") + "): starter " +
               latency_text(s.starter) + ", best " + latency_text(s.best);
        if (s.best) out += " (experiment " + std::to_string(s.best->number) + ")";
        if (p.speedup_over_starter) out += ", " + format_fixed(*p.speedup_over_starter, 2) + "x over the starter";
        if (s.best && s.best->speedup_vs_pytorch) out += ", " + format_fixed(*s.best->speedup_vs_pytorch, 2) + "x vs PyTorch";
        if (p.best_pct_of_ceiling) out += ", " + format_fixed(*p.best_pct_of_ceiling, 1) + "% of its ceiling";
        out += ", " + std::to_string(p.consecutive_reverts) + " reverts in a row, " + format_fixed(p.hours_spent, 2) + " h";
        if (s.moved_on) out += "; moved on: " + s.moved_on_reason;
        out += "\n";
        speedups.push_back(p.speedup_over_starter.value_or(1.0));
    }
    double total = 0;
    for (double f : fractions) total += f;
    if (total > 1.0 + 1e-9) {
        out += "Amdahl projection: not computed, the kernels' fractions add up to " + format_fixed(total * 100.0, 1) +
               "% of model time (more than 100%)\n";
        return out;
    }
    const double aggregate = amdahl_speedup(fractions, speedups);
    out += "Amdahl projection: " + format_fixed(aggregate, 3) + "x end to end with the speedups above";
    const double limit = amdahl_limit(fractions);
    out += limit > 1e12 ? std::string(" (no limit: these kernels are the whole model time)")
                        : " (limit " + format_fixed(limit, 2) + "x if they took no time)";
    if (!known) out += "; fractions unknown, every kernel assumed an equal share of model time";
    out += "\n";
    // The model's own projection: a profile's shares and each best's speedup over PyTorch (what the
    // profiled model ran) at the kernel's timing shapes; a kernel slower than PyTorch is not substituted.
    std::vector<double> model_fractions, model_speedups;
    bool any_measured = false;
    for (const KernelStatus& s : statuses) {
        if (s.kernel.model_fraction <= 0) continue;
        model_fractions.push_back(s.kernel.model_fraction);
        double speedup = 1.0;
        if (s.best && s.best->speedup_vs_pytorch && *s.best->speedup_vs_pytorch > 0) {
            speedup = std::max(1.0, *s.best->speedup_vs_pytorch);
            any_measured = true;
        }
        model_speedups.push_back(speedup);
    }
    double model_total = 0;
    for (double f : model_fractions) model_total += f;
    if (any_measured && model_total <= 1.0 + 1e-9)
        out += "projected end-to-end speedup of the profiled model: " +
               format_fixed(amdahl_speedup(model_fractions, model_speedups), 3) +
               "x (Amdahl over the profile's shares and each best's speedup over PyTorch; kernels slower than "
               "PyTorch count as 1x, not substituted)\n";
    return out;
}

}  // namespace ak
