#include "engine/evaluator/verify_run.h"

#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/model_substitution.h"
#include "engine/evaluator/model_timing.h"
#include "engine/evaluator/timing.h"
#include "gpu/cuda_driver.h"
#include "models/model_ops.h"
#include "models/model_zoo.h"
#include "util/error.h"
#include "util/text.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/cuda/Sleep.h>
#include <c10/core/InferenceMode.h>
#include <torch/script.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

namespace ak::eval {

namespace {

using Clock = std::chrono::steady_clock;

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

// A model to run: forward(ops) returns its output (logits) without synchronising.
struct ModelRun {
    std::function<at::Tensor(models::ModelOps&)> forward;
    DType dtype = DType::fp16;
    std::string description;
    std::string output_name = "logits";
};

std::optional<DType> dtype_of(at::ScalarType t) {
    if (t == at::kHalf) return DType::fp16;
    if (t == at::kBFloat16) return DType::bf16;
    if (t == at::kFloat) return DType::fp32;
    return std::nullopt;
}

at::ScalarType torch_dtype(DType d) {
    switch (d) {
    case DType::fp16: return at::kHalf;
    case DType::bf16: return at::kBFloat16;
    case DType::fp32: return at::kFloat;
    default: break;
    }
    throw Error(ErrorKind::Usage, "bad request: model dtype " + std::string(to_string(d)) + " (use fp16, bf16 or fp32)");
}

// ---- built-in models --------------------------------------------------------------------------------------

ModelRun builtin_model(const VerifyModelSpec& spec, std::uint64_t seed) {
    models::ModelOptions o;
    if (spec.batch > 0) o.batch = spec.batch;
    if (spec.seq > 0) o.seq = spec.seq;
    o.dtype = torch_dtype(spec.dtype);
    o.mode = models::Mode::Inference;
    o.seed = seed;
    std::shared_ptr<models::Model> model = models::make_model(spec.builtin, o);
    auto batch = std::make_shared<models::Batch>(model->example_batch());
    ModelRun run;
    run.dtype = spec.dtype;
    char params[32];
    std::snprintf(params, sizeof params, "%.1fM", double(model->parameter_count()) / 1e6);
    run.description = spec.builtin + ": " + params + " parameters, batch " + std::to_string(o.batch) + ", seq " +
                      std::to_string(o.seq) + ", " + std::string(to_string(spec.dtype)) + ", inference";
    run.forward = [model, batch](models::ModelOps& ops) { return model->run_iteration(*batch, ops); };
    return run;
}

// ---- TorchScript --------------------------------------------------------------------------------------------

// "8x1024:int64", "8x1024:int64:0-50257" (integers drawn from [low, high), default [0, 2)), "2x64x768:fp16"
// (normal random): the profiler's --input specs (core/profiler/input_spec.h), so both see the same inputs.
at::Tensor input_from_spec(const std::string& spec, at::Generator& gen) {
    const auto parts = split(spec, ':');
    if (parts.size() < 2 || parts.size() > 3)
        throw Error(ErrorKind::Usage, "bad request: input '" + spec + "': expected SHAPE:DTYPE[:LOW-HIGH], e.g. 8x1024:int64:0-50257");
    std::vector<int64_t> sizes;
    for (auto d : split(parts[0], 'x')) {
        const auto n = parse_int(trim(d));
        if (!n || *n <= 0) throw Error(ErrorKind::Usage, "bad request: input '" + spec + "': '" + std::string(d) + "' is not a positive size");
        sizes.push_back(*n);
    }
    const std::string dtype(trim(parts[1]));
    const auto cuda = at::TensorOptions().device(at::kCUDA);
    if (dtype == "int64" || dtype == "int32") {
        int64_t low = 0, high = 2;
        if (parts.size() == 3) {
            const auto range = split(parts[2], '-');
            const auto lo = range.size() == 2 ? parse_int(trim(range[0])) : std::nullopt;
            const auto hi = range.size() == 2 ? parse_int(trim(range[1])) : std::nullopt;
            if (!lo || !hi || *lo >= *hi)
                throw Error(ErrorKind::Usage, "bad request: input '" + spec + "': the range must be LOW-HIGH with LOW < HIGH, e.g. 0-50257");
            low = *lo;
            high = *hi;
        }
        return at::randint(low, high, sizes, gen, at::TensorOptions().dtype(at::kLong)).to(cuda.dtype(dtype == "int64" ? at::kLong : at::kInt));
    }
    if (parts.size() == 3) throw Error(ErrorKind::Usage, "bad request: input '" + spec + "': a range belongs to integer inputs");
    const auto d = parse_kernel_dtype(dtype);
    if (!d) throw Error(ErrorKind::Usage, "bad request: input '" + spec + "': dtype '" + dtype + "' (use int64, int32, fp16, bf16, fp32)");
    return at::randn(sizes, gen, at::TensorOptions().dtype(at::kFloat)).to(cuda.dtype(torch_dtype(*d)));
}

// The first tensor of a TorchScript result: a tensor, the first of a tuple or list, "logits" of a dict.
at::Tensor first_tensor(const c10::IValue& v) {
    if (v.isTensor()) return v.toTensor();
    if (v.isTuple())
        for (const auto& e : v.toTupleRef().elements())
            if (auto t = first_tensor(e); t.defined()) return t;
    if (v.isList())
        for (const c10::IValue& e : v.toListRef())
            if (auto t = first_tensor(e); t.defined()) return t;
    if (v.isGenericDict()) {
        const auto dict = v.toGenericDict();
        for (const auto& e : dict)
            if (e.key().isString() && e.key().toStringRef() == "logits") return first_tensor(e.value());
        for (const auto& e : dict)
            if (auto t = first_tensor(e.value()); t.defined()) return t;
    }
    return at::Tensor();
}

ModelRun torchscript_model(const VerifyModelSpec& spec, std::uint64_t seed) {
    std::shared_ptr<torch::jit::Module> module;
    try {
        module = std::make_shared<torch::jit::Module>(torch::jit::load(spec.torchscript, at::Device(at::kCUDA, 0)));
    } catch (const c10::Error& e) {
        std::string msg = e.what_without_backtrace();
        if (auto cut = msg.find('\n'); cut != std::string::npos) msg.resize(cut);
        throw Error(ErrorKind::Usage, "bad request: cannot load the TorchScript file " + spec.torchscript + ": " + msg);
    }
    module->eval();
    if (spec.inputs.empty()) throw Error(ErrorKind::Usage, "bad request: a TorchScript model needs at least one --input SPEC");
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto inputs = std::make_shared<std::vector<c10::IValue>>();
    for (const auto& s : spec.inputs) inputs->push_back(input_from_spec(s, gen));
    ModelRun run;
    // The model's dtype: its first floating-point parameter's, else the first floating-point input's.
    std::optional<DType> dtype;
    int64_t params = 0;
    for (const auto& p : module->parameters()) {
        params += p.numel();
        if (!dtype) dtype = dtype_of(p.scalar_type());
    }
    for (const auto& i : *inputs)
        if (!dtype && i.isTensor()) dtype = dtype_of(i.toTensor().scalar_type());
    run.dtype = dtype.value_or(spec.dtype);
    char count[32];
    std::snprintf(count, sizeof count, "%.1fM", double(params) / 1e6);
    run.description = spec.label() + ": TorchScript, " + count + " parameters, " + std::string(to_string(run.dtype)) + ", inference";
    run.output_name = "output";
    run.forward = [module, inputs](models::ModelOps&) {
        c10::InferenceMode guard;
        at::Tensor out = first_tensor(module->forward(*inputs));
        if (!out.defined()) throw Error(ErrorKind::Usage, "bad request: the TorchScript model returned no tensor");
        return out;
    };
    return run;
}

// ---- comparing outputs ----------------------------------------------------------------------------------------

struct Difference {
    double max_abs = 0;
    double max_rel = 0;
    double norm_rel = 0;
    bool finite = true;
};

Difference difference(const at::Tensor& out, const at::Tensor& ref) {
    Difference d;
    if (!out.sizes().equals(ref.sizes())) throw Error(ErrorKind::Internal, "the substituted model's output has another shape");
    const at::Tensor o = out.to(at::kDouble);
    const at::Tensor r = ref.to(at::kDouble);
    d.finite = at::isfinite(o).all().item<bool>();
    const at::Tensor diff = (o - r).abs();
    if (diff.numel() == 0) return d;
    d.max_abs = diff.max().item<double>();
    const double scale = r.abs().max().item<double>();
    const at::Tensor denom = at::clamp_min(r.abs(), std::max(scale * 1e-3, 1e-30));
    d.max_rel = (diff / denom).max().item<double>();
    const double rn = r.norm().item<double>();
    d.norm_rel = rn > 0 ? (o - r).norm().item<double>() / rn : (d.max_abs > 0 ? INFINITY : 0.0);
    if (!d.finite || std::isnan(d.max_abs)) {
        d.max_abs = d.max_rel = d.norm_rel = INFINITY;
        d.finite = false;
    }
    return d;
}


}  // namespace

EvaluationResult verify_request(const EvaluationRequest& req, GpuSession& gpu, const ProgressFn& progress) {
    const auto t0 = Clock::now();
    if (!req.verify) throw Error(ErrorKind::Usage, "bad request: op 'verify' without its 'verify' object");
    const VerifyRequest& v = *req.verify;
    auto report = [&](const std::string& message) {
        if (progress) progress("verify", message);
    };
    EvaluationResult res;
    res.id = req.id;
    res.device = gpu.description().name;
    res.seed = v.model.seed != 0 ? v.model.seed : random_seed();
    VerifyMeasurement m;
    m.seed = res.seed;

    // 1. the model
    report("loading " + v.model.label());
    ModelRun model = v.model.torchscript.empty() ? builtin_model(v.model, res.seed) : torchscript_model(v.model, res.seed);
    m.model_description = model.description;
    m.output.name = model.output_name;

    // 2. the kernels
    ModelSubstitution sub(gpu, v, model.dtype, report);
    auto& aten = models::aten_ops();

    // 3. the unmodified output, and a second run of it (the noise floor)
    report("unmodified forward pass");
    const at::Tensor reference = model.forward(aten).clone();
    const at::Tensor again = model.forward(aten);
    const Difference noise = difference(again, reference);
    m.output.noise_norm_rel_err = noise.norm_rel;
    m.output.sizes.assign(reference.sizes().begin(), reference.sizes().end());

    // Per-call events measure GPU time only when the GPU never waits for the host between calls: a spin
    // kernel ahead of the pass (several times the host's enqueue time of a forward pass) lets the host
    // enqueue the whole pass before the GPU reaches it.
    const auto h0 = Clock::now();
    (void)model.forward(aten);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - h0).count();
    check_cu(cuda_driver().cuStreamSynchronize(gpu.stream()), "cuStreamSynchronize");
    const auto head_start = [&] { at::cuda::sleep(static_cast<int64_t>(std::max(20.0, 8.0 * host_ms) * 2.0e6)); };

    // 4. observe: each type's ops on ATen, timed per call; the whole forward pass timed around it
    report("observe pass (ATen, every intercepted op timed)");
    PassRecord observed;
    double observe_span_us = 0;
    {
        CUevent start = nullptr, end = nullptr;
        const auto& cu = cuda_driver();
        check_cu(cu.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
        check_cu(cu.cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate");
        sub.begin({InterceptMode::Observe, /*time_calls=*/true, /*check_calls=*/false});
        head_start();
        check_cu(cu.cuEventRecord(start, gpu.stream()), "cuEventRecord");
        (void)model.forward(sub.ops());
        check_cu(cu.cuEventRecord(end, gpu.stream()), "cuEventRecord");
        observed = sub.take_record();
        sub.end();
        float ms = 0;
        check_cu(cu.event_elapsed_ms(&ms, start, end), "cuEventElapsedTime");
        observe_span_us = double(ms) * 1000.0;
        cu.cuEventDestroy_v2(start);
        cu.cuEventDestroy_v2(end);
    }
    m.aten = observed.aten;
    m.forward_gpu_us = observe_span_us;

    // 5. check: our kernels in, every routed call compared with ATen's, the output with the unmodified one
    report("check pass (our kernels, every routed call compared with ATen)");
    sub.begin({InterceptMode::Substitute, /*time_calls=*/false, /*check_calls=*/true});
    const at::Tensor output = model.forward(sub.ops()).clone();
    PassRecord checked = sub.take_record();
    sub.end();
    m.checks = checked.checks;
    const Difference diff = difference(output, reference);
    m.output.max_abs_err = diff.max_abs;
    m.output.max_rel_err = diff.max_rel;
    m.output.norm_rel_err = diff.norm_rel;
    m.output.finite = diff.finite;
    m.output.tolerance = verify_output_tolerance(model.dtype);
    m.output.passed = diff.finite && diff.norm_rel <= m.output.tolerance;

    // 6. coverage: calls and GPU time routed or fallen back
    report("coverage pass (our kernels, every intercepted op timed)");
    sub.begin({InterceptMode::Substitute, /*time_calls=*/true, /*check_calls=*/false});
    head_start();
    (void)model.forward(sub.ops());
    PassRecord covered = sub.take_record();
    sub.end();
    m.coverage = covered.coverage;

    // 7. timing: the unmodified model, the unmodified model again (A/A control) and ours, interleaved;
    //    CUDA graph replays (GPU time) and eager passes (what a user runs today)
    if (!v.check_only) {
        ModelTimingPlan plan;
        plan.samples = v.iterations;
        plan.warmup = v.warmup;
        plan.passes_per_sample = v.passes_per_sample;
        plan.graphs = v.graphs;
        ModelTimingCalls calls;
        calls.forward = [&](int impl) { (void)model.forward(impl == 2 ? sub.ops() : aten); };
        calls.enter = [&](int impl) {
            if (impl == 2)
                sub.begin({InterceptMode::Substitute, false, false});
            else
                sub.end();
        };
        calls.leave = [&] { sub.end(); };
        calls.progress = report;
        m.timings = time_model_passes(calls, plan, gpu.timer().flusher());
        sub.end();
        if (const VerifyTiming* e = m.timing("eager")) {
            m.unmodified = e->unmodified;
            m.substituted = e->substituted;
        }
        // The GPU time of the unmodified forward pass: its graph replay when captured (no launch gaps).
        if (const VerifyTiming* g = m.timing("graph")) m.forward_gpu_us = g->unmodified.median_ms * 1000.0;
        for (const auto& t : m.timings)
            if (!t.measured && !t.reason.empty()) m.notes.push_back(t.mode + " timing not measured: " + t.reason);
    }

    // Diagnostic (AK_VERIFY_OLD_TIMING=1, docs/verify.md): the timing this op used before the A/A control,
    // on the unmodified model against itself -- Timer::time_interleaved over two sides, one forward pass
    // per run, runs enqueued back to back without synchronising, events around each -- once as it ran
    // (the substitution registered before every run of side B) and once with both sides plain ATen.
    // Side B's "speedup" over side A is then pure measurement bias; the notes give both.
    if (const char* diag = std::getenv("AK_VERIFY_OLD_TIMING"); diag && std::string(diag) == "1" && !v.check_only) {
        for (const bool toggle : {true, false}) {
            report(std::string("old timing method on the unmodified model against itself") + (toggle ? " (substitution toggled)" : " (plain ATen)"));
            TimingOptions options;
            options.warmup = v.warmup;
            options.iterations = v.iterations;
            options.calibration = 1;
            RunHooks hooks;
            if (toggle)
                hooks.before = [&](int impl, int, TimingPhase) {
                    if (impl == 1)
                        sub.begin({InterceptMode::Substitute, false, false});
                    else
                        sub.end();
                };
            // Side B runs through the substitution's ops but with the unmodified model's kernels: ATen for
            // every op (sub.ops() outside begin() is ATen; inside, only the session's kernels differ, so
            // this diagnostic is meaningful when nothing is substituted).
            const auto stats = gpu.timer().time_interleaved(
                2, [&](int impl, int) { (void)model.forward(impl == 1 && toggle ? sub.ops() : aten); }, options,
                "old-method forward passes", hooks);
            sub.end();
            const double a = stats.at(0).median_us / 1000.0, b = stats.at(1).median_us / 1000.0;
            m.notes.push_back(std::string("old timing method") + (toggle ? " (as it ran: substitution toggled before side B)" : " (both sides plain ATen)") +
                              ": side A " + format_fixed(a, 3) + " ms (IQR " + format_fixed(stats.at(0).iqr_us / 1000.0, 3) + "), side B " +
                              format_fixed(b, 3) + " ms (IQR " + format_fixed(stats.at(1).iqr_us / 1000.0, 3) + "), A/B " +
                              format_fixed(b > 0 ? a / b : 0.0, 3) + "x, " + std::to_string(stats.at(0).samples) + " runs each" +
                              (toggle && sub.kernel_count() > 0 ? " (side B had our kernels in: not an A/A)" : ""));
        }
    }

    m.failures = sub.failures();
    m.notes = sub.notes();
    if (sub.kernel_count() == 0) m.notes.push_back("no kernel could be substituted: the model ran unmodified twice");

    // Verdict: the output agrees, every per-call check passed, no kernel failed.
    std::vector<std::string> problems;
    if (!m.output.passed)
        problems.push_back(m.output.name + " differ from the unmodified model's: norm-relative error " + sci(m.output.norm_rel_err) +
                           " > " + sci(m.output.tolerance) + (m.output.finite ? "" : " (not finite)"));
    for (const auto& c : m.checks)
        if (!c.passed) problems.push_back("kernel " + c.kernel + " (" + std::string(to_string(c.type)) + ") is wrong inside the model: " + c.detail);
    for (const auto& f : m.failures) problems.push_back("kernel " + f.kernel + " failed (" + f.what + "): " + f.detail);
    if (problems.empty()) {
        res.verdict = Verdict::Pass;
        res.detail = "output within tolerance (norm-relative error " + sci(m.output.norm_rel_err) + " <= " + sci(m.output.tolerance) + ")";
        if (const auto s = m.measured_speedup()) res.detail += "; measured speedup " + format_fixed(*s, 3) + "x";
    } else {
        res.verdict = Verdict::Fail;
        for (std::size_t i = 0; i < problems.size(); ++i) res.detail += (i ? "; " : "") + problems[i];
    }
    res.verify = std::move(m);
    res.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return res;
}

}  // namespace ak::eval
