// autokernel run: the agent loop, headless (for overnight runs).
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/evaluator_client.h"
#include "engine/evaluator_preflight.h"
#include "engine/kernel_contract.h"
#include "loop/agent_factory.h"
#include "loop/control_file.h"
#include "loop/loop_controller.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace ak::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage = R"(usage: autokernel run SESSION [--agent search|llm|command] [--budget N] [--hours H]
                      [--kernel-budget N] [--kernel NAME] [--threshold F] [--dtype DTYPE] [--timeout S] [--start-paused]
                      [--llm-endpoint URL --llm-model MODEL [--llm-key-env VAR]]
                      [--command TEMPLATE] [--strategy NAME] [--seed N] [--playbook FILE]
                      [--max-reverts N] [--target-speedup X] [--ceiling-fraction F] [--kernel-hours H]

Runs the optimization loop on SESSION without a window: an agent proposes a candidate, the evaluator
process checks and times it against the current best (re-timed in the same run), and one experiment
is recorded per candidate (a commit and a results.tsv row); kept candidates become the new best.
A kernel that was never timed is measured first.

  --agent KIND         search (default: offline tunable search), llm (OpenAI-compatible endpoint) or
                       command (a command-line tool run on a copy of the kernel)
  --budget N           stop after N evaluated experiments
  --kernel-budget N    move on from a kernel after N evaluated experiments of it in this run (its
                       measurement included), so one run reaches every kernel; the run ends when every
                       kernel has had them
  --hours H            stop after H hours of running (time paused does not count)
  --kernel NAME        work on this kernel only (default: the orchestrator chooses, by share of model
                       time x headroom, and moves on after 5 reverts in a row, 90% of the ceiling,
                       2 hours or 2x)
  --threshold F        keep a candidate only if it is faster by more than F (default 0.01 = 1%) and
                       by more than the measured spread
  --dtype DTYPE        dtype timed: fp16 (default), bf16 or fp32 (correctness checks all three)
  --timeout S          one evaluation's limit in seconds (default 120)
  --start-paused       wait for `autokernel control SESSION resume` (or step) before the first one
  --llm-endpoint URL, --llm-model MODEL, --llm-key-env VAR
                       the LLM agent's endpoint, model and the environment variable holding its API key
  --command TEMPLATE   the command agent's command line ({file} and {context} are replaced)
  --strategy NAME, --seed N
                       the search agent's strategy and random seed
  --playbook FILE      the playbook given to agents (default: resources/playbook.md)
  --max-reverts N, --target-speedup X, --ceiling-fraction F, --kernel-hours H
                       move-on rules (defaults 5, 2.0, 0.90, 2): leave a kernel after N reverts in a
                       row, at X times its starter, at F of its measured ceiling or after H hours on it;
                       0 switches a rule off

Ctrl-C (or SIGTERM) stops after the current evaluation, which is recorded; a second Ctrl-C exits at
once (the session stays consistent). After a crash or kill -9, run again: it continues from what is
on disk. From another shell: autokernel control SESSION pause|resume|step|stop.

exit status: 0 finished or stopped, 1 failure, 2 no GPU or no evaluator, 64 usage
)";

constexpr const char* kControlUsage = R"(usage: autokernel control SESSION COMMAND

Sends COMMAND to the `autokernel run` working on SESSION; it is applied between evaluations.
  pause          pause after the current evaluation
  resume         continue
  step           run one experiment, then pause
  stop           stop after the current evaluation (it is recorded)
  force-keep     the last experiment becomes the best (recorded as a new kept experiment)
  force-revert   undo the last kept experiment (recorded as a new kept experiment)
  branch-from N  experiment N becomes the best of its kernel; the loop continues from it
  threshold F    keep threshold from now on, e.g. 0.02

exit status: 0 sent, 1 no run is working on SESSION, 64 usage
)";

// The evaluator worker runs in a process group of its own (so a terminal's Ctrl-C reaches only us and
// the current evaluation can finish); its pid, as the latest result reported it, lets a second Ctrl-C
// end it too.
std::atomic<int> g_worker_pid{0};

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it starts afterwards) for
// its lifetime; restores the previous mask when it goes.
class StopSignalsBlocked {
public:
    StopSignalsBlocked() {
        sigemptyset(&signals_);
        sigaddset(&signals_, SIGINT);
        sigaddset(&signals_, SIGTERM);
        ::pthread_sigmask(SIG_BLOCK, &signals_, &old_mask_);
    }
    ~StopSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr); }
    StopSignalsBlocked(const StopSignalsBlocked&) = delete;
    StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;
    const sigset_t& signals() const { return signals_; }

private:
    sigset_t signals_;
    sigset_t old_mask_;
};

std::string clock_time() { return utc_now_iso8601().substr(11, 8); }

// What an evaluation cost: its wall time in the worker and its compile time (NVRTC: the slowest of the
// dtypes, which compile side by side; "cached" when every dtype came from the compile cache), e.g.
// "{eval 1.84 s, compile 1510 ms}" -- the loop's experiments per hour follow from it.
std::string cost_text(const EvaluationResult& r) {
    double compile_ms = 0;
    bool all_cached = !r.compile.empty();
    for (const CompileRecord& c : r.compile) {
        compile_ms = std::max(compile_ms, c.compile_ms);
        all_cached = all_cached && c.cache_hit;
    }
    std::string text = "{eval " + format_fixed(r.wall_ms / 1000.0, 2) + " s, compile ";
    text += all_cached ? "cached" : format_fixed(compile_ms, 0) + " ms";
    return text + "}";
}

// Prints the loop's events: experiments on stdout, everything else on stderr.
class ConsoleObserver : public LoopObserver {
public:
    void on_state_changed(LoopState state) override { say_err("state: " + std::string(to_string(state))); }
    void on_kernel_changed(const std::string& kernel, const std::string& reason) override {
        say_err("kernel " + kernel + ": " + reason);
    }
    void on_experiment_started(const std::string& kernel, const std::string& description) override {
        say_err("evaluating " + kernel + ": " + description);
    }
    void on_experiment_finished(const Experiment& e, const EvaluationResult& r, const KeepDecision& d) override {
        if (r.worker_pid > 0) g_worker_pid = r.worker_pid;
        std::string line = "[" + clock_time() + "] exp " + std::to_string(e.number) + " " + e.kernel_file + " " +
               std::string(to_string(e.outcome)) + " " + std::string(to_string(e.correctness));
        if (e.latency_us) line += " " + format_fixed(*e.latency_us, 2) + " us";
        if (e.speedup_vs_pytorch) line += " (" + format_fixed(*e.speedup_vs_pytorch, 2) + "x PyTorch)";
        line += " [" + e.agent + "] " + e.description;
        if (r.verdict == Verdict::Pass) line += " -- " + d.reason;
        else line += " -- " + summary_line(r);
        line += " " + cost_text(r);
        std::lock_guard lock(mutex_);
        std::cout << line << std::endl;
    }
    void on_log(const std::string& line) override { say_err(line); }

private:
    void say_err(const std::string& line) {
        std::lock_guard lock(mutex_);
        std::cerr << "[" << clock_time() << "] " << line << std::endl;
    }
    std::mutex mutex_;
};

fs::path playbook_path(const std::optional<std::string>& given) {
    if (given) return *given;
    if (const char* env = std::getenv("AK_RESOURCES_DIR"); env && *env) return fs::path(env) / "playbook.md";
#ifdef AK_RESOURCES_DIR
    return fs::path(AK_RESOURCES_DIR) / "playbook.md";
#else
    return "resources/playbook.md";
#endif
}

std::string optional_text(const fs::path& path, const std::string& what) {
    try {
        return read_file(path);
    } catch (const Error& e) {
        std::cerr << "autokernel run: warning: no " << what << " for the agents: " << e.what() << "\n";
        return "";
    }
}

double positive(const Arguments& a, const std::string& option, const std::string& text) {
    const auto v = parse_double(text);
    if (!v || *v <= 0) a.fail(option + " takes a positive number, not '" + text + "'");
    return *v;
}

}  // namespace

int run_run(std::span<const std::string> args) {
    const Arguments a(args,
                      {"--agent", "--budget", "--kernel-budget", "--hours", "--kernel", "--threshold", "--dtype", "--timeout", "--llm-endpoint",
                       "--llm-model", "--llm-key-env", "--command", "--strategy", "--seed", "--playbook",
                       "--max-reverts", "--target-speedup", "--ceiling-fraction", "--kernel-hours"},
                      {"--start-paused"}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "the session folder SESSION");
    const fs::path dir = a.positional()[0];

    // SIGINT and SIGTERM are blocked before anything can start a thread: a thread inherits the mask of
    // the thread that creates it, and the CUDA driver starts threads of its own when the GPU check
    // below initialises it. A process-directed Ctrl-C goes to any thread that does not block it, and
    // one such driver thread would take the default action and end the run at once, mid-evaluation.
    // The helper thread further down takes them with sigtimedwait() instead.
    const StopSignalsBlocked stop_signals_blocked;

    // Everything that can be checked without a GPU first, so usage errors are reported as such.
    AgentSettings agent_settings;
    agent_settings.kind = a.value("--agent").value_or("search");
    agent_settings.llm_endpoint = a.value("--llm-endpoint").value_or("");
    agent_settings.llm_model = a.value("--llm-model").value_or("");
    agent_settings.llm_key_env = a.value("--llm-key-env").value_or("");
    agent_settings.command_template = a.value("--command").value_or("");
    agent_settings.search_strategy = a.value("--strategy").value_or("");
    if (const auto s = a.value("--seed")) {
        const auto n = parse_int(*s);
        if (!n || *n <= 0) a.fail("--seed takes a positive whole number, not '" + *s + "'");
        agent_settings.seed = static_cast<std::uint64_t>(*n);
    }
    LoopBudget budget;
    if (const auto s = a.value("--budget")) {
        const auto n = parse_int(*s);
        if (!n || *n <= 0 || *n > 10'000'000) a.fail("--budget takes a positive whole number of experiments, not '" + *s + "'");
        budget.max_experiments = static_cast<int>(*n);
    }
    if (const auto s = a.value("--kernel-budget")) {
        const auto n = parse_int(*s);
        if (!n || *n <= 0 || *n > 10'000'000)
            a.fail("--kernel-budget takes a positive whole number of experiments per kernel, not '" + *s + "'");
        budget.max_experiments_per_kernel = static_cast<int>(*n);
    }
    if (const auto s = a.value("--hours"))
        budget.max_time = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double, std::ratio<3600>>(positive(a, "--hours", *s)));
    LoopOptions options;
    if (const auto s = a.value("--threshold")) {
        const auto f = parse_double(*s);
        if (!f || *f < 0 || *f >= 1) a.fail("--threshold is a fraction from 0 to below 1 (0.01 = 1%), not '" + *s + "'");
        options.keep_rule.threshold = *f;
    }
    if (const auto s = a.value("--dtype")) {
        if (!parse_kernel_dtype(*s)) a.fail("--dtype takes fp16, bf16 or fp32, not '" + *s + "'");
        options.timing_dtype = std::string(to_string(*parse_kernel_dtype(*s)));
    }
    if (const auto s = a.value("--timeout")) options.evaluation_timeout_s = positive(a, "--timeout", *s);
    options.start_paused = a.flag("--start-paused");
    const auto non_negative = [&a](const std::string& option, double* target) {
        if (const auto s = a.value(option)) {
            const auto v = parse_double(*s);
            if (!v || *v < 0) a.fail(option + " takes a number >= 0 (0 switches the rule off), not '" + *s + "'");
            *target = *v;
        }
    };
    double max_reverts = options.move_on.max_consecutive_reverts;
    non_negative("--max-reverts", &max_reverts);
    options.move_on.max_consecutive_reverts = static_cast<int>(max_reverts);
    non_negative("--target-speedup", &options.move_on.target_speedup);
    non_negative("--ceiling-fraction", &options.move_on.ceiling_fraction);
    non_negative("--kernel-hours", &options.move_on.max_hours);
    // The search agent keeps its never-twice cache in the session and reads the session's history.
    agent_settings.session_dir = dir;
    agent_settings.log = [](const std::string& line) { std::cerr << "autokernel run: agent: " << line << "\n"; };
    std::unique_ptr<Agent> agent = make_agent(agent_settings);

    Session session = Session::open(dir);
    for (const std::string& w : session.warnings()) std::cerr << "autokernel run: repaired: " << w << "\n";
    if (const auto k = a.value("--kernel")) {
        bool known = false;
        std::string names;
        for (const KernelEntry& e : session.info().kernels) {
            known = known || e.name == *k;
            names += (names.empty() ? "" : ", ") + e.name;
        }
        if (!known) a.fail("--kernel " + *k + ": the session has no such kernel (its kernels: " + names + ")");
        options.steering.target_kernel = *k;
    }

    const Preflight preflight = evaluator_preflight();
    std::string evaluator_path = preflight.evaluator_path;
    if (!preflight.ok()) {
        // Tests run the loop against a stand-in evaluator (AK_EVALUATOR) on machines without a GPU.
        const char* skip = std::getenv("AK_RUN_SKIP_GPU_CHECK");
        const auto path = find_evaluator_executable();
        if (!(skip && std::string(skip) == "1" && preflight.problem == PreflightProblem::NoGpu && path)) {
            std::cerr << "autokernel run: " << preflight.message << "\n";
            return kExitNoGpu;
        }
        evaluator_path = *path;
    }

    options.playbook = optional_text(playbook_path(a.value("--playbook")), "playbook");
    options.contract = optional_text(fs::path(kernels_include_dir()).parent_path() / "README.md", "kernel contract");
    options.tag = "run-" + utc_now_iso8601();

    EvaluatorClientOptions client_options;
    client_options.worker_path = evaluator_path;
    client_options.stderr_log_path = (dir / ".git" / "autokernel-evaluator.log").string();
    client_options.own_process_group = true;
    auto client = std::make_shared<EvaluatorClient>(client_options);
    ClientEvaluator evaluator(client);

    LoopController controller(session, evaluator, std::move(agent), options);
    ConsoleObserver console;
    controller.add_observer(&console);

    // A control file left by an earlier run is stale: nothing read it.
    std::error_code ec;
    if (fs::exists(control_file_path(dir), ec)) {
        std::cerr << "autokernel run: ignored a stale " << control_file_path(dir).string() << "\n";
        fs::remove(control_file_path(dir), ec);
    }

    // Signals and the control file are turned into commands by a helper thread; the loop applies them
    // between evaluations. SIGINT and SIGTERM are blocked in every thread and taken with sigtimedwait()
    // by that thread, so a Ctrl-C is posted at once (the evaluator worker gets its own signal mask).
    sigset_t stop_signals = stop_signals_blocked.signals();
    std::atomic<bool> done{false};
    std::thread control([&] {
        int signals = 0;
        const timespec poll{0, 100'000'000};
        while (!done) {
            if (::sigtimedwait(&stop_signals, nullptr, &poll) > 0) {
                if (++signals > 1) {  // second Ctrl-C: now (recording is crash-safe)
                    std::cerr << "[" << clock_time() << "] interrupted again: exiting now" << std::endl;
                    if (const int pid = g_worker_pid.load(); pid > 0) ::kill(-pid, SIGKILL);
                    std::_Exit(130);
                }
                std::cerr << "[" << clock_time() << "] interrupted: stopping after the current evaluation "
                          << "(Ctrl-C again to exit now)" << std::endl;
                controller.post(command::Stop{});
            }
            std::vector<std::string> errors;
            for (LoopCommand& c : take_control_commands(dir, &errors)) controller.post(std::move(c));
            for (const std::string& e : errors) std::cerr << "autokernel run: " << e << "\n";
        }
    });
    const auto restore = [&] {
        done = true;
        control.join();
        fs::remove(control_file_path(dir), ec);
    };
    try {
        controller.run(budget);
    } catch (...) {
        restore();
        throw;
    }
    restore();

    std::cout << "\n" << controller.experiments_run() << " experiments in this run; session "
              << session.experiments().size() << " experiments in all\n"
              << orchestrator_report(controller.kernel_statuses());
    return kExitOk;
}

int run_control(std::span<const std::string> args) {
    const Arguments a(args, {}, {}, kControlUsage);
    if (a.help()) {
        std::cout << kControlUsage;
        return kExitOk;
    }
    a.expect_positional(2, 3, a.positional().empty() ? "SESSION and COMMAND" : "COMMAND");
    const fs::path dir = a.positional()[0];
    std::string line = a.positional()[1];
    if (a.positional().size() == 3) line += " " + a.positional()[2];
    std::string error;
    if (!parse_control_line(line, &error)) a.fail(error.empty() ? "no command given" : error);
    if (!Session::is_session(dir)) throw Error(ErrorKind::NotASession, dir.string() + " is not a session");
    if (!session_has_writer(dir)) {
        std::cerr << "autokernel control: no `autokernel run` is working on " << dir.string()
                  << " (nothing would read the command)\n";
        return kExitFailure;
    }
    append_control_line(dir, line);
    std::cout << "sent '" << line << "' to the run on " << dir.string() << " (applied between evaluations)\n";
    return kExitOk;
}

}  // namespace ak::cli
