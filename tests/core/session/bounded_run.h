#pragma once
// Runs a piece of code in a forked child with a time limit, so a test can assert "no hang" and "no
// crash" without hanging or crashing itself.
#include "util/error.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <functional>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ak::testing {

struct BoundedRun {
    bool ok = false;         // returned normally
    bool timed_out = false;  // killed after the limit
    bool crashed = false;    // died of a signal, or threw something that is not an ak::Error
    std::string message;     // the ak::Error's message (or what happened)
};

inline BoundedRun run_bounded(double seconds, const std::function<void()>& body) {
    BoundedRun result;
    int fds[2];
    if (::pipe(fds) != 0) {
        result.message = "pipe failed";
        return result;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        std::string report;
        int code = 0;
        try {
            body();
            report = "ok";
        } catch (const Error& e) {
            report = e.what();
            code = 1;
        } catch (const std::exception& e) {
            report = std::string("not an ak::Error: ") + e.what();
            code = 2;
        }
        const char* p = report.data();
        std::size_t left = report.size();
        while (left > 0) {
            const ssize_t n = ::write(fds[1], p, left);
            if (n <= 0) break;
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        ::_exit(code);
    }
    ::close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::string text;
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;  // child finished writing
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (result.timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.message = text;
    if (result.timed_out) {
        result.message = "timed out after " + std::to_string(seconds) + " s";
    } else if (WIFSIGNALED(status)) {
        result.crashed = true;
        result.message = std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
    } else {
        result.ok = WEXITSTATUS(status) == 0;
        result.crashed = WEXITSTATUS(status) == 2;
    }
    return result;
}

}  // namespace ak::testing
