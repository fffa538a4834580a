#include "engine/evaluation_protocol.h"

#include "util/error.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace ak {

using nlohmann::json;

// ---- names --------------------------------------------------------------------------------------------

std::string_view verdict_to_string(Verdict v) {
    switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::CompileError: return "COMPILE_ERROR";
    case Verdict::Timeout: return "TIMEOUT";
    case Verdict::Crash: return "CRASH";
    }
    return "?";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
    for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::CompileError, Verdict::Timeout, Verdict::Crash})
        if (verdict_to_string(v) == s) return v;
    return std::nullopt;
}

std::string_view to_string(CheckStage s) {
    switch (s) {
    case CheckStage::Smoke: return "smoke";
    case CheckStage::Sweep: return "sweep";
    case CheckStage::Adversarial: return "adversarial";
    case CheckStage::Determinism: return "determinism";
    case CheckStage::Edge: return "edge";
    case CheckStage::Timing: return "timing";
    }
    return "?";
}

std::optional<CheckStage> parse_check_stage(std::string_view s) {
    for (auto v : {CheckStage::Smoke, CheckStage::Sweep, CheckStage::Adversarial, CheckStage::Determinism, CheckStage::Edge,
                   CheckStage::Timing})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

std::string_view to_string(RequestOp op) {
    switch (op) {
    case RequestOp::Evaluate: return "evaluate";
    case RequestOp::Ceilings: return "ceilings";
    case RequestOp::Ping: return "ping";
    case RequestOp::Device: return "device";
    case RequestOp::Verify: return "verify";
    }
    return "?";
}

std::optional<RequestOp> parse_request_op(std::string_view s) {
    for (auto v : {RequestOp::Evaluate, RequestOp::Ceilings, RequestOp::Ping, RequestOp::Device, RequestOp::Verify})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

namespace {

// ---- reading helpers: every failure names the field --------------------------------------------------

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorKind::BadFormat, "evaluation protocol: " + what); }

std::string dump_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json parse_json(std::string_view text, const char* what) {
    try {
        json j = json::parse(text.begin(), text.end());
        if (!j.is_object()) bad(std::string(what) + " is not a JSON object");
        return j;
    } catch (const json::parse_error& e) {
        std::string shown(text.substr(0, 120));
        bad(std::string(what) + " is not valid JSON (" + e.what() + "): '" + shown + (text.size() > 120 ? "...'" : "'"));
    }
}

const json* field(const json& j, const char* name) {
    const auto it = j.find(name);
    if (it == j.end() || it->is_null()) return nullptr;
    return &*it;
}

const json& required(const json& j, const char* name, const char* where) {
    const json* f = field(j, name);
    if (!f) bad(std::string(where) + ": missing field '" + name + "'");
    return *f;
}

std::string get_string(const json& j, const char* name, const char* where, std::string fallback = {}) {
    const json* f = field(j, name);
    if (!f) return fallback;
    if (!f->is_string()) bad(std::string(where) + ": field '" + name + "' must be a string");
    return f->get<std::string>();
}

// Non-finite numbers travel as the strings "nan", "inf", "-inf" (JSON has no literal for them).
json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

double to_number(const json& f, const std::string& label) {
    if (f.is_number()) return f.get<double>();
    if (f.is_string()) {
        const auto s = f.get<std::string>();
        if (s == "nan") return std::nan("");
        if (s == "inf") return INFINITY;
        if (s == "-inf") return -INFINITY;
    }
    bad(label + " must be a number");
}

double get_double(const json& j, const char* name, const char* where, double fallback = 0) {
    const json* f = field(j, name);
    if (!f) return fallback;
    return to_number(*f, std::string(where) + ": field '" + name + "'");
}

std::optional<double> get_optional_double(const json& j, const char* name, const char* where) {
    const json* f = field(j, name);
    if (!f) return std::nullopt;
    return to_number(*f, std::string(where) + ": field '" + name + "'");
}

template <typename Int>
Int get_int(const json& j, const char* name, const char* where, Int fallback = 0) {
    const json* f = field(j, name);
    if (!f) return fallback;
    if (!f->is_number_integer()) bad(std::string(where) + ": field '" + name + "' must be a whole number");
    if constexpr (std::is_unsigned_v<Int>) {
        if (f->is_number_unsigned()) return static_cast<Int>(f->get<std::uint64_t>());
        if (f->get<std::int64_t>() < 0) bad(std::string(where) + ": field '" + name + "' must not be negative");
    }
    return static_cast<Int>(f->get<std::int64_t>());
}

bool get_bool(const json& j, const char* name, const char* where, bool fallback = false) {
    const json* f = field(j, name);
    if (!f) return fallback;
    if (!f->is_boolean()) bad(std::string(where) + ": field '" + name + "' must be true or false");
    return f->get<bool>();
}

DType to_dtype(const json& f, const std::string& label) {
    if (!f.is_string()) bad(label + " must be a dtype name");
    const auto d = parse_dtype(f.get<std::string>());
    if (!d) bad(label + ": unknown dtype '" + f.get<std::string>() + "'");
    return *d;
}

DType get_dtype(const json& j, const char* name, const char* where, DType fallback) {
    const json* f = field(j, name);
    if (!f) return fallback;
    return to_dtype(*f, std::string(where) + ": field '" + name + "'");
}

json shape_json(const Shape& s) { return s.dims; }

// Shapes travel as arrays of whole numbers; requests also accept the "4096x8192" text form.
Shape to_shape(const json& f, const std::string& label, std::optional<KernelType> type) {
    if (f.is_string() && type) {
        try {
            return parse_shape(*type, f.get<std::string>());
        } catch (const Error& e) {
            bad(label + ": " + e.what());
        }
    }
    if (!f.is_array()) bad(label + " must be an array of whole numbers");
    Shape s;
    for (const auto& d : f) {
        if (!d.is_number_integer()) bad(label + " must be an array of whole numbers");
        s.dims.push_back(d.get<std::int64_t>());
    }
    if (type) {
        try {
            check_shape(*type, s);
        } catch (const Error& e) {
            bad(label + ": " + e.what());
        }
    }
    return s;
}

Shape get_shape(const json& j, const char* name, const char* where) {
    return to_shape(required(j, name, where), std::string(where) + ": field '" + name + "'", std::nullopt);
}

std::vector<Shape> get_shapes(const json& j, const char* name, const char* where, std::optional<KernelType> type) {
    std::vector<Shape> out;
    const json* f = field(j, name);
    if (!f) return out;
    if (!f->is_array()) bad(std::string(where) + ": field '" + name + "' must be an array of shapes");
    for (std::size_t i = 0; i < f->size(); ++i)
        out.push_back(to_shape((*f)[i], std::string(where) + ": " + name + "[" + std::to_string(i) + "]", type));
    return out;
}

template <typename T, typename Fn>
std::vector<T> get_array(const json& j, const char* name, const char* where, Fn&& decode) {
    std::vector<T> out;
    const json* f = field(j, name);
    if (!f) return out;
    if (!f->is_array()) bad(std::string(where) + ": field '" + name + "' must be an array");
    for (std::size_t i = 0; i < f->size(); ++i) {
        const auto& item = (*f)[i];
        const std::string label = std::string(where) + "." + name + "[" + std::to_string(i) + "]";
        if (!item.is_object()) bad(label + " must be an object");
        out.push_back(decode(item, label));
    }
    return out;
}

// ---- records ------------------------------------------------------------------------------------------

json to_json(const FunctionResources& f) {
    return {{"name", f.name}, {"registers", f.registers}, {"spill_bytes", f.spill_bytes}, {"shared_bytes", f.shared_bytes}};
}

FunctionResources function_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    FunctionResources f;
    f.name = get_string(j, "name", w);
    f.registers = get_int<int>(j, "registers", w);
    f.spill_bytes = get_int<int>(j, "spill_bytes", w);
    f.shared_bytes = get_int<int>(j, "shared_bytes", w);
    return f;
}

json to_json(const CompileRecord& c) {
    json functions = json::array();
    for (const auto& f : c.functions) functions.push_back(to_json(f));
    return {{"dtype", to_string(c.dtype)},      {"ok", c.ok},           {"log", c.log},
            {"registers", c.registers},         {"spills", c.spills},   {"shared_bytes", c.shared_bytes},
            {"compile_ms", number(c.compile_ms)}, {"cache_hit", c.cache_hit}, {"functions", functions}};
}

CompileRecord compile_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    CompileRecord c;
    c.dtype = to_dtype(required(j, "dtype", w), label + ": field 'dtype'");
    c.ok = get_bool(j, "ok", w);
    c.log = get_string(j, "log", w);
    c.registers = get_int<int>(j, "registers", w);
    c.spills = get_int<int>(j, "spills", w);
    c.shared_bytes = get_int<int>(j, "shared_bytes", w);
    c.compile_ms = get_double(j, "compile_ms", w);
    c.cache_hit = get_bool(j, "cache_hit", w);
    c.functions = get_array<FunctionResources>(j, "functions", w, function_from);
    return c;
}

json to_json(const CheckRecord& c) {
    json j = {{"stage", to_string(c.stage)},
              {"shape", shape_json(c.shape)},
              {"dtype", to_string(c.dtype)},
              {"seed", c.seed},
              {"passed", c.passed},
              {"max_abs_err", number(c.max_abs_err)},
              {"norm_rel_err", number(c.norm_rel_err)},
              {"tolerance", number(c.tolerance)}};
    if (!c.detail.empty()) j["detail"] = c.detail;
    return j;
}

CheckRecord check_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    CheckRecord c;
    const auto stage = get_string(j, "stage", w);
    const auto parsed = parse_check_stage(stage);
    if (!parsed) bad(label + ": unknown stage '" + stage + "'");
    c.stage = *parsed;
    c.shape = get_shape(j, "shape", w);
    c.dtype = to_dtype(required(j, "dtype", w), label + ": field 'dtype'");
    c.seed = get_int<std::uint64_t>(j, "seed", w);
    c.passed = get_bool(j, "passed", w);
    c.max_abs_err = get_double(j, "max_abs_err", w);
    c.norm_rel_err = get_double(j, "norm_rel_err", w);
    c.tolerance = get_double(j, "tolerance", w);
    c.detail = get_string(j, "detail", w);
    return c;
}

json to_json(const TimingRecord& t) {
    json j = {{"shape", shape_json(t.shape)},
              {"dtype", to_string(t.dtype)},
              {"median_us", number(t.median_us)},
              {"iqr_us", number(t.iqr_us)},
              {"samples", t.samples},
              {"baseline_name", t.baseline_name},
              {"baseline_median_us", number(t.baseline_median_us)},
              {"baseline_iqr_us", number(t.baseline_iqr_us)},
              {"speedup", number(t.speedup)},
              {"tflops", number(t.tflops)},
              {"gb_s", number(t.gb_s)},
              {"pct_peak", number(t.pct_peak)},
              {"bound", t.bound}};
    j["pct_copy_ceiling"] = t.pct_copy_ceiling ? number(*t.pct_copy_ceiling) : json(nullptr);
    j["pct_gemm_ceiling"] = t.pct_gemm_ceiling ? number(*t.pct_gemm_ceiling) : json(nullptr);
    return j;
}

TimingRecord timing_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    TimingRecord t;
    t.shape = get_shape(j, "shape", w);
    t.dtype = to_dtype(required(j, "dtype", w), label + ": field 'dtype'");
    t.median_us = get_double(j, "median_us", w);
    t.iqr_us = get_double(j, "iqr_us", w);
    t.samples = get_int<int>(j, "samples", w);
    t.baseline_name = get_string(j, "baseline_name", w);
    t.baseline_median_us = get_double(j, "baseline_median_us", w);
    t.baseline_iqr_us = get_double(j, "baseline_iqr_us", w);
    t.speedup = get_double(j, "speedup", w);
    t.tflops = get_double(j, "tflops", w);
    t.gb_s = get_double(j, "gb_s", w);
    t.pct_peak = get_double(j, "pct_peak", w);
    t.bound = get_string(j, "bound", w);
    t.pct_copy_ceiling = get_optional_double(j, "pct_copy_ceiling", w);
    t.pct_gemm_ceiling = get_optional_double(j, "pct_gemm_ceiling", w);
    return t;
}

json to_json(const DeviceDescription& d) {
    return {{"name", d.name},
            {"cc_major", d.cc_major},
            {"cc_minor", d.cc_minor},
            {"sm_count", d.sm_count},
            {"memory_gb", number(d.memory_gb)},
            {"l2_mb", number(d.l2_mb)},
            {"driver_version", d.driver_version},
            {"torch_version", d.torch_version},
            {"cuda_runtime", d.cuda_runtime}};
}

DeviceDescription device_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    DeviceDescription d;
    d.name = get_string(j, "name", w);
    d.cc_major = get_int<int>(j, "cc_major", w);
    d.cc_minor = get_int<int>(j, "cc_minor", w);
    d.sm_count = get_int<int>(j, "sm_count", w);
    d.memory_gb = get_double(j, "memory_gb", w);
    d.l2_mb = get_double(j, "l2_mb", w);
    d.driver_version = get_string(j, "driver_version", w);
    d.torch_version = get_string(j, "torch_version", w);
    d.cuda_runtime = get_string(j, "cuda_runtime", w);
    return d;
}

json ceilings_json(const MeasuredCeilings& c) {
    json copies = json::array();
    for (const auto& [bytes, gb_s] : c.copy_gb_s) copies.push_back({{"bytes", bytes}, {"gb_s", number(gb_s)}});
    json gemm = json::object();
    for (const auto& [dtype, tflops] : c.gemm_tflops) gemm[std::string(to_string(dtype))] = number(tflops);
    return {{"device_name", c.device_name}, {"measured_utc", c.measured_utc}, {"copy_gb_s", copies}, {"gemm_tflops", gemm}};
}

MeasuredCeilings ceilings_from(const json& j, const std::string& label) {
    const char* w = label.c_str();
    MeasuredCeilings c;
    c.device_name = get_string(j, "device_name", w);
    c.measured_utc = get_string(j, "measured_utc", w);
    if (const json* copies = field(j, "copy_gb_s")) {
        if (!copies->is_array()) bad(label + ": field 'copy_gb_s' must be an array");
        for (std::size_t i = 0; i < copies->size(); ++i) {
            const auto& item = (*copies)[i];
            const std::string l = label + ".copy_gb_s[" + std::to_string(i) + "]";
            if (!item.is_object()) bad(l + " must be an object");
            c.copy_gb_s[get_int<std::uint64_t>(item, "bytes", l.c_str())] = get_double(item, "gb_s", l.c_str());
        }
    }
    if (const json* gemm = field(j, "gemm_tflops")) {
        if (!gemm->is_object()) bad(label + ": field 'gemm_tflops' must be an object");
        for (const auto& [name, value] : gemm->items()) {
            const auto d = parse_dtype(name);
            if (!d) bad(label + ".gemm_tflops: unknown dtype '" + name + "'");
            c.gemm_tflops[*d] = to_number(value, label + ".gemm_tflops." + name);
        }
    }
    return c;
}

json result_json(const EvaluationResult& r) {
    json j = {{"id", r.id}, {"verdict", verdict_to_string(r.verdict)}};
    if (r.failed_stage) j["failed_stage"] = to_string(*r.failed_stage);
    j["detail"] = r.detail;
    auto list = [](const auto& items) {
        json a = json::array();
        for (const auto& item : items) a.push_back(to_json(item));
        return a;
    };
    j["compile"] = list(r.compile);
    j["checks"] = list(r.checks);
    j["timing"] = list(r.timing);
    j["reference_timing"] = list(r.reference_timing);
    if (r.reference_compile) j["reference_compile"] = to_json(*r.reference_compile);
    if (r.reference_failure) j["reference_failure"] = *r.reference_failure;
    j["seed"] = r.seed;
    j["wall_ms"] = number(r.wall_ms);
    j["worker_pid"] = r.worker_pid;
    j["device"] = r.device;
    if (r.device_info) j["device_info"] = to_json(*r.device_info);
    if (r.ceilings) j["ceilings"] = ceilings_json(*r.ceilings);
    if (r.verify) j["verify"] = json::parse(encode_verify_measurement(*r.verify));
    if (r.worker_exiting) j["worker_exiting"] = true;
    return j;
}

EvaluationResult result_from(const json& j) {
    const char* w = "result";
    EvaluationResult r;
    r.id = get_int<std::uint64_t>(j, "id", w);
    if (!field(j, "id")) bad("result: missing field 'id'");
    const auto verdict_text = get_string(j, "verdict", w);
    if (verdict_text.empty()) bad("result: missing field 'verdict'");
    const auto verdict = parse_verdict(verdict_text);
    if (!verdict) bad("result: unknown verdict '" + verdict_text + "'");
    r.verdict = *verdict;
    if (const json* stage = field(j, "failed_stage")) {
        if (!stage->is_string() || !parse_check_stage(stage->get<std::string>()))
            bad("result: field 'failed_stage' must be one of smoke, sweep, adversarial, determinism, edge, timing");
        r.failed_stage = parse_check_stage(stage->get<std::string>());
    }
    r.detail = get_string(j, "detail", w);
    r.compile = get_array<CompileRecord>(j, "compile", w, compile_from);
    r.checks = get_array<CheckRecord>(j, "checks", w, check_from);
    r.timing = get_array<TimingRecord>(j, "timing", w, timing_from);
    r.reference_timing = get_array<TimingRecord>(j, "reference_timing", w, timing_from);
    if (const json* rc = field(j, "reference_compile")) {
        if (!rc->is_object()) bad("result: field 'reference_compile' must be an object");
        r.reference_compile = compile_from(*rc, "result.reference_compile");
    }
    if (const json* rf = field(j, "reference_failure")) {
        if (!rf->is_string()) bad("result: field 'reference_failure' must be a string");
        r.reference_failure = rf->get<std::string>();
    }
    r.seed = get_int<std::uint64_t>(j, "seed", w);
    r.wall_ms = get_double(j, "wall_ms", w);
    r.worker_pid = get_int<int>(j, "worker_pid", w);
    r.device = get_string(j, "device", w);
    if (const json* d = field(j, "device_info")) {
        if (!d->is_object()) bad("result: field 'device_info' must be an object");
        r.device_info = device_from(*d, "result.device_info");
    }
    if (const json* c = field(j, "ceilings")) {
        if (!c->is_object()) bad("result: field 'ceilings' must be an object");
        r.ceilings = ceilings_from(*c, "result.ceilings");
    }
    if (const json* v = field(j, "verify")) {
        if (!v->is_object()) bad("result: field 'verify' must be an object");
        r.verify = decode_verify_measurement(v->dump(), "evaluation protocol: result.verify");
    }
    r.worker_exiting = get_bool(j, "worker_exiting", w);
    return r;
}

std::string format_general(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string first_line(std::string_view text, std::size_t max_chars) {
    text = trim(text);
    const auto nl = text.find('\n');
    std::string line(trim(text.substr(0, nl)));
    if (line.size() > max_chars) line = line.substr(0, max_chars) + "...";
    return line;
}

// The first line that mentions an error (compile logs often start with warnings), else the first line.
std::string first_error_line(std::string_view log, std::size_t max_chars) {
    for (auto line : split(log, '\n'))
        if (line.find("error") != std::string_view::npos) return first_line(line, max_chars);
    return first_line(log, max_chars);
}

}  // namespace

// ---- public encode / decode ---------------------------------------------------------------------------

std::string encode_request(const EvaluationRequest& r) {
    json j = {{"id", r.id}, {"op", to_string(r.op)}};
    if (r.op == RequestOp::Evaluate) {
        j["type"] = to_string(r.type);
        j["source"] = r.source;
        j["source_name"] = r.source_name;
        json dtypes = json::array();
        for (auto d : r.dtypes) dtypes.push_back(to_string(d));
        j["dtypes"] = dtypes;
        j["timing_dtype"] = to_string(r.timing_dtype);
        json timing = json::array();
        for (const auto& s : r.timing_shapes) timing.push_back(shape_json(s));
        j["timing_shapes"] = timing;
        json correctness = json::array();
        for (const auto& s : r.correctness_shapes) correctness.push_back(shape_json(s));
        j["correctness_shapes"] = correctness;
        j["seed"] = r.seed;
        if (r.reference_source) j["reference_source"] = *r.reference_source;
        j["iterations_hint"] = r.iterations_hint;
    }
    if (r.op == RequestOp::Verify && r.verify) j["verify"] = json::parse(encode_verify_request(*r.verify));
    j["timeout_s"] = number(r.timeout_s);
    return dump_line(j);
}

EvaluationRequest decode_request(std::string_view text) {
    const json j = parse_json(text, "request");
    const char* w = "request";
    EvaluationRequest r;
    if (!field(j, "id")) bad("request: missing field 'id'");
    r.id = get_int<std::uint64_t>(j, "id", w);
    const auto op_text = get_string(j, "op", w);
    if (op_text.empty()) bad("request: missing field 'op'");
    const auto op = parse_request_op(op_text);
    if (!op) bad("request: unknown op '" + op_text + "' (expected evaluate, ceilings, ping, device or verify)");
    r.op = *op;
    r.timeout_s = get_double(j, "timeout_s", w, r.timeout_s);
    if (!(r.timeout_s > 0)) bad("request: field 'timeout_s' must be positive");
    if (r.op == RequestOp::Verify) {
        const json* v = field(j, "verify");
        if (!v || !v->is_object()) bad("request: op 'verify' needs the object field 'verify'");
        r.verify = decode_verify_request(v->dump(), "evaluation protocol: request.verify");
        return r;
    }
    if (r.op != RequestOp::Evaluate) return r;

    const auto type_text = get_string(j, "type", w);
    if (type_text.empty()) bad("request: missing field 'type'");
    const auto type = parse_kernel_type(type_text);
    if (!type) bad("request: unknown kernel type '" + type_text + "'");
    r.type = *type;
    if (!field(j, "source")) bad("request: missing field 'source'");
    r.source = get_string(j, "source", w);
    r.source_name = get_string(j, "source_name", w, r.source_name);
    if (const json* dtypes = field(j, "dtypes")) {
        if (!dtypes->is_array()) bad("request: field 'dtypes' must be an array");
        r.dtypes.clear();
        for (std::size_t i = 0; i < dtypes->size(); ++i) {
            const auto d = to_dtype((*dtypes)[i], "request: dtypes[" + std::to_string(i) + "]");
            if (!is_kernel_dtype(d)) bad("request: dtypes[" + std::to_string(i) + "]: kernels run in fp16, bf16 or fp32");
            r.dtypes.push_back(d);
        }
        if (r.dtypes.empty()) bad("request: field 'dtypes' is empty");
    }
    r.timing_dtype = get_dtype(j, "timing_dtype", w, r.timing_dtype);
    if (!is_kernel_dtype(r.timing_dtype)) bad("request: field 'timing_dtype': kernels run in fp16, bf16 or fp32");
    r.timing_shapes = get_shapes(j, "timing_shapes", w, r.type);
    r.correctness_shapes = get_shapes(j, "correctness_shapes", w, r.type);
    r.seed = get_int<std::uint64_t>(j, "seed", w);
    if (const json* ref = field(j, "reference_source")) {
        if (!ref->is_string()) bad("request: field 'reference_source' must be a string");
        r.reference_source = ref->get<std::string>();
    }
    r.iterations_hint = get_int<int>(j, "iterations_hint", w);
    if (r.iterations_hint < 0) bad("request: field 'iterations_hint' must not be negative");
    return r;
}

std::string encode_result(const EvaluationResult& r) { return dump_line(result_json(r)); }

std::string encode_result_pretty(const EvaluationResult& r) {
    return result_json(r).dump(2, ' ', false, json::error_handler_t::replace);
}

EvaluationResult decode_result(std::string_view text) { return result_from(parse_json(text, "result")); }

std::string encode_progress(const ProgressEvent& e) {
    return dump_line({{"id", e.id}, {"event", "progress"}, {"stage", e.stage}, {"message", e.message}});
}

std::string encode_ceilings(const MeasuredCeilings& c) { return ceilings_json(c).dump(2); }

MeasuredCeilings decode_ceilings(std::string_view text) { return ceilings_from(parse_json(text, "ceilings"), "ceilings"); }

WorkerMessage decode_worker_line(std::string_view line) {
    const json j = parse_json(line, "worker line");
    if (const json* event = field(j, "event")) {
        if (!event->is_string() || event->get<std::string>() != "progress")
            bad("worker line: unknown event " + event->dump());
        ProgressEvent e;
        if (!field(j, "id")) bad("progress event: missing field 'id'");
        e.id = get_int<std::uint64_t>(j, "id", "progress event");
        e.stage = get_string(j, "stage", "progress event");
        e.message = get_string(j, "message", "progress event");
        return e;
    }
    return result_from(j);
}

std::string summary_line(const EvaluationResult& r) {
    std::string out(verdict_to_string(r.verdict));
    switch (r.verdict) {
    case Verdict::Pass: {
        if (r.ceilings) {
            out += " ceilings of " + (r.ceilings->device_name.empty() ? r.device : r.ceilings->device_name);
            for (const auto& [dtype, tf] : r.ceilings->gemm_tflops)
                out += ", " + std::string(to_string(dtype)) + " GEMM " + format_fixed(tf, 0) + " TFLOP/s";
            if (!r.ceilings->copy_gb_s.empty())
                out += ", copy up to " + format_fixed(r.ceilings->copy_gb_s.rbegin()->second, 0) + " GB/s";
            break;
        }
        if (r.timing.empty()) {
            out += r.checks.empty() ? "" : " (" + std::to_string(r.checks.size()) + " checks passed, not timed)";
            break;
        }
        const auto& t = r.timing.front();
        out += "  " + to_string(t.shape) + " " + std::string(to_string(t.dtype)) + ": " + format_general(t.median_us) +
               " us";
        if (!t.baseline_name.empty())
            out += " (" + t.baseline_name + " " + format_general(t.baseline_median_us) + " us, " +
                   format_fixed(t.speedup, 2) + "x)";
        if (t.bound == "compute")
            out += ", " + format_fixed(t.tflops, 1) + " TFLOP/s";
        else
            out += ", " + format_fixed(t.gb_s, 0) + " GB/s";
        if (t.bound == "compute" && t.pct_gemm_ceiling)
            out += ", " + format_fixed(*t.pct_gemm_ceiling, 0) + "% of GEMM";
        else if (t.bound != "compute" && t.pct_copy_ceiling)
            out += ", " + format_fixed(*t.pct_copy_ceiling, 0) + "% of copy";
        else
            out += ", " + format_fixed(t.pct_peak, 0) + "% of peak";
        if (r.timing.size() > 1) out += " (+" + std::to_string(r.timing.size() - 1) + " more shapes)";
        break;
    }
    case Verdict::Fail:
        if (r.failed_stage) out += " at " + std::string(to_string(*r.failed_stage));
        out += ": " + first_line(r.detail, 200);
        break;
    case Verdict::CompileError: {
        for (const auto& c : r.compile)
            if (!c.ok) {
                out += " " + std::string(to_string(c.dtype)) + ": " + first_error_line(c.log, 200);
                return out;
            }
        out += ": " + first_line(r.detail, 200);
        break;
    }
    case Verdict::Timeout:
    case Verdict::Crash: out += ": " + first_line(r.detail, 200); break;
    }
    return out;
}

}  // namespace ak
