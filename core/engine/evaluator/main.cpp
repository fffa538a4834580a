// autokernel-evaluator: the evaluator worker process. Reads one JSON request per line on stdin, writes
// progress events and exactly one JSON result per request on stdout (engine/evaluation_protocol.h),
// logs to stderr. Started and supervised by ak::EvaluatorClient, which kills it on a timeout.
//
// stdout belongs to the protocol alone: at start-up the real stdout is kept on a private descriptor
// and descriptor 1 is pointed at stderr, so nothing a library prints can corrupt the protocol.
//
// When the client dies the worker exits too, even in the middle of a hanging kernel: a watchdog thread
// sees the parent change (the protocol socket's end of file is only read between requests).
// PR_SET_PDEATHSIG is not used because it fires when the spawning *thread* ends, and clients spawn
// workers from their loop threads.
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/loaded_libraries.h"
#include "engine/evaluator/worker.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

FILE* g_protocol = nullptr;

// Writes one protocol line and flushes it; a closed pipe means the client is gone: exit quietly.
void write_line(const std::string& line) {
    if (std::fwrite(line.data(), 1, line.size(), g_protocol) != line.size() || std::fputc('\n', g_protocol) == EOF ||
        std::fflush(g_protocol) != 0) {
        std::cerr << "autokernel-evaluator: cannot write to the client (" << std::strerror(errno) << "); exiting\n";
        std::_Exit(4);
    }
}

// The id of a request that could not be decoded, when it has a readable one.
std::uint64_t salvage_id(const std::string& line) {
    try {
        const auto j = nlohmann::json::parse(line);
        if (j.is_object() && j.contains("id") && j["id"].is_number_unsigned()) return j["id"].get<std::uint64_t>();
    } catch (...) {
    }
    return 0;
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r\n") == std::string::npos; }

// Exits the process (status 5) once the client that started it is gone. The client names itself in
// AK_EVALUATOR_CLIENT_PID (ak::EvaluatorClient sets it), which also catches a client that died while this
// process was still loading its libraries; without it, the parent at start-up is the client.
void watch_parent() {
    pid_t parent = ::getppid();
    if (const char* env = std::getenv("AK_EVALUATOR_CLIENT_PID"); env && *env) parent = static_cast<pid_t>(std::atol(env));
    std::thread([parent] {
        while (true) {
            if (::getppid() != parent) {
                std::fprintf(stderr, "autokernel-evaluator: the client (pid %d) is gone; exiting\n", int(parent));
                std::_Exit(5);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
    }).detach();
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::printf("usage: autokernel-evaluator\n"
                        "The AutoKernel evaluator worker: JSON requests on stdin (one per line), JSON results on stdout.\n"
                        "It is started by the autokernel CLI and GUI; you do not normally run it yourself.\n");
            return 0;
        }
        std::fprintf(stderr, "autokernel-evaluator: unknown argument '%s' (try --help)\n", argv[i]);
        return 64;
    }
    std::signal(SIGPIPE, SIG_IGN);
    watch_parent();

    // Keep the protocol channel private; everything else printed to stdout goes to stderr.
    const int protocol_fd = ::dup(STDOUT_FILENO);
    if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::perror("autokernel-evaluator: dup");
        return 4;
    }
    g_protocol = ::fdopen(protocol_fd, "w");
    if (!g_protocol) {
        std::perror("autokernel-evaluator: fdopen");
        return 4;
    }

    ak::eval::Worker worker;
    std::cerr << "autokernel-evaluator: pid " << ::getpid() << ", CUDA libraries loaded: "
              << ak::eval::describe_loaded_libraries(ak::eval::loaded_cuda_libraries()) << "\n";

    std::string line;
    while (std::getline(std::cin, line)) {
        if (blank(line)) continue;
        ak::EvaluationRequest request;
        try {
            request = ak::decode_request(line);
        } catch (const std::exception& e) {
            auto r = ak::eval::crash_result(salvage_id(line), std::string("bad request: ") + e.what(), false);
            write_line(ak::encode_result(r));
            continue;
        }
        const auto result = worker.handle(request, [](const ak::ProgressEvent& e) { write_line(ak::encode_progress(e)); });
        write_line(ak::encode_result(result));
        if (result.worker_exiting) {
            std::cerr << "autokernel-evaluator: exiting with code " << worker.exit_code() << " (" << result.detail << ")\n";
            std::fflush(stderr);
            // No static destructors: after a sticky error they would call into a broken CUDA context.
            std::_Exit(worker.exit_code() != 0 ? worker.exit_code() : 3);
        }
    }
    std::fflush(g_protocol);
    return worker.exit_code() == 2 ? 2 : 0;
}
