#pragma once
// Runs evaluations in a child process, the evaluator worker (`autokernel-evaluator`), so a candidate
// that hangs, hits an illegal address (a sticky CUDA error that poisons the whole process) or
// allocates wildly never takes down the caller.
//
// The worker is started on the first request, answers a ping (the start-up handshake), and is then
// reused for every later request. The client talks to it over a socket pair (its stdin and stdout,
// one JSON line each way, see evaluation_protocol.h) and reads its stderr into a ring buffer.
//   - no result within the request's timeout_s: the worker is killed (SIGKILL) and reaped, the
//     verdict is TIMEOUT, and the next request starts a fresh worker;
//   - the worker dies (EOF): CRASH naming the signal (SIGSEGV, ...) or exit code, the last progress
//     stage and the tail of its stderr;
//   - the worker prints something that is not a protocol line: CRASH "protocol error", worker killed;
//   - a result flagged worker_exiting (sticky CUDA error): the worker is reaped and restarted next time.
// evaluate() never throws for any of these; it returns a result with the verdict.
//
// One evaluation at a time per client (calls are serialised by a mutex). Not fork-safe.
#include "engine/evaluation_protocol.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ak {

struct EvaluatorClientOptions {
    std::string worker_path;               // empty: find_evaluator_executable()
    std::vector<std::string> worker_args;  // extra arguments after the program name
    double start_timeout_s = 60;           // from spawn until the worker answers its first ping
    double reap_timeout_s = 10;            // how long to wait for a killed worker to disappear
    std::size_t stderr_tail_bytes = 16 * 1024;  // kept in memory, quoted in CRASH details
    std::string stderr_log_path;           // when set, every byte of worker stderr is appended here
    std::function<void(const ProgressEvent&)> on_progress;  // called on the calling thread
    // Start the worker in a process group of its own, so a terminal's Ctrl-C (sent to the whole
    // foreground group) reaches only the caller, which can let the current evaluation finish
    // (`autokernel run`). The caller then owns stopping the worker.
    bool own_process_group = false;
};

// What the persistent worker saves: compare start_ms_total with what `reused` requests would have
// paid for a fresh process each (start-up plus the first request's extra cost).
struct EvaluatorStats {
    int worker_starts = 0;      // processes spawned
    int failed_starts = 0;      // spawns that never answered the handshake
    int worker_kills = 0;       // killed by the client (timeouts, protocol errors)
    int worker_deaths = 0;      // died on their own (crashes, exits) while serving a request
    int requests = 0;
    int reused = 0;             // requests served by a worker that had already served one
    double last_start_ms = 0;   // spawn to handshake reply of the latest worker
    double start_ms_total = 0;
    double first_request_ms_total = 0;   // first request of each worker (includes its CUDA set-up)
    double reused_request_ms_total = 0;  // requests on an already-used worker
};

class EvaluatorClient {
public:
    explicit EvaluatorClient(EvaluatorClientOptions options = {});
    ~EvaluatorClient();  // shuts the worker down
    EvaluatorClient(const EvaluatorClient&) = delete;
    EvaluatorClient& operator=(const EvaluatorClient&) = delete;

    // Sends `request` (its id is replaced by the client's own counter) and waits for the result, at
    // most request.timeout_s seconds after sending. Starts or restarts the worker as needed.
    EvaluationResult evaluate(const EvaluationRequest& request);

    // Starts the worker now (otherwise the first request does). Returns false, with the reason in
    // *why, when it cannot start or does not answer the handshake within start_timeout_s.
    bool start(std::string* why = nullptr);
    // Closes the worker's stdin (it exits on EOF), waits briefly, then kills it. Idempotent.
    void shutdown();

    std::optional<int> worker_pid() const;  // the running worker, if any
    EvaluatorStats stats() const;
    std::string stderr_tail() const;        // the last stderr_tail_bytes the workers wrote
    const std::string& worker_path() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The worker binary: env AK_EVALUATOR when set (returned even if it does not exist, so the error names
// it), else `autokernel-evaluator` next to the running executable (/proc/self/exe), else nullopt.
std::optional<std::string> find_evaluator_executable();

// "SIGSEGV (Segmentation fault)" for a signal number.
std::string signal_description(int signal_number);

}  // namespace ak
