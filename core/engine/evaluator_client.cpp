#include "engine/evaluator_client.h"

#include "util/error.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ak {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Clock::time_point after(Clock::time_point t, double seconds) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

constexpr std::size_t kMaxLineBytes = 64u << 20;  // a result line longer than this is a protocol error

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

void set_nonblocking(int fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string format_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

EvaluationResult fault(std::uint64_t id, Verdict verdict, std::string detail) {
    EvaluationResult r;
    r.id = id;
    r.verdict = verdict;
    r.detail = std::move(detail);
    return r;
}

}  // namespace

std::string signal_description(int sig) {
    static const std::pair<int, const char*> names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
        {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"},
        {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"},
        {SIGUSR2, "SIGUSR2"}, {SIGALRM, "SIGALRM"}, {SIGXFSZ, "SIGXFSZ"},
    };
    std::string name = "signal " + std::to_string(sig);
    for (const auto& [number, text] : names)
        if (number == sig) name = text;
    const char* description = ::strsignal(sig);
    if (description) name += std::string(" (") + description + ")";
    return name;
}

std::optional<std::string> find_evaluator_executable() {
    if (const char* env = std::getenv("AK_EVALUATOR"); env && *env) return std::string(env);
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    const auto candidate = self.parent_path() / "autokernel-evaluator";
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
    return std::nullopt;
}

// ------------------------------------------------------------------------------------------------------

struct EvaluatorClient::Impl {
    EvaluatorClientOptions options;
    std::string path;
    mutable std::mutex mutex;

    pid_t pid = -1;
    int sock = -1;     // our end of the worker's stdin/stdout
    int err_fd = -1;   // read end of the worker's stderr
    std::string out_buffer;
    int served = 0;    // requests served by the current worker
    std::vector<pid_t> unreaped;  // killed workers that had not exited yet

    std::string tail;  // ring of the last stderr bytes
    std::ofstream log;
    std::uint64_t next_id = 0;
    EvaluatorStats stats;
    std::optional<ProgressEvent> last_progress;

    explicit Impl(EvaluatorClientOptions o) : options(std::move(o)) {
        if (!options.worker_path.empty())
            path = options.worker_path;
        else if (auto found = find_evaluator_executable())
            path = *found;
        if (!options.stderr_log_path.empty()) log.open(options.stderr_log_path, std::ios::app | std::ios::binary);
    }

    // ---- stderr ------------------------------------------------------------------------------------
    void keep_stderr(const char* data, std::size_t n) {
        if (log.is_open()) {
            log.write(data, static_cast<std::streamsize>(n));
            log.flush();
        }
        tail.append(data, n);
        if (tail.size() > options.stderr_tail_bytes) tail.erase(0, tail.size() - options.stderr_tail_bytes);
    }

    // Reads what is available on stderr; returns false at EOF.
    bool drain_stderr() {
        if (err_fd < 0) return false;
        char buf[8192];
        while (true) {
            const ssize_t n = ::read(err_fd, buf, sizeof buf);
            if (n > 0) {
                keep_stderr(buf, static_cast<std::size_t>(n));
                continue;
            }
            if (n == 0) {
                close_fd(err_fd);
                return false;
            }
            if (errno == EINTR) continue;
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
    }

    std::string stderr_quote() const {
        if (tail.empty()) return "";
        std::string t = tail;
        while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
        // Quote the last lines only; the full text is in the tail / log.
        std::size_t start = t.size();
        int lines = 0;
        while (start > 0 && lines < 20) {
            start = t.rfind('\n', start - 1);
            if (start == std::string::npos) {
                start = 0;
                break;
            }
            ++lines;
        }
        if (start > 0) ++start;
        return "\nworker stderr (last lines):\n" + t.substr(start);
    }

    // ---- process life ------------------------------------------------------------------------------
    void reap_leftovers() {
        for (auto it = unreaped.begin(); it != unreaped.end();) {
            int status = 0;
            const pid_t r = ::waitpid(*it, &status, WNOHANG);
            if (r == *it || (r < 0 && errno == ECHILD))
                it = unreaped.erase(it);
            else
                ++it;
        }
    }

    // Waits up to reap_timeout_s for the worker to exit; returns its wait status. A worker that is
    // still there after that is killed and reaped later (nullopt); nullopt too when it is not our child.
    std::optional<int> reap(pid_t p) {
        const auto deadline = after(Clock::now(), options.reap_timeout_s);
        while (true) {
            int status = 0;
            const pid_t r = ::waitpid(p, &status, WNOHANG);
            if (r == p) return status;
            if (r < 0 && errno != EINTR) return std::nullopt;  // not our child any more
            if (Clock::now() >= deadline) {
                ::kill(p, SIGKILL);
                unreaped.push_back(p);
                return std::nullopt;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }

    void forget_worker() {
        close_fd(sock);
        close_fd(err_fd);
        out_buffer.clear();
        pid = -1;
        served = 0;
    }

    void kill_worker() {
        if (pid <= 0) return;
        ::kill(pid, SIGKILL);
        const pid_t p = pid;
        drain_stderr();
        forget_worker();
        reap(p);
        ++stats.worker_kills;
    }

    // The worker hung up (EOF on its stdout): collect its last stderr and its exit status.
    std::string worker_died() {
        const pid_t p = pid;
        // Let it finish writing stderr (bounded: the pipe closes when it exits).
        const auto deadline = after(Clock::now(), options.reap_timeout_s);
        while (err_fd >= 0 && Clock::now() < deadline) {
            pollfd f{err_fd, POLLIN, 0};
            ::poll(&f, 1, 50);
            if (!drain_stderr()) break;
        }
        close_fd(sock);
        close_fd(err_fd);
        out_buffer.clear();
        pid = -1;
        served = 0;
        const auto status = reap(p);
        if (!status) return "worker (pid " + std::to_string(p) + ") closed its output but did not exit; killed";
        if (WIFSIGNALED(*status)) {
            std::string text = "worker (pid " + std::to_string(p) + ") was killed by " + signal_description(WTERMSIG(*status));
            if (WTERMSIG(*status) == SIGKILL) text += ", possibly by the out-of-memory killer";
            return text;
        }
        if (WIFEXITED(*status))
            return "worker (pid " + std::to_string(p) + ") exited with code " + std::to_string(WEXITSTATUS(*status));
        return "worker (pid " + std::to_string(p) + ") ended with wait status " + std::to_string(*status);
    }

    bool spawn(std::string* why) {
        reap_leftovers();
        if (path.empty()) {
            if (why)
                *why = "the evaluator worker (autokernel-evaluator) was not found next to this program; it is built "
                       "only when LibTorch is found (set AK_EVALUATOR to its path)";
            return false;
        }
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
            if (why) *why = errno_text("socketpair");
            return false;
        }
        int err_pipe[2];
        if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
            if (why) *why = errno_text("pipe2");
            ::close(pair[0]);
            ::close(pair[1]);
            return false;
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t empty_mask, defaults;
        sigemptyset(&empty_mask);
        sigemptyset(&defaults);
        for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) sigaddset(&defaults, s);
        posix_spawnattr_setsigmask(&attr, &empty_mask);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
        if (options.own_process_group) {
            posix_spawnattr_setpgroup(&attr, 0);
            flags |= POSIX_SPAWN_SETPGROUP;
        }
        posix_spawnattr_setflags(&attr, flags);

        std::vector<std::string> args{path};
        args.insert(args.end(), options.worker_args.begin(), options.worker_args.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        pid_t child = -1;
        // The worker exits when this process is gone (see the evaluator's main.cpp).
        std::vector<std::string> env_strings;
        for (char** e = environ; e && *e; ++e)
            if (std::strncmp(*e, "AK_EVALUATOR_CLIENT_PID=", 24) != 0) env_strings.emplace_back(*e);
        env_strings.push_back("AK_EVALUATOR_CLIENT_PID=" + std::to_string(::getpid()));
        std::vector<char*> envp;
        for (auto& e : env_strings) envp.push_back(e.data());
        envp.push_back(nullptr);
        const int rc = ::posix_spawn(&child, path.c_str(), &actions, &attr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        ::close(pair[1]);
        ::close(err_pipe[1]);
        if (rc != 0) {
            if (why) *why = "cannot start the evaluator worker " + path + ": " + std::strerror(rc);
            ::close(pair[0]);
            ::close(err_pipe[0]);
            return false;
        }
        pid = child;
        sock = pair[0];
        err_fd = err_pipe[0];
        set_nonblocking(sock);
        set_nonblocking(err_fd);
        served = 0;
        out_buffer.clear();
        ++stats.worker_starts;
        return true;
    }

    // ---- one exchange ------------------------------------------------------------------------------
    enum class Outcome { Result, TimedOut, Died, ProtocolError, SendFailed };

    struct Exchange {
        Outcome outcome = Outcome::Result;
        EvaluationResult result;
        std::string problem;
    };

    // Writes `line` + '\n' and reads lines until the result with `id` arrives.
    Exchange exchange(const std::string& line, std::uint64_t id, Clock::time_point deadline) {
        Exchange ex;
        last_progress.reset();
        std::string pending = line + "\n";
        std::size_t sent = 0;
        char buf[65536];
        while (true) {
            const auto now = Clock::now();
            if (now >= deadline) {
                ex.outcome = Outcome::TimedOut;
                return ex;
            }
            const int wait_ms = static_cast<int>(
                std::min<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1, 1000));
            pollfd fds[2];
            nfds_t n = 0;
            fds[n++] = {sock, static_cast<short>(POLLIN | (sent < pending.size() ? POLLOUT : 0)), 0};
            if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
            const int ready = ::poll(fds, n, wait_ms);
            if (ready < 0) {
                if (errno == EINTR) continue;
                ex.outcome = Outcome::ProtocolError;
                ex.problem = errno_text("poll");
                return ex;
            }
            if (n > 1 && fds[1].revents) drain_stderr();
            if (sent < pending.size() && (fds[0].revents & POLLOUT)) {
                const ssize_t w = ::send(sock, pending.data() + sent, pending.size() - sent, MSG_NOSIGNAL);
                if (w > 0) {
                    sent += static_cast<std::size_t>(w);
                } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    ex.outcome = sent == 0 ? Outcome::SendFailed : Outcome::Died;
                    ex.problem = errno_text("writing to the worker");
                    return ex;
                }
            }
            if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                bool eof = false;
                while (true) {
                    const ssize_t r = ::recv(sock, buf, sizeof buf, 0);
                    if (r > 0) {
                        out_buffer.append(buf, static_cast<std::size_t>(r));
                        continue;
                    }
                    if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) eof = true;
                    if (r < 0 && errno == EINTR) continue;
                    break;
                }
                // Complete lines first: a worker may write its result and exit at once.
                std::size_t nl;
                while ((nl = out_buffer.find('\n')) != std::string::npos) {
                    std::string text = out_buffer.substr(0, nl);
                    out_buffer.erase(0, nl + 1);
                    if (!text.empty() && text.back() == '\r') text.pop_back();
                    if (text.empty()) continue;
                    WorkerMessage message;
                    try {
                        message = decode_worker_line(text);
                    } catch (const Error& e) {
                        ex.outcome = Outcome::ProtocolError;
                        ex.problem = e.what();
                        return ex;
                    }
                    if (auto* progress = std::get_if<ProgressEvent>(&message)) {
                        if (progress->id != id) {
                            ex.outcome = Outcome::ProtocolError;
                            ex.problem = "progress event for request " + std::to_string(progress->id) +
                                         " while request " + std::to_string(id) + " was running";
                            return ex;
                        }
                        last_progress = *progress;
                        if (options.on_progress) {
                            try {
                                options.on_progress(*progress);
                            } catch (...) {
                                // A failing observer must not break the evaluation.
                            }
                        }
                        continue;
                    }
                    auto& result = std::get<EvaluationResult>(message);
                    if (result.id != id) {
                        ex.outcome = Outcome::ProtocolError;
                        ex.problem = "result for request " + std::to_string(result.id) + " while request " +
                                     std::to_string(id) + " was running";
                        return ex;
                    }
                    ex.result = std::move(result);
                    ex.outcome = Outcome::Result;
                    return ex;
                }
                if (out_buffer.size() > kMaxLineBytes) {
                    ex.outcome = Outcome::ProtocolError;
                    ex.problem = "worker wrote more than " + std::to_string(kMaxLineBytes >> 20) + " MiB without a newline";
                    return ex;
                }
                if (eof) {
                    ex.outcome = Outcome::Died;
                    if (!out_buffer.empty()) {
                        ex.problem = "unfinished output line: '" + out_buffer.substr(0, 200) + "'";
                    }
                    return ex;
                }
            }
        }
    }

    std::string progress_note() const {
        if (!last_progress) return "";
        std::string note = " during " + last_progress->stage;
        if (!last_progress->message.empty()) note += " (" + last_progress->message + ")";
        return note;
    }

    // Between requests a healthy worker neither exits nor writes. Replaces a worker that did either;
    // returns true when it was replaced.
    bool replace_if_idle_worker_gone() {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            drain_stderr();
            forget_worker();
            return true;
        }
        pollfd f{sock, POLLIN, 0};
        if (::poll(&f, 1, 0) > 0 && f.revents != 0) {
            const pid_t p = pid;
            ::kill(p, SIGKILL);  // not reaped yet, so the pid is still ours
            drain_stderr();
            forget_worker();
            reap(p);
            return true;
        }
        return false;
    }

    bool start_locked(std::string* why) {
        if (pid > 0) return true;
        const auto t0 = Clock::now();
        if (!spawn(why)) {
            ++stats.failed_starts;
            return false;
        }
        const std::uint64_t id = ++next_id;
        EvaluationRequest ping;
        ping.id = id;
        ping.op = RequestOp::Ping;
        ping.timeout_s = options.start_timeout_s;
        const auto deadline = after(t0, options.start_timeout_s);
        Exchange ex = exchange(encode_request(ping), id, deadline);
        if (ex.outcome == Outcome::Result && !ex.result.worker_exiting) {
            stats.last_start_ms = ms_since(t0);
            stats.start_ms_total += stats.last_start_ms;
            return true;
        }
        ++stats.failed_starts;
        std::string reason;
        switch (ex.outcome) {
        case Outcome::Result: reason = "it answered the handshake but announced that it exits: " + ex.result.detail; break;
        case Outcome::TimedOut:
            reason = "it did not answer the start-up ping within " + format_seconds(options.start_timeout_s) + " s";
            break;
        case Outcome::ProtocolError: reason = "protocol error: " + ex.problem; break;
        case Outcome::Died:
        case Outcome::SendFailed: reason = worker_died(); break;
        }
        if (pid > 0) kill_worker();
        if (why) *why = "the evaluator worker " + path + " failed to start: " + reason + stderr_quote();
        return false;
    }

    EvaluationResult evaluate_locked(const EvaluationRequest& request) {
        const std::uint64_t id = ++next_id;
        EvaluationRequest req = request;
        req.id = id;
        ++stats.requests;

        // A worker that died while idle (or after a sticky error) is replaced before sending.
        if (pid > 0) replace_if_idle_worker_gone();
        std::string why;
        bool started_now = false;
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (pid <= 0) {
                if (!start_locked(&why)) return fault(id, Verdict::Crash, why);
                started_now = true;
            }
            const bool reusing = served > 0;
            const auto t0 = Clock::now();
            const auto deadline = after(t0, req.timeout_s);
            Exchange ex = exchange(encode_request(req), id, deadline);
            if (ex.outcome == Outcome::SendFailed && !started_now) {
                // The idle worker had gone away; start a fresh one and send again.
                worker_died();
                continue;
            }
            const pid_t worker = pid;
            const double elapsed = ms_since(t0);
            switch (ex.outcome) {
            case Outcome::Result: {
                ++served;
                if (reusing) {
                    ++stats.reused;
                    stats.reused_request_ms_total += elapsed;
                } else {
                    stats.first_request_ms_total += elapsed;
                }
                EvaluationResult r = std::move(ex.result);
                r.worker_pid = worker;
                if (r.wall_ms <= 0) r.wall_ms = elapsed;
                if (r.worker_exiting) {
                    // Sticky CUDA error: the worker exits by itself; reap it now so the next request
                    // starts a clean process.
                    const pid_t p = pid;
                    drain_stderr();
                    forget_worker();
                    reap(p);
                }
                return r;
            }
            case Outcome::TimedOut: {
                const std::string note = progress_note();
                kill_worker();
                return fault(id, Verdict::Timeout,
                             "no result within " + format_seconds(req.timeout_s) + " s" + note + "; worker (pid " +
                                 std::to_string(worker) + ") killed");
            }
            case Outcome::ProtocolError: {
                const std::string note = progress_note();
                kill_worker();
                return fault(id, Verdict::Crash,
                             "protocol error from the evaluator worker" + note + ": " + ex.problem + "; worker (pid " +
                                 std::to_string(worker) + ") killed" + stderr_quote());
            }
            case Outcome::Died:
            case Outcome::SendFailed: {
                const std::string note = progress_note();
                const std::string how = worker_died();
                ++stats.worker_deaths;
                std::string detail = how + note;
                if (!ex.problem.empty()) detail += "; " + ex.problem;
                return fault(id, Verdict::Crash, detail + stderr_quote());
            }
            }
        }
        return fault(id, Verdict::Crash, "the evaluator worker went away twice before it could take the request");
    }

    void shutdown_locked() {
        if (pid <= 0) {
            reap_leftovers();
            return;
        }
        const pid_t p = pid;
        close_fd(sock);  // EOF on its stdin: a healthy worker exits
        const auto deadline = Clock::now() + std::chrono::seconds(2);
        bool exited = false;
        while (Clock::now() < deadline) {
            int status = 0;
            const pid_t r = ::waitpid(p, &status, WNOHANG);
            if (r == p || (r < 0 && errno == ECHILD)) {
                exited = true;
                break;
            }
            drain_stderr();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!exited) {
            ::kill(p, SIGKILL);
            reap(p);
        }
        drain_stderr();
        forget_worker();
        reap_leftovers();
    }
};

EvaluatorClient::EvaluatorClient(EvaluatorClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

EvaluatorClient::~EvaluatorClient() { shutdown(); }

EvaluationResult EvaluatorClient::evaluate(const EvaluationRequest& request) {
    std::lock_guard lock(impl_->mutex);
    try {
        return impl_->evaluate_locked(request);
    } catch (const std::exception& e) {
        impl_->kill_worker();
        return fault(impl_->next_id, Verdict::Crash, std::string("evaluator client failure: ") + e.what());
    } catch (...) {
        impl_->kill_worker();
        return fault(impl_->next_id, Verdict::Crash, "evaluator client failure (unknown exception)");
    }
}

bool EvaluatorClient::start(std::string* why) {
    std::lock_guard lock(impl_->mutex);
    try {
        return impl_->start_locked(why);
    } catch (const std::exception& e) {
        impl_->kill_worker();
        if (why) *why = e.what();
        return false;
    }
}

void EvaluatorClient::shutdown() {
    std::lock_guard lock(impl_->mutex);
    impl_->shutdown_locked();
}

std::optional<int> EvaluatorClient::worker_pid() const {
    std::lock_guard lock(impl_->mutex);
    if (impl_->pid > 0) return impl_->pid;
    return std::nullopt;
}

EvaluatorStats EvaluatorClient::stats() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stats;
}

std::string EvaluatorClient::stderr_tail() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->tail;
}

const std::string& EvaluatorClient::worker_path() const { return impl_->path; }

}  // namespace ak
