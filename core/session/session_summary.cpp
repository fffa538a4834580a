#include "session/session_summary.h"

#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ak {
namespace {

// Is `candidate` better than `best`? Latency (lower) decides when either has one; a measured
// latency beats none. Otherwise throughput (higher) decides.
bool better(const Experiment& candidate, const Experiment& best) {
    if (candidate.latency_us || best.latency_us) {
        if (!candidate.latency_us) return false;
        if (!best.latency_us) return true;
        return *candidate.latency_us < *best.latency_us;
    }
    if (!candidate.throughput_tflops) return false;
    if (!best.throughput_tflops) return true;
    return *candidate.throughput_tflops > *best.throughput_tflops;
}

std::string latency_text(const std::optional<Experiment>& e) {
    if (!e) return "-";
    if (e->latency_us) return format_fixed(*e->latency_us, *e->latency_us < 100 ? 2 : 1) + " us";
    if (e->throughput_tflops) return format_fixed(*e->throughput_tflops, 1) + " TFLOP/s";
    return "not measured";
}

std::size_t display_width(const std::string& text) {
    std::size_t width = 0;
    for (const unsigned char c : text) width += (c & 0xC0) != 0x80;  // count code points
    return width;
}

std::string padded(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return text + std::string(width > w ? width - w : 0, ' ');
}

}  // namespace

SessionSummary summarize(const std::vector<Experiment>& experiments) {
    SessionSummary summary;
    std::map<std::string, std::size_t> index_of;
    for (const Experiment& e : experiments) {
        ++summary.experiments;
        switch (e.outcome) {
        case Outcome::Kept: ++summary.kept; break;
        case Outcome::Reverted: ++summary.reverted; break;
        case Outcome::Failed: ++summary.failed; break;
        case Outcome::Baseline: ++summary.baseline; break;
        }
        auto [it, inserted] = index_of.try_emplace(e.kernel_file, summary.kernels.size());
        if (inserted) {
            KernelSummary k;
            k.kernel_file = e.kernel_file;
            k.kernel_type = e.kernel_type;
            summary.kernels.push_back(std::move(k));
        }
        KernelSummary& k = summary.kernels[it->second];
        ++k.experiments;
        // The starter: the first baseline, or the first one that was measured when the first was recorded
        // unevaluated (`autokernel new` records the starters, the loop's first run measures them).
        if (!k.starter || (k.starter->outcome != Outcome::Baseline && e.outcome == Outcome::Baseline) ||
            (e.outcome == Outcome::Baseline && !k.starter->latency_us && !k.starter->throughput_tflops &&
             (e.latency_us || e.throughput_tflops)))
            k.starter = e;
        if (e.on_frontier() && (!k.best || better(e, *k.best))) k.best = e;
    }
    for (KernelSummary& k : summary.kernels) {
        if (k.best && k.starter && k.best->latency_us && k.starter->latency_us && *k.best->latency_us > 0)
            k.speedup_over_starter = *k.starter->latency_us / *k.best->latency_us;
        if (k.best) k.best_speedup_vs_pytorch = k.best->speedup_vs_pytorch;
    }
    return summary;
}

std::string format_summary(const SessionSummary& summary, const SessionInfo& info) {
    std::string out = "Session " + (info.name.empty() ? std::string("(unnamed)") : info.name);
    out += " on " + (info.gpu.empty() || info.gpu == "none" ? std::string("no GPU recorded") : info.gpu);
    out += ", branch " + info.branch + "\n";
    if (summary.empty()) {
        out += "No experiments yet: the session is empty.\n";
        return out;
    }
    out += std::to_string(summary.experiments) + (summary.experiments == 1 ? " experiment: " : " experiments: ") +
           std::to_string(summary.baseline) + " baseline, " + std::to_string(summary.kept) + " kept, " +
           std::to_string(summary.reverted) + " reverted, " + std::to_string(summary.failed) + " failed\n\n";

    const std::vector<std::string> header = {"kernel", "type", "experiments", "starter", "best", "best exp",
                                             "vs starter", "vs PyTorch"};
    std::vector<std::vector<std::string>> rows;
    for (const KernelSummary& k : summary.kernels) {
        rows.push_back({
            k.kernel_file,
            k.kernel_type,
            std::to_string(k.experiments),
            latency_text(k.starter),
            k.best ? latency_text(k.best) : "none passed",
            k.best ? "#" + std::to_string(k.best->number) : "-",
            k.speedup_over_starter ? format_fixed(*k.speedup_over_starter, 2) + "x" : "-",
            k.best_speedup_vs_pytorch ? format_fixed(*k.best_speedup_vs_pytorch, 2) + "x" : "-",
        });
    }
    std::vector<std::size_t> widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        widths[c] = display_width(header[c]);
        for (const auto& row : rows) widths[c] = std::max(widths[c], display_width(row[c]));
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t c = 0; c < cells.size(); ++c)
            text += c + 1 == cells.size() ? cells[c] : padded(cells[c], widths[c]) + "  ";
        return text + "\n";
    };
    out += line(header);
    for (const auto& row : rows) out += line(row);
    return out;
}

}  // namespace ak
