#pragma once
// A scripted evaluator and agent for the app's loop tests (LoopWorker, MainWindow's agent docks).
//
// ScriptedEvaluator passes every candidate and times it by its last "// latency N" line (100 us
// without one), re-timing the reference the same way; it can gate evaluations (each waits for a
// permit, or for cancel() when it honours cancelling) and counts requests. ScriptedAgent proposes
// the current best with a faster "// latency" line each time, so every candidate is kept.
#include "app/loop_worker.h"

#include <QThread>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace ak::test {

// "// latency N" (the last one in the source) is the candidate's median time; 100 us without one.
inline double latencyOf(const std::string& source) {
    const std::string marker = "// latency ";
    const auto at = source.rfind(marker);
    if (at == std::string::npos) return 100.0;
    return std::stod(source.substr(at + marker.size()));
}

inline TimingRecord timingOf(const std::string& source) {
    TimingRecord t;
    t.shape = Shape{{4096, 4096}};
    t.median_us = latencyOf(source);
    t.iqr_us = 0.2;
    t.samples = 50;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = 120.0;
    t.speedup = t.baseline_median_us / t.median_us;
    t.bound = "memory";
    return t;
}

// Passes every candidate and times it by its "// latency" line. Evaluations can be gated: with the
// gate closed each one waits for a permit (or for cancel(), when it honours cancelling).
class ScriptedEvaluator : public CancellableEvaluator {
public:
    EvaluationResult evaluate(const EvaluationRequest& request) override {
        std::unique_lock lock(mutex_);
        ++requests_;
        changed_.notify_all();
        changed_.wait(lock, [&] { return !gated_ || permits_ > 0 || (cancelled_ && honourCancel_); });
        if (gated_ && permits_ > 0) --permits_;
        lock.unlock();
        if (delayMs_ > 0) QThread::msleep(static_cast<unsigned long>(delayMs_));
        EvaluationResult r;
        r.verdict = Verdict::Pass;
        r.timing.push_back(timingOf(request.source));
        if (request.reference_source) r.reference_timing.push_back(timingOf(*request.reference_source));
        r.device = "scripted";
        return r;
    }
    void cancel() override {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        changed_.notify_all();
    }

    void setGated(bool gated) {
        std::lock_guard lock(mutex_);
        gated_ = gated;
        changed_.notify_all();
    }
    void grant(int permits) {
        std::lock_guard lock(mutex_);
        permits_ += permits;
        changed_.notify_all();
    }
    void setHonourCancel(bool honour) { honourCancel_ = honour; }
    void setDelayMs(int ms) { delayMs_ = ms; }
    int requests() const {
        std::lock_guard lock(mutex_);
        return requests_;
    }
    bool cancelled() const {
        std::lock_guard lock(mutex_);
        return cancelled_;
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    int requests_ = 0;
    int permits_ = 0;
    bool gated_ = false;
    bool cancelled_ = false;
    std::atomic<bool> honourCancel_{true};
    std::atomic<int> delayMs_{0};
};

// Proposes the best source with a faster "// latency" line each time, so every candidate is kept.
class ScriptedAgent : public Agent {
public:
    explicit ScriptedAgent(std::shared_ptr<std::atomic<int>> proposals) : proposals_(std::move(proposals)) {}
    std::string name() const override { return "scripted"; }
    Proposal propose(const AgentContext& context) override {
        const int n = ++*proposals_;
        Proposal p;
        p.ok = true;
        p.source = context.best_source + "\n// latency " + std::to_string(90 - n) + "\n";
        p.description = "candidate " + std::to_string(n);
        return p;
    }

private:
    std::shared_ptr<std::atomic<int>> proposals_;
};

}  // namespace ak::test
