// A stand-in for autokernel-evaluator that speaks the evaluation protocol and misbehaves on request,
// so EvaluatorClient's isolation is tested without a GPU or LibTorch. The request's `source` says what
// to do:
//   "pass"       reply PASS (with the worker's pid in worker_pid and the request's seed echoed)
//   "progress"   two progress events, then PASS
//   "hang"       sleep forever without answering
//   "segv"       write a line to stderr, then raise SIGSEGV
//   "garbage"    print a line that is not JSON
//   "wrong-id"   reply with an id that was not asked for
//   "sticky"     reply CRASH flagged worker_exiting (a sticky CUDA error), then exit(3)
//   "exit7"      exit with code 7 without answering
//   "big"        reply PASS with a 1 MiB detail (longer than a pipe buffer)
// Ping and device requests are answered at once. With `--hang-on-ping` the start-up handshake never
// completes; with `--garbage-on-start` the worker prints junk before reading anything.
#include "engine/evaluation_protocol.h"

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

void reply(const std::string& line) {
    std::cout << line << '\n' << std::flush;
}

[[noreturn]] void hang() {
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

int main(int argc, char** argv) {
    bool hang_on_ping = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--hang-on-ping") == 0) hang_on_ping = true;
        if (std::strcmp(argv[i], "--garbage-on-start") == 0) reply("hello from a confused worker");
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        ak::EvaluationRequest request;
        try {
            request = ak::decode_request(line);
        } catch (const std::exception& e) {
            std::cerr << "fake worker: bad request: " << e.what() << '\n';
            return 2;
        }
        ak::EvaluationResult result;
        result.id = request.id;
        result.verdict = ak::Verdict::Pass;
        result.worker_pid = static_cast<int>(::getpid());
        result.device = "fake GPU";
        if (request.op == ak::RequestOp::Ping) {
            if (hang_on_ping) hang();
            reply(ak::encode_result(result));
            continue;
        }
        if (request.op != ak::RequestOp::Evaluate) {
            reply(ak::encode_result(result));
            continue;
        }
        const std::string& what = request.source;
        result.seed = request.seed;
        if (what == "pass") {
            reply(ak::encode_result(result));
        } else if (what == "progress") {
            reply(ak::encode_progress({request.id, "compile", "fp16"}));
            reply(ak::encode_progress({request.id, "smoke", "64x1024 fp16"}));
            reply(ak::encode_result(result));
        } else if (what == "hang") {
            reply(ak::encode_progress({request.id, "timing", "4096x4096 fp16"}));
            hang();
        } else if (what == "segv") {
            reply(ak::encode_progress({request.id, "sweep", "1024x4096 bf16"}));
            std::cerr << "fake worker: about to dereference a bad pointer\n" << std::flush;
            std::signal(SIGSEGV, SIG_DFL);
            std::raise(SIGSEGV);
        } else if (what == "garbage") {
            reply("this is not json {");
        } else if (what == "wrong-id") {
            result.id = request.id + 1000;
            reply(ak::encode_result(result));
        } else if (what == "sticky") {
            result.verdict = ak::Verdict::Crash;
            result.detail = "CUDA error 700 (CUDA_ERROR_ILLEGAL_ADDRESS) in ak_kernel0; the context is unusable";
            result.worker_exiting = true;
            reply(ak::encode_result(result));
            std::cerr << "fake worker: sticky CUDA error, exiting\n";
            return 3;
        } else if (what == "exit7") {
            std::cerr << "fake worker: giving up\n";
            return 7;
        } else if (what == "big") {
            result.detail.assign(1 << 20, 'x');
            reply(ak::encode_result(result));
        } else {
            result.verdict = ak::Verdict::Fail;
            result.failed_stage = ak::CheckStage::Smoke;
            result.detail = "fake worker: unknown behaviour '" + what + "'";
            reply(ak::encode_result(result));
        }
    }
    return 0;
}
