#include "engine/verify_protocol.h"

#include "engine/json_fields.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace ak {

using nlohmann::json;
using jsonf::Reader;

std::string VerifyModelSpec::label() const {
    if (!torchscript.empty()) {
        std::string s = torchscript;
        if (!inputs.empty()) {
            s += " (";
            for (std::size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + inputs[i];
            s += ")";
        }
        return s;
    }
    std::string s = builtin;
    if (batch > 0) s += " batch " + std::to_string(batch);
    if (seq > 0) s += " seq " + std::to_string(seq);
    s += " " + std::string(to_string(dtype));
    return s;
}

const VerifyTiming* VerifyMeasurement::timing(std::string_view mode) const {
    for (const auto& t : timings)
        if (t.mode == mode && t.measured) return &t;
    return nullptr;
}

const VerifyTiming* VerifyMeasurement::primary_timing() const {
    if (const auto* g = timing("graph")) return g;
    return timing("eager");
}

std::optional<double> VerifyMeasurement::measured_speedup() const {
    if (const auto* t = primary_timing()) return t->speedup.median;
    if (!unmodified || !substituted || !(substituted->median_ms > 0)) return std::nullopt;
    return unmodified->median_ms / substituted->median_ms;
}

namespace {

double sorted_quantile(const std::vector<double>& sorted, double q) {
    if (sorted.size() == 1) return sorted[0];
    const double pos = q * double(sorted.size() - 1);
    const std::size_t lo = std::size_t(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

}  // namespace

VerifyRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.empty() || a.size() != b.size())
        throw Error(ErrorKind::Usage, "paired ratio: " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                          " samples (need the same number, at least one)");
    std::vector<double> r;
    r.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!(b[i] > 0) || !std::isfinite(a[i]) || !std::isfinite(b[i]) || a[i] < 0)
            throw Error(ErrorKind::Usage, "paired ratio: sample " + std::to_string(i) + " is not a positive time");
        r.push_back(a[i] / b[i]);
    }
    std::sort(r.begin(), r.end());
    return VerifyRatio{sorted_quantile(r, 0.5), sorted_quantile(r, 0.25), sorted_quantile(r, 0.75)};
}

int verify_passes_per_sample(double pass_ms, double target_ms, int fixed) {
    if (fixed > 0) return fixed;
    if (!(pass_ms > 0) || !std::isfinite(pass_ms)) return 2;
    return int(std::clamp(std::ceil(target_ms / pass_ms), 2.0, 50.0));
}

double verify_noise_floor(const VerifyRatio& c) {
    return std::max(0.005, std::abs(c.median - 1.0) + std::max(0.0, c.q3 - c.q1) / 2.0);
}

SpeedupVerdict classify_speedup(const VerifyTiming& t) {
    const double floor = verify_noise_floor(t.control_ratio);
    if (std::abs(t.speedup.median - 1.0) <= floor) return SpeedupVerdict::NoMeasurableDifference;
    return t.speedup.median > 1.0 ? SpeedupVerdict::Faster : SpeedupVerdict::Slower;
}

std::string_view to_string(SpeedupVerdict v) {
    switch (v) {
    case SpeedupVerdict::Faster: return "faster";
    case SpeedupVerdict::Slower: return "slower";
    case SpeedupVerdict::NoMeasurableDifference: return "no measurable difference";
    }
    return "?";
}

double verify_output_tolerance(DType dtype) {
    switch (dtype) {
    case DType::fp16: return 1e-2;
    case DType::bf16: return 5e-2;
    case DType::fp32: return 1e-4;
    default: break;
    }
    throw Error(ErrorKind::Usage, "no model tolerance for dtype " + std::string(to_string(dtype)) + " (use fp16, bf16 or fp32)");
}

namespace {

json dtypes_json(const std::vector<DType>& ds) {
    json a = json::array();
    for (DType d : ds) a.push_back(to_string(d));
    return a;
}

json shapes_json(const std::vector<Shape>& shapes) {
    json a = json::array();
    for (const auto& s : shapes) a.push_back(s.dims);
    return a;
}

json latency_json(const VerifyLatency& l) {
    return {{"median_ms", jsonf::number(l.median_ms)}, {"q1_ms", jsonf::number(l.q1_ms)}, {"q3_ms", jsonf::number(l.q3_ms)},
            {"iqr_ms", jsonf::number(l.iqr_ms)}, {"samples", l.samples}};
}

VerifyLatency latency_from(const Reader& r) {
    VerifyLatency l;
    l.median_ms = r.number("median_ms");
    l.q1_ms = r.number("q1_ms", 0);
    l.q3_ms = r.number("q3_ms", 0);
    l.iqr_ms = r.number("iqr_ms", 0);
    l.samples = r.integer<int>("samples", 0);
    if (l.median_ms < 0 || l.iqr_ms < 0 || l.samples < 0) r.fail("negative latency or sample count");
    return l;
}

json ratio_json(const VerifyRatio& r) {
    return {{"median", jsonf::number(r.median)}, {"q1", jsonf::number(r.q1)}, {"q3", jsonf::number(r.q3)}};
}

VerifyRatio ratio_from(const Reader& r) {
    VerifyRatio v{r.number("median"), r.number("q1", 0), r.number("q3", 0)};
    if (!(v.median >= 0) || v.q1 < 0 || v.q3 < v.q1) r.fail("a ratio needs median >= 0 and 0 <= q1 <= q3");
    return v;
}

json timing_json(const VerifyTiming& t) {
    json j = {{"mode", t.mode}, {"measured", t.measured}, {"reason", t.reason}, {"passes_per_sample", t.passes_per_sample}};
    if (t.measured) {
        j["unmodified"] = latency_json(t.unmodified);
        j["control"] = latency_json(t.control);
        j["substituted"] = latency_json(t.substituted);
        j["control_ratio"] = ratio_json(t.control_ratio);
        j["speedup"] = ratio_json(t.speedup);
        j["noise_floor"] = jsonf::number(verify_noise_floor(t.control_ratio));
        j["verdict"] = std::string(to_string(classify_speedup(t)));
    }
    return j;
}

VerifyTiming timing_from(const Reader& r) {
    VerifyTiming t;
    t.mode = r.string("mode");
    if (t.mode != "graph" && t.mode != "eager") r.fail_field("mode", "must be 'graph' or 'eager', not '" + t.mode + "'");
    t.measured = r.boolean("measured", false);
    t.reason = r.string("reason", "");
    t.passes_per_sample = r.integer<int>("passes_per_sample", 0);
    if (t.passes_per_sample < 0) r.fail_field("passes_per_sample", "must not be negative");
    if (t.measured) {
        t.unmodified = latency_from(r.object("unmodified"));
        t.control = latency_from(r.object("control"));
        t.substituted = latency_from(r.object("substituted"));
        t.control_ratio = ratio_from(r.object("control_ratio"));
        t.speedup = ratio_from(r.object("speedup"));
    }
    return t;
}

KernelType type_from(const Reader& r, const char* name) {
    const std::string text = r.string(name);
    const auto t = parse_kernel_type(text);
    if (!t) r.fail_field(name, "unknown kernel type '" + text + "'");
    return *t;
}

std::vector<Shape> shapes_from(const Reader& r, const char* name, KernelType type) {
    std::vector<Shape> out;
    r.each(name, [&](const Reader& item) {
        Shape s;
        if (!item.value().is_array()) item.fail("must be an array of whole numbers");
        for (const auto& d : item.value()) {
            if (!d.is_number_integer()) item.fail("must be an array of whole numbers");
            s.dims.push_back(d.get<std::int64_t>());
        }
        try {
            check_shape(type, s);
        } catch (const Error& e) {
            item.fail(e.what());
        }
        out.push_back(std::move(s));
    });
    return out;
}

std::vector<DType> dtypes_from(const Reader& r, const char* name, std::vector<DType> fallback) {
    if (!r.has(name)) return fallback;
    std::vector<DType> out;
    r.each(name, [&](const Reader& item) {
        if (!item.value().is_string()) item.fail("must be a dtype name");
        const auto d = parse_kernel_dtype(item.value().get<std::string>());
        if (!d) item.fail("'" + item.value().get<std::string>() + "' is not fp16, bf16 or fp32");
        out.push_back(*d);
    });
    return out;
}

DType dtype_from(const Reader& r, const char* name, DType fallback) {
    if (!r.has(name)) return fallback;
    const std::string text = r.string(name);
    const auto d = parse_kernel_dtype(text);
    if (!d) r.fail_field(name, "'" + text + "' is not fp16, bf16 or fp32");
    return *d;
}

json strings_json(const std::vector<std::string>& v) {
    json a = json::array();
    for (const auto& s : v) a.push_back(s);
    return a;
}

std::vector<std::string> strings_from(const Reader& r, const char* name) {
    std::vector<std::string> out;
    r.each(name, [&](const Reader& item) {
        if (!item.value().is_string()) item.fail("must be a string");
        out.push_back(item.value().get<std::string>());
    });
    return out;
}

}  // namespace

std::string encode_verify_request(const VerifyRequest& r) {
    json model = {{"builtin", r.model.builtin}, {"torchscript", r.model.torchscript}, {"inputs", strings_json(r.model.inputs)},
                  {"batch", r.model.batch}, {"seq", r.model.seq}, {"dtype", to_string(r.model.dtype)}, {"seed", r.model.seed}};
    json kernels = json::array();
    for (const auto& k : r.kernels)
        kernels.push_back({{"name", k.name}, {"type", to_string(k.type)}, {"source", k.source}, {"dtypes", dtypes_json(k.dtypes)},
                           {"shapes", shapes_json(k.shapes)}, {"timing_dtype", to_string(k.timing_dtype)},
                           {"timing_shapes", shapes_json(k.timing_shapes)}});
    json j = {{"model", model},           {"kernels", kernels},       {"iterations", r.iterations},
              {"warmup", r.warmup},       {"any_shape", r.any_shape}, {"copy_layouts", r.copy_layouts},
              {"check_only", r.check_only}, {"passes_per_sample", r.passes_per_sample}, {"graphs", r.graphs}};
    return jsonf::dump_line(j);
}

VerifyRequest decode_verify_request(std::string_view text, std::string_view origin) {
    const json j = jsonf::parse_object(text, origin);
    const Reader r(j, std::string(origin));
    VerifyRequest out;
    const Reader m = r.object("model");
    out.model.builtin = m.string("builtin", "");
    out.model.torchscript = m.string("torchscript", "");
    if (out.model.builtin.empty() == out.model.torchscript.empty())
        m.fail("exactly one of 'builtin' and 'torchscript' must be given");
    out.model.inputs = strings_from(m, "inputs");
    out.model.batch = m.integer<int>("batch", 0);
    out.model.seq = m.integer<int>("seq", 0);
    if (out.model.batch < 0 || out.model.seq < 0) m.fail("batch and seq must not be negative");
    out.model.dtype = dtype_from(m, "dtype", DType::fp16);
    out.model.seed = m.integer<std::uint64_t>("seed", 0);
    r.each("kernels", [&](const Reader& k) {
        VerifyKernel v;
        v.name = k.string("name");
        if (v.name.empty()) k.fail_field("name", "must not be empty");
        v.type = type_from(k, "type");
        v.source = k.string("source");
        v.dtypes = dtypes_from(k, "dtypes", v.dtypes);
        v.shapes = shapes_from(k, "shapes", v.type);
        v.timing_dtype = dtype_from(k, "timing_dtype", v.timing_dtype);
        v.timing_shapes = shapes_from(k, "timing_shapes", v.type);
        out.kernels.push_back(std::move(v));
    });
    out.iterations = r.integer<int>("iterations", out.iterations);
    out.warmup = r.integer<int>("warmup", out.warmup);
    if (out.iterations < 1 || out.iterations > 100000) r.fail_field("iterations", "must be between 1 and 100000");
    if (out.warmup < 0 || out.warmup > 1000) r.fail_field("warmup", "must be between 0 and 1000");
    out.any_shape = r.boolean("any_shape", false);
    out.copy_layouts = r.boolean("copy_layouts", true);
    out.check_only = r.boolean("check_only", false);
    out.passes_per_sample = r.integer<int>("passes_per_sample", 0);
    if (out.passes_per_sample < 0 || out.passes_per_sample > 1000) r.fail_field("passes_per_sample", "must be between 0 and 1000");
    out.graphs = r.boolean("graphs", true);
    return out;
}

std::string encode_verify_measurement(const VerifyMeasurement& m) {
    const auto& o = m.output;
    json output = {{"name", o.name},
                   {"sizes", o.sizes},
                   {"max_abs_err", jsonf::number(o.max_abs_err)},
                   {"max_rel_err", jsonf::number(o.max_rel_err)},
                   {"norm_rel_err", jsonf::number(o.norm_rel_err)},
                   {"noise_norm_rel_err", jsonf::number(o.noise_norm_rel_err)},
                   {"tolerance", jsonf::number(o.tolerance)},
                   {"finite", o.finite},
                   {"passed", o.passed}};
    json coverage = json::array();
    for (const auto& c : m.coverage) {
        json reasons = json::array();
        for (const auto& [why, n] : c.reasons) reasons.push_back({{"reason", why}, {"calls", n}});
        coverage.push_back({{"type", to_string(c.type)}, {"kernel", c.kernel}, {"calls", c.calls},
                            {"gpu_us", jsonf::number(c.gpu_us)}, {"copied_calls", c.copied_calls}, {"reasons", reasons},
                            {"shapes", strings_json(c.shapes)}});
    }
    json aten = json::array();
    for (const auto& a : m.aten)
        aten.push_back({{"type", to_string(a.type)}, {"calls", a.calls}, {"gpu_us", jsonf::number(a.gpu_us)}});
    json checks = json::array();
    for (const auto& c : m.checks)
        checks.push_back({{"kernel", c.kernel}, {"type", to_string(c.type)}, {"calls", c.calls},
                          {"max_abs_err", jsonf::number(c.max_abs_err)}, {"norm_rel_err", jsonf::number(c.norm_rel_err)},
                          {"passed", c.passed}, {"detail", c.detail}});
    json failures = json::array();
    for (const auto& f : m.failures) failures.push_back({{"kernel", f.kernel}, {"what", f.what}, {"detail", f.detail}});
    json j = {{"model_description", m.model_description},
              {"seed", m.seed},
              {"output", output},
              {"forward_gpu_us", jsonf::number(m.forward_gpu_us)},
              {"coverage", coverage},
              {"aten", aten},
              {"checks", checks},
              {"failures", failures},
              {"notes", strings_json(m.notes)}};
    if (m.unmodified) j["unmodified"] = latency_json(*m.unmodified);
    if (m.substituted) j["substituted"] = latency_json(*m.substituted);
    if (!m.timings.empty()) {
        json timings = json::array();
        for (const auto& t : m.timings) timings.push_back(timing_json(t));
        j["timings"] = timings;
    }
    return jsonf::dump_line(j);
}

VerifyMeasurement decode_verify_measurement(std::string_view text, std::string_view origin) {
    const json j = jsonf::parse_object(text, origin);
    const Reader r(j, std::string(origin));
    VerifyMeasurement m;
    m.model_description = r.string("model_description", "");
    m.seed = r.integer<std::uint64_t>("seed", 0);
    const Reader o = r.object("output");
    m.output.name = o.string("name", "logits");
    o.each("sizes", [&](const Reader& s) {
        if (!s.value().is_number_integer() || s.value().get<std::int64_t>() < 0) s.fail("must be a non-negative whole number");
        m.output.sizes.push_back(s.value().get<std::int64_t>());
    });
    m.output.max_abs_err = o.number("max_abs_err");
    m.output.max_rel_err = o.number("max_rel_err", 0);
    m.output.norm_rel_err = o.number("norm_rel_err");
    m.output.noise_norm_rel_err = o.number("noise_norm_rel_err", 0);
    m.output.tolerance = o.number("tolerance");
    m.output.finite = o.boolean("finite", true);
    m.output.passed = o.boolean("passed", false);
    if (r.has("unmodified")) m.unmodified = latency_from(r.object("unmodified"));
    if (r.has("substituted")) m.substituted = latency_from(r.object("substituted"));
    m.forward_gpu_us = r.number("forward_gpu_us", 0);
    r.each("coverage", [&](const Reader& c) {
        VerifyCoverage v;
        v.type = type_from(c, "type");
        v.kernel = c.string("kernel", "");
        v.calls = c.integer<std::int64_t>("calls", 0);
        v.gpu_us = c.number("gpu_us", 0);
        v.copied_calls = c.integer<std::int64_t>("copied_calls", 0);
        if (v.calls < 0 || v.gpu_us < 0 || v.copied_calls < 0) c.fail("negative calls or time");
        c.each("reasons", [&](const Reader& x) {
            const auto n = x.integer<std::int64_t>("calls", 0);
            if (n < 0) x.fail_field("calls", "must not be negative");
            v.reasons.emplace_back(x.string("reason"), n);
        });
        v.shapes = strings_from(c, "shapes");
        m.coverage.push_back(std::move(v));
    });
    r.each("aten", [&](const Reader& a) {
        VerifyAtenTime v;
        v.type = type_from(a, "type");
        v.calls = a.integer<std::int64_t>("calls", 0);
        v.gpu_us = a.number("gpu_us", 0);
        if (v.calls < 0 || v.gpu_us < 0) a.fail("negative calls or time");
        m.aten.push_back(v);
    });
    r.each("checks", [&](const Reader& c) {
        VerifyKernelCheck v;
        v.kernel = c.string("kernel");
        v.type = type_from(c, "type");
        v.calls = c.integer<std::int64_t>("calls", 0);
        v.max_abs_err = c.number("max_abs_err", 0);
        v.norm_rel_err = c.number("norm_rel_err", 0);
        if (v.calls < 0 || v.max_abs_err < 0 || v.norm_rel_err < 0) c.fail("negative calls or errors");
        v.passed = c.boolean("passed", true);
        v.detail = c.string("detail", "");
        m.checks.push_back(std::move(v));
    });
    r.each("failures", [&](const Reader& f) {
        m.failures.push_back(VerifyFailure{f.string("kernel"), f.string("what"), f.string("detail", "")});
    });
    m.notes = strings_from(r, "notes");
    r.each("timings", [&](const Reader& t) { m.timings.push_back(timing_from(t)); });
    return m;
}

}  // namespace ak
