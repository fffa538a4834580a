// autokernel ceilings: measures what this GPU really reaches (device copies of several sizes, cuBLAS
// GEMMs per dtype) in the evaluator process; memory-bound kernels are judged against the copy,
// compute-bound ones against the GEMM.
#include "analysis/gpu_specs.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/evaluation_protocol.h"
#include "engine/evaluation_report.h"
#include "engine/evaluator_client.h"
#include "engine/evaluator_preflight.h"
#include "util/text.h"

#include <iostream>

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel ceilings [--timeout SECONDS] [--json]

Measures this GPU's ceilings in the evaluator process: device-to-device copy bandwidth at several
sizes (read + write counted) and cuBLAS GEMM throughput per dtype, and compares them with the
datasheet. Without a GPU, or when the evaluator was not built, it says so and exits with status 2.

  --timeout SECONDS  the worker is killed after this long (default 600)
  --json             print the measurement as JSON; saved as SESSION/ceilings.json, the workbench's
                     Roofline page draws it as the measured roofs of that session
)";

}  // namespace

int run_ceilings(std::span<const std::string> args) {
    const Arguments a(args, {"--timeout"}, {"--json"}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(0, 0, "");
    EvaluationRequest request;
    request.op = RequestOp::Ceilings;
    request.timeout_s = 600;
    if (const auto s = a.value("--timeout")) {
        const auto timeout = parse_double(*s);
        if (!timeout || *timeout <= 0) a.fail("--timeout takes a positive number of seconds, not '" + *s + "'");
        request.timeout_s = *timeout;
    }

    const Preflight preflight = evaluator_preflight();
    if (!preflight.ok()) {
        std::cerr << "autokernel ceilings: " << preflight.message << "\n";
        return kExitNoGpu;
    }
    EvaluatorClientOptions options;
    options.worker_path = preflight.evaluator_path;
    EvaluatorClient client(options);
    const EvaluationResult result = client.evaluate(request);
    if (result.verdict != Verdict::Pass || !result.ceilings) {
        std::cerr << "autokernel ceilings: the measurement failed: " << summary_line(result) << "\n";
        if (!result.detail.empty() && result.detail.find('\n') != std::string::npos) std::cerr << result.detail << "\n";
        return kExitFailure;
    }
    if (a.flag("--json")) {
        std::cout << encode_ceilings(*result.ceilings) << "\n";
        return kExitOk;
    }
    const auto spec = find_gpu_spec(preflight.device.name, preflight.device.cc_major, preflight.device.cc_minor);
    std::cout << format_ceilings_report(*result.ceilings, spec ? &*spec : nullptr);
    return kExitOk;
}

}  // namespace ak::cli
