#include "loop/keep_rule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace ak {
namespace {

std::string percent(double fraction, bool sign = false) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, sign ? "%+.1f%%" : "%.1f%%", fraction * 100.0);
    return buffer;
}

// One shape timed for both the candidate and the best.
struct ShapePair {
    const TimingRecord* candidate = nullptr;
    const TimingRecord* best = nullptr;
};

}  // namespace

KeepDecision decide_keep(const EvaluationResult& result, const KeepRule& rule) {
    KeepDecision d;
    if (result.verdict != Verdict::Pass) {
        d.reason = "not kept: verdict " + std::string(verdict_to_string(result.verdict));
        return d;
    }
    if (result.reference_timing.empty()) {
        d.keep = true;
        d.reason = result.reference_failure
                       ? "kept: passes, and the current best failed the harness's checks (" + *result.reference_failure + ")"
                       : "kept: passes, and no best was timed to compare with (first experiment of this kernel)";
        return d;
    }
    if (result.timing.empty()) {
        d.reason = "not kept: the candidate passed but was not timed";
        return d;
    }

    std::vector<ShapePair> pairs;
    for (const TimingRecord& c : result.timing) {
        const auto match = std::find_if(result.reference_timing.begin(), result.reference_timing.end(),
                                         [&](const TimingRecord& r) { return r.shape == c.shape && r.dtype == c.dtype; });
        if (match != result.reference_timing.end()) pairs.push_back({&c, &*match});
    }
    if (pairs.empty()) {
        d.reason = "not kept: the best was re-timed at no shape the candidate was timed at";
        return d;
    }
    for (const ShapePair& p : pairs) {
        if (!(p.candidate->median_us > 0) || !(p.best->median_us > 0)) {
            d.reason = "not kept: a median time at " + to_string(p.candidate->shape) + " is not positive";
            return d;
        }
    }

    // Aggregate gain: geometric mean of the per-shape speedups over the best.
    double log_sum = 0;
    std::string worst_shape;
    double worst_change = 0;   // most negative per-shape change beyond its own spread
    double worst_spread = 0;
    for (const ShapePair& p : pairs) {
        const double ratio = p.best->median_us / p.candidate->median_us;
        log_sum += std::log(ratio);
        const double spread = (p.candidate->iqr_us / p.candidate->median_us + p.best->iqr_us / p.best->median_us) / 2.0 *
                              rule.noise_factor;
        d.noise = std::max(d.noise, spread);
        const double change = ratio - 1.0;
        if (change < -spread && (worst_shape.empty() || change + spread < worst_change + worst_spread)) {
            worst_shape = to_string(p.candidate->shape);
            worst_change = change;
            worst_spread = spread;
        }
    }
    d.gain = std::exp(log_sum / static_cast<double>(pairs.size())) - 1.0;

    const std::string shapes = std::to_string(pairs.size()) + (pairs.size() == 1 ? " shape" : " shapes");
    if (!worst_shape.empty()) {
        d.reason = "reverted: " + percent(d.gain, true) + " overall, but " + percent(-worst_change) + " slower at " +
                   worst_shape + " (spread " + percent(worst_spread) + ")";
    } else if (!(d.gain > rule.threshold)) {
        d.reason = "reverted: " + percent(d.gain, true) + " over " + shapes + " does not exceed the " +
                   percent(rule.threshold) + " threshold";
    } else if (!(d.gain > d.noise)) {
        d.reason = "reverted: " + percent(d.gain, true) + " over " + shapes + " is within the measured spread " +
                   percent(d.noise);
    } else {
        d.keep = true;
        d.reason = "kept: " + percent(d.gain, true) + " over " + shapes + " > max(" + percent(rule.threshold) +
                   " threshold, " + percent(d.noise) + " spread)";
    }
    return d;
}

}  // namespace ak
