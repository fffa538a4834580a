#include "engine/evaluator/harness.h"

#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/kept_zero_workspace.h"
#include "engine/evaluator/output_check.h"
#include "gpu/cuda_driver.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>

namespace ak::eval {

namespace {

std::string dtype_name(DType d) { return std::string(to_string(d)); }

}  // namespace

at::Generator seeded_cuda_generator(std::uint64_t seed) {
    at::Generator gen = at::cuda::detail::createCUDAGenerator(c10::cuda::current_device());
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
    return gen;
}

std::string case_label(const CheckCase& c) {
    return std::string(to_string(c.stage)) + " " + to_string(c.shape) + " " + dtype_name(c.dtype) + " (seed " +
           std::to_string(c.seed) + ")";
}

Harness::Harness(const KernelAdapter& adapter, CUstream stream, ProgressFn progress, std::uint64_t poison_seed)
    : adapter_(adapter), stream_(stream), progress_(std::move(progress)), poison_(poison_seed) {}

CheckRecord Harness::run_case(const CheckCase& c, const CandidateModule& module) {
    CheckRecord rec;
    rec.stage = c.stage;
    rec.shape = c.shape;
    rec.dtype = c.dtype;
    rec.seed = c.seed;
    const std::string label = case_label(c);
    auto fail = [&](const std::string& why) {
        rec.passed = false;
        rec.detail = label + ": " + why;
        return rec;
    };

    const Problem p{c.shape, scalar_type(c.dtype)};
    const Tolerance tol = adapter_.tolerance(p);
    rec.tolerance = tol.atol;

    at::Generator gen = seeded_cuda_generator(c.seed);
    const std::vector<at::Tensor> inputs =
        adapter_.make_inputs(p, c.adversarial ? InputKind::Adversarial : InputKind::Regular, gen);
    // The reference first: a candidate that writes into its inputs cannot change what it is compared with.
    const at::Tensor ref = adapter_.reference(p, inputs);
    const InputSnapshot pristine = snapshot_inputs(inputs);
    const GuardedBuffer out = make_guarded(adapter_.output_shape(p), adapter_.output_dtype(p), "the output");
    const PoisonFormat out_format = poison_format(adapter_.output_dtype(p));

    CaseTensors t;
    t.inputs = inputs;
    t.output = out.payload;
    std::optional<GuardedBuffer> workspace;
    std::int64_t reserved_bytes = 0;
    at::Tensor kept_zero;  // the declared workspace, when the stages keep it zero themselves
    PreparedLaunch launch;
    try {
        const WorkspaceLayout layout = module.workspace_layout(p);
        if (layout.total() > 0) {
            workspace = make_guarded({layout.total()}, at::kByte, "the workspace");
            t.workspace = workspace->payload;
            reserved_bytes = layout.reserved;
            if (layout.kept_zero) kept_zero = declared_workspace(workspace->payload, layout);
        }
        launch = module.prepare(p, t);
    } catch (const LaunchError& e) {
        return fail(e.what());
    }
    const PoisonFormat ws_format = poison_format(p.dtype);

    at::Tensor first;
    for (int run = 0; run < c.runs; ++run) {
        const std::string where = label + (c.runs > 1 ? ", run " + std::to_string(run + 1) : std::string());
        const std::string run_note = c.runs > 1 ? " (run " + std::to_string(run + 1) + ")" : std::string();
        const PoisonPattern pattern = poison_.next(out_format);
        fill_pattern(out.payload, out.payload_bytes, pattern);
        arm_guards(out);
        if (workspace) {
            arm_guards(*workspace);
            // The reserved block is fully written by the stages that use it (kernels/README.md): stale
            // contents must never be what a candidate reads.
            fill_pattern(workspace->payload, reserved_bytes, poison_.next(ws_format));
            if (kept_zero.defined()) kept_zero.zero_();  // what the launcher would have done in the launch
        }
        try {
            module.enqueue(launch, stream_);
        } catch (const LaunchError& e) {
            return fail(e.what());
        }
        check_cu(cuda_driver().cuStreamSynchronize(stream_), "the " + where);
        if (auto guard = check_guards(out)) return fail(*guard + run_note);
        if (workspace)
            if (auto guard = check_guards(*workspace)) return fail(*guard + run_note);
        if (auto left = workspace_not_left_zero(kept_zero)) return fail(*left + run_note);
        if (auto changed = changed_input(pristine, inputs, adapter_.input_names())) return fail(*changed + run_note);
        if (run == 0) {
            const Comparison cmp = compare_with_reference(out.payload, ref, tol, &pattern);
            rec.max_abs_err = cmp.max_abs_err;
            rec.norm_rel_err = cmp.norm_rel_err;
            if (!cmp.passed) return fail(cmp.detail);
            if (auto broken = adapter_.check_invariants(p, out.payload, tol)) return fail(*broken);
            if (c.runs > 1) first = out.payload.clone();
        } else if (auto diff = bitwise_difference(first, out.payload)) {
            // A wrong repeat (unwritten elements, say) is named as such; an accurate one is a race.
            const Comparison cmp = compare_with_reference(out.payload, ref, tol, &pattern);
            if (!cmp.passed) return fail("run " + std::to_string(run + 1) + " on identical inputs is wrong: " + cmp.detail);
            return fail("not deterministic: run " + std::to_string(run + 1) + " on identical inputs differs from run 1: " + *diff);
        }
    }
    rec.passed = true;
    return rec;
}

HarnessOutcome Harness::run(const std::vector<CheckCase>& plan,
                            const std::function<const CandidateModule&(DType)>& module_for) {
    HarnessOutcome outcome;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const CheckCase& c = plan[i];
        // A failed stage is finished; the next stage does not start.
        if (!outcome.passed && c.stage != *outcome.failed_stage) break;
        if (progress_) {
            std::size_t in_stage = 0, position = 0;
            for (std::size_t k = 0; k < plan.size(); ++k)
                if (plan[k].stage == c.stage) {
                    ++in_stage;
                    if (k <= i) ++position;
                }
            progress_(std::string(to_string(c.stage)),
                      to_string(c.shape) + " " + dtype_name(c.dtype) + " (" + std::to_string(position) + "/" +
                          std::to_string(in_stage) + ")");
        }
        CheckRecord rec = run_case(c, module_for(c.dtype));
        if (!rec.passed && outcome.passed) {
            outcome.passed = false;
            outcome.failed_stage = c.stage;
            outcome.detail = rec.detail;
        }
        outcome.records.push_back(std::move(rec));
    }
    return outcome;
}

}  // namespace ak::eval
