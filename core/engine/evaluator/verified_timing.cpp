#include "engine/evaluator/verified_timing.h"

#include "engine/evaluator/aliased_inputs.h"
#include "engine/evaluator/check_plan.h"
#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/harness.h"
#include "engine/evaluator/kept_zero_workspace.h"
#include "engine/evaluator/output_check.h"
#include "engine/evaluator/performance.h"
#include "engine/evaluator/plausibility.h"
#include "engine/evaluator/poison.h"
#include "analysis/roofline.h"
#include "gpu/cuda_driver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

namespace ak::eval {

namespace {

constexpr int kWorkingSets = 2;          // pointer sets the runs alternate between
constexpr int kContents = 2;             // pristine input contents the runs are refreshed from
constexpr std::int64_t kSlackBytes = 64 << 10;  // each run sees the contents shifted by one of 4096 offsets

constexpr int kCandidate = 0;  // then the baseline routes 1 .. n, then the reference candidate

// One candidate's buffers on one working set.
struct Buffers {
    AliasedInputs inputs;                 // the pointers this candidate's runs see (refreshed before each run)
    GuardedBuffer output;
    std::optional<GuardedBuffer> workspace;
    std::int64_t reserved_bytes = 0;      // fused_mlp's gate/up + hidden block at the start of the workspace
    at::Tensor kept_zero;                 // the declared workspace, when the stages keep it zero themselves
    at::Tensor left_nonzero;              // (then) how many runs left it not all zero, counted on the device
    PreparedLaunch launch;
    int loaded = -1;                      // which pristine contents the inputs hold,
    std::vector<std::int64_t> offsets;    // shifted by these bytes per storage
    PoisonPattern poison;                 // the poison the last run started from
    bool ran = false;
};

// An output copied aside after a run chosen at random.
struct Sample {
    at::Tensor output;
    int contents = -1;
    std::vector<std::int64_t> offsets;
    int run = 0;        // 1-based among this candidate's runs
    PoisonPattern poison;
    bool used = false;
};

// Reservoir sampling: after run n (1-based), which of `samples` to overwrite, if any. Every run ends up
// in the reservoir with the same probability, and whether it does is decided only after it ran.
std::optional<std::size_t> reservoir_slot(std::size_t capacity, int n, std::mt19937_64& rng) {
    if (capacity == 0) return std::nullopt;
    if (std::size_t(n) <= capacity) return std::size_t(n - 1);
    const std::uint64_t r = rng() % std::uint64_t(n);
    if (r < capacity) return std::size_t(r);
    return std::nullopt;
}

Buffers make_buffers(const KernelAdapter& adapter, const Problem& p, const AliasedInputs& contents,
                     const CandidateModule& module) {
    Buffers b;
    b.inputs = contents.shifted(std::vector<std::int64_t>(contents.storage_count(), 0)).clone();
    b.loaded = 0;
    b.offsets.assign(contents.storage_count(), 0);
    b.output = make_guarded(adapter.output_shape(p), adapter.output_dtype(p), "the output");
    CaseTensors t;
    t.inputs = b.inputs.tensors();
    t.output = b.output.payload;
    const WorkspaceLayout layout = module.workspace_layout(p);
    if (layout.total() > 0) {
        b.workspace = make_guarded({layout.total()}, at::kByte, "the workspace");
        t.workspace = b.workspace->payload;
        b.reserved_bytes = layout.reserved;
        if (layout.kept_zero) {
            b.kept_zero = declared_workspace(b.workspace->payload, layout);
            b.left_nonzero = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(at::kCUDA));
        }
    }
    b.launch = module.prepare(p, t);
    return b;
}

// The fastest baseline's name; with several routes, the others' medians follow, so a report shows what
// the comparison was made against ("SDPA cudnn (fastest of 3; SDPA flash 41.2 us, ...)").
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

std::optional<double> datasheet_value(const std::optional<GpuSpec>& spec, DType dt, bool bandwidth) {
    // An approximate match (another GPU's numbers) could be slower than this one: no datasheet bound then.
    if (!spec || spec->approximate() || !spec->supports(dt)) return std::nullopt;
    const Ceilings c = datasheet_ceilings(*spec, dt);
    const double v = bandwidth ? c.bandwidth_gb_s : c.peak_tflops;
    return v > 0 ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

VerifiedTiming time_shape_verified(GpuSession& gpu, const KernelAdapter& adapter, const EvaluationRequest& req,
                                   const Shape& shape, std::uint64_t seed, const CandidateModule& candidate,
                                   const CandidateModule* reference) {
    const DType dt = req.timing_dtype;
    const Problem p{shape, scalar_type(dt)};
    const std::string label = "timing " + to_string(shape) + " " + std::string(to_string(dt));
    const Tolerance tol = adapter.tolerance(p);
    const PoisonFormat out_format = poison_format(adapter.output_dtype(p));
    const PoisonFormat ws_format = poison_format(p.dtype);
    std::mt19937_64 rng(seed ^ 0x7665726966696564ull);
    PoisonSource poison(rng());

    // ---- pristine contents (with slack to shift them), then the working sets (their own storages)
    std::vector<AliasedInputs> raw;
    for (int i = 0; i < kContents; ++i) {
        at::Generator gen = seeded_cuda_generator(case_seed(seed ^ 0x74696D696E67ull, CheckStage::Timing, i));
        raw.emplace_back(adapter.make_inputs(p, InputKind::Regular, gen));
    }
    std::vector<AliasedInputs> contents;
    for (int i = 0; i < kContents; ++i)
        contents.push_back(AliasedInputs::with_slack(raw[std::size_t(i)], raw[std::size_t(i + 1) % raw.size()], kSlackBytes));
    raw.clear();
    auto random_offsets = [&]() {
        std::vector<std::int64_t> o(contents[0].storage_count());
        for (auto& v : o) v = std::int64_t(rng() % std::uint64_t(kSlackBytes / 16 + 1)) * 16;
        return o;
    };

    std::vector<Buffers> cand_sets, ref_sets;
    for (int w = 0; w < kWorkingSets; ++w) {
        cand_sets.push_back(make_buffers(adapter, p, contents[0], candidate));
        if (reference) ref_sets.push_back(make_buffers(adapter, p, contents[0], *reference));
    }
    std::vector<Sample> cand_samples(kVerifiedRuns), ref_samples(reference ? kVerifiedReferenceRuns : 0);
    const std::vector<std::int64_t> out_shape = adapter.output_shape(p);
    for (auto& s : cand_samples) s.output = at::empty(out_shape, at::TensorOptions().dtype(adapter.output_dtype(p)).device(at::kCUDA));
    for (auto& s : ref_samples) s.output = at::empty(out_shape, at::TensorOptions().dtype(adapter.output_dtype(p)).device(at::kCUDA));
    int cand_runs = 0, ref_runs = 0;

    // Implementations: the candidate, every baseline route, then the reference candidate.
    const std::vector<BaselineRoute> routes = adapter.baseline_routes(p, cand_sets[0].inputs.tensors());
    if (routes.empty()) throw Error(ErrorKind::Internal, std::string(to_string(req.type)) + " adapter offers no baseline");
    const int n_routes = int(routes.size());
    const int kReference = 1 + n_routes;
    auto is_baseline = [&](int impl) { return impl >= 1 && impl <= n_routes; };
    auto sets_of = [&](int impl) -> std::vector<Buffers>& { return impl == kReference ? ref_sets : cand_sets; };
    RunHooks hooks;
    hooks.before = [&](int impl, int iteration, TimingPhase) {
        if (is_baseline(impl)) return;
        Buffers& b = sets_of(impl)[std::size_t(iteration) % kWorkingSets];
        const int j = int(rng() % contents.size());
        b.offsets = random_offsets();
        b.inputs.load(contents[std::size_t(j)].shifted(b.offsets));
        b.loaded = j;
        b.ran = true;
        b.poison = poison.next(out_format);
        fill_pattern(b.output.payload, b.output.payload_bytes, b.poison);
        if (b.workspace && b.reserved_bytes > 0) fill_pattern(b.workspace->payload, b.reserved_bytes, poison.next(ws_format));
        if (b.kept_zero.defined()) b.kept_zero.zero_();  // outside the timed window: no state carries between runs
    };
    hooks.after = [&](int impl, int iteration, TimingPhase) {
        if (is_baseline(impl)) return;
        Buffers& b = sets_of(impl)[std::size_t(iteration) % kWorkingSets];
        if (b.kept_zero.defined()) b.left_nonzero.add_(b.kept_zero.ne(0).any());  // every run, on the device
        std::vector<Sample>& samples = impl == kReference ? ref_samples : cand_samples;
        const int n = impl == kReference ? ++ref_runs : ++cand_runs;
        if (const auto slot = reservoir_slot(samples.size(), n, rng)) {
            Sample& s = samples[*slot];
            s.output.copy_(b.output.payload, /*non_blocking=*/true);
            s.contents = b.loaded;
            s.offsets = b.offsets;
            s.run = n;
            s.poison = b.poison;
            s.used = true;
        }
    };

    const int impls = 1 + n_routes + (reference ? 1 : 0);
    const CUstream stream = gpu.stream();
    TimingOptions options;
    options.iterations = std::max(0, req.iterations_hint);
    const auto stats = gpu.timer().time_interleaved(
        impls,
        [&](int impl, int iteration) {
            const std::size_t w = std::size_t(iteration) % kWorkingSets;
            if (impl == kCandidate)
                candidate.enqueue(cand_sets[w].launch, stream);
            else if (is_baseline(impl))
                (void)routes[std::size_t(impl - 1)].run(cand_sets[w].inputs.tensors());
            else
                reference->enqueue(ref_sets[w].launch, stream);
        },
        options, label, hooks);
    check_cu(cuda_driver().cuStreamSynchronize(stream), label + " (after the timed runs)");

    VerifiedTiming out;
    out.timed_runs = cand_runs;

    // ---- what the timed runs wrote
    std::map<std::pair<int, std::vector<std::int64_t>>, at::Tensor> references;
    auto reference_of = [&](int j, const std::vector<std::int64_t>& offsets) -> const at::Tensor& {
        const auto key = std::make_pair(j, offsets);
        auto it = references.find(key);
        if (it == references.end())
            it = references.emplace(key, adapter.reference(p, contents[std::size_t(j)].shifted(offsets).tensors())).first;
        return it->second;
    };
    auto verify = [&](const std::vector<Buffers>& sets, const std::vector<Sample>& samples, int runs,
                      const char* who) -> std::optional<std::string> {
        const std::string prefix = label + ": ";
        for (const Sample& s : samples) {
            if (!s.used) continue;
            const Comparison cmp = compare_with_reference(s.output, reference_of(s.contents, s.offsets), tol, &s.poison);
            std::string why = cmp.passed ? std::string() : cmp.detail;
            if (why.empty())
                if (auto broken = adapter.check_invariants(p, s.output, tol)) why = *broken;
            if (!why.empty())
                return prefix + "run " + std::to_string(s.run) + " of " + std::to_string(runs) + " of " + who +
                       " (chosen at random among its timed runs and checked afterwards) is wrong: " + why;
            if (std::string(who) == "the candidate") ++out.verified_runs;
        }
        for (std::size_t w = 0; w < sets.size(); ++w) {
            const Buffers& b = sets[w];
            if (auto guard = check_guards(b.output)) return prefix + *guard + " during the timed runs of " + who;
            if (b.workspace)
                if (auto guard = check_guards(*b.workspace)) return prefix + *guard + " during the timed runs of " + who;
            if (b.kept_zero.defined())
                if (const std::int64_t n = b.left_nonzero.item<std::int64_t>(); n > 0) {
                    const auto last = workspace_not_left_zero(b.kept_zero);
                    return prefix + std::to_string(n) + " timed runs of " + who + " on input set " + std::to_string(w + 1) +
                           " left the workspace not all zero, though the stages declare AK_WORKSPACE_KEPT_ZERO" +
                           (last ? " (the last run: " + *last + ")" : std::string());
                }
            InputSnapshot loaded;
            loaded.copies = contents[std::size_t(b.loaded)].shifted(b.offsets).tensors();
            if (auto changed = changed_input(loaded, b.inputs.tensors(), adapter.input_names()))
                return prefix + *changed + " (during the timed runs of " + who + ")";
            if (b.ran) {
                const Comparison cmp =
                    compare_with_reference(b.output.payload, reference_of(b.loaded, b.offsets), tol, &b.poison);
                if (!cmp.passed)
                    return prefix + "the last timed run of " + who + " on input set " + std::to_string(w + 1) +
                           " is wrong: " + cmp.detail;
                if (std::string(who) == "the candidate") ++out.verified_runs;
            }
        }
        return std::nullopt;
    };
    out.failure = verify(cand_sets, cand_samples, cand_runs, "the candidate");
    if (reference) out.reference_failure = verify(ref_sets, ref_samples, ref_runs, "the reference candidate");

    // ---- the numbers
    TimingRecord& row = out.row;
    row.shape = shape;
    row.dtype = dt;
    row.median_us = stats[kCandidate].median_us;
    row.iqr_us = stats[kCandidate].iqr_us;
    row.samples = stats[kCandidate].samples;
    int best = 1;
    for (int k = 2; k <= n_routes; ++k)
        if (stats[std::size_t(k)].median_us < stats[std::size_t(best)].median_us) best = k;
    row.baseline_name = baseline_route_name(routes, stats, best);
    row.baseline_median_us = stats[std::size_t(best)].median_us;
    row.baseline_iqr_us = stats[std::size_t(best)].iqr_us;

    // Ceilings: a copy of the same bytes and the GEMM of this dtype (both measured once and cached).
    const double bytes = min_bytes(req.type, shape, dt);
    const double flops = flop_count(req.type, shape);
    const double copy = gpu.ceilings().copy_gb_s(std::uint64_t(std::llround(bytes)));
    const double gemm = gpu.ceilings().gemm_tflops(dt);
    const bool mem = memory_bound(row, req.type, gpu.spec());
    fill_performance(row, req.type, gpu.spec(), mem ? copy : 0, mem ? 0 : gemm);

    auto plausibility = [&](double median_us, double iqr_us) {
        PlausibilityInput in;
        in.median_us = median_us;
        in.iqr_us = iqr_us;
        in.flops = flops;
        in.bytes = bytes;
        if (copy > 0) in.measured_copy_gb_s = copy;
        if (gemm > 0) in.measured_gemm_tflops = gemm;
        in.datasheet_gb_s = datasheet_value(gpu.spec(), dt, true);
        in.datasheet_tflops = datasheet_value(gpu.spec(), dt, false);
        return check_plausibility(in);
    };
    if (!out.failure) {
        const PlausibilityResult pr = plausibility(row.median_us, row.iqr_us);
        if (!pr.plausible) out.failure = label + ": the candidate is " + pr.reason;
    }
    if (reference && !out.reference_failure) {
        TimingRecord r = row;
        r.median_us = stats[std::size_t(kReference)].median_us;
        r.iqr_us = stats[std::size_t(kReference)].iqr_us;
        r.samples = stats[std::size_t(kReference)].samples;
        fill_performance(r, req.type, gpu.spec(), mem ? copy : 0, mem ? 0 : gemm);
        const PlausibilityResult pr = plausibility(r.median_us, r.iqr_us);
        if (!pr.plausible)
            out.reference_failure = label + ": the reference candidate is " + pr.reason;
        else
            out.reference_row = r;
    }
    if (row.baseline_median_us > 0) {
        const PlausibilityResult pr = plausibility(row.baseline_median_us, row.baseline_iqr_us);
        if (!pr.plausible)
            out.note = label + ": the baseline " + row.baseline_name + " is " + pr.reason +
                       ": the byte or FLOP count of this type must be wrong (a harness bug, please report it)";
    }
    return out;
}

}  // namespace ak::eval
