#include "engine/evaluator/model_substitution.h"

#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/gpu_session.h"
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launcher.h"
#include "engine/kernel_contract.h"
#include "gpu/cuda_driver.h"
#include "models/model_ops.h"
#include "util/error.h"

#include "autokernel/contract.cuh"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/_softmax_cuda_dispatch.h>
#include <ATen/ops/addmm_cuda_dispatch.h>
#include <ATen/ops/bmm_cuda_dispatch.h>
#include <ATen/ops/cross_entropy_loss_compositeimplicitautograd_dispatch.h>
#include <ATen/ops/mm_cuda_dispatch.h>
#include <ATen/ops/native_layer_norm_cuda_dispatch.h>
#include <ATen/ops/rms_norm_compositeimplicitautograd_dispatch.h>
#include <ATen/ops/scaled_dot_product_attention_compositeimplicitautograd_dispatch.h>
#include <ATen/ops/sum_cuda_dispatch.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace ak::eval {

namespace {

// Our kernels launch (and their per-call events are recorded) on the current torch stream, the one
// ATen's kernels of the same pass use: a CUDA graph capture on a side stream then takes them too.
CUstream torch_stream() { return reinterpret_cast<CUstream>(at::cuda::getCurrentCUDAStream().stream()); }


std::string dtype_name(DType d) { return std::string(to_string(d)); }

std::optional<DType> kernel_dtype_of(at::ScalarType t) {
    switch (t) {
    case at::kHalf: return DType::fp16;
    case at::kBFloat16: return DType::bf16;
    case at::kFloat: return DType::fp32;
    default: return std::nullopt;
    }
}

std::string sizes_text(at::IntArrayRef s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

// The adapter of a type with the per-call scalars a model passes (the norms' eps, attention's scale)
// written over the adapter's defaults after it fills the argument struct.
class CallAdapter final : public KernelAdapter {
public:
    explicit CallAdapter(const KernelAdapter& base) : base_(base) {}

    KernelType type() const override { return base_.type(); }
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        return base_.make_inputs(p, kind, gen);
    }
    std::vector<std::string> input_names() const override { return base_.input_names(); }
    std::vector<int64_t> output_shape(const Problem& p) const override { return base_.output_shape(p); }
    at::ScalarType output_dtype(const Problem& p) const override { return base_.output_dtype(p); }
    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        return base_.reference(p, inputs);
    }
    at::Tensor baseline(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        return base_.baseline(p, inputs);
    }
    std::string baseline_name() const override { return base_.baseline_name(); }
    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        base_.fill_args(args, args_size, p, t);
        switch (type()) {
        case KernelType::RmsNorm:
            if (eps) static_cast<ak_rmsnorm_args*>(args)->eps = *eps;
            break;
        case KernelType::LayerNorm:
            if (eps) static_cast<ak_layernorm_args*>(args)->eps = *eps;
            break;
        case KernelType::FlashAttention:
            if (scale) static_cast<ak_flash_attention_args*>(args)->scale = *scale;
            break;
        default: break;
        }
    }
    int64_t rows(const Problem& p) const override { return base_.rows(p); }
    int64_t tiles_m(const Problem& p) const override { return base_.tiles_m(p); }
    int64_t tiles_n(const Problem& p) const override { return base_.tiles_n(p); }
    int64_t tiles_batch(const Problem& p) const override { return base_.tiles_batch(p); }
    void library_stage(int library_op, const Problem& p, const CaseTensors& t) const override {
        base_.library_stage(library_op, p, t);
    }
    bool tma_operand(int index, const Problem& p, const CaseTensors& t, void** b, int64_t* r, int64_t* c) const override {
        return base_.tma_operand(index, p, t, b, r, c);
    }
    Tolerance tolerance(const Problem& p) const override { return base_.tolerance(p); }

    // Set before each launch (the worker is single-threaded).
    mutable std::optional<float> eps;
    mutable std::optional<float> scale;

private:
    const KernelAdapter& base_;
};

struct LoadedKernel {
    VerifyKernel spec;
    KernelContract contract;
    std::unique_ptr<CallAdapter> adapter;
    std::map<DType, std::unique_ptr<CandidateModule>> modules;  // compiled on first use per dtype
    std::set<DType> tried;
    bool disabled = false;
};

// One intercepted call at nesting depth 0 in the current pass.
struct CallSlot {
    KernelType type = KernelType::Matmul;
    int kernel = -1;  // index into kernels; -1: ATen
    std::string reason;
    bool copied = false;
    std::string shape;
    CUevent start = nullptr;
    CUevent end = nullptr;
};

struct KernelChoice {
    LoadedKernel* kernel = nullptr;
    int index = -1;
    const CandidateModule* module = nullptr;
    std::string reason;  // when none
};

}  // namespace


namespace {
ModelSubstitution::Impl* g_active = nullptr;
}

// The built-in models' fused patterns with our kernels.
class SubstitutingOps final : public models::ModelOps {
public:
    explicit SubstitutingOps(ModelSubstitution::Impl& s) : s_(s) {}
    at::Tensor swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up, const at::Tensor& w_down) override;
    at::Tensor rotary(const at::Tensor& x, const models::RotaryTables& tables) override;
    at::Tensor cross_entropy(const at::Tensor& logits, const at::Tensor& targets) override;

private:
    ModelSubstitution::Impl& s_;
};

struct ModelSubstitution::Impl {
    GpuSession& gpu;
    VerifyRequest request;
    std::vector<std::unique_ptr<LoadedKernel>> kernels;
    std::set<KernelType> types;  // types with at least one loaded kernel
    std::vector<VerifyFailure> failures;
    std::unique_ptr<torch::Library> library;
    SubstitutingOps ops{*this};
    PassOptions pass;
    int depth = 0;  // > 0 while one of our handlers runs
    std::function<void(const std::string&)> progress;

    std::vector<CallSlot> slots;
    std::vector<CUevent> event_pool;
    std::size_t events_used = 0;
    std::map<std::string, VerifyKernelCheck> checks;  // by kernel name

    // Caches of parameters (keyed by storage and version counter) that live as long as the run: Linear
    // weights transposed once, gate/up weights concatenated once.
    std::map<std::tuple<const void*, int64_t, int64_t, uint32_t>, at::Tensor> transposed;
    std::map<std::tuple<const void*, const void*, uint32_t, uint32_t>, at::Tensor> gate_up;
    double transposed_bytes = 0;
    double gate_up_bytes = 0;

    Impl(GpuSession& g, const VerifyRequest& r) : gpu(g), request(r) {}

    ~Impl() {
        if (g_active == this) g_active = nullptr;
        library.reset();
        for (CUevent e : event_pool)
            if (e) cuda_driver().cuEventDestroy_v2(e);
    }

    // ---- choosing a kernel -------------------------------------------------------------------------------
    bool verified(const VerifyKernel& k, const Shape& s, DType d) const {
        if (request.any_shape) return true;
        if (std::find(k.dtypes.begin(), k.dtypes.end(), d) != k.dtypes.end() &&
            std::find(k.shapes.begin(), k.shapes.end(), s) != k.shapes.end())
            return true;
        return d == k.timing_dtype && std::find(k.timing_shapes.begin(), k.timing_shapes.end(), s) != k.timing_shapes.end();
    }

    bool verified_dtype(const VerifyKernel& k, DType d) const {
        return request.any_shape || d == k.timing_dtype || std::find(k.dtypes.begin(), k.dtypes.end(), d) != k.dtypes.end();
    }

    // `k` compiled with NVRTC for `d` and loaded, once; null (the failure recorded, the kernel disabled)
    // when it does not compile or load.
    const CandidateModule* module_for(LoadedKernel& k, DType d) {
        if (const auto it = k.modules.find(d); it != k.modules.end()) return it->second.get();
        if (!k.tried.insert(d).second) return nullptr;
        if (progress) progress("compile " + k.spec.name + " (" + std::string(to_string(k.spec.type)) + ") " + dtype_name(d));
        CompileOptions o;
        o.arch = gpu.arch();
        o.include_dirs = {kernels_include_dir()};
        o.options = contract_options(k.contract, d);
        const CompileResult r = gpu.compiler().compile(k.spec.source, k.spec.name + ".cu", o);
        std::string error;
        if (!r.ok) {
            error = dtype_name(d) + ": " + r.log.substr(0, 1500);
        } else {
            try {
                k.modules[d] = std::make_unique<CandidateModule>(r.cubin, *k.adapter, scalar_type(d), gpu.limits());
                return k.modules[d].get();
            } catch (const StickyCudaError&) {
                throw;
            } catch (const Error& e) {
                error = dtype_name(d) + ": the module could not be loaded: " + e.what();
            }
        }
        failures.push_back({k.spec.name, "compile", error});
        k.disabled = true;
        return nullptr;
    }

    KernelChoice choose(KernelType type, const Shape& shape, at::ScalarType st) {
        KernelChoice c;
        const auto d = kernel_dtype_of(st);
        if (!d) {
            c.reason = std::string("dtype ") + c10::toString(st) + " (kernels run in fp16, bf16, fp32)";
            return c;
        }
        try {
            check_shape(type, shape);
        } catch (const Error& e) {
            c.reason = std::string("outside the contract: ") + e.what();
            return c;
        }
        bool dtype_seen = false, any_enabled = false;
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            LoadedKernel& k = *kernels[i];
            if (k.spec.type != type || k.disabled) continue;
            any_enabled = true;
            if (!verified_dtype(k.spec, *d)) continue;
            dtype_seen = true;
            if (!verified(k.spec, shape, *d)) continue;
            const CandidateModule* m = module_for(k, *d);
            if (!m) continue;
            c.kernel = &k;
            c.index = int(i);
            c.module = m;
            return c;
        }
        if (!any_enabled)
            c.reason = "its kernel failed earlier in this run";
        else if (!dtype_seen)
            c.reason = "dtype " + dtype_name(*d) + " not verified";
        else
            c.reason = "shape " + to_string(shape) + " " + dtype_name(*d) + " not among the verified shapes";
        return c;
    }

    // ---- events ------------------------------------------------------------------------------------------
    CUevent next_event() {
        if (events_used == event_pool.size()) {
            CUevent e = nullptr;
            check_cu(cuda_driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
            event_pool.push_back(e);
        }
        return event_pool[events_used++];
    }
    void record(CUevent e) { check_cu(cuda_driver().cuEventRecord(e, torch_stream()), "cuEventRecord"); }

    // ---- the call protocol -------------------------------------------------------------------------------
    // Runs `fallback` (ATen) for a call of `type` and counts it; `why` empty in Observe mode.
    template <class Fallback>
    auto aten_call(KernelType type, const std::string& why, Fallback&& fallback) {
        if (depth > 0) return fallback();
        ++depth;
        CallSlot slot;
        slot.type = type;
        slot.reason = why;
        if (pass.time_calls) {
            slot.start = next_event();
            record(slot.start);
        }
        struct Leave {
            int& d;
            ~Leave() { --d; }
        } leave{depth};
        auto out = fallback();
        if (pass.time_calls) {
            slot.end = next_event();
            record(slot.end);
        }
        if (counting()) slots.push_back(std::move(slot));
        return out;
    }

    // Calls are recorded in observe, check and coverage passes, not in timed runs.
    bool counting() const { return pass.time_calls || pass.check_calls; }

    // Runs `ours` (our kernel) for a call; on a launch failure disables the kernel and falls back.
    // With check_calls the result is compared with `fallback()` for the same call.
    template <class Ours, class Fallback>
    auto routed_call(KernelType type, const KernelChoice& choice, const Shape& shape, at::ScalarType st, Ours&& ours,
                     Fallback&& fallback) {
        ++depth;
        struct Leave {
            int& d;
            ~Leave() { --d; }
        } leave{depth};
        CallSlot slot;
        slot.type = type;
        slot.kernel = choice.index;
        if (counting()) slot.shape = to_string(shape) + " " + c10::toString(st);
        if (pass.time_calls) {
            slot.start = next_event();
            record(slot.start);
        }
        bool copied = false;
        decltype(fallback()) out;
        try {
            out = ours(*choice.module, copied);
        } catch (const StickyCudaError&) {
            throw;
        } catch (const std::exception& e) {
            choice.kernel->disabled = true;
            failures.push_back(VerifyFailure{choice.kernel->spec.name, "launch",
                                             "at " + to_string(shape) + " " + c10::toString(st) + ": " + e.what() + " (the kernel was not used further)"});
            slot.kernel = -1;
            slot.reason = "its kernel failed to launch";
            out = fallback();
        }
        if (pass.time_calls) {
            slot.end = next_event();
            record(slot.end);
        }
        slot.copied = copied;
        if (pass.check_calls && slot.kernel >= 0) check_call(*choice.kernel, shape, st, out, fallback());
        if (counting()) slots.push_back(std::move(slot));
        return out;
    }

    // ours and ATen's result of the same call: elementwise |ours - aten| <= 2 (atol + rtol |aten|) and the
    // norm gate at twice the type's norm_rtol (both are rounded results of the same exact value).
    template <class T>
    void check_call(LoadedKernel& k, const Shape& shape, at::ScalarType st, const T& ours, const T& aten) {
        if constexpr (std::is_same_v<T, at::Tensor>) {
            compare(k, shape, st, ours, aten);
        } else {
            compare(k, shape, st, std::get<0>(ours), std::get<0>(aten));
        }
    }

    void compare(LoadedKernel& k, const Shape& shape, at::ScalarType st, const at::Tensor& ours, const at::Tensor& aten) {
        VerifyKernelCheck& c = checks[k.spec.name];
        c.kernel = k.spec.name;
        c.type = k.spec.type;
        ++c.calls;
        const at::Tensor o = ours.to(at::kDouble).reshape({-1});
        const at::Tensor a = aten.to(at::kDouble).reshape({-1});
        std::string problem;
        double max_abs = 0, norm_rel = 0;
        if (o.numel() != a.numel()) {
            problem = "output has " + std::to_string(o.numel()) + " elements, ATen's " + std::to_string(a.numel());
        } else {
            const at::Tensor diff = (o - a).abs();
            const bool finite = at::isfinite(o).all().item<bool>() || !at::isfinite(a).all().item<bool>();
            max_abs = diff.numel() ? diff.max().item<double>() : 0.0;
            const double ref_norm = a.norm().item<double>();
            norm_rel = ref_norm > 0 ? (o - a).norm().item<double>() / ref_norm : (max_abs > 0 ? INFINITY : 0.0);
            const Tolerance tol = k.adapter->tolerance(Problem{shape, st});
            const at::Tensor bad = diff > (2 * tol.atol + 2 * tol.rtol * a.abs());
            const int64_t bad_count = bad.sum().item<int64_t>();
            if (!finite || std::isnan(max_abs))
                problem = "non-finite output where ATen's is finite";
            else if (bad_count > 0)
                problem = std::to_string(bad_count) + " of " + std::to_string(o.numel()) + " elements differ from ATen's by more than 2 x (" +
                          sci(tol.atol) + " + " + sci(tol.rtol) + " |aten|)";
            else if (tol.norm_rtol > 0 && norm_rel > 2 * tol.norm_rtol)
                problem = "norm-relative error " + sci(norm_rel) + " > 2 x " + sci(tol.norm_rtol);
        }
        if (std::isnan(max_abs)) max_abs = INFINITY;
        c.max_abs_err = std::max(c.max_abs_err, max_abs);
        c.norm_rel_err = std::max(c.norm_rel_err, std::isnan(norm_rel) ? INFINITY : norm_rel);
        if (!problem.empty() && c.passed) {
            c.passed = false;
            c.detail = to_string(shape) + " " + c10::toString(st) + ": " + problem + " (max abs err " + sci(max_abs) +
                       ", norm-relative " + sci(norm_rel) + ")";
        }
    }

    // ---- inputs ------------------------------------------------------------------------------------------
    // `t` itself when contiguous; a contiguous copy when copies are allowed (sets *copied); else undefined.
    at::Tensor contiguous_input(const at::Tensor& t, bool* copied) const {
        if (t.is_contiguous()) return t;
        if (!request.copy_layouts) return at::Tensor();
        *copied = true;
        return t.contiguous();
    }

    // B of a matmul: contiguous as it is, or the transposed view of a contiguous [N, K] Linear weight,
    // transposed once and cached (the weights do not change during the run).
    at::Tensor matmul_b(const at::Tensor& b, bool* copied) {
        if (b.is_contiguous()) return b;
        // Only parameters are cached (activations are inference tensors: no version counter, and their
        // memory is reused); a transposed activation is copied like any other non-contiguous input.
        if (b.dim() == 2 && b.t().is_contiguous() && !b.is_inference()) {
            const auto key = std::make_tuple(static_cast<const void*>(b.data_ptr()), b.size(0), b.size(1),
                                             static_cast<uint32_t>(b._version()));
            auto it = transposed.find(key);
            if (it == transposed.end()) {
                it = transposed.emplace(key, b.contiguous()).first;
                transposed_bytes += double(b.numel()) * double(b.element_size());
            }
            return it->second;
        }
        return contiguous_input(b, copied);
    }

    // Launches `module` for one problem; returns `output`.
    at::Tensor launch(const CandidateModule& module, LoadedKernel& k, const Problem& p, std::vector<at::Tensor> inputs,
                      at::Tensor output) {
        CaseTensors t;
        t.inputs = std::move(inputs);
        t.output = output;
        const int64_t ws = module.workspace_bytes(p);
        // zeros: stages that keep their workspace zero themselves (AK_WORKSPACE_KEPT_ZERO) get no zeroing per launch
        if (ws > 0) t.workspace = at::zeros({ws}, output.options().dtype(at::kByte));
        (void)k;
        module.launch(p, t, torch_stream());
        return output;
    }

    std::vector<std::string> notes() const {
        std::vector<std::string> out;
        if (!transposed.empty())
            out.push_back(std::to_string(transposed.size()) + " Linear weight(s) passed as w.t() were transposed once for the matmul kernel (" +
                          std::to_string(int64_t(transposed_bytes / (1 << 20))) + " MiB, cached for the run, outside the timed passes)");
        if (!gate_up.empty())
            out.push_back(std::to_string(gate_up.size()) + " gate/up weight pair(s) concatenated once for the fused_mlp kernel (" +
                          std::to_string(int64_t(gate_up_bytes / (1 << 20))) + " MiB)");
        return out;
    }
};

namespace {

ModelSubstitution::Impl* active() { return g_active; }

class QuietWarnings final : public c10::WarningHandler {
public:
    void process(const c10::Warning&) override {}
};

bool is_one(const c10::Scalar& s) { return s.isFloatingPoint() ? s.toDouble() == 1.0 : (s.isIntegral(false) && s.toLong() == 1); }

// ---- dispatcher kernels ---------------------------------------------------------------------------------

at::Tensor mm_kernel(const at::Tensor& a, const at::Tensor& b);

// C = A @ B (+ bias) with our matmul kernel, or the reason it cannot take the call.
std::optional<at::Tensor> our_matmul(ModelSubstitution::Impl& s, const at::Tensor& a, const at::Tensor& b,
                                     const at::Tensor* bias, std::string* why, const std::function<at::Tensor()>& fallback) {
    if (a.dim() != 2 || b.dim() != 2) {
        *why = "not 2-D";
        return std::nullopt;
    }
    if (a.scalar_type() != b.scalar_type()) {
        *why = "mixed dtypes";
        return std::nullopt;
    }
    if (bias) {
        const at::Tensor& c = *bias;
        const bool row = (c.dim() == 1 && c.size(0) == b.size(1)) || (c.dim() == 2 && c.size(0) == 1 && c.size(1) == b.size(1));
        const bool full = c.dim() == 2 && c.size(0) == a.size(0) && c.size(1) == b.size(1);
        if (!(row || full) || c.scalar_type() != a.scalar_type()) {
            *why = "bias of shape " + sizes_text(c.sizes()) + " " + c10::toString(c.scalar_type());
            return std::nullopt;
        }
    }
    const Shape shape{{a.size(0), b.size(1), a.size(1)}};
    const KernelChoice choice = s.choose(KernelType::Matmul, shape, a.scalar_type());
    if (!choice.kernel) {
        *why = choice.reason;
        return std::nullopt;
    }
    // Layout: decided before routing, so a refused layout is a fallback, not a failure.
    if (!s.request.copy_layouts && (!a.is_contiguous() || !(b.is_contiguous() || (b.t().is_contiguous())))) {
        *why = "non-contiguous input";
        return std::nullopt;
    }
    return s.routed_call(
        KernelType::Matmul, choice, shape, a.scalar_type(),
        [&](const CandidateModule& m, bool& copied) {
            at::Tensor A = s.contiguous_input(a, &copied);
            at::Tensor B = s.matmul_b(b, &copied);
            at::Tensor C = at::empty({a.size(0), b.size(1)}, a.options());
            s.launch(m, *choice.kernel, Problem{shape, a.scalar_type()}, {A, B}, C);
            if (bias) C.add_(*bias);
            return C;
        },
        fallback);
}

at::Tensor mm_kernel(const at::Tensor& a, const at::Tensor& b) {
    auto fallback = [&] { return at::cuda::mm(a, b); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::Matmul, "", fallback);
    std::string why;
    if (auto out = our_matmul(*s, a, b, nullptr, &why, fallback)) return *out;
    return s->aten_call(KernelType::Matmul, "aten::mm: " + why, fallback);
}

at::Tensor addmm_kernel(const at::Tensor& bias, const at::Tensor& a, const at::Tensor& b, const c10::Scalar& beta,
                        const c10::Scalar& alpha) {
    auto fallback = [&] { return at::cuda::addmm(bias, a, b, beta, alpha); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::Matmul, "", fallback);
    std::string why;
    if (!is_one(beta) || !is_one(alpha))
        why = "beta or alpha is not 1";
    else if (auto out = our_matmul(*s, a, b, &bias, &why, fallback))
        return *out;
    return s->aten_call(KernelType::Matmul, "aten::addmm: " + why, fallback);
}

at::Tensor bmm_kernel(const at::Tensor& a, const at::Tensor& b) {
    auto fallback = [&] { return at::cuda::bmm(a, b); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    return s->aten_call(KernelType::Matmul,
                        s->pass.mode == InterceptMode::Observe ? "" : "aten::bmm: batched (the matmul contract has no batch)", fallback);
}

// rows x cols of a tensor reduced over its last dimension.
Shape rows_cols(const at::Tensor& x) {
    const int64_t cols = x.dim() == 0 ? 1 : x.size(-1);
    return Shape{{cols == 0 ? 0 : x.numel() / cols, cols}};
}

at::Tensor softmax_kernel(const at::Tensor& x, int64_t dim, bool half_to_float) {
    auto fallback = [&] { return at::cuda::_softmax(x, dim, half_to_float); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::Softmax, "", fallback);
    std::string why;
    const int64_t last = x.dim() - 1;
    if (x.dim() == 0 || (dim != last && dim != -1))
        why = "not over the last dimension";
    else if (half_to_float)
        why = "half_to_float";
    else if (!s->request.copy_layouts && !x.is_contiguous())
        why = "non-contiguous input";
    if (why.empty()) {
        const Shape shape = rows_cols(x);
        const KernelChoice c = s->choose(KernelType::Softmax, shape, x.scalar_type());
        if (c.kernel)
            return s->routed_call(
                KernelType::Softmax, c, shape, x.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor X = s->contiguous_input(x, &copied);
                    at::Tensor Y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
                    return s->launch(m, *c.kernel, Problem{shape, x.scalar_type()}, {X}, Y);
                },
                fallback);
        why = c.reason;
    }
    return s->aten_call(KernelType::Softmax, "aten::_softmax: " + why, fallback);
}

// Why a norm over `normalized_shape` of `x` with `weight` (and `bias`) cannot go to our kernel; "" when it can.
std::string norm_refusal(ModelSubstitution::Impl& s, const at::Tensor& x, c10::SymIntArrayRef normalized_shape,
                         const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>* bias) {
    if (x.dim() == 0 || normalized_shape.size() != 1 || normalized_shape[0] != x.size(-1)) return "not over the last dimension alone";
    if (!weight || !weight->defined()) return "no weight";
    if (weight->numel() != x.size(-1) || weight->scalar_type() != x.scalar_type()) return "weight shape or dtype";
    if (bias) {
        if (!*bias || !(*bias)->defined()) return "no bias";
        if ((*bias)->numel() != x.size(-1) || (*bias)->scalar_type() != x.scalar_type()) return "bias shape or dtype";
    }
    if (!s.request.copy_layouts && !x.is_contiguous()) return "non-contiguous input";
    return "";
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_kernel(const at::Tensor& x, c10::SymIntArrayRef normalized_shape,
                                                                 const std::optional<at::Tensor>& weight,
                                                                 const std::optional<at::Tensor>& bias, double eps) {
    auto fallback = [&] { return at::cuda::native_layer_norm_symint(x, normalized_shape, weight, bias, eps); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::LayerNorm, "", fallback);
    std::string why = norm_refusal(*s, x, normalized_shape, weight, &bias);
    if (why.empty() && c10::GradMode::is_enabled()) why = "grad mode on (backward needs mean and rstd)";
    if (why.empty()) {
        const Shape shape = rows_cols(x);
        const KernelChoice c = s->choose(KernelType::LayerNorm, shape, x.scalar_type());
        if (c.kernel)
            return s->routed_call(
                KernelType::LayerNorm, c, shape, x.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor X = s->contiguous_input(x, &copied);
                    at::Tensor W = s->contiguous_input(*weight, &copied);
                    at::Tensor B = s->contiguous_input(*bias, &copied);
                    at::Tensor Y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
                    c.kernel->adapter->eps = static_cast<float>(eps);
                    s->launch(m, *c.kernel, Problem{shape, x.scalar_type()}, {X, W, B}, Y);
                    // Inference only (grad mode is off): mean and rstd are not computed.
                    std::vector<int64_t> stat(x.sizes().begin(), x.sizes().end());
                    stat.back() = 1;
                    const auto f32 = x.options().dtype(at::kFloat);
                    return std::make_tuple(Y, at::empty(stat, f32), at::empty(stat, f32));
                },
                fallback);
        why = c.reason;
    }
    return s->aten_call(KernelType::LayerNorm, "aten::native_layer_norm: " + why, fallback);
}

// torch's default eps for rms_norm without one: the dtype's machine epsilon.
double default_rms_eps(at::ScalarType t) {
    switch (t) {
    case at::kHalf: return 0.0009765625;
    case at::kBFloat16: return 0.0078125;
    case at::kDouble: return std::numeric_limits<double>::epsilon();
    default: return std::numeric_limits<float>::epsilon();
    }
}

at::Tensor rms_norm_kernel(const at::Tensor& x, c10::SymIntArrayRef normalized_shape, const std::optional<at::Tensor>& weight,
                           std::optional<double> eps) {
    auto fallback = [&] { return at::compositeimplicitautograd::rms_norm_symint(x, normalized_shape, weight, eps); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::RmsNorm, "", fallback);
    std::string why = norm_refusal(*s, x, normalized_shape, weight, nullptr);
    if (why.empty()) {
        const Shape shape = rows_cols(x);
        const KernelChoice c = s->choose(KernelType::RmsNorm, shape, x.scalar_type());
        if (c.kernel)
            return s->routed_call(
                KernelType::RmsNorm, c, shape, x.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor X = s->contiguous_input(x, &copied);
                    at::Tensor W = s->contiguous_input(*weight, &copied);
                    at::Tensor Y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
                    c.kernel->adapter->eps = static_cast<float>(eps.value_or(default_rms_eps(x.scalar_type())));
                    return s->launch(m, *c.kernel, Problem{shape, x.scalar_type()}, {X, W}, Y);
                },
                fallback);
        why = c.reason;
    }
    return s->aten_call(KernelType::RmsNorm, "aten::rms_norm: " + why, fallback);
}

at::Tensor sdpa_kernel(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const std::optional<at::Tensor>& mask,
                       double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa) {
    auto fallback = [&] {
        return at::compositeimplicitautograd::scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa);
    };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::FlashAttention, "", fallback);
    std::string why;
    if (q.dim() != 4)
        why = "q is not [batch, heads, seq, head_dim]";
    else if (!k.sizes().equals(q.sizes()) || !v.sizes().equals(q.sizes()))
        why = "q, k, v of different shapes (cross attention, grouped heads or a KV cache)";
    else if (mask && mask->defined())
        why = "an attention mask";
    else if (dropout_p != 0.0)
        why = "dropout";
    else if (k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type())
        why = "mixed dtypes";
    else if (!s->request.copy_layouts && !(q.is_contiguous() && k.is_contiguous() && v.is_contiguous()))
        why = "non-contiguous input";
    if (why.empty()) {
        const Shape shape{{q.size(0), q.size(1), q.size(2), q.size(3), is_causal ? 1 : 0}};
        const KernelChoice c = s->choose(KernelType::FlashAttention, shape, q.scalar_type());
        if (c.kernel)
            return s->routed_call(
                KernelType::FlashAttention, c, shape, q.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor Q = s->contiguous_input(q, &copied);
                    at::Tensor K = s->contiguous_input(k, &copied);
                    at::Tensor V = s->contiguous_input(v, &copied);
                    at::Tensor O = at::empty(q.sizes(), q.options().memory_format(at::MemoryFormat::Contiguous));
                    c.kernel->adapter->scale = static_cast<float>(scale.value_or(1.0 / std::sqrt(double(q.size(3)))));
                    return s->launch(m, *c.kernel, Problem{shape, q.scalar_type()}, {Q, K, V}, O);
                },
                fallback);
        why = c.reason;
    }
    return s->aten_call(KernelType::FlashAttention, "aten::scaled_dot_product_attention: " + why, fallback);
}

// Mean cross-entropy of 2-D logits with our kernel, or the reason it cannot take the call.
std::optional<at::Tensor> our_cross_entropy(ModelSubstitution::Impl& s, const at::Tensor& logits, const at::Tensor& targets,
                                            std::string* why, const std::function<at::Tensor()>& fallback) {
    if (logits.dim() != 2 || targets.dim() != 1 || targets.size(0) != logits.size(0)) {
        *why = "logits not [rows, classes] with targets [rows]";
        return std::nullopt;
    }
    if (targets.scalar_type() != at::kLong) {
        *why = "targets not int64";
        return std::nullopt;
    }
    if (!s.request.copy_layouts && !logits.is_contiguous()) {
        *why = "non-contiguous input";
        return std::nullopt;
    }
    const Shape shape = rows_cols(logits);
    const KernelChoice c = s.choose(KernelType::CrossEntropy, shape, logits.scalar_type());
    if (!c.kernel) {
        *why = c.reason;
        return std::nullopt;
    }
    // Our kernel reads logits[r, target[r]] for every row: a target outside [0, classes) (e.g. an
    // ignore_index of -100) must stay with ATen. One host synchronisation, counted in our time.
    if (targets.numel() > 0) {
        const auto [lo, hi] = at::aminmax(targets);
        if (lo.item<int64_t>() < 0 || hi.item<int64_t>() >= logits.size(1)) {
            *why = "targets outside [0, classes) (ignored rows)";
            return std::nullopt;
        }
    }
    return s.routed_call(
        KernelType::CrossEntropy, c, shape, logits.scalar_type(),
        [&](const CandidateModule& m, bool& copied) {
            at::Tensor L = s.contiguous_input(logits, &copied);
            at::Tensor T = s.contiguous_input(targets, &copied);
            at::Tensor loss = at::empty({1}, logits.options().dtype(at::kFloat));
            s.launch(m, *c.kernel, Problem{shape, logits.scalar_type()}, {L, T}, loss);
            return loss.reshape({}).to(logits.scalar_type());
        },
        fallback);
}

at::Tensor cross_entropy_kernel(const at::Tensor& logits, const at::Tensor& targets, const std::optional<at::Tensor>& weight,
                                int64_t reduction, c10::SymInt ignore_index, double label_smoothing) {
    auto fallback = [&] {
        return at::compositeimplicitautograd::cross_entropy_loss_symint(logits, targets, weight, reduction, ignore_index,
                                                                          label_smoothing);
    };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::CrossEntropy, "", fallback);
    std::string why;
    if (weight && weight->defined())
        why = "class weights";
    else if (reduction != at::Reduction::Mean)
        why = "reduction other than mean";
    else if (label_smoothing != 0.0)
        why = "label smoothing";
    else if (auto out = our_cross_entropy(*s, logits, targets, &why, fallback))
        return *out;
    return s->aten_call(KernelType::CrossEntropy, "aten::cross_entropy_loss: " + why, fallback);
}

at::Tensor sum_kernel(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim, std::optional<at::ScalarType> dtype) {
    auto fallback = [&] { return at::cuda::sum(x, dim, keepdim, dtype); };
    auto* s = active();
    if (!s || s->depth > 0) return fallback();
    if (s->pass.mode == InterceptMode::Observe) return s->aten_call(KernelType::Reduce, "", fallback);
    std::string why;
    if (x.dim() == 0 || !dim || dim->size() != 1 || ((*dim)[0] != x.dim() - 1 && (*dim)[0] != -1))
        why = "not over the last dimension alone";
    else if (dtype && *dtype != x.scalar_type())
        why = "a different output dtype";
    else if (!s->request.copy_layouts && !x.is_contiguous())
        why = "non-contiguous input";
    if (why.empty()) {
        const Shape shape = rows_cols(x);
        const KernelChoice c = s->choose(KernelType::Reduce, shape, x.scalar_type());
        if (c.kernel)
            return s->routed_call(
                KernelType::Reduce, c, shape, x.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor X = s->contiguous_input(x, &copied);
                    at::Tensor Y = at::empty({shape.dims[0]}, x.options());
                    s->launch(m, *c.kernel, Problem{shape, x.scalar_type()}, {X}, Y);
                    std::vector<int64_t> out(x.sizes().begin(), x.sizes().end() - 1);
                    if (keepdim) out.push_back(1);
                    return Y.reshape(out);
                },
                fallback);
        why = c.reason;
    }
    return s->aten_call(KernelType::Reduce, "aten::sum: " + why, fallback);
}

}  // namespace

// ---- the fused patterns of the built-in models ---------------------------------------------------------------

at::Tensor SubstitutingOps::swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                                       const at::Tensor& w_down) {
    auto fallback = [&] { return models::ModelOps::swiglu_mlp(x, w_gate, w_up, w_down); };
    ModelSubstitution::Impl& s = s_;
    if (g_active != &s || s.depth > 0 || !s.types.count(KernelType::FusedMlp)) return fallback();
    if (s.pass.mode == InterceptMode::Observe) return s.aten_call(KernelType::FusedMlp, "", fallback);
    std::string why;
    const int64_t d = x.dim() ? x.size(-1) : 0;
    const int64_t f = w_gate.dim() == 2 ? w_gate.size(0) : 0;
    if (x.dim() < 1 || w_gate.dim() != 2 || w_gate.size(1) != d || !w_up.sizes().equals(w_gate.sizes()) || w_down.dim() != 2 ||
        w_down.size(0) != d || w_down.size(1) != f)
        why = "weights not w_gate/w_up [F, D], w_down [D, F]";
    else if (w_gate.scalar_type() != x.scalar_type() || w_up.scalar_type() != x.scalar_type() || w_down.scalar_type() != x.scalar_type())
        why = "mixed dtypes";
    else if (!w_gate.is_contiguous() || !w_up.is_contiguous() || !w_down.is_contiguous())
        why = "non-contiguous weights";
    else if (!s.request.copy_layouts && !x.is_contiguous())
        why = "non-contiguous input";
    if (why.empty()) {
        const int64_t m = x.numel() / d;
        const Shape shape{{m, d, f}};
        const KernelChoice c = s.choose(KernelType::FusedMlp, shape, x.scalar_type());
        if (c.kernel)
            return s.routed_call(
                KernelType::FusedMlp, c, shape, x.scalar_type(),
                [&](const CandidateModule& module, bool& copied) {
                    at::Tensor X = s.contiguous_input(x, &copied).reshape({m, d});
                    const auto key = std::make_pair(static_cast<const void*>(w_gate.data_ptr()), static_cast<const void*>(w_up.data_ptr()));
                    at::Tensor cat;
                    if (w_gate.is_inference() || w_up.is_inference()) {
                        cat = at::cat({w_gate, w_up}, 0);  // not parameters: concatenated per call
                        copied = true;
                    } else {
                        const auto full = std::make_tuple(key.first, key.second, static_cast<uint32_t>(w_gate._version()),
                                                          static_cast<uint32_t>(w_up._version()));
                        auto it = s.gate_up.find(full);
                        if (it == s.gate_up.end()) {
                            it = s.gate_up.emplace(full, at::cat({w_gate, w_up}, 0)).first;
                            s.gate_up_bytes += double(it->second.numel()) * double(it->second.element_size());
                        }
                        cat = it->second;
                    }
                    at::Tensor out = at::empty({m, d}, x.options());
                    s.launch(module, *c.kernel, Problem{shape, x.scalar_type()},
                             {X, cat.narrow(0, 0, f), cat.narrow(0, f, f), w_down, cat}, out);
                    return out.reshape(x.sizes());
                },
                fallback);
        why = c.reason;
    }
    return s.aten_call(KernelType::FusedMlp, "swiglu_mlp: " + why, fallback);
}

at::Tensor SubstitutingOps::rotary(const at::Tensor& x, const models::RotaryTables& tables) {
    auto fallback = [&] { return models::ModelOps::rotary(x, tables); };
    ModelSubstitution::Impl& s = s_;
    if (g_active != &s || s.depth > 0 || !s.types.count(KernelType::RotaryEmbedding)) return fallback();
    if (s.pass.mode == InterceptMode::Observe) return s.aten_call(KernelType::RotaryEmbedding, "", fallback);
    std::string why;
    if (x.dim() != 4)
        why = "x is not [batch, heads, seq, head_dim]";
    else if (!tables.cos_half.defined() || tables.cos_half.dim() != 2 || tables.cos_half.size(0) != x.size(2) ||
             tables.cos_half.size(1) * 2 != x.size(3))
        why = "tables not [seq, head_dim / 2]";
    else if (tables.cos_half.scalar_type() != x.scalar_type())
        why = "tables in another dtype";
    else if (!s.request.copy_layouts && !x.is_contiguous())
        why = "non-contiguous input";
    if (why.empty()) {
        const Shape shape{{x.size(0), x.size(1), x.size(2), x.size(3)}};
        const KernelChoice c = s.choose(KernelType::RotaryEmbedding, shape, x.scalar_type());
        if (c.kernel)
            return s.routed_call(
                KernelType::RotaryEmbedding, c, shape, x.scalar_type(),
                [&](const CandidateModule& m, bool& copied) {
                    at::Tensor X = s.contiguous_input(x, &copied);
                    at::Tensor cos = tables.cos_half.contiguous();
                    at::Tensor sin = tables.sin_half.contiguous();
                    at::Tensor Y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
                    return s.launch(m, *c.kernel, Problem{shape, x.scalar_type()}, {X, cos, sin}, Y);
                },
                fallback);
        why = c.reason;
    }
    return s.aten_call(KernelType::RotaryEmbedding, "rotary: " + why, fallback);
}

at::Tensor SubstitutingOps::cross_entropy(const at::Tensor& logits, const at::Tensor& targets) {
    // The default implementation calls aten::cross_entropy_loss, which the dispatcher kernel takes.
    return models::ModelOps::cross_entropy(logits, targets);
}

// ---- ModelSubstitution --------------------------------------------------------------------------------------

ModelSubstitution::ModelSubstitution(GpuSession& gpu, const VerifyRequest& request, DType model_dtype,
                                     const std::function<void(const std::string&)>& progress)
    : impl_(std::make_unique<Impl>(gpu, request)) {
    impl_->progress = progress;
    for (const VerifyKernel& spec : request.kernels) {
        auto k = std::make_unique<LoadedKernel>();
        k->spec = spec;
        k->adapter = std::make_unique<CallAdapter>(adapter_for(spec.type));
        k->contract = parse_contract(spec.source);
        if (!k->contract.ok()) {
            impl_->failures.push_back({spec.name, "compile", k->contract.error_text(spec.name + ".cu")});
            continue;
        }
        // The model's dtype now (a compile error shows before the model runs); other dtypes on first use.
        if (impl_->verified_dtype(spec, model_dtype) && !impl_->module_for(*k, model_dtype)) continue;
        impl_->types.insert(spec.type);
        impl_->kernels.push_back(std::move(k));
    }
}

ModelSubstitution::~ModelSubstitution() = default;

void ModelSubstitution::begin(const PassOptions& options) {
    if (g_active && g_active != impl_.get()) throw Error(ErrorKind::Internal, "another model substitution is active");
    impl_->pass = options;
    impl_->slots.clear();
    impl_->events_used = 0;
    impl_->checks.clear();
    if (!impl_->library) {
        // Replacing ATen's CUDA kernels makes the dispatcher warn once per op and registration; the
        // replacement is the point here, so the warnings are dropped while registering.
        QuietWarnings quiet;
        c10::WarningUtils::WarningHandlerGuard guard(&quiet);
        auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__, __LINE__);
        const auto& t = impl_->types;
        if (t.count(KernelType::Matmul)) {
            lib->impl("mm", TORCH_FN(mm_kernel));
            lib->impl("addmm", TORCH_FN(addmm_kernel));
            lib->impl("bmm", TORCH_FN(bmm_kernel));
        }
        if (t.count(KernelType::Softmax)) lib->impl("_softmax", TORCH_FN(softmax_kernel));
        if (t.count(KernelType::LayerNorm)) lib->impl("native_layer_norm", TORCH_FN(layer_norm_kernel));
        if (t.count(KernelType::RmsNorm)) lib->impl("rms_norm", TORCH_FN(rms_norm_kernel));
        if (t.count(KernelType::FlashAttention)) lib->impl("scaled_dot_product_attention", TORCH_FN(sdpa_kernel));
        if (t.count(KernelType::CrossEntropy)) lib->impl("cross_entropy_loss", TORCH_FN(cross_entropy_kernel));
        if (t.count(KernelType::Reduce)) lib->impl("sum.dim_IntList", TORCH_FN(sum_kernel));
        impl_->library = std::move(lib);
    }
    g_active = impl_.get();
}

void ModelSubstitution::end() {
    impl_->library.reset();
    if (g_active == impl_.get()) g_active = nullptr;
}

bool ModelSubstitution::active() const { return g_active == impl_.get(); }

PassRecord ModelSubstitution::take_record() {
    Impl& s = *impl_;
    check_cu(cuda_driver().cuStreamSynchronize(torch_stream()), "cuStreamSynchronize after a verify pass");
    PassRecord rec;
    std::map<std::pair<int, int>, VerifyCoverage> coverage;  // (type, kernel index or -1)
    std::map<int, VerifyAtenTime> aten;
    for (const CallSlot& slot : s.slots) {
        double us = 0;
        if (slot.start && slot.end) {
            float ms = 0;
            check_cu(cuda_driver().event_elapsed_ms(&ms, slot.start, slot.end), "cuEventElapsedTime");
            us = double(ms) * 1000.0;
        }
        if (s.pass.mode == InterceptMode::Observe) {
            VerifyAtenTime& a = aten[int(slot.type)];
            a.type = slot.type;
            ++a.calls;
            a.gpu_us += us;
            continue;
        }
        VerifyCoverage& c = coverage[{int(slot.type), slot.kernel}];
        c.type = slot.type;
        if (slot.kernel >= 0) c.kernel = s.kernels[std::size_t(slot.kernel)]->spec.name;
        ++c.calls;
        c.gpu_us += us;
        if (slot.copied) ++c.copied_calls;
        if (slot.kernel < 0) {
            auto it = std::find_if(c.reasons.begin(), c.reasons.end(), [&](const auto& r) { return r.first == slot.reason; });
            if (it == c.reasons.end())
                c.reasons.emplace_back(slot.reason, 1);
            else
                ++it->second;
        } else if (!slot.shape.empty() && std::find(c.shapes.begin(), c.shapes.end(), slot.shape) == c.shapes.end()) {
            c.shapes.push_back(slot.shape);
        }
    }
    for (auto& [_, c] : coverage) rec.coverage.push_back(std::move(c));
    for (auto& [_, a] : aten) rec.aten.push_back(a);
    for (auto& [_, c] : s.checks) rec.checks.push_back(std::move(c));
    s.slots.clear();
    s.events_used = 0;
    s.checks.clear();
    return rec;
}

models::ModelOps& ModelSubstitution::ops() { return impl_->ops; }

const std::vector<VerifyFailure>& ModelSubstitution::failures() const { return impl_->failures; }

std::vector<std::string> ModelSubstitution::notes() const { return impl_->notes(); }

int ModelSubstitution::kernel_count() const { return int(impl_->kernels.size()); }

}  // namespace ak::eval
