#pragma once
// The evaluator's timing of one experiment per timing shape, recorded in the experiment's commit
// message as trailers after the results.tsv trailers (commit_trailers.h):
//
//   Autokernel-Timing-Shapes: 2
//   Autokernel-Timing: shape=4096x4096 dtype=fp16 us=40.2 iqr_us=0.31 samples=200 baseline=at::rms_norm
//     baseline_us=57.2 baseline_iqr_us=0.4 speedup=1.423 tflops=0 gb_s=3342.1 pct_peak=70.2 bound=memory
//   Autokernel-Timing: shape=8192x8192 dtype=fp16 ...
//                                                     (one line per shape; wrapped here for reading)
//
// Each Autokernel-Timing value is space-separated key=value pairs; a value has `%`, space, tab, CR and
// LF percent-encoded ("2x32x1024x64%20causal"). Unknown keys are ignored (newer versions may add some),
// an empty value means "not measured". Autokernel-Timing-Shapes says how many lines follow, so a
// missing or extra line is reported, and it tells "no shape was timed" (a failed candidate: 0) from
// "not recorded" (a commit written before this trailer existed, an import, an override).
//
// results.tsv keeps one row per experiment (its first timing shape); these trailers are the only place
// the other shapes live. Old readers ignore them (parse_experiment_message skips unknown trailers).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

struct ShapeTiming {
    std::string shape;                      // as the evaluator names it: "4096x4096", "2x32x1024x64 causal"
    std::string dtype;                      // "fp16", "bf16", "fp32"
    std::optional<double> median_us;        // ours
    std::optional<double> iqr_us;
    std::optional<int> samples;
    std::string baseline_name;              // the strongest PyTorch baseline, e.g. "at::rms_norm"
    std::optional<double> baseline_median_us;
    std::optional<double> baseline_iqr_us;
    std::optional<double> speedup;          // baseline_median_us / median_us
    std::optional<double> tflops;
    std::optional<double> gb_s;
    std::optional<double> pct_peak;         // of the binding datasheet roof
    std::optional<double> pct_copy_ceiling; // of a measured device copy of the same bytes
    std::optional<double> pct_gemm_ceiling; // of the measured cuBLAS GEMM at this dtype
    std::string bound;                      // "memory", "compute" or ""

    friend bool operator==(const ShapeTiming&, const ShapeTiming&) = default;
};

// What a commit message says about its shapes.
struct RecordedTimings {
    bool recorded = false;                  // the message has an Autokernel-Timing-Shapes trailer
    std::vector<ShapeTiming> shapes;        // in the order the evaluator timed them
    // Damage found while reading (a malformed line, a count that does not match): one sentence each,
    // naming the trailer. Readable lines are still returned.
    std::vector<std::string> problems;
};

// The trailer lines for `shapes` (the count line first), each ending in '\n'.
std::string format_timing_trailers(const std::vector<ShapeTiming>& shapes);

// Reads the trailers of a commit message. Never throws: damage is reported in `problems`, and a line
// without a shape or dtype is skipped.
RecordedTimings parse_timing_trailers(std::string_view message);

}  // namespace ak
