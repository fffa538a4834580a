#pragma once
// One experiment of a session: one row of results.tsv and one git commit.
#include <optional>
#include <string>
#include <string_view>

namespace ak {

// AutoKernel's correctness column.
enum class Correctness { Pass, Fail, Timeout, Crash };

// What the loop did with the experiment.
//   Baseline: the starting kernel of a kernel file (experiment 0 is the first one).
//   Kept:     passed and beat the best; the session branch advanced to it.
//   Reverted: passed but was not faster (or was reverted by the user); reachable under refs/autokernel/exp/N.
//   Failed:   did not compile, failed a correctness stage, timed out or crashed.
enum class Outcome { Baseline, Kept, Reverted, Failed };

enum class Bound { Unknown, Memory, Compute };

std::string_view to_string(Correctness c);
std::string_view to_string(Outcome o);
std::string_view to_string(Bound b);
std::optional<Correctness> parse_correctness(std::string_view s);  // PASS FAIL TIMEOUT CRASH
std::optional<Outcome> parse_outcome(std::string_view s);          // baseline kept reverted failed
std::optional<Bound> parse_bound(std::string_view s);              // memory compute unknown (or empty)

struct Experiment {
    // --- AutoKernel's ten columns, in its order ---
    int number = 0;                               // "experiment"
    std::string tag;                              // run tag (AutoKernel: the run's name)
    std::string kernel_type;                      // matmul, softmax, ...
    std::optional<double> throughput_tflops;
    std::optional<double> latency_us;             // median
    std::optional<double> pct_peak;               // % of the bound's peak
    std::optional<double> speedup_vs_pytorch;     // vs the strongest PyTorch baseline
    Correctness correctness = Correctness::Pass;
    std::optional<double> peak_vram_mb;
    std::string description;                      // one line, UTF-8

    // --- ours ---
    Outcome outcome = Outcome::Reverted;
    std::string commit;                           // 40 hex digits
    std::string parent_commit;                    // 40 hex digits; empty for a root commit
    std::string kernel_file;                      // e.g. kernels/rmsnorm.cu (relative to the session)
    std::optional<double> bandwidth_gb_s;
    Bound bound = Bound::Unknown;
    std::string agent;                            // search, llm:<model>, command, user, import, ...
    std::string started_utc;                      // ISO 8601, e.g. 2026-11-29T08:15:02Z
    std::optional<double> duration_s;             // wall-clock of the evaluation
    std::optional<double> latency_iqr_us;         // interquartile range of the latency samples
    std::string detail;                           // failure detail (stage, shape, dtype, error) or notes

    bool passed() const { return correctness == Correctness::Pass; }
    // Counts toward the running-best frontier: kept (or baseline) and passing.
    bool on_frontier() const {
        return passed() && (outcome == Outcome::Kept || outcome == Outcome::Baseline);
    }

    friend bool operator==(const Experiment&, const Experiment&) = default;
};

}  // namespace ak
