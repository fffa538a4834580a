#include "engine/evaluator/timing.h"

#include "engine/evaluator/cuda_check.h"
#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ak::eval {

namespace {

const CudaDriver& cu() { return cuda_driver(); }

// Quantile q of sorted data, linear interpolation between the closest ranks.
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.size() == 1) return sorted[0];
    const double pos = q * double(sorted.size() - 1);
    const std::size_t lo = std::size_t(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - double(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

TimingStats summarize(std::vector<double> samples) {
    if (samples.empty()) throw Error(ErrorKind::Usage, "timing: no samples to summarise");
    for (double s : samples)
        if (!std::isfinite(s) || s < 0) throw Error(ErrorKind::Usage, "timing: invalid sample " + std::to_string(s) + " us");
    std::sort(samples.begin(), samples.end());
    TimingStats t;
    t.samples = int(samples.size());
    t.median_us = quantile(samples, 0.5);
    t.q1_us = quantile(samples, 0.25);
    t.q3_us = quantile(samples, 0.75);
    t.iqr_us = t.q3_us - t.q1_us;
    t.min_us = samples.front();
    t.max_us = samples.back();
    t.mean_us = std::accumulate(samples.begin(), samples.end(), 0.0) / double(samples.size());
    return t;
}

int choose_iterations(double slowest_us, const TimingOptions& o) {
    if (o.iterations > 0) return o.iterations;
    const int lo = std::max(1, o.min_iterations);
    const int hi = std::max(lo, o.max_iterations);
    if (!(slowest_us > 0) || !std::isfinite(slowest_us)) return lo;
    const double n = std::ceil(o.target_ms * 1000.0 / slowest_us);
    return int(std::clamp(n, double(lo), double(hi)));
}

L2Flusher::L2Flusher(std::int64_t l2_bytes) {
    const std::size_t minimum = std::size_t(32) << 20;
    bytes_ = std::max<std::size_t>(minimum, std::size_t(double(std::max<std::int64_t>(l2_bytes, 0)) * 2.5));
    bytes_ = (bytes_ + (std::size_t(1) << 20) - 1) & ~((std::size_t(1) << 20) - 1);  // whole MiB
    check_cu(cu().cuMemAlloc(&buffer_, bytes_), "allocating the " + std::to_string(bytes_ >> 20) + " MiB L2 flush buffer");
}

L2Flusher::~L2Flusher() {
    if (buffer_) cu().cuMemFree(buffer_);
}

void L2Flusher::flush(CUstream stream) {
    // A different value each time, so no hardware shortcut can skip an unchanged write.
    ++value_;
    check_cu(cu().cuMemsetD8Async(buffer_, value_, bytes_, stream), "flushing L2 (cuMemsetD8Async)");
}

Timer::Timer(CUstream stream, std::int64_t l2_bytes) : stream_(stream), flusher_(l2_bytes) {}

Timer::~Timer() {
    for (CUevent e : events_) cu().cuEventDestroy(e);
}

void Timer::ensure_events(std::size_t count) {
    while (events_.size() < count) {
        CUevent e = nullptr;
        check_cu(cu().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
        events_.push_back(e);
    }
}

std::vector<double> Timer::timed_batch(const std::vector<std::pair<int, int>>& runs, const EnqueueRun& run,
                                       const std::string& what, const RunHooks& hooks, TimingPhase phase) {
    ensure_events(2 * runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto [impl, iteration] = runs[i];
        if (hooks.before) hooks.before(impl, iteration, phase);
        flusher_.flush(stream_);
        check_cu(cu().cuEventRecord(events_[2 * i], stream_), "cuEventRecord (" + what + ")");
        run(impl, iteration);
        check_cu(cu().cuEventRecord(events_[2 * i + 1], stream_), "cuEventRecord (" + what + ")");
        if (hooks.after) hooks.after(impl, iteration, phase);
    }
    if (!runs.empty()) check_cu(cu().cuEventSynchronize(events_[2 * runs.size() - 1]), what);
    std::vector<double> us(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        float ms = 0;
        check_cu(cu().event_elapsed_ms(&ms, events_[2 * i], events_[2 * i + 1]), "cuEventElapsedTime (" + what + ")");
        us[i] = double(ms) * 1000.0;
    }
    return us;
}

std::vector<TimingStats> Timer::time_interleaved(int impls, const EnqueueRun& run, const TimingOptions& o,
                                                 const std::string& what, const RunHooks& hooks) {
    if (impls <= 0) throw Error(ErrorKind::Usage, "timing: nothing to time");
    // Warm-up (module loads, handles, allocator pools, clocks ramping up).
    for (int w = 0; w < o.warmup; ++w)
        for (int k = 0; k < impls; ++k) {
            if (hooks.before) hooks.before(k, w, TimingPhase::Warmup);
            flusher_.flush(stream_);
            run(k, w);
            if (hooks.after) hooks.after(k, w, TimingPhase::Warmup);
        }
    // Calibration: a few timed runs of each to choose the iteration count.
    int iterations = o.iterations;
    if (iterations <= 0) {
        std::vector<std::pair<int, int>> calib;
        const int n = std::max(1, o.calibration);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < impls; ++k) calib.emplace_back(k, o.warmup + i);
        const auto us = timed_batch(calib, run, what + " (calibration)", hooks, TimingPhase::Calibration);
        double slowest = 0;
        for (int k = 0; k < impls; ++k) {
            std::vector<double> mine;
            for (std::size_t i = 0; i < calib.size(); ++i)
                if (calib[i].first == k) mine.push_back(us[i]);
            slowest = std::max(slowest, summarize(mine).median_us);
        }
        iterations = choose_iterations(slowest, o);
    }
    // The measurement: run i of every implementation, in an order rotated by i.
    std::vector<std::pair<int, int>> plan;
    plan.reserve(std::size_t(iterations) * std::size_t(impls));
    for (int i = 0; i < iterations; ++i)
        for (int k = 0; k < impls; ++k) plan.emplace_back((i + k) % impls, i);
    const auto us = timed_batch(plan, run, what, hooks, TimingPhase::Measurement);
    std::vector<std::vector<double>> per(static_cast<std::size_t>(impls));
    for (std::size_t i = 0; i < plan.size(); ++i) per[std::size_t(plan[i].first)].push_back(us[i]);
    std::vector<TimingStats> out;
    for (auto& samples : per) out.push_back(summarize(std::move(samples)));
    return out;
}

}  // namespace ak::eval
