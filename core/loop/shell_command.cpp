#include "loop/shell_command.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ak {

namespace {

using Clock = std::chrono::steady_clock;

int open_output(const std::filesystem::path& path) {
    const char* p = path.empty() ? "/dev/null" : path.c_str();
    return ::open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// Waits for `pid` until `deadline`; true (and *status set) when it was reaped.
bool wait_until(pid_t pid, Clock::time_point deadline, int* status) {
    while (true) {
        const pid_t r = ::waitpid(pid, status, WNOHANG);
        if (r == pid) return true;
        if (r < 0 && errno != EINTR) return true;  // ECHILD: nothing left to wait for
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

std::string shell_quote(std::string_view text) {
    bool safe = !text.empty();
    for (char c : text) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        std::strchr("_./+:=,@%-", c) != nullptr;
        if (!ok) safe = false;
    }
    if (safe) return std::string(text);
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

ShellResult run_shell_command(const ShellCommand& cmd) {
    ShellResult result;
    // Everything the child needs is prepared before fork(): after it, in a possibly multithreaded
    // process, the child only makes async-signal-safe calls.
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        bool replaced = false;
        for (const auto& [name, value] : cmd.env)
            if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=') replaced = true;
        if (!replaced) env_strings.emplace_back(entry);
    }
    for (const auto& [name, value] : cmd.env) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string shell = "/bin/sh", dash_c = "-c", line = cmd.command;
    char* argv[] = {shell.data(), dash_c.data(), line.data(), nullptr};
    const std::string workdir = cmd.workdir.string();

    int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open_output(cmd.stdout_file);
    int err = open_output(cmd.stderr_file);
    int report[2] = {-1, -1};  // the child writes errno here when exec fails; closed by a successful exec
    if (in < 0 || out < 0 || err < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
        result.error = std::string("cannot prepare the command's files: ") + std::strerror(errno);
        close_fd(in), close_fd(out), close_fd(err), close_fd(report[0]), close_fd(report[1]);
        return result;
    }

    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigset_t no_signals;
    sigemptyset(&no_signals);

    const auto started = Clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::string("fork failed: ") + std::strerror(errno);
        close_fd(in), close_fd(out), close_fd(err), close_fd(report[0]), close_fd(report[1]);
        return result;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        int e = 0;
        if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) e = errno;
        if (!e && !workdir.empty() && ::chdir(workdir.c_str()) != 0) e = errno;
        if (!e) {
            // Default signal handling and no blocked signals for the command, whatever the parent set
            // (exec keeps ignored signals ignored and the mask as it was).
            for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(sig, &default_action, nullptr);
            ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
            ::execve(argv[0], argv, envp.data());
            e = errno;
        }
        [[maybe_unused]] const ssize_t w = ::write(report[1], &e, sizeof e);
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here, so the group exists before anyone signals it
    result.pid = pid;
    close_fd(in), close_fd(out), close_fd(err), close_fd(report[1]);
    int child_errno = 0;
    ssize_t got;
    do got = ::read(report[0], &child_errno, sizeof child_errno);
    while (got < 0 && errno == EINTR);
    close_fd(report[0]);
    int status = 0;
    if (got == static_cast<ssize_t>(sizeof child_errno)) {
        wait_until(pid, Clock::time_point::max(), &status);
        result.error = "cannot run /bin/sh -c in " + (workdir.empty() ? std::string(".") : workdir) + ": " +
                       std::strerror(child_errno);
        return result;
    }
    result.started = true;

    const auto deadline = started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cmd.timeout_s));
    bool reaped = wait_until(pid, deadline, &status);
    if (!reaped) {
        result.timed_out = true;
        ::kill(-pid, SIGTERM);
        const auto grace = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cmd.kill_grace_s));
        reaped = wait_until(pid, grace, &status);
        ::kill(-pid, SIGKILL);  // the shell and whatever it started, even if the shell already left
        if (!reaped) wait_until(pid, Clock::time_point::max(), &status);
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

}  // namespace ak
