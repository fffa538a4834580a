#include "loop/loop_controller.h"
#include "util/text.h"

#include "util/clock.h"
#include "util/error.h"
#include "util/utf8.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <set>

namespace ak {

std::string_view to_string(LoopState s) {
    switch (s) {
    case LoopState::Idle: return "idle";
    case LoopState::Running: return "running";
    case LoopState::Paused: return "paused";
    case LoopState::Stopping: return "stopping";
    case LoopState::Finished: return "finished";
    }
    return "unknown";
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kUserAgent = "user";
constexpr const char* kMeasureAgent = "measure";
constexpr std::size_t kFailureDetailsKept = 50;  // per controller, newest first out

// Valid UTF-8 (invalid bytes become '?'), at most `max_bytes` bytes, cut on a character boundary.
std::string clean_text(std::string text, std::size_t max_bytes) {
    while (const auto bad = first_invalid_utf8(text)) text[*bad] = '?';
    if (text.size() > max_bytes) {
        std::size_t cut = max_bytes;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text.resize(cut);
        text += " [...]";
    }
    return text;
}

// The first line, trimmed, for the one-line description column.
std::string one_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    std::size_t start = 0;
    while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
    return clean_text(line.substr(start), 300);
}

Correctness correctness_of(Verdict v) {
    switch (v) {
    case Verdict::Pass: return Correctness::Pass;
    case Verdict::Fail:
    case Verdict::CompileError: return Correctness::Fail;
    case Verdict::Timeout: return Correctness::Timeout;
    case Verdict::Crash: return Correctness::Crash;
    }
    return Correctness::Crash;
}

// Everything an agent needs to know about a failure: verdict, stage, detail and failed compile logs.
std::string failure_text(const EvaluationResult& r) {
    std::string out(verdict_to_string(r.verdict));
    if (r.failed_stage) out += " at " + std::string(to_string(*r.failed_stage));
    if (!r.detail.empty()) out += ": " + r.detail;
    for (const CompileRecord& c : r.compile) {
        if (c.ok || c.log.empty()) continue;
        out += "\ncompile log (" + std::string(to_string(c.dtype)) + "):\n" + c.log;
    }
    return out;
}

// The candidate's metrics from its first (primary, "large") timing row.
void copy_metrics(const EvaluationResult& r, Experiment& e) {
    if (r.timing.empty()) return;
    const TimingRecord& t = r.timing.front();
    e.latency_us = t.median_us;
    e.latency_iqr_us = t.iqr_us;
    e.throughput_tflops = t.tflops;
    e.bandwidth_gb_s = t.gb_s;
    e.pct_peak = t.pct_peak;
    if (t.baseline_median_us > 0 && t.median_us > 0) e.speedup_vs_pytorch = t.baseline_median_us / t.median_us;
    e.bound = parse_bound(t.bound).value_or(Bound::Unknown);
}

// Every timed shape of the result, for the experiment's commit (session/shape_timing.h).
std::vector<ShapeTiming> shape_timings_of(const EvaluationResult& r) {
    std::vector<ShapeTiming> out;
    for (const TimingRecord& t : r.timing) {
        ShapeTiming s;
        s.shape = to_string(t.shape);
        s.dtype = std::string(to_string(t.dtype));
        const auto measured = [](double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; };
        s.median_us = measured(t.median_us);
        s.iqr_us = t.median_us > 0 ? std::optional<double>(t.iqr_us) : std::nullopt;
        if (t.samples > 0) s.samples = t.samples;
        s.baseline_name = t.baseline_name;
        s.baseline_median_us = measured(t.baseline_median_us);
        s.baseline_iqr_us = t.baseline_median_us > 0 ? std::optional<double>(t.baseline_iqr_us) : std::nullopt;
        s.speedup = measured(t.speedup);
        s.tflops = measured(t.tflops);
        s.gb_s = measured(t.gb_s);
        s.pct_peak = measured(t.pct_peak);
        s.pct_copy_ceiling = t.pct_copy_ceiling;
        s.pct_gemm_ceiling = t.pct_gemm_ceiling;
        s.bound = t.bound;
        out.push_back(std::move(s));
    }
    return out;
}

std::string roofline_paragraph(const std::optional<Experiment>& best, std::optional<double> pct_ceiling) {
    if (!best) return "The current best has no passing experiment yet.";
    if (!best->latency_us) return "The current best (experiment " + std::to_string(best->number) + ") has not been timed yet.";
    std::string out = "Current best: experiment " + std::to_string(best->number) + ", " + format_fixed(*best->latency_us, 2) + " us";
    if (best->latency_iqr_us) out += " (IQR " + format_fixed(*best->latency_iqr_us, 2) + " us)";
    out += best->bound == Bound::Compute  ? ", compute-bound"
           : best->bound == Bound::Memory ? ", memory-bound"
                                          : ", bound unknown";
    if (best->bandwidth_gb_s) out += ", " + format_fixed(*best->bandwidth_gb_s, 0) + " GB/s";
    if (best->throughput_tflops) out += ", " + format_fixed(*best->throughput_tflops, 1) + " TFLOP/s";
    if (best->pct_peak) out += ", " + format_fixed(*best->pct_peak, 1) + "% of the datasheet peak";
    if (pct_ceiling)
        out += ", " + format_fixed(*pct_ceiling, 1) + "% of the measured " +
               (best->bound == Bound::Compute ? "GEMM" : "copy") + " ceiling";
    if (best->speedup_vs_pytorch) out += ", " + format_fixed(*best->speedup_vs_pytorch, 2) + "x the strongest PyTorch baseline";
    return out + ".";
}

// A result for observers of overrides that record without evaluating.
EvaluationResult not_evaluated(const std::string& why) {
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.detail = "not evaluated: " + why;
    return r;
}

}  // namespace

struct LoopController::Impl {
    Session& session;
    Evaluator& evaluator;
    std::unique_ptr<Agent> agent;
    LoopOptions options;
    DType timing_dtype = DType::fp16;
    std::vector<LoopObserver*> observers;

    // Shared with other threads.
    mutable std::mutex mutex;
    std::condition_variable wake;
    std::deque<LoopCommand> queue;
    std::atomic<LoopState> state{LoopState::Idle};
    std::string current;  // guarded by mutex
    std::atomic<int> experiments_run{0};

    // The loop's thread only.
    bool paused = false;
    bool step_pending = false;
    bool stop = false;
    std::deque<command::RunSource> user_sources;
    std::map<int, std::string> failure_details;        // experiment number -> full failure text
    CeilingShares shares;
    std::map<std::string, int> failed_proposals;       // kernel -> since its last kept experiment
    int failed_in_a_row = 0;                           // failed proposals since the last evaluation
    std::map<std::string, std::string> exhausted;      // kernel -> why the agent has nothing to try
    std::set<std::string> announced_moved_on;          // kernels whose move-on was logged
    std::map<std::string, std::vector<Shape>> timing_shapes;  // parsed KernelEntry::shapes
    std::optional<int> per_kernel_budget;              // LoopBudget::max_experiments_per_kernel of run()
    std::map<std::string, int> run_experiments;        // kernel -> evaluated experiments in this run

    Impl(Session& s, Evaluator& e, std::unique_ptr<Agent> a, LoopOptions o)
        : session(s), evaluator(e), agent(std::move(a)), options(std::move(o)) {
        if (!agent) throw Error(ErrorKind::Usage, "the loop needs an agent");
        const auto dtype = parse_kernel_dtype(options.timing_dtype);
        if (!dtype) throw Error(ErrorKind::Usage, "unknown timing dtype '" + options.timing_dtype + "' (use fp16, bf16 or fp32)");
        timing_dtype = *dtype;
    }

    // ---- events --------------------------------------------------------------------------------------
    void log(const std::string& line) {
        for (LoopObserver* o : observers) o->on_log(line);
    }
    void set_state(LoopState s) {
        if (state.exchange(s) == s) return;
        for (LoopObserver* o : observers) o->on_state_changed(s);
    }
    std::string current_kernel() const {
        std::lock_guard lock(mutex);
        return current;
    }
    void set_current(const std::string& kernel, const std::string& reason) {
        {
            std::lock_guard lock(mutex);
            if (current == kernel) return;
            current = kernel;
        }
        for (LoopObserver* o : observers) o->on_kernel_changed(kernel, reason);
    }

    // ---- session helpers -----------------------------------------------------------------------------
    const KernelEntry* entry_of(const std::string& name) const {
        for (const KernelEntry& k : session.info().kernels)
            if (k.name == name) return &k;
        return nullptr;
    }
    const KernelEntry* entry_of_file(const std::string& file) const {
        for (const KernelEntry& k : session.info().kernels)
            if (Session::kernel_file_of(k.name) == file) return &k;
        return nullptr;
    }
    std::string kernel_names() const {
        std::string out;
        for (const KernelEntry& k : session.info().kernels) out += (out.empty() ? "" : ", ") + k.name;
        return out.empty() ? "none" : out;
    }

    // The best of `file` was never timed and no measurement of it has been recorded since.
    bool needs_measuring(const std::string& file, const std::optional<Experiment>& best) const {
        if (!best || best->latency_us) return false;
        for (const Experiment& e : session.experiments())
            if (e.number > best->number && e.kernel_file == file && e.agent == kMeasureAgent) return false;
        return true;
    }
    // The best of `file` was measured and failed: candidates are then kept on passing alone.
    bool best_known_failing(const std::string& file, const std::optional<Experiment>& best) const {
        if (!best) return true;
        const auto& all = session.experiments();
        for (auto it = all.rbegin(); it != all.rend() && it->number > best->number; ++it)
            if (it->kernel_file == file && it->agent == kMeasureAgent) return it->outcome == Outcome::Failed;
        return false;
    }

    // The move-on rules as they apply to this agent: one that plans a bounded search ends by exhaustion
    // instead of by reverts in a row (Agent::bounded_search).
    MoveOnRules effective_move_on() const {
        MoveOnRules rules = options.move_on;
        if (agent && agent->bounded_search()) rules.max_consecutive_reverts = 0;
        return rules;
    }

    std::vector<KernelStatus> statuses() const {
        std::vector<KernelStatus> out = ak::kernel_statuses(session.info(), session.experiments(), shares);
        for (KernelStatus& s : out) {
            if (const auto it = failed_proposals.find(s.kernel.name); it != failed_proposals.end())
                s.progress.consecutive_reverts += it->second;
            const auto spent = run_experiments.find(s.kernel.name);
            if (const auto it = exhausted.find(s.kernel.name); it != exhausted.end()) {
                s.moved_on = true;
                s.moved_on_reason = it->second;
            } else if (per_kernel_budget && spent != run_experiments.end() && spent->second >= *per_kernel_budget) {
                s.moved_on = true;
                s.moved_on_reason = "its budget of " + std::to_string(*per_kernel_budget) + " experiments in this run is spent";
            } else if (const auto reason = should_move_on(s.progress, effective_move_on())) {
                s.moved_on = true;
                s.moved_on_reason = *reason;
            }
        }
        return out;
    }

    // ---- commands ------------------------------------------------------------------------------------
    void drain() {
        std::deque<LoopCommand> commands;
        {
            std::lock_guard lock(mutex);
            commands.swap(queue);
        }
        for (LoopCommand& c : commands) std::visit([this](auto& command) { apply(command); }, c);
    }

    void apply(const command::Pause&) {
        paused = true;
        step_pending = false;
        log("pause: the loop waits (resume, step or stop)");
    }
    void apply(const command::Resume&) {
        if (paused) log("resume");
        paused = false;
        step_pending = false;
    }
    void apply(const command::Step&) {
        paused = false;
        step_pending = true;
        log("step: one experiment, then pause");
    }
    void apply(const command::Stop&) {
        stop = true;
        log("stop requested");
    }
    void apply(const command::Steer& s) {
        if (s.steering) {
            options.steering = *s.steering;
            log("steering: target kernel " +
                (options.steering.target_kernel.empty() ? std::string("chosen by the orchestrator")
                                                        : options.steering.target_kernel) +
                (options.steering.focus_tier > 0 ? ", focus tier " + std::to_string(options.steering.focus_tier) : "") +
                (options.steering.frozen_tunables.empty()
                     ? ""
                     : ", " + std::to_string(options.steering.frozen_tunables.size()) + " tunables frozen") +
                (options.steering.hint.empty() ? "" : ", hint given"));
        }
        if (s.keep_threshold) {
            options.keep_rule.threshold = *s.keep_threshold;
            log("keep threshold set to " + format_fixed(*s.keep_threshold * 100.0, 2) + "%");
        }
        if (s.move_on) {
            options.move_on = *s.move_on;
            log("move-on rules changed: " + std::to_string(s.move_on->max_consecutive_reverts) + " reverts, " +
                format_fixed(s.move_on->ceiling_fraction * 100.0, 0) + "% of ceiling, " + format_fixed(s.move_on->max_hours, 2) +
                " h, " + format_fixed(s.move_on->target_speedup, 2) + "x");
        }
    }
    void apply(const command::RunSource& s) {
        user_sources.push_back(s);
        log("user source queued for " + (s.kernel_name.empty() ? std::string("the current kernel") : s.kernel_name));
    }

    // Records an override (no evaluation) and tells observers.
    void record_override(const std::string& kernel, const std::string& source, Experiment metrics,
                         const std::string& description, const std::string& detail, std::optional<int> copied_from) {
        metrics.outcome = Outcome::Kept;
        metrics.correctness = Correctness::Pass;
        metrics.agent = kUserAgent;
        metrics.tag = options.tag;
        metrics.description = description;
        metrics.detail = detail;
        metrics.started_utc = utc_now_iso8601();
        metrics.duration_s.reset();
        const Experiment recorded = session.record(NewExperiment{kernel, source, metrics, ""});
        if (copied_from)
            if (const auto it = shares.find(*copied_from); it != shares.end()) shares[recorded.number] = it->second;
        failed_proposals[kernel] = 0;
        exhausted.erase(kernel);
        log("experiment " + std::to_string(recorded.number) + ": " + description + " (" + kernel + ")");
        KeepDecision d;
        d.keep = true;
        d.reason = "forced by the user";
        const EvaluationResult r = not_evaluated(description);
        for (LoopObserver* o : observers) o->on_experiment_finished(recorded, r, d);
    }

    void apply(const command::ForceKeep&) {
        const auto& all = session.experiments();
        if (all.empty()) return log("force keep: the session has no experiments");
        const Experiment last = all.back();
        if (last.outcome == Outcome::Kept || last.outcome == Outcome::Baseline)
            return log("force keep: experiment " + std::to_string(last.number) + " is already " +
                       std::string(to_string(last.outcome)) + "; nothing to do");
        if (!last.passed())
            return log("force keep refused: experiment " + std::to_string(last.number) + " did not pass (" +
                       std::string(to_string(last.correctness)) + "), so it cannot become the best");
        const KernelEntry* entry = entry_of_file(last.kernel_file);
        if (!entry) return log("force keep refused: " + last.kernel_file + " is no kernel of this session");
        record_override(entry->name, session.source_of(last), last, "force keep of exp " + std::to_string(last.number),
                        "forced by the user; metrics copied from experiment " + std::to_string(last.number),
                        last.number);
    }

    void apply(const command::ForceRevert&) {
        const auto& all = session.experiments();
        if (all.empty()) return log("force revert: the session has no experiments");
        const Experiment last = all.back();
        if (last.outcome != Outcome::Kept)
            return log("force revert refused: the last experiment (" + std::to_string(last.number) + ") is " +
                       std::string(to_string(last.outcome)) + ", not kept; nothing to revert");
        const KernelEntry* entry = entry_of_file(last.kernel_file);
        if (!entry) return log("force revert refused: " + last.kernel_file + " is no kernel of this session");
        const std::string undone = session.source_of(last);
        std::optional<Experiment> previous;
        std::string previous_source;
        for (auto it = all.rbegin(); it != all.rend(); ++it) {
            if (it->number >= last.number || it->kernel_file != last.kernel_file || !it->on_frontier()) continue;
            std::string source = session.source_of(*it);
            if (source == undone) continue;
            previous = *it;
            previous_source = std::move(source);
            break;
        }
        if (!previous)
            return log("force revert refused: " + entry->name + " has no earlier best with a different source");
        record_override(entry->name, previous_source, *previous, "force revert of exp " + std::to_string(last.number),
                        "forced by the user; restores experiment " + std::to_string(previous->number) +
                            " (metrics copied from it)",
                        previous->number);
    }

    void apply(const command::BranchFrom& b) {
        const auto& all = session.experiments();
        if (b.experiment < 0 || b.experiment >= static_cast<int>(all.size()))
            return log("branch from refused: there is no experiment " + std::to_string(b.experiment) + " (the session has " +
                       std::to_string(all.size()) + ")");
        const Experiment from = all[static_cast<std::size_t>(b.experiment)];
        if (!from.passed())
            return log("branch from refused: experiment " + std::to_string(from.number) + " did not pass (" +
                       std::string(to_string(from.correctness)) + ")");
        const KernelEntry* entry = entry_of_file(from.kernel_file);
        if (!entry) return log("branch from refused: " + from.kernel_file + " is no kernel of this session");
        const std::string name = entry->name;
        record_override(name, session.source_of(from), from, "branch from exp " + std::to_string(from.number),
                        "forced by the user; experiment " + std::to_string(from.number) +
                            " becomes the best (metrics copied from it)",
                        from.number);
        set_current(name, "branch from experiment " + std::to_string(from.number));
    }

    // ---- one iteration -------------------------------------------------------------------------------
    enum class Step { Recorded, FailedProposal, Nothing, NoKernelLeft };

    std::optional<std::string> choose_kernel() {
        const std::vector<KernelStatus> all = statuses();
        const std::string target = options.steering.target_kernel;
        if (!target.empty()) {
            if (entry_of(target)) {
                set_current(target, "steered by the user");
                return target;
            }
            log("steering names no kernel '" + target + "' (this session's kernels: " + kernel_names() +
                "); the orchestrator chooses");
            options.steering.target_kernel.clear();
        }
        // Say once when a kernel is moved on from (again, if it comes back and leaves again).
        for (const KernelStatus& s : all) {
            if (!s.moved_on) {
                announced_moved_on.erase(s.kernel.name);
            } else if (announced_moved_on.insert(s.kernel.name).second) {
                log(s.kernel.name + " moved on from: " + s.moved_on_reason);
            }
        }
        const std::string now = current_kernel();
        std::string left_because;
        for (const KernelStatus& s : all) {
            if (s.kernel.name != now) continue;
            if (!s.moved_on) return now;
            left_because = now + " moved on from: " + s.moved_on_reason;
        }
        const std::vector<KernelPriority> ranked = rank_kernels(all);
        if (ranked.empty()) {
            std::string why;
            for (const KernelStatus& s : all) why += (why.empty() ? "" : "; ") + s.kernel.name + ": " + s.moved_on_reason;
            log(all.empty() ? "the session has no kernels" : "every kernel has been moved on from (" + why + ")");
            return std::nullopt;
        }
        const KernelPriority& p = ranked.front();
        set_current(p.kernel_name, (left_because.empty() ? std::string() : left_because + "; ") + p.kernel_name +
                                       " has the highest priority (" + format_fixed(p.fraction * 100.0, 1) +
                                       "% of model time x " + format_fixed(p.headroom * 100.0, 0) + "% headroom)");
        return p.kernel_name;
    }

    AgentContext context_for(const KernelEntry& entry, const std::string& file, const std::string& best_source,
                             const std::optional<Experiment>& best) const {
        AgentContext c;
        c.kernel = entry;
        c.kernel_file = file;
        c.best_source = best_source;
        c.best = best;
        for (const Experiment& e : session.experiments())
            if (e.kernel_file == file) c.history.push_back(e);
        for (const auto& [number, text] : failure_details) {
            const auto& all = session.experiments();
            if (number < static_cast<int>(all.size()) && all[static_cast<std::size_t>(number)].kernel_file == file)
                c.failure_details[number] = text;
        }
        c.steering = options.steering;
        c.playbook = options.playbook;
        c.contract = options.contract;
        std::optional<double> pct;
        if (best)
            if (const auto it = shares.find(best->number); it != shares.end()) pct = it->second;
        c.roofline = roofline_paragraph(best, pct);
        c.gpu = session.info().gpu;
        c.gpu_compute_capability = session.info().gpu_compute_capability;
        c.dtype = options.timing_dtype;
        return c;
    }

    const std::vector<Shape>& shapes_of(const KernelEntry& entry, KernelType type) {
        auto [it, inserted] = timing_shapes.try_emplace(entry.name);
        if (inserted && !entry.shapes.empty()) {
            try {
                it->second = parse_shape_list(type, entry.shapes);
            } catch (const Error& e) {
                log("kernel " + entry.name + ": its shapes '" + entry.shapes + "' are not usable (" + e.what() +
                    "); timing at the type's default sizes");
            }
        }
        return it->second;
    }

    Step iterate() {
        std::optional<command::RunSource> user;
        if (!user_sources.empty()) {
            user = std::move(user_sources.front());
            user_sources.pop_front();
        }
        std::string kernel;
        if (user) {
            kernel = user->kernel_name.empty() ? current_kernel() : user->kernel_name;
            if (kernel.empty()) {
                const auto chosen = choose_kernel();
                if (!chosen) return Step::NoKernelLeft;
                kernel = *chosen;
            }
            if (!entry_of(kernel)) {
                log("user source dropped: this session has no kernel '" + kernel + "' (its kernels: " + kernel_names() + ")");
                return Step::Nothing;
            }
            set_current(kernel, "user source");
        } else {
            const auto chosen = choose_kernel();
            if (!chosen) return Step::NoKernelLeft;
            kernel = *chosen;
        }
        const KernelEntry entry = *entry_of(kernel);
        const auto type = parse_kernel_type(entry.type);
        if (!type)
            throw Error(ErrorKind::BadFormat, "session.json: kernel " + entry.name + " has the unknown type '" + entry.type + "'");
        const std::string file = Session::kernel_file_of(kernel);
        const std::string best_source = session.source_at(session.branch_tip(), file);
        const std::optional<Experiment> best = session.best_of(file);

        Proposal proposal;
        std::string agent_name;
        bool measuring = false;
        if (user) {
            proposal.ok = true;
            proposal.source = user->source;
            proposal.description = user->description.empty() ? "user edit" : user->description;
            agent_name = kUserAgent;
        } else if (options.measure_unmeasured_best && needs_measuring(file, best)) {
            proposal.ok = true;
            proposal.source = best_source;
            proposal.description = best->outcome == Outcome::Baseline
                                       ? "measure the starter (not yet evaluated)"
                                       : "measure experiment " + std::to_string(best->number) + " (not yet evaluated)";
            agent_name = kMeasureAgent;
            measuring = true;
        } else {
            const AgentContext context = context_for(entry, file, best_source, best);
            agent_name = agent->name();
            if (agent->exhausted(context)) {
                exhausted[kernel] = "the " + agent_name + " agent has nothing new to try";
                log(kernel + ": " + exhausted[kernel]);
                if (options.steering.target_kernel == kernel) {
                    log("target kernel " + kernel + " released: the orchestrator chooses");
                    options.steering.target_kernel.clear();
                }
                return Step::Nothing;
            }
            try {
                proposal = agent->propose(context);
            } catch (const std::exception& e) {
                proposal = Proposal{};
                proposal.failure = std::string("the agent threw: ") + e.what();
            }
            if (!proposal.ok) {
                ++failed_proposals[kernel];
                ++failed_in_a_row;
                log("failed proposal for " + kernel + " (agent " + agent_name + "): " +
                    (proposal.failure.empty() ? std::string("no reason given") : proposal.failure));
                return Step::FailedProposal;
            }
        }
        failed_in_a_row = 0;
        const std::string description = one_line(proposal.description.empty() ? "(no description)" : proposal.description);
        for (LoopObserver* o : observers) o->on_experiment_started(kernel, description);

        EvaluationRequest request;
        request.op = RequestOp::Evaluate;
        request.type = *type;
        request.source = proposal.source;
        request.source_name = kernel + ".cu";
        request.timing_dtype = timing_dtype;
        request.timing_shapes = shapes_of(entry, *type);
        request.timeout_s = options.evaluation_timeout_s;
        if (!measuring && !best_known_failing(file, best)) request.reference_source = best_source;

        const std::string started = utc_now_iso8601();
        const auto t0 = Clock::now();
        EvaluationResult result;
        try {
            result = evaluator.evaluate(request);
        } catch (const std::exception& e) {
            throw Error(ErrorKind::Internal, std::string("the evaluator failed (not the candidate's fault): ") + e.what());
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

        KeepDecision decision;
        if (measuring) {
            decision.keep = result.verdict == Verdict::Pass;
            decision.reason = decision.keep ? "measured: the current best's own timing"
                                            : "the current best fails: " + std::string(verdict_to_string(result.verdict)) +
                                                  "; candidates are kept on passing alone until one is";
        } else {
            decision = decide_keep(result, options.keep_rule);
        }

        Experiment m;
        m.tag = options.tag;
        m.kernel_type = entry.type;
        m.correctness = correctness_of(result.verdict);
        m.outcome = result.verdict != Verdict::Pass ? Outcome::Failed
                    : measuring                     ? Outcome::Baseline
                    : decision.keep                 ? Outcome::Kept
                                                    : Outcome::Reverted;
        copy_metrics(result, m);
        m.description = description;
        m.agent = agent_name;
        m.started_utc = started;
        m.duration_s = seconds;
        const std::string failure = result.verdict == Verdict::Pass ? std::string() : failure_text(result);
        m.detail = clean_text(failure.empty() ? decision.reason : failure, options.max_detail_bytes);

        const Experiment recorded = session.record(NewExperiment{kernel, proposal.source, m, "", shape_timings_of(result)});
        ++experiments_run;
        ++run_experiments[kernel];
        if (!failure.empty()) {
            failure_details[recorded.number] = failure;
            while (failure_details.size() > kFailureDetailsKept) failure_details.erase(failure_details.begin());
        }
        if (best && !result.reference_timing.empty())
            if (const auto pct = pct_of_ceiling(result.reference_timing.front())) shares[best->number] = *pct;
        if (!result.timing.empty())
            if (const auto pct = pct_of_ceiling(result.timing.front())) shares[recorded.number] = *pct;
        if (recorded.outcome == Outcome::Kept || recorded.outcome == Outcome::Baseline) failed_proposals[kernel] = 0;

        if (!measuring) agent->observe(proposal, result, recorded.outcome);
        for (LoopObserver* o : observers) o->on_experiment_finished(recorded, result, decision);
        return Step::Recorded;
    }

    // ---- the loop ------------------------------------------------------------------------------------
    void run(const LoopBudget& budget) {
        stop = false;
        paused = options.start_paused;
        step_pending = false;
        failed_in_a_row = 0;
        const int run_start = experiments_run;
        per_kernel_budget = budget.max_experiments_per_kernel;
        run_experiments.clear();
        Clock::duration active{};  // time outside Paused
        set_state(paused ? LoopState::Paused : LoopState::Running);
        log("loop started on session " + session.dir().string() + " with agent " + agent->name());
        if (agent->bounded_search() && options.move_on.max_consecutive_reverts > 0)
            log("the " + agent->name() + " agent ends a kernel when it has no change left to try; the rule \"" +
                std::to_string(options.move_on.max_consecutive_reverts) + " reverts in a row\" does not apply to it");
        try {
            while (true) {
                drain();
                if (stop) {
                    log("stopped by the user after " + std::to_string(experiments_run - run_start) + " experiments");
                    break;
                }
                if (paused) {
                    set_state(LoopState::Paused);
                    std::unique_lock lock(mutex);
                    wake.wait(lock, [this] { return !queue.empty(); });
                    continue;
                }
                set_state(LoopState::Running);
                if (budget.max_experiments && experiments_run - run_start >= *budget.max_experiments) {
                    log("budget spent: " + std::to_string(experiments_run - run_start) + " experiments");
                    break;
                }
                if (budget.max_time && active >= *budget.max_time) {
                    log("time budget spent: " + format_fixed(std::chrono::duration<double>(active).count() / 3600.0, 2) + " h");
                    break;
                }
                const auto t0 = Clock::now();
                const Step step = iterate();
                active += Clock::now() - t0;
                if (step == Step::NoKernelLeft) break;
                if (options.max_failed_proposals_in_a_row > 0 &&
                    failed_in_a_row >= options.max_failed_proposals_in_a_row) {
                    log("the agent failed to propose " + std::to_string(failed_in_a_row) +
                        " times in a row: the loop stops (see the reasons above)");
                    break;
                }
                if (step_pending && (step == Step::Recorded || step == Step::FailedProposal)) {
                    step_pending = false;
                    paused = true;
                }
            }
        } catch (const std::exception& e) {
            log(std::string("loop stopped: ") + e.what());
            set_state(LoopState::Finished);
            throw;
        }
        if (stop) set_state(LoopState::Stopping);
        set_state(LoopState::Finished);
    }
};

LoopController::LoopController(Session& session, Evaluator& evaluator, std::unique_ptr<Agent> agent, LoopOptions options)
    : impl_(std::make_unique<Impl>(session, evaluator, std::move(agent), std::move(options))) {}

LoopController::~LoopController() = default;

void LoopController::add_observer(LoopObserver* observer) {
    if (observer) impl_->observers.push_back(observer);
}

void LoopController::post(LoopCommand command) {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->queue.push_back(std::move(command));
    }
    impl_->wake.notify_all();
}

void LoopController::run(const LoopBudget& budget) { impl_->run(budget); }

LoopState LoopController::state() const { return impl_->state.load(); }

std::string LoopController::current_kernel() const { return impl_->current_kernel(); }

int LoopController::experiments_run() const { return impl_->experiments_run.load(); }

std::vector<KernelStatus> LoopController::kernel_statuses() const { return impl_->statuses(); }

}  // namespace ak
