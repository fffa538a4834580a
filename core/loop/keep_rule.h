#pragma once
// Keep or revert: the candidate must pass and beat the current best by more than the noise.
// Both are timed in the same evaluation run (EvaluationResult::timing for the candidate,
// ::reference_timing for the best re-timed), interleaved, at every timing shape. AutoKernel keeps on
// one run against 1 %, which selects noise.
#include "engine/evaluation_protocol.h"

#include <string>

namespace ak {

struct KeepRule {
    double threshold = 0.01;   // required relative gain (1 %)
    // Noise: per shape, spread = (candidate IQR / median + best IQR / median) / 2 x noise_factor. The
    // aggregate gain must exceed the largest spread, and no shape may be slower by more than its own.
    double noise_factor = 1.0;
};

struct KeepDecision {
    bool keep = false;
    double gain = 0;           // geometric mean over shapes of best_median / candidate_median - 1
    double noise = 0;          // the largest relative spread seen
    std::string reason;        // one line, e.g. "kept: +4.1% > max(1.0% threshold, 0.8% spread)"
};

// Shapes are paired by shape and dtype; shapes timed for only one of the two are ignored. Anything but
// PASS is not kept. No reference timing at all (nothing to compare with, e.g. the first experiment of a
// kernel): kept when it passes. The reason names the numbers.
KeepDecision decide_keep(const EvaluationResult& result, const KeepRule& rule);

}  // namespace ak
