#pragma once
// Helpers shared by the loop tests: a temporary folder, small sessions, and a scripted evaluator and
// agent. Candidate sources carry what the scripted evaluator should report in comment lines:
//   // latency 90        median time at every timed shape, in us (default 100)
//   // iqr 2             interquartile range, in us (default 0.5)
//   // verdict FAIL      PASS (default), FAIL, COMPILE_ERROR, TIMEOUT or CRASH
//   // ceiling 95        % of the measured copy ceiling
// so a test states the candidate's speed in the source itself and the evaluator "measures" it, for the
// candidate and for the reference (the current best) alike.
#include "../session/test_support.h"  // TempDir
#include "loop/agent.h"
#include "loop/evaluator.h"
#include "loop/loop_controller.h"
#include "session/session.h"
#include "util/text.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ak::testing {

// A candidate source the scripted evaluator understands. `id` makes otherwise equal sources differ.
inline std::string candidate(double latency_us, const std::string& id, const std::string& verdict = "PASS",
                             double iqr_us = 0.5, double ceiling_pct = -1) {
    std::string s = "// @autokernel type rmsnorm\n// id " + id + "\n// latency " + format_double(latency_us) +
                    "\n// iqr " + format_double(iqr_us) + "\n// verdict " + verdict + "\n";
    if (ceiling_pct >= 0) s += "// ceiling " + format_double(ceiling_pct) + "\n";
    return s + "__global__ void k() {}\n";
}

// The value after "// <key> " in `source`, or "" when absent.
inline std::string field(const std::string& source, const std::string& key) {
    const std::string marker = "// " + key + " ";
    const auto at = source.find(marker);
    if (at == std::string::npos) return "";
    const auto end = source.find('\n', at);
    return source.substr(at + marker.size(), end - at - marker.size());
}

inline TimingRecord timing_of(const std::string& source, const Shape& shape) {
    TimingRecord t;
    t.shape = shape;
    t.dtype = DType::fp16;
    t.median_us = parse_double(field(source, "latency")).value_or(100.0);
    t.iqr_us = parse_double(field(source, "iqr")).value_or(0.5);
    t.samples = 50;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = 120.0;
    t.speedup = t.baseline_median_us / t.median_us;
    t.gb_s = 134.0e6 / (t.median_us * 1e-6) / 1e9;
    t.pct_peak = t.gb_s / 4800.0 * 100.0;
    t.bound = "memory";
    if (const auto c = parse_double(field(source, "ceiling"))) t.pct_copy_ceiling = *c;
    return t;
}

// Evaluates by reading the candidate's comment lines. Thread-safe; can hold an evaluation until the
// test releases it (to post commands while an evaluation is in flight).
class ScriptedEvaluator : public Evaluator {
public:
    EvaluationResult evaluate(const EvaluationRequest& request) override {
        {
            std::unique_lock lock(mutex_);
            requests_.push_back(request);
            in_flight_ = true;
            changed_.notify_all();
            changed_.wait(lock, [&] { return !hold_; });
            in_flight_ = false;
        }
        if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
        EvaluationResult r;
        r.verdict = parse_verdict(field(request.source, "verdict")).value_or(Verdict::Pass);
        if (r.verdict == Verdict::Fail) {
            r.failed_stage = CheckStage::Sweep;
            r.detail = "1024x4096 bf16 max abs err 0.31 > tol 0.02";
        } else if (r.verdict == Verdict::CompileError) {
            CompileRecord c;
            c.ok = false;
            c.log = "candidate.cu(3): error: identifier \"x\" is undefined";
            r.compile.push_back(c);
            r.detail = "compile failed (fp16)";
        } else if (r.verdict == Verdict::Timeout) {
            r.detail = "no result within 120 s";
        } else if (r.verdict == Verdict::Crash) {
            r.detail = "worker killed by SIGSEGV (Segmentation fault) during sweep";
        }
        const std::vector<Shape> shapes = request.timing_shapes.empty()
                                              ? std::vector<Shape>{Shape{{4096, 4096}}, Shape{{4096, 8192}}}
                                              : request.timing_shapes;
        if (r.verdict == Verdict::Pass) {
            for (const Shape& s : shapes) r.timing.push_back(timing_of(request.source, s));
            if (request.reference_source)
                for (const Shape& s : shapes) r.reference_timing.push_back(timing_of(*request.reference_source, s));
        }
        r.device = "scripted";
        return r;
    }

    std::vector<EvaluationRequest> requests() const {
        std::lock_guard lock(mutex_);
        return requests_;
    }
    // While held, evaluate() waits (after recording the request) until release().
    void hold() {
        std::lock_guard lock(mutex_);
        hold_ = true;
    }
    void release() {
        std::lock_guard lock(mutex_);
        hold_ = false;
        changed_.notify_all();
    }
    // Waits until an evaluation is in flight (held); false after `timeout`.
    bool wait_in_flight(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, timeout, [&] { return in_flight_; });
    }
    void set_delay(std::chrono::milliseconds d) { delay_ = d; }

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<EvaluationRequest> requests_;
    bool hold_ = false;
    bool in_flight_ = false;
    std::chrono::milliseconds delay_{0};
};

// Proposes whatever the test scripted; after the script runs out, "cannot propose" (or `fallback`).
class ScriptedAgent : public Agent {
public:
    struct Shared {  // outlives the agent, which the controller owns
        std::mutex mutex;
        std::vector<AgentContext> contexts;
        std::vector<std::pair<std::string, Outcome>> observed;  // description, outcome
        std::vector<Proposal> script;
        std::size_t next = 0;
        std::function<Proposal(const AgentContext&)> fallback;
        std::function<bool(const AgentContext&)> exhausted;
        bool bounded = false;  // bounded_search()
    };

    explicit ScriptedAgent(std::shared_ptr<Shared> shared, std::string name = "scripted")
        : shared_(std::move(shared)), name_(std::move(name)) {}

    std::string name() const override { return name_; }
    Proposal propose(const AgentContext& context) override {
        std::lock_guard lock(shared_->mutex);
        shared_->contexts.push_back(context);
        if (shared_->next < shared_->script.size()) return shared_->script[shared_->next++];
        if (shared_->fallback) return shared_->fallback(context);
        Proposal p;
        p.failure = "script exhausted";
        return p;
    }
    void observe(const Proposal& proposal, const EvaluationResult&, Outcome outcome) override {
        std::lock_guard lock(shared_->mutex);
        shared_->observed.emplace_back(proposal.description, outcome);
    }
    bool exhausted(const AgentContext& context) const override {
        std::lock_guard lock(shared_->mutex);
        return shared_->exhausted ? shared_->exhausted(context) : false;
    }
    bool bounded_search() const override { return shared_->bounded; }

private:
    std::shared_ptr<Shared> shared_;
    std::string name_;
};

inline Proposal proposal(const std::string& source, const std::string& description) {
    Proposal p;
    p.ok = true;
    p.source = source;
    p.description = description;
    return p;
}

// Every event as one line, e.g. "state running", "kernel rmsnorm: <reason>", "started rmsnorm: <desc>",
// "finished 1 kept: <reason>", "log <line>". Thread-safe; can wait for a line.
class RecordingObserver : public LoopObserver {
public:
    void on_state_changed(LoopState state) override { add("state " + std::string(to_string(state))); }
    void on_kernel_changed(const std::string& kernel, const std::string& reason) override {
        add("kernel " + kernel + ": " + reason);
    }
    void on_experiment_started(const std::string& kernel, const std::string& description) override {
        add("started " + kernel + ": " + description);
    }
    void on_experiment_finished(const Experiment& e, const EvaluationResult&, const KeepDecision& d) override {
        {
            std::lock_guard lock(mutex_);
            finished_.push_back(e);
        }
        add("finished " + std::to_string(e.number) + " " + std::string(to_string(e.outcome)) + ": " + d.reason);
    }
    void on_log(const std::string& line) override { add("log " + line); }

    std::vector<std::string> events() const {
        std::lock_guard lock(mutex_);
        return events_;
    }
    std::vector<Experiment> finished() const {
        std::lock_guard lock(mutex_);
        return finished_;
    }
    // Events that start with `prefix`.
    std::vector<std::string> matching(const std::string& prefix) const {
        std::vector<std::string> out;
        for (const std::string& e : events())
            if (e.rfind(prefix, 0) == 0) out.push_back(e);
        return out;
    }
    // Waits until `count` events start with `prefix`.
    bool wait_for(const std::string& prefix, std::size_t count = 1,
                  std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, timeout, [&] {
            std::size_t n = 0;
            for (const std::string& e : events_) n += e.rfind(prefix, 0) == 0;
            return n >= count;
        });
    }

private:
    void add(std::string line) {
        std::lock_guard lock(mutex_);
        events_.push_back(std::move(line));
        changed_.notify_all();
    }
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> events_;
    std::vector<Experiment> finished_;
};

inline KernelEntry kernel(const std::string& name, const std::string& type = "rmsnorm", double fraction = 0) {
    KernelEntry k;
    k.name = name;
    k.type = type;
    k.model_fraction = fraction;
    return k;
}

// A session whose kernels start from `candidate(starter_latency)` baselines, measured (latency set, so
// the loop does not measure them first) unless `measured` is false.
inline Session make_session(const std::filesystem::path& dir, const std::vector<KernelEntry>& kernels,
                            double starter_latency = 100.0, bool measured = true) {
    SessionInfo info;
    info.name = "loop-test";
    info.gpu = "none";
    std::vector<std::pair<KernelEntry, std::string>> sources;
    std::vector<Experiment> metrics;
    for (const KernelEntry& k : kernels) {
        sources.emplace_back(k, candidate(starter_latency, "starter " + k.name));
        Experiment m;
        m.description = "starter";
        if (measured) {
            m.latency_us = starter_latency;
            m.latency_iqr_us = 0.5;
        }
        metrics.push_back(m);
    }
    return Session::create(dir, info, sources, metrics);
}

}  // namespace ak::testing
