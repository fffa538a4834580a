#include "engine/evaluator/output_check.h"

#include "engine/evaluator/check_plan.h"
#include "util/error.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace ak::eval {

namespace {

// Random guard bytes, drawn once per process (not a fixed, recognisable pattern). Leaked on purpose: a
// static tensor would be freed after the CUDA runtime is torn down at exit.
const at::Tensor& guard_pattern() {
    static const at::Tensor* pattern = [] {
        std::random_device rd;
        at::Generator gen = at::cuda::detail::createCUDAGenerator(c10::cuda::current_device());
        {
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_current_seed((std::uint64_t(rd()) << 32) ^ rd());
        }
        return new at::Tensor(at::randint(0, 256, {kGuardBytes}, gen, at::TensorOptions().dtype(at::kByte).device(at::kCUDA)));
    }();
    return *pattern;
}

at::ScalarType same_size_int(at::ScalarType t) {
    switch (c10::elementSize(t)) {
    case 1: return at::kByte;
    case 2: return at::kShort;
    case 4: return at::kInt;
    case 8: return at::kLong;
    default: throw Error(ErrorKind::Internal, std::string("no integer type as wide as ") + c10::toString(t));
    }
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::vector<std::int64_t> shape_of(const at::Tensor& t) { return std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end()); }

// The pattern's value as the signed integer fill_() takes for a tensor of its width.
std::int64_t pattern_value(const PoisonPattern& p) {
    return p.element_bytes() == 2 ? std::int64_t(std::int16_t(std::uint16_t(p.bits))) : std::int64_t(std::int32_t(p.bits));
}

}  // namespace

GuardedBuffer make_guarded(const std::vector<std::int64_t>& shape, at::ScalarType dtype, std::string name) {
    std::int64_t numel = 1;
    for (auto d : shape) numel *= d;
    GuardedBuffer g;
    g.name = std::move(name);
    g.payload_bytes = numel * std::int64_t(c10::elementSize(dtype));
    g.buffer = at::empty({kGuardBytes + g.payload_bytes + kGuardBytes}, at::TensorOptions().dtype(at::kByte).device(at::kCUDA));
    g.payload = g.buffer.narrow(0, kGuardBytes, g.payload_bytes).view(dtype).view(shape);
    arm_guards(g);
    return g;
}

void arm_guards(const GuardedBuffer& g) {
    g.buffer.narrow(0, 0, kGuardBytes).copy_(guard_pattern());
    g.buffer.narrow(0, kGuardBytes + g.payload_bytes, kGuardBytes).copy_(guard_pattern());
}

std::optional<std::string> check_guards(const GuardedBuffer& g) {
    const at::Tensor& pattern = guard_pattern();
    const at::Tensor front = g.buffer.narrow(0, 0, kGuardBytes).ne(pattern);
    const at::Tensor back = g.buffer.narrow(0, kGuardBytes + g.payload_bytes, kGuardBytes).ne(pattern);
    // Bytes changed in each guard; the changed byte closest to the payload in each.
    const at::Tensor stats = at::stack({front.sum().to(at::kLong), back.sum().to(at::kLong),
                                        front.flip({0}).to(at::kByte).argmax().to(at::kLong),
                                        back.to(at::kByte).argmax().to(at::kLong)})
                                 .cpu();
    const auto* s = stats.data_ptr<std::int64_t>();
    const std::int64_t front_changed = s[0], back_changed = s[1], front_nearest = s[2], back_first = s[3];
    if (front_changed == 0 && back_changed == 0) return std::nullopt;
    const std::int64_t element = std::int64_t(g.payload.element_size());
    std::string msg = "out-of-bounds write:";
    if (back_changed > 0)
        msg += " " + std::to_string(back_changed) + " bytes of the " + std::to_string(kGuardBytes) + "-byte guard region after " +
               g.name + " were overwritten, the first " + std::to_string(back_first) + " bytes past its end (element index " +
               std::to_string(g.payload.numel() + back_first / element) + " of " + g.name + " of " +
               std::to_string(g.payload.numel()) + " elements)";
    if (front_changed > 0)
        msg += std::string(back_changed > 0 ? ";" : "") + " " + std::to_string(front_changed) + " bytes of the " +
               std::to_string(kGuardBytes) + "-byte guard region before " + g.name + " were overwritten, the nearest " +
               std::to_string(front_nearest + 1) + " bytes before its start (a negative index)";
    return msg;
}

PoisonFormat poison_format(at::ScalarType dtype) {
    switch (dtype) {
    case at::kHalf: return PoisonFormat::Half;
    case at::kBFloat16: return PoisonFormat::BFloat16;
    case at::kFloat: return PoisonFormat::Float;
    default: throw Error(ErrorKind::Internal, std::string("no NaN poison for outputs of type ") + c10::toString(dtype));
    }
}

void fill_pattern(const at::Tensor& t, std::int64_t bytes, const PoisonPattern& pattern) {
    if (bytes <= 0) return;
    const int width = pattern.element_bytes();
    if (bytes % width != 0)
        throw Error(ErrorKind::Internal, "fill_pattern: " + std::to_string(bytes) + " bytes is not a multiple of " +
                                             std::to_string(width));
    const at::Tensor flat = t.reshape(-1).view(at::kByte).narrow(0, 0, bytes);
    flat.view(width == 2 ? at::kShort : at::kInt).fill_(pattern_value(pattern));
}

Comparison compare_with_reference(const at::Tensor& out, const at::Tensor& ref, const Tolerance& tol,
                                  const PoisonPattern* poison) {
    if (out.numel() != ref.numel())
        throw Error(ErrorKind::Internal, "reference has " + std::to_string(ref.numel()) + " elements, output " +
                                             std::to_string(out.numel()));
    const at::ScalarType ct = ref.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    const at::Tensor o_raw = out.contiguous().reshape(-1);
    const at::Tensor o = o_raw.to(ct);
    const at::Tensor r = ref.contiguous().reshape(-1).to(ct);

    // Fast path, a handful of passes: a passing output (the common case, and every timed run that is
    // checked) needs only the largest excess over the allowed error and the two norms. NaN and Inf in the
    // output make the excess NaN or Inf, which fails below.
    {
        const at::Tensor abs_err = (o - r).abs_();
        const at::Tensor allowed = r.abs().mul_(tol.rtol).add_(tol.atol);
        const at::Tensor quick = at::stack({(abs_err - allowed).max().to(at::kDouble), abs_err.max().to(at::kDouble),
                                            abs_err.norm().to(at::kDouble), r.norm().to(at::kDouble)})
                                     .cpu();
        const double* q = quick.data_ptr<double>();
        const double excess = q[0], max_err = q[1], err_norm = q[2], ref_norm = q[3];
        const bool finite_ref = std::isfinite(ref_norm);
        if (finite_ref && std::isfinite(excess) && excess <= 0 && std::isfinite(err_norm)) {
            Comparison c;
            c.elements = out.numel();
            c.max_abs_err = max_err;
            c.norm_rel_err = ref_norm > 0 ? err_norm / ref_norm : (err_norm == 0 ? 0.0 : INFINITY);
            if (!(ref_norm > 0) || !norm_gate_failure(c.norm_rel_err, tol)) {
                c.passed = true;
                return c;
            }
        }
    }

    // Something fails: the full statistics, to say exactly what.
    const at::Tensor finite = at::isfinite(o);
    const at::Tensor not_finite = finite.logical_not();
    at::Tensor unwritten;
    if (poison && std::int64_t(o_raw.element_size()) == poison->element_bytes())
        unwritten = o_raw.view(same_size_int(o_raw.scalar_type())).eq(pattern_value(*poison));
    else
        unwritten = at::zeros_like(finite);
    const at::Tensor diff = (o - r).abs();
    const at::Tensor allowed = r.abs().mul(tol.rtol).add(tol.atol);
    const at::Tensor bad = diff.gt(allowed).logical_or(not_finite);
    const at::Tensor diff_finite = diff.masked_fill(not_finite, 0);

    const at::Tensor stats = at::stack({bad.sum().to(at::kDouble), unwritten.sum().to(at::kDouble),
                                        not_finite.sum().to(at::kDouble),
                                        at::isfinite(r).logical_not().sum().to(at::kDouble),
                                        diff_finite.max().to(at::kDouble), diff_finite.to(at::kDouble).norm().to(at::kDouble),
                                        r.to(at::kDouble).norm().to(at::kDouble), bad.to(at::kByte).argmax().to(at::kDouble),
                                        diff_finite.argmax().to(at::kDouble),
                                        unwritten.to(at::kByte).argmax().to(at::kDouble),
                                        not_finite.logical_and(unwritten.logical_not()).to(at::kByte).argmax().to(at::kDouble)})
                                 .cpu();
    const double* s = stats.data_ptr<double>();
    Comparison c;
    c.elements = out.numel();
    c.bad = std::int64_t(s[0]);
    c.unwritten = std::int64_t(s[1]);
    c.non_finite = std::int64_t(s[2]);
    const std::int64_t ref_non_finite = std::int64_t(s[3]);
    c.max_abs_err = s[4];
    const double err_norm = s[5], ref_norm = s[6];
    const std::int64_t first_bad = std::int64_t(s[7]), max_at = std::int64_t(s[8]);
    const std::int64_t first_unwritten = std::int64_t(s[9]), first_nan_written = std::int64_t(s[10]);
    if (ref_non_finite > 0)
        throw Error(ErrorKind::Internal, "the reference has " + std::to_string(ref_non_finite) +
                                             " NaN or Inf elements: the adapter's inputs overflow (a harness bug, "
                                             "not the candidate's)");
    if (c.non_finite > 0)
        c.norm_rel_err = INFINITY;
    else
        c.norm_rel_err = ref_norm > 0 ? err_norm / ref_norm : (err_norm == 0 ? 0.0 : INFINITY);
    const auto shape = shape_of(out);
    if (c.bad == 0) {
        // The aggregate gate; an all-zero reference leaves the decision to the elementwise test.
        if (ref_norm > 0)
            if (auto why = norm_gate_failure(c.norm_rel_err, tol)) {
                c.detail = *why + " (max abs err " + num(c.max_abs_err) + " at " + index_text(max_at, shape) + ")";
                return c;
            }
        c.passed = true;
        return c;
    }

    std::string d;
    if (c.unwritten > 0)
        d += std::to_string(c.unwritten) + " of " + std::to_string(c.elements) +
             " elements were never written (still the NaN poison of this launch), the first at " +
             index_text(first_unwritten, shape) + "; ";
    if (c.non_finite > c.unwritten)
        d += std::to_string(c.non_finite - c.unwritten) + " elements are NaN or Inf, the first at " +
             index_text(first_nan_written, shape) + " = " + num(o[first_nan_written].item<double>()) + " (reference " +
             num(r[first_nan_written].item<double>()) + "); ";
    const double got = o[first_bad].item<double>(), want = r[first_bad].item<double>();
    d += std::to_string(c.bad) + " of " + std::to_string(c.elements) + " elements fail |out - ref| <= atol " +
         num(tol.atol) + " + rtol " + num(tol.rtol) + " * |ref|; the first at " + index_text(first_bad, shape) + ": " +
         num(got) + " vs reference " + num(want);
    if (std::isfinite(got))
        d += " (|err| " + num(std::abs(got - want)) + " > allowed " + num(tol.atol + tol.rtol * std::abs(want)) + ")";
    d += "; max abs err " + num(c.max_abs_err) + " at " + index_text(max_at, shape) + " (finite elements); norm rel err " +
         num(c.norm_rel_err);
    c.detail = d;
    return c;
}

std::optional<std::string> bitwise_difference(const at::Tensor& a, const at::Tensor& b) {
    if (a.numel() != b.numel() || a.scalar_type() != b.scalar_type())
        throw Error(ErrorKind::Internal, "bitwise_difference: outputs differ in size or type");
    const at::Tensor ar = a.contiguous().reshape(-1);
    const at::Tensor br = b.contiguous().reshape(-1);
    const at::ScalarType it = same_size_int(ar.scalar_type());
    const at::Tensor ne = ar.view(it).ne(br.view(it));
    const at::Tensor stats = at::stack({ne.sum().to(at::kLong), ne.to(at::kByte).argmax().to(at::kLong)}).cpu();
    const auto* s = stats.data_ptr<std::int64_t>();
    if (s[0] == 0) return std::nullopt;
    const std::int64_t first = s[1];
    const auto shape = shape_of(a);
    return std::to_string(s[0]) + " of " + std::to_string(a.numel()) + " elements differ, the first at " +
           index_text(first, shape) + ": " + num(ar[first].item<double>()) + " vs " + num(br[first].item<double>());
}

InputSnapshot snapshot_inputs(const std::vector<at::Tensor>& inputs) {
    InputSnapshot s;
    s.copies.reserve(inputs.size());
    for (const auto& t : inputs) s.copies.push_back(t.clone());
    return s;
}

std::optional<std::string> changed_input(const InputSnapshot& before, const std::vector<at::Tensor>& inputs,
                                         const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < inputs.size() && i < before.copies.size(); ++i) {
        if (auto diff = bitwise_difference(before.copies[i], inputs[i])) {
            const std::string name = i < names.size() ? names[i] : "#" + std::to_string(i);
            return "the candidate wrote into its input '" + name + "', which is const (inputs must be left as they are): " +
                   *diff + " (before vs after the launch)";
        }
    }
    return std::nullopt;
}

}  // namespace ak::eval
