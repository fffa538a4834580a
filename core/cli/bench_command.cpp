// autokernel bench: one full evaluation of a candidate (compile, five correctness stages, timing
// against the strongest PyTorch baseline) in the evaluator worker process.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/evaluation_protocol.h"
#include "engine/evaluation_report.h"
#include "engine/evaluator_client.h"
#include "engine/evaluator_preflight.h"
#include "engine/kernel_contract.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel bench FILE.cu [--type TYPE] [--dtype DTYPE] [--check-dtypes LIST] [--shapes LIST]
                        [--seed N] [--timeout SECONDS] [--reference FILE.cu] [--iterations N] [--repeat N]
                        [--json]

Evaluates a candidate kernel on this machine's GPU in a separate evaluator process: NVRTC compile per
dtype, the five correctness stages (smoke, shape x dtype sweep, adversarial numerics, determinism,
edge sizes), then timing against the strongest PyTorch baseline with the L2 flushed between runs.
A candidate that fails is not timed.

  --type TYPE          matmul, softmax, layernorm, rmsnorm, flash_attention, fused_mlp, cross_entropy,
                       rotary_embedding, reduce. Default: the source's '// @autokernel type' line
  --dtype DTYPE        dtype to time in: fp16 (default), bf16 or fp32
  --check-dtypes LIST  dtypes of the correctness stages, e.g. fp16,bf16 (default: all three)
  --shapes LIST        shapes to time, e.g. 4096x8192,8192x8192 (attention: 2x32x1024x64:causal).
                       Default: AutoKernel's large size and one larger size
  --seed N             input seed (default: a fresh one, printed)
  --timeout SECONDS    the worker is killed after this long (default 120)
  --reference FILE.cu  also time this candidate (e.g. the current best) in the same run
  --iterations N       timing iterations per shape (default: the evaluator decides)
  --repeat N           evaluate N times on one persistent worker and report, on stderr, what reusing
                       the worker saves (worker start-up, first and later evaluation times); the
                       report shown is the last run's
  --json               print the result as JSON instead of tables

exit status: 0 PASS, 1 FAIL / COMPILE_ERROR / TIMEOUT / CRASH, 2 no GPU or no evaluator, 64 usage
)";

std::vector<DType> parse_dtype_list(const Arguments& a, std::string_view text) {
    std::vector<DType> out;
    for (auto part : split(text, ',')) {
        const auto d = parse_kernel_dtype(trim(part));
        if (!d) a.fail("unknown dtype '" + std::string(trim(part)) + "' (use fp16, bf16 or fp32)");
        out.push_back(*d);
    }
    return out;
}

std::string ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f ms", v);
    return buf;
}

// What the persistent worker saved over `run_ms.size()` evaluations of the same request.
std::string reuse_summary(const EvaluatorStats& stats, std::vector<double> run_ms) {
    std::string out = "worker reuse: " + std::to_string(run_ms.size()) + " evaluations, " +
                      std::to_string(stats.worker_starts) + " worker start(s)";
    if (stats.worker_starts > 0) out += ", start-up " + ms(stats.start_ms_total / stats.worker_starts) + " each";
    out += "\n  wall per evaluation (client side, including any start-up):";
    for (double v : run_ms) out += " " + ms(v);
    out += "\n";
    if (run_ms.size() > 1) {
        std::vector<double> later(run_ms.begin() + 1, run_ms.end());
        std::sort(later.begin(), later.end());
        const double median = later[later.size() / 2];
        out += "  first " + ms(run_ms.front()) + ", later median " + ms(median) + ": a fresh worker per evaluation would cost about " +
               ms(run_ms.front() - median) + " more each\n";
    }
    return out;
}

}  // namespace

int run_bench(std::span<const std::string> args) {
    const Arguments a(args,
                      {"--type", "--dtype", "--check-dtypes", "--shapes", "--seed", "--timeout", "--reference", "--iterations",
                       "--repeat"},
                      {"--json"}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "FILE.cu");
    const std::string file = a.positional()[0];

    // Everything that can be checked without a GPU comes first, so usage errors are reported as such.
    EvaluationRequest request;
    request.source = read_file(file);
    request.source_name = std::filesystem::path(file).filename().string();
    const KernelContract contract = parse_contract(request.source);
    if (!contract.ok())
        throw Error(ErrorKind::Usage, "the @autokernel contract of " + file + " has errors:\n" + contract.error_text(file));
    std::optional<KernelType> type;
    if (const auto t = a.value("--type")) {
        type = parse_kernel_type(*t);
        if (!type) a.fail("unknown kernel type '" + *t + "'");
        if (contract.type && *contract.type != *type)
            a.fail(file + ":" + std::to_string(contract.type_line) + " declares type " +
                   std::string(to_string(*contract.type)) + ", not " + *t);
    } else if (contract.type) {
        type = contract.type;
    } else {
        a.fail(file + " declares no '// @autokernel type' line: pass --type TYPE");
    }
    request.type = *type;
    if (const auto d = a.value("--dtype")) {
        const auto parsed = parse_dtype_list(a, *d);
        if (parsed.size() != 1) a.fail("--dtype takes one dtype (use --check-dtypes for the correctness stages)");
        request.timing_dtype = parsed.front();
    }
    if (const auto d = a.value("--check-dtypes")) request.dtypes = parse_dtype_list(a, *d);
    if (const auto s = a.value("--shapes")) request.timing_shapes = parse_shape_list(request.type, *s);
    if (const auto s = a.value("--seed")) {
        const auto seed = parse_int(*s);
        if (!seed || *seed <= 0) a.fail("--seed takes a positive whole number, not '" + *s + "'");
        request.seed = static_cast<std::uint64_t>(*seed);
    }
    if (const auto s = a.value("--timeout")) {
        const auto timeout = parse_double(*s);
        if (!timeout || *timeout <= 0) a.fail("--timeout takes a positive number of seconds, not '" + *s + "'");
        request.timeout_s = *timeout;
    }
    if (const auto s = a.value("--iterations")) {
        const auto n = parse_int(*s);
        if (!n || *n <= 0 || *n > 1000000) a.fail("--iterations takes a positive whole number, not '" + *s + "'");
        request.iterations_hint = static_cast<int>(*n);
    }
    if (const auto ref = a.value("--reference")) request.reference_source = read_file(*ref);
    int repeat = 1;
    if (const auto s = a.value("--repeat")) {
        const auto n = parse_int(*s);
        if (!n || *n <= 0 || *n > 1000) a.fail("--repeat takes a whole number from 1 to 1000, not '" + *s + "'");
        repeat = static_cast<int>(*n);
    }
    const bool json = a.flag("--json");

    const Preflight preflight = evaluator_preflight();
    if (!preflight.ok()) {
        std::cerr << "autokernel bench: " << preflight.message << "\n";
        return kExitNoGpu;
    }

    EvaluatorClientOptions options;
    options.worker_path = preflight.evaluator_path;
    if (::isatty(STDERR_FILENO)) {
        options.on_progress = [](const ProgressEvent& e) {
            std::cerr << "\r\033[K[" << e.stage << "] " << e.message << std::flush;
        };
    }
    EvaluatorClient client(options);
    EvaluationResult result;
    std::vector<double> run_ms;
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        result = client.evaluate(request);
        run_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (options.on_progress) std::cerr << "\r\033[K" << std::flush;
    if (repeat > 1) std::cerr << reuse_summary(client.stats(), run_ms);

    if (json)
        std::cout << encode_result_pretty(result) << "\n";
    else
        std::cout << format_evaluation_report(result, request.type, file);
    return result.verdict == Verdict::Pass ? kExitOk : kExitFailure;
}

}  // namespace ak::cli
