#pragma once
// Honest GPU timing through the driver API.
//
// Every timed run is bracketed by a pair of CUDA events recorded on the stream; L2 is flushed before
// every run by writing a buffer larger than twice the L2 (outside the events); implementations are
// interleaved run by run (candidate, baseline, reference, then rotated) so clock and thermal drift hit
// them alike; warm-up runs come first; the result is the median and the interquartile range.
// No LibTorch here: callers enqueue their work through a callback.
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ak::eval {

struct TimingStats {
    double median_us = 0;
    double q1_us = 0;   // 25th percentile
    double q3_us = 0;   // 75th percentile
    double iqr_us = 0;  // q3 - q1
    double min_us = 0;
    double max_us = 0;
    double mean_us = 0;
    int samples = 0;
};

// Median, quartiles (linear interpolation between order statistics), min, max, mean.
// Throws Error(Usage) for an empty sample set or a negative / non-finite sample.
TimingStats summarize(std::vector<double> samples_us);

struct TimingOptions {
    int warmup = 3;              // untimed runs of each implementation first
    int calibration = 3;         // timed runs used to choose the iteration count
    int min_iterations = 30;
    int max_iterations = 500;
    double target_ms = 100;      // GPU time of the slowest implementation that the iterations should add up to
    int iterations = 0;          // > 0: exactly this many (the request's iterations_hint)
};

// The iteration count for runs of about `slowest_us`: target_ms / slowest, clamped to
// [min_iterations, max_iterations]; `iterations` when set.
int choose_iterations(double slowest_us, const TimingOptions& options);

// A device buffer larger than twice the L2, written before every timed run.
class L2Flusher {
public:
    // `l2_bytes` from the device; the buffer is max(2.5 x l2_bytes, 32 MiB).
    explicit L2Flusher(std::int64_t l2_bytes);
    ~L2Flusher();
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;

    void flush(CUstream stream);
    std::size_t bytes() const { return bytes_; }

private:
    CUdeviceptr buffer_ = 0;
    std::size_t bytes_ = 0;
    unsigned char value_ = 0;
};

// Enqueues run number `iteration` of implementation `impl` on the stream (input set rotation is up to
// the callback: use iteration % number of sets). It must not synchronise.
using EnqueueRun = std::function<void(int impl, int iteration)>;

// Work enqueued around every run (warm-up, calibration and measured alike), outside the timed region:
// `before` ahead of the L2 flush (so what it writes is evicted before the start event), `after` behind the
// end event. The harness refreshes inputs and poisons outputs in `before` and copies out the outputs of
// runs it will verify in `after`. Neither may synchronise. `phase` says which part of the timing the run
// belongs to.
enum class TimingPhase { Warmup, Calibration, Measurement };
struct RunHooks {
    std::function<void(int impl, int iteration, TimingPhase phase)> before;
    std::function<void(int impl, int iteration, TimingPhase phase)> after;
};

class Timer {
public:
    Timer(CUstream stream, std::int64_t l2_bytes);
    ~Timer();
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

    // Times `impls` implementations interleaved; returns one TimingStats per implementation. A CUDA
    // error (also one raised asynchronously by a timed kernel) throws: StickyCudaError when the context
    // is broken, naming `what`.
    std::vector<TimingStats> time_interleaved(int impls, const EnqueueRun& run, const TimingOptions& options,
                                              const std::string& what, const RunHooks& hooks = {});

    L2Flusher& flusher() { return flusher_; }

private:
    void ensure_events(std::size_t count);
    // Enqueues flush + start event + run + end event for each (impl, iteration) pair in order and
    // returns the elapsed microseconds per pair, after one synchronisation.
    std::vector<double> timed_batch(const std::vector<std::pair<int, int>>& runs, const EnqueueRun& run,
                                    const std::string& what, const RunHooks& hooks, TimingPhase phase);

    CUstream stream_;
    L2Flusher flusher_;
    std::vector<CUevent> events_;
};

}  // namespace ak::eval
