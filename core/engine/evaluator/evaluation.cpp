#include "engine/evaluator/evaluation.h"

#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/launcher.h"
#include "engine/evaluator/performance.h"
#include "engine/candidate_compiler.h"
#include "engine/kernel_contract.h"
#include "util/error.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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

// Buffers of one rotated input set for timing.
struct TimingSet {
    CaseTensors candidate;
    CaseTensors reference;
    PreparedLaunch candidate_launch;
    PreparedLaunch reference_launch;
};

CaseTensors tensors_for(const KernelAdapter& adapter, const Problem& p, const std::vector<at::Tensor>& inputs,
                        const CandidateModule& module) {
    CaseTensors t;
    t.inputs = inputs;
    t.output = at::empty(adapter.output_shape(p), at::TensorOptions().dtype(adapter.output_dtype(p)).device(at::kCUDA));
    const std::int64_t ws = module.workspace_bytes(p);
    if (ws > 0) t.workspace = at::empty({ws}, at::TensorOptions().dtype(at::kByte).device(at::kCUDA));
    return t;
}

std::int64_t bytes_of(const CaseTensors& t) {
    std::int64_t n = 0;
    for (const auto& x : t.inputs) n += std::int64_t(x.nbytes());
    if (t.output.defined()) n += std::int64_t(t.output.nbytes());
    if (t.workspace.defined()) n += std::int64_t(t.workspace.nbytes());
    return n;
}

// The fastest baseline's name; with several routes, the others' medians follow, so a report shows what
// the comparison was made against ("SDPA cudnn (fastest of 3; flash 41.2 us, efficient 80.3 us)").
std::string baseline_route_name(const std::vector<BaselineRoute>& routes, const std::vector<TimingStats>& stats, int best) {
    std::string others;
    for (int k = 1; k <= int(routes.size()); ++k) {
        if (k == best) continue;
        char us[32];
        std::snprintf(us, sizeof us, "%.1f", stats[std::size_t(k)].median_us);
        others += (others.empty() ? "" : ", ") + routes[std::size_t(k - 1)].name + " " + us + " us";
    }
    const std::string& name = routes[std::size_t(best - 1)].name;
    return others.empty() ? name : name + " (fastest of " + std::to_string(routes.size()) + "; " + others + ")";
}

// Times the candidate, the baselines and (when given) the reference candidate at one shape, interleaved.
void time_shape(GpuSession& gpu, const KernelAdapter& adapter, const EvaluationRequest& req, const Shape& shape,
                std::uint64_t seed, const CandidateModule& candidate, const CandidateModule* reference,
                TimingRecord& row, std::optional<TimingRecord>& reference_row) {
    const DType dt = req.timing_dtype;
    const Problem p{shape, scalar_type(dt)};
    std::vector<TimingSet> sets;
    auto add_set = [&](int index) {
        at::Generator gen = seeded_cuda_generator(case_seed(seed ^ 0x74696D696E67ull, CheckStage::Sweep, index));
        const auto inputs = adapter.make_inputs(p, InputKind::Regular, gen);
        TimingSet s;
        s.candidate = tensors_for(adapter, p, inputs, candidate);
        s.candidate_launch = candidate.prepare(p, s.candidate);
        if (reference) {
            s.reference = tensors_for(adapter, p, inputs, *reference);
            s.reference_launch = reference->prepare(p, s.reference);
        }
        sets.push_back(std::move(s));
    };
    add_set(0);
    // Enough sets that together they exceed the L2 twice over (at least 2, at most 16, at most ~8 GB).
    const std::int64_t set_bytes = std::max<std::int64_t>(bytes_of(sets[0].candidate) + bytes_of(sets[0].reference), 1);
    const std::int64_t l2 = std::max<std::int64_t>(gpu.limits().l2_bytes, 1);
    std::int64_t want = std::clamp<std::int64_t>((2 * l2 + set_bytes - 1) / set_bytes, 2, 16);
    want = std::min<std::int64_t>(want, std::max<std::int64_t>(1, (std::int64_t(8) << 30) / set_bytes));
    for (int i = 1; i < want; ++i) add_set(i);

    // Implementations: 0 the candidate, 1 .. routes the baselines, then the reference candidate.
    const std::vector<BaselineRoute> routes = adapter.baseline_routes(p, sets[0].candidate.inputs);
    if (routes.empty()) throw Error(ErrorKind::Internal, std::string(to_string(req.type)) + " adapter offers no baseline");
    const int n_routes = int(routes.size());
    const int impls = 1 + n_routes + (reference ? 1 : 0);
    const CUstream stream = gpu.stream();
    TimingOptions options;
    options.iterations = std::max(0, req.iterations_hint);
    const auto stats = gpu.timer().time_interleaved(
        impls,
        [&](int impl, int iteration) {
            const TimingSet& s = sets[std::size_t(iteration) % sets.size()];
            if (impl == 0)
                candidate.enqueue(s.candidate_launch, stream);
            else if (impl <= n_routes)
                (void)routes[std::size_t(impl - 1)].run(s.candidate.inputs);
            else
                reference->enqueue(s.reference_launch, stream);
        },
        options, "timing " + to_string(shape) + " " + dtype_name(dt));

    row.shape = shape;
    row.dtype = dt;
    row.median_us = stats[0].median_us;
    row.iqr_us = stats[0].iqr_us;
    row.samples = stats[0].samples;
    int best = 1;
    for (int k = 2; k <= n_routes; ++k)
        if (stats[std::size_t(k)].median_us < stats[std::size_t(best)].median_us) best = k;
    row.baseline_name = baseline_route_name(routes, stats, best);
    row.baseline_median_us = stats[std::size_t(best)].median_us;
    row.baseline_iqr_us = stats[std::size_t(best)].iqr_us;

    // Ceilings: a copy of the same bytes (memory-bound) or the GEMM of this dtype (compute-bound).
    const bool mem = memory_bound(row, req.type, gpu.spec());
    double copy = 0, gemm = 0;
    if (mem)
        copy = gpu.ceilings().copy_gb_s(std::uint64_t(std::llround(min_bytes(req.type, shape, dt))));
    else
        gemm = gpu.ceilings().gemm_tflops(dt);
    fill_performance(row, req.type, gpu.spec(), copy, gemm);
    if (reference) {
        TimingRecord r = row;
        r.median_us = stats[std::size_t(impls - 1)].median_us;
        r.iqr_us = stats[std::size_t(impls - 1)].iqr_us;
        r.samples = stats[std::size_t(impls - 1)].samples;
        fill_performance(r, req.type, gpu.spec(), copy, gemm);
        reference_row = r;
    }
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

    // ---- compile and load, once per dtype
    std::vector<DType> dtypes = req.dtypes;
    if (std::find(dtypes.begin(), dtypes.end(), req.timing_dtype) == dtypes.end()) dtypes.push_back(req.timing_dtype);
    std::map<DType, std::unique_ptr<CandidateModule>> modules;
    for (DType d : dtypes) {
        if (progress) progress("compile", dtype_name(d) + " for " + gpu.arch());
        Compiled c = compile_for(gpu, req, req.source, contract, d);
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
    Harness harness(adapter, gpu.stream(), progress);
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

    // ---- the reference candidate (the current best), timed in the same run
    std::unique_ptr<CandidateModule> reference;
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
                reference = load_module(c, adapter, req.timing_dtype, gpu, &why);
                if (!reference) {
                    rec.ok = false;
                    rec.log += (rec.log.empty() ? "" : "\n") + why;
                }
            }
        }
        res.reference_compile = rec;
    }

    // ---- timing
    const CandidateModule& timed = *modules.at(req.timing_dtype);
    for (std::size_t i = 0; i < timing_shapes.size(); ++i) {
        if (progress)
            progress("timing", to_string(timing_shapes[i]) + " " + dtype_name(req.timing_dtype) + " (" + std::to_string(i + 1) +
                                   "/" + std::to_string(timing_shapes.size()) + ")");
        TimingRecord row;
        std::optional<TimingRecord> ref_row;
        time_shape(gpu, adapter, req, timing_shapes[i], res.seed, timed, reference.get(), row, ref_row);
        res.timing.push_back(row);
        if (ref_row) res.reference_timing.push_back(*ref_row);
    }

    res.verdict = Verdict::Pass;
    res.detail = "passed " + std::to_string(res.checks.size()) +
                 " checks (smoke, sweep, adversarial, determinism, edge); timed at " + std::to_string(res.timing.size()) +
                 " shape(s) against " + adapter.baseline_name();
    res.wall_ms = ms_since(t0);
    return res;
}

}  // namespace ak::eval
