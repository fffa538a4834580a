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
    // Noise: the gain must also exceed noise_factor x the measured relative spread (IQR / median of the
    // candidate and of the best, combined), at every timed shape.
    double noise_factor = 1.0;
};

struct KeepDecision {
    bool keep = false;
    double gain = 0;           // geometric mean over shapes of best_median / candidate_median - 1
    double noise = 0;          // the largest relative spread seen
    std::string reason;        // one line, e.g. "kept: +4.1% > max(1.0% threshold, 0.8% spread)"
};

// `has_best` false (no reference was timed, e.g. the first experiment of a kernel): keep when it passes.
KeepDecision decide_keep(const EvaluationResult& result, const KeepRule& rule);

}  // namespace ak
