// autokernel verify: a whole model run unmodified and with the session's best kernels substituted, in
// the evaluator process; the result goes to <session>/verify.json (session/verify_report.h).
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/builtin_models.h"
#include "engine/evaluation_protocol.h"
#include "engine/evaluator_client.h"
#include "engine/evaluator_preflight.h"
#include "engine/kernel_type.h"
#include "engine/verify_protocol.h"
#include "session/session.h"
#include "session/verify_model_default.h"
#include "session/verify_report.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <unistd.h>

namespace ak::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage = R"(usage: autokernel verify SESSION [--model NAME [--batch B] [--seq S] [--dtype D]]
                         [--torchscript FILE --input SPEC [--input SPEC ...]]
                         [--kernel NAME ...] [--unevaluated] [--faster-only [--min-speedup X]] [--iterations N] [--warmup N]
                         [--passes N] [--no-graphs] [--seed N] [--any-shape]
                         [--no-layout-copies] [--check-only] [--timeout SECONDS] [--no-save] [--json]

Runs a whole model twice on the same inputs, in the evaluator process: unmodified, and with the
session's best kernels (kernels/<name>.cu at the session branch's tip) substituted for the ATen ops of
their types (matmul: mm/addmm, softmax, layernorm, rmsnorm, flash_attention: SDPA, cross_entropy, reduce:
sum over the last dim) and, in the built-in models, for the fused patterns (SwiGLU MLP, rotary embedding).
A call goes to our kernel only at a dtype and shape the harness verified it at; every other call runs
ATen's kernel and is counted. Reports the output agreement, the latencies of the unmodified model, the
unmodified model again (the A/A control: its ratio is the run's noise floor) and ours, interleaved, as
CUDA graph replays (GPU time) and as eager passes (host launches included), the measured speedup next to the one Amdahl's law predicts from the session's shares and the kernels'
speedups, and coverage per type. The result is stored in SESSION/verify.json.

  --model NAME         a built-in model: gpt2, llama-160m, llama-7b-layers, bert-base (default: the
                       model, batch, seq and dtype of the profile the session was made from)
  --batch B, --seq S   its batch and sequence length (default: the model's, 8 x 1024)
  --dtype D            fp16 (default), bf16 or fp32
  --torchscript FILE   a TorchScript model instead (torch.jit.save), with its inputs:
  --input SPEC         SHAPE:DTYPE[:LOW-HIGH], e.g. 8x1024:int64:0-50257 (integers in [LOW, HIGH), default 0-2)
                       or 8x64x768:fp16 (normal random); one per forward() argument, in order
  --kernel NAME        substitute only these session kernels (repeatable; default: every kernel)
  --unevaluated        also substitute kernels the harness has not passed in this session yet (e.g.
                       right after `autokernel new`); by default only evaluated kernels are
  --faster-only        substitute only kernels whose best experiment beat PyTorch at their shapes by
                       more than --min-speedup X (default 1.05): a kernel within a few percent of
                       PyTorch there may lose in the model (layout copies, a warm L2)
  --iterations N       timed samples of each model per timing mode (default 30), after --warmup N (default 3)
  --passes N           forward passes per sample (default: enough for about 5 ms of GPU time, 2 to 50)
  --no-graphs          time eager passes only (no CUDA graph capture)
  --seed N             weights and inputs (default: a fresh one, recorded)
  --any-shape          also route calls at shapes the kernel was not verified at (exploration only)
  --no-layout-copies   let calls with non-contiguous inputs fall back instead of copying them
  --check-only         outputs, per-call checks and coverage; no timing
  --timeout SECONDS    the evaluator is killed after this long (default 900)
  --no-save            do not write SESSION/verify.json
  --json               print verify.json's content instead of the text report

A kernel that crashes the evaluator is found by running each kernel alone, named, and left out.
exit status: 0 PASS, 1 FAIL (or a crash), 2 no GPU or no evaluator, 64 usage
)";


int positive(const Arguments& a, const std::string& option, long long max) {
    const auto v = a.value(option);
    const auto n = parse_int(*v);
    if (!n || *n <= 0 || *n > max) a.fail(option + " takes a whole number from 1 to " + std::to_string(max) + ", not '" + *v + "'");
    return int(*n);
}

// Where the harness verified a session kernel: smoke, sweep and edge sizes in every correctness dtype,
// and the kernel's timing shapes (its session.json shapes, else the type's large and larger sizes) in
// the timing dtype.
VerifyKernel verify_kernel(const KernelEntry& entry, KernelType type, std::string source) {
    const KernelTypeInfo& info = kernel_type_info(type);
    VerifyKernel k;
    k.name = entry.name;
    k.type = type;
    k.source = std::move(source);
    k.dtypes.assign(kernel_dtypes().begin(), kernel_dtypes().end());
    k.shapes.push_back(info.smoke);
    for (const auto& s : info.sweep) k.shapes.push_back(s);
    for (const auto& s : info.edge) k.shapes.push_back(s);
    k.timing_dtype = DType::fp16;
    k.timing_shapes = entry.shapes.empty() ? std::vector<Shape>{info.large, info.larger} : parse_shape_list(type, entry.shapes);
    return k;
}

std::string progress_line(const ProgressEvent& e) { return "[" + e.stage + "] " + e.message; }

}  // namespace

int run_verify(std::span<const std::string> args) {
    const Arguments a(args,
                      {"--model", "--batch", "--seq", "--dtype", "--torchscript", "--input", "--kernel", "--iterations", "--warmup",
                       "--seed", "--timeout", "--passes", "--min-speedup"},
                      {"--no-graphs", "--any-shape", "--no-layout-copies", "--check-only", "--no-save", "--json", "--unevaluated", "--faster-only"},
                      kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "SESSION");
    const fs::path dir = a.positional()[0];

    // ---- everything that needs no GPU first, so usage errors are reported as such
    VerifyRequest request;
    const auto model = a.value("--model");
    const auto torchscript = a.value("--torchscript");
    if (model && torchscript) a.fail("give --model or --torchscript, not both");
    std::string model_note;
    if (!model && !torchscript) {
        // The model the session was profiled from (session.json "profile"), with its batch, seq and dtype.
        if (!fs::exists(dir / "session.json")) throw Error(ErrorKind::NotFound, "the session " + dir.string() + " does not exist");
        const SessionInfo origin_info = Session::open(dir, OpenOptions{.read_only = true}).info();
        if (!origin_info.profile)
            a.fail("which model? the session was not made from a profile: give --model NAME (" + builtin_model_list() +
                   ") or --torchscript FILE --input SPEC");
        const ProfileOrigin& p = *origin_info.profile;
        const VerifyModelDefault d = verify_model_from_profile(p.kind, p.model, p.options);
        request.model = d.model;
        if (!request.model.builtin.empty() && !is_builtin_model(request.model.builtin))
            a.fail("session.json: profile.model '" + request.model.builtin + "' is not a built-in model (" + builtin_model_list() + ")");
        if (!request.model.torchscript.empty() && !fs::is_regular_file(request.model.torchscript))
            a.fail("session.json: profile.model: the TorchScript file " + request.model.torchscript + " does not exist; give --torchscript");
        if (!request.model.torchscript.empty() && (a.value("--batch") || a.value("--seq")))
            a.fail("--batch and --seq belong to built-in models; the session's profile is of a TorchScript model");
        model_note = d.note;
    } else if (model) {
        if (!is_builtin_model(*model)) a.fail("unknown model '" + *model + "' (built-in models: " + builtin_model_list() + ")");
        request.model.builtin = *model;
        if (!a.values("--input").empty()) a.fail("--input belongs to --torchscript");
    } else {
        if (!fs::is_regular_file(*torchscript)) a.fail("the TorchScript file " + *torchscript + " does not exist");
        request.model.torchscript = fs::absolute(*torchscript).string();
        request.model.inputs = a.values("--input");
        if (request.model.inputs.empty()) a.fail("--torchscript needs its inputs: --input SPEC (e.g. 8x1024:int64:0-50257)");
        if (a.value("--batch") || a.value("--seq")) a.fail("--batch and --seq belong to --model; give a TorchScript model's sizes with --input");
    }
    if (!model && !torchscript && !a.values("--input").empty()) a.fail("--input belongs to --torchscript");
    if (a.value("--batch")) request.model.batch = positive(a, "--batch", 1 << 20);
    if (a.value("--seq")) request.model.seq = positive(a, "--seq", 1 << 20);
    if (const auto d = a.value("--dtype")) {
        const auto dtype = parse_kernel_dtype(*d);
        if (!dtype) a.fail("unknown dtype '" + *d + "' (use fp16, bf16 or fp32)");
        request.model.dtype = *dtype;
    }
    if (a.value("--seed")) request.model.seed = std::uint64_t(positive(a, "--seed", (1LL << 62)));
    if (a.value("--iterations")) request.iterations = positive(a, "--iterations", 100000);
    if (const auto w = a.value("--warmup")) {
        const auto n = parse_int(*w);
        if (!n || *n < 0 || *n > 1000) a.fail("--warmup takes a whole number from 0 to 1000, not '" + *w + "'");
        request.warmup = int(*n);
    }
    if (a.value("--passes")) request.passes_per_sample = positive(a, "--passes", 1000);
    request.graphs = !a.flag("--no-graphs");
    request.any_shape = a.flag("--any-shape");
    request.copy_layouts = !a.flag("--no-layout-copies");
    request.check_only = a.flag("--check-only");
    double timeout_s = 900;
    if (const auto t = a.value("--timeout")) {
        const auto v = parse_double(*t);
        if (!v || *v <= 0) a.fail("--timeout takes a positive number of seconds, not '" + *t + "'");
        timeout_s = *v;
    }
    const bool json = a.flag("--json");
    const bool unevaluated = a.flag("--unevaluated");
    const bool faster_only = a.flag("--faster-only");
    double min_speedup = 1.05;
    if (const auto m = a.value("--min-speedup")) {
        if (!faster_only) a.fail("--min-speedup goes with --faster-only");
        const auto v = parse_double(*m);
        if (!v || *v < 1.0 || *v > 100.0) a.fail("--min-speedup takes a speedup of 1 or more (1.05 = 5 % faster), not '" + *m + "'");
        min_speedup = *v;
    }

    // ---- the session: its kernels at the branch tip, their shares and best experiments
    if (!fs::exists(dir)) throw Error(ErrorKind::NotFound, "the session " + dir.string() + " does not exist");
    Session session = Session::open(dir, OpenOptions{.read_only = true});
    const SessionInfo& info = session.info();
    const std::string tip = session.branch_tip();
    const std::vector<std::string> only = a.values("--kernel");
    for (const auto& name : only)
        if (std::none_of(info.kernels.begin(), info.kernels.end(), [&](const KernelEntry& k) { return k.name == name; }))
            a.fail("the session has no kernel '" + name + "'");
    VerifyReport report;
    report.session = info.name;
    report.tool_version = version_line();
    report.model = request.model;
    for (const KernelEntry& entry : info.kernels) {
        if (!only.empty() && std::find(only.begin(), only.end(), entry.name) == only.end()) continue;
        const auto type = parse_kernel_type(entry.type);
        if (!type) throw Error(ErrorKind::BadFormat, dir.string() + "/session.json: kernel '" + entry.name + "' has the unknown type '" + entry.type + "'");
        const std::string file = Session::kernel_file_of(entry.name);
        VerifyKernelRow row;
        row.name = entry.name;
        row.type = *type;
        row.model_fraction = entry.model_fraction;
        row.commit = tip;
        bool evaluated = false;
        if (const auto best = session.best_of(file)) {
            row.best_experiment = best->number;
            evaluated = best->passed() && best->latency_us.has_value();
            if (best->speedup_vs_pytorch && *best->speedup_vs_pytorch > 0) row.kernel_speedup = best->speedup_vs_pytorch;
        }
        // Only what the harness passed in this session, unless asked; with --faster-only, only what beat PyTorch.
        if (!evaluated && !unevaluated) {
            row.substituted = false;
            row.skipped = "not evaluated in this session yet (run `autokernel run`, or pass --unevaluated)";
        } else if (const auto why = faster_only ? faster_only_skip_reason(row.kernel_speedup, min_speedup) : std::nullopt) {
            row.substituted = false;
            row.skipped = *why;
        }
        if (row.substituted) request.kernels.push_back(verify_kernel(entry, *type, session.source_at(tip, file)));
        report.kernels.push_back(std::move(row));
    }
    if (request.kernels.empty())
        std::cerr << "autokernel verify: no kernel of " << dir.string()
                  << " is substituted (see the kernel rows): the model runs unmodified on both sides\n";

    if (!model_note.empty()) std::cerr << "autokernel verify: " << model_note << "\n";
    const Preflight preflight = evaluator_preflight();
    if (!preflight.ok()) {
        std::cerr << "autokernel verify: " << preflight.message << "\n";
        return kExitNoGpu;
    }

    EvaluatorClientOptions options;
    options.worker_path = preflight.evaluator_path;
    const bool tty = ::isatty(STDERR_FILENO);
    options.on_progress = [tty](const ProgressEvent& e) {
        if (tty)
            std::cerr << "\r\033[K" << progress_line(e) << std::flush;
        else
            std::cerr << progress_line(e) << "\n";
    };
    EvaluatorClient client(options);
    auto run = [&](const VerifyRequest& r, double timeout) {
        EvaluationRequest e;
        e.op = RequestOp::Verify;
        e.timeout_s = timeout;
        e.verify = r;
        return client.evaluate(e);
    };

    EvaluationResult result = run(request, timeout_s);
    std::vector<VerifyFailure> crashed;
    if ((result.verdict == Verdict::Crash || result.verdict == Verdict::Timeout) &&
        result.detail.rfind("bad request", 0) != 0 && request.kernels.size() > 1) {
        // Which kernel? Each alone, outputs and checks only; the ones that crash are left out.
        std::cerr << "autokernel verify: the model run ended with " << verdict_to_string(result.verdict) << " (" << result.detail
                  << "); running each kernel alone to find the one responsible\n";
        VerifyRequest rest = request;
        rest.kernels.clear();
        for (const VerifyKernel& k : request.kernels) {
            VerifyRequest alone = request;
            alone.kernels = {k};
            alone.check_only = true;
            const EvaluationResult r = run(alone, timeout_s);
            if (r.verdict == Verdict::Crash || r.verdict == Verdict::Timeout)
                crashed.push_back({k.name, r.verdict == Verdict::Crash ? "crash" : "timeout", r.detail});
            else
                rest.kernels.push_back(k);
        }
        if (!rest.kernels.empty() && rest.kernels.size() < request.kernels.size()) result = run(rest, timeout_s);
    } else if (result.verdict == Verdict::Crash || result.verdict == Verdict::Timeout) {
        if (request.kernels.size() == 1 && result.detail.rfind("bad request", 0) != 0)
            crashed.push_back({request.kernels[0].name, result.verdict == Verdict::Crash ? "crash" : "timeout", result.detail});
    }
    if (tty) std::cerr << "\r\033[K" << std::flush;

    report.created_utc = utc_now_iso8601();
    report.device = result.device;
    if (result.detail.rfind("bad request", 0) == 0) {
        std::cerr << "autokernel verify: " << result.detail << "\n";
        return kExitUsage;
    }
    if (result.verify) {
        report.measurement = *result.verify;
        for (auto& f : crashed) report.measurement->failures.push_back(f);
    }
    if (result.verdict == Verdict::Pass && crashed.empty()) {
        report.verdict = "PASS";
    } else if (result.verdict == Verdict::Pass || result.verdict == Verdict::Fail) {
        report.verdict = "FAIL";
    } else {
        report.verdict = result.verdict == Verdict::Timeout ? "TIMEOUT" : "CRASH";
    }
    report.detail = result.detail;
    for (const auto& f : crashed)
        report.detail += (report.detail.empty() ? "" : "; ") + std::string("kernel ") + f.kernel + " ended the evaluator with " +
                         (f.what == "crash" ? "a crash" : "a timeout") + " when run alone and was left out: " + f.detail;
    complete_report(report);

    if (!a.flag("--no-save")) {
        try {
            write_verify_report(dir, report);
        } catch (const Error& e) {
            std::cerr << "autokernel verify: could not save the report: " << e.what() << "\n";
        }
    }
    if (json)
        std::cout << verify_report_to_json(report);
    else
        std::cout << format_verify_report(report) << (a.flag("--no-save") ? "" : "  saved: " + verify_report_path(dir).string() + "\n");
    return report.verdict == "PASS" ? kExitOk : kExitFailure;
}

}  // namespace ak::cli
