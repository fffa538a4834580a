#include "engine/evaluator/evaluation.h"

#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/launcher.h"
#include "engine/evaluator/verified_timing.h"
#include "engine/candidate_compiler.h"
#include "engine/kernel_contract.h"
#include "util/error.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <memory>

namespace ak::eval {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string dtype_name(DType d) { return std::string(to_string(d)); }

// The first `max_chars` of a compiler log, cut at a line end.
std::string log_excerpt(const std::string& log, std::size_t max_chars = 2000) {
    if (log.size() <= max_chars) return log;
    auto cut = log.rfind('\n', max_chars);
    if (cut == std::string::npos || cut < max_chars / 2) cut = max_chars;
    return log.substr(0, cut) + "\n... (" + std::to_string(log.size() - cut) + " more characters in the compile record)";
}

struct Compiled {
    CompileRecord record;
    std::string cubin;
};

Compiled compile_for(GpuSession& gpu, const EvaluationRequest& req, const std::string& source, const KernelContract& contract,
                     DType dtype) {
    CompileOptions o;
    o.arch = gpu.arch();
    o.include_dirs = {kernels_include_dir()};  // the CUDA toolkit's include dir is added by the compiler
    o.options = contract_options(contract, dtype);
    const CompileResult r = gpu.compiler().compile(source, req.source_name, o);
    Compiled c;
    c.record = to_compile_record(dtype, r);
    if (r.ok) c.cubin = r.cubin;
    return c;
}

// Loads a cubin; a contract violation or a module the driver refuses becomes a compile failure.
std::unique_ptr<CandidateModule> load_module(const Compiled& compiled, const KernelAdapter& adapter, DType dtype,
                                             GpuSession& gpu, std::string* error) {
    try {
        return std::make_unique<CandidateModule>(compiled.cubin, adapter, scalar_type(dtype), gpu.limits());
    } catch (const StickyCudaError&) {
        throw;
    } catch (const ContractViolation& e) {
        *error = e.what();
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Gpu) throw;
        *error = std::string("the compiled module could not be loaded: ") + e.what();
    }
    return nullptr;
}

EvaluationResult compile_error(EvaluationResult res, std::string detail, Clock::time_point t0) {
    res.verdict = Verdict::CompileError;
    res.detail = std::move(detail);
    res.wall_ms = ms_since(t0);
    return res;
}

}  // namespace

EvaluationResult evaluate_request(const EvaluationRequest& req, GpuSession& gpu, const ProgressFn& progress) {
    const auto t0 = Clock::now();
    EvaluationResult res;
    res.id = req.id;
    res.device = gpu.description().name;
    res.seed = req.seed != 0 ? req.seed : random_seed();

    // ---- the request itself
    if (req.dtypes.empty()) throw Error(ErrorKind::Usage, "bad request: no correctness dtype");
    for (DType d : req.dtypes)
        if (!is_kernel_dtype(d)) throw Error(ErrorKind::Usage, "bad request: dtype " + dtype_name(d) + " is not fp16, bf16 or fp32");
    if (!is_kernel_dtype(req.timing_dtype))
        throw Error(ErrorKind::Usage, "bad request: timing dtype " + dtype_name(req.timing_dtype) + " is not fp16, bf16 or fp32");
    for (const Shape& s : req.correctness_shapes) check_shape(req.type, s);
    for (const Shape& s : req.timing_shapes) check_shape(req.type, s);
    const KernelTypeInfo& info = kernel_type_info(req.type);
    std::vector<Shape> timing_shapes = req.timing_shapes;
    if (timing_shapes.empty()) timing_shapes = {info.large, info.larger};
    const KernelAdapter& adapter = adapter_for(req.type);

    // ---- contract annotations
    const KernelContract contract = parse_contract(req.source);
    if (!contract.ok()) return compile_error(std::move(res), contract.error_text(req.source_name), t0);
    if (contract.type && *contract.type != req.type)
        return compile_error(std::move(res),
                             req.source_name + ":" + std::to_string(contract.type_line) + ": the candidate declares @autokernel type " +
                                 std::string(to_string(*contract.type)) + " but was evaluated as " + std::string(to_string(req.type)),
                             t0);

    // ---- compile and load, once per dtype. The dtypes compile side by side (NVRTC is thread-safe and
    // needs no GPU; a wgmma kernel takes over a second per dtype), then load here, in order.
    std::vector<DType> dtypes = req.dtypes;
    if (std::find(dtypes.begin(), dtypes.end(), req.timing_dtype) == dtypes.end()) dtypes.push_back(req.timing_dtype);
    std::map<DType, std::unique_ptr<CandidateModule>> modules;
    std::map<DType, std::string> cubins;
    if (progress) {
        std::string names;
        for (DType d : dtypes) names += (names.empty() ? "" : ", ") + dtype_name(d);
        progress("compile", names + " for " + gpu.arch());
    }
    std::vector<std::future<Compiled>> compiles;
    for (DType d : dtypes)
        compiles.push_back(std::async(std::launch::async, [&gpu, &req, &contract, d] {
            return compile_for(gpu, req, req.source, contract, d);
        }));
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
        const DType d = dtypes[i];
        Compiled c = compiles[i].get();
        res.compile.push_back(c.record);
        if (!c.record.ok)
            return compile_error(std::move(res), "NVRTC (" + dtype_name(d) + ", " + gpu.arch() + "):\n" + log_excerpt(c.record.log), t0);
        std::string why;
        auto module = load_module(c, adapter, d, gpu, &why);
        if (!module) {
            res.compile.back().ok = false;
            res.compile.back().log += (res.compile.back().log.empty() ? "" : "\n") + why;
            return compile_error(std::move(res), dtype_name(d) + ": " + why, t0);
        }
        modules[d] = std::move(module);
        cubins[d] = std::move(c.cubin);
    }

    // ---- the five correctness stages
    CheckPlanInput plan_input;
    plan_input.type = req.type;
    plan_input.dtypes = req.dtypes;
    plan_input.correctness_shapes = req.correctness_shapes;
    plan_input.timing_shapes = timing_shapes;
    plan_input.timing_dtype = req.timing_dtype;
    plan_input.seed = res.seed;
    const auto plan = plan_checks(plan_input);
    Harness harness(adapter, gpu.stream(), progress, res.seed ^ 0x706F69736F6E21ull);
    const HarnessOutcome outcome =
        harness.run(plan, [&](DType d) -> const CandidateModule& { return *modules.at(d); });
    res.checks = outcome.records;
    if (!outcome.passed) {
        res.verdict = Verdict::Fail;
        res.failed_stage = outcome.failed_stage;
        res.detail = outcome.detail;  // "<stage> <shape> <dtype> (seed N): what went wrong"
        res.wall_ms = ms_since(t0);
        return res;  // a failed candidate is never timed
    }

    // ---- the reference candidate (the current best): compiled, checked like a candidate (smoke and the
    // timing shapes), and only then timed in the same run
    std::unique_ptr<CandidateModule> reference;
    std::string reference_cubin;
    if (req.reference_source) {
        if (progress) progress("compile", "reference " + dtype_name(req.timing_dtype));
        const KernelContract ref_contract = parse_contract(*req.reference_source);
        CompileRecord rec;
        rec.dtype = req.timing_dtype;
        if (!ref_contract.ok()) {
            rec.log = ref_contract.error_text("reference");
        } else {
            EvaluationRequest ref_req = req;
            ref_req.source_name = "reference.cu";
            Compiled c = compile_for(gpu, ref_req, *req.reference_source, ref_contract, req.timing_dtype);
            rec = c.record;
            if (rec.ok) {
                std::string why;
                reference_cubin = c.cubin;
                reference = load_module(c, adapter, req.timing_dtype, gpu, &why);
                if (!reference) {
                    rec.ok = false;
                    rec.log += (rec.log.empty() ? "" : "\n") + why;
                }
            }
        }
        res.reference_compile = rec;
        if (!rec.ok) res.reference_failure = "the reference candidate does not compile: " + log_excerpt(rec.log, 400);
        if (reference) {
            Harness ref_harness(adapter, gpu.stream(), [&](const std::string& stage, const std::string& message) {
                if (progress) progress("reference " + stage, message);
            }, res.seed ^ 0x7265666572656eull);
            CheckPlanInput ref_plan = plan_input;
            ref_plan.seed = res.seed ^ 0x5245464552454E43ull;  // its own fresh inputs
            const HarnessOutcome ref_outcome = ref_harness.run(
                plan_reference_checks(ref_plan), [&](DType) -> const CandidateModule& { return *reference; });
            if (!ref_outcome.passed) {
                res.reference_failure = "the reference candidate fails its own checks: " + ref_outcome.detail;
                reference.reset();
            } else {
                // Fresh module state for its timing as well.
                std::string why;
                Compiled again;
                again.cubin = reference_cubin;
                reference.reset();
                reference = load_module(again, adapter, req.timing_dtype, gpu, &why);
                if (!reference) res.reference_failure = "the reference candidate could not be reloaded: " + why;
            }
        }
    }

    // ---- timing, on a freshly loaded module: nothing a __device__ variable remembers from the checks
    std::unique_ptr<CandidateModule> timed;
    {
        Compiled again;
        again.cubin = cubins.at(req.timing_dtype);
        std::string why;
        modules.clear();  // the checked modules are unloaded first
        timed = load_module(again, adapter, req.timing_dtype, gpu, &why);
        if (!timed) throw Error(ErrorKind::Gpu, "the candidate's module could not be loaded again for timing: " + why);
    }
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < timing_shapes.size(); ++i) {
        if (progress)
            progress("timing", to_string(timing_shapes[i]) + " " + dtype_name(req.timing_dtype) + " (" + std::to_string(i + 1) +
                                   "/" + std::to_string(timing_shapes.size()) + ")");
        VerifiedTiming t = time_shape_verified(gpu, adapter, req, timing_shapes[i], res.seed, *timed, reference.get());
        if (t.failure) {
            res.verdict = Verdict::Fail;
            res.failed_stage = CheckStage::Timing;
            res.detail = *t.failure;
            res.timing.clear();
            res.reference_timing.clear();
            res.wall_ms = ms_since(t0);
            return res;  // numbers from misbehaving runs are never reported as results
        }
        if (t.reference_failure) {
            res.reference_failure = "the reference candidate misbehaved while timed: " + *t.reference_failure;
            res.reference_timing.clear();
            reference.reset();
        }
        if (t.note) notes.push_back(*t.note);
        res.timing.push_back(t.row);
        if (t.reference_row && reference) res.reference_timing.push_back(*t.reference_row);
    }

    res.verdict = Verdict::Pass;
    res.detail = "passed " + std::to_string(res.checks.size()) +
                 " checks (smoke, sweep, adversarial, determinism, edge); timed at " + std::to_string(res.timing.size()) +
                 " shape(s) against " + adapter.baseline_name() +
                 ", with runs chosen at random among the timed ones verified, inputs and guards checked, and every "
                 "median within what this GPU can do";
    if (res.reference_failure) res.detail += "; " + *res.reference_failure;
    for (const auto& n : notes) res.detail += "; note: " + n;
    res.wall_ms = ms_since(t0);
    return res;
}

}  // namespace ak::eval
