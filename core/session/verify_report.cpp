#include "session/verify_report.h"

#include "analysis/amdahl.h"
#include "engine/json_fields.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ak {

using nlohmann::json;
using jsonf::Reader;

// ---- coverage and predictions -------------------------------------------------------------------------

double TypeCoverage::call_coverage() const {
    const auto all = routed_calls + fallback_calls;
    return all == 0 ? 1.0 : double(routed_calls) / double(all);
}

double TypeCoverage::time_coverage() const {
    const double all = routed_us + fallback_us;
    if (all <= 0) return routed_calls + fallback_calls == 0 ? 1.0 : call_coverage();
    return routed_us / all;
}

std::optional<double> TypeCoverage::in_model_speedup() const {
    const double now = routed_us + fallback_us;
    if (!(now > 0) || !(aten_us > 0)) return std::nullopt;
    return aten_us / now;
}

std::vector<TypeCoverage> aggregate_coverage(const VerifyMeasurement& m) {
    std::map<int, TypeCoverage> by_type;
    auto entry = [&](KernelType t) -> TypeCoverage& {
        auto& c = by_type[int(t)];
        c.type = t;
        return c;
    };
    for (const auto& c : m.coverage) {
        TypeCoverage& t = entry(c.type);
        if (c.kernel.empty()) {
            t.fallback_calls += c.calls;
            t.fallback_us += c.gpu_us;
        } else {
            t.routed_calls += c.calls;
            t.routed_us += c.gpu_us;
            t.copied_calls += c.copied_calls;
        }
        for (const auto& [why, n] : c.reasons) {
            auto it = std::find_if(t.fallback_reasons.begin(), t.fallback_reasons.end(),
                                   [&](const auto& r) { return r.first == why; });
            if (it == t.fallback_reasons.end())
                t.fallback_reasons.emplace_back(why, n);
            else
                it->second += n;
        }
    }
    for (const auto& a : m.aten) {
        TypeCoverage& t = entry(a.type);
        t.aten_calls += a.calls;
        t.aten_us += a.gpu_us;
    }
    std::vector<TypeCoverage> out;
    for (auto& [_, c] : by_type) {
        std::sort(c.fallback_reasons.begin(), c.fallback_reasons.end(),
                  [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
        out.push_back(std::move(c));
    }
    return out;
}

std::optional<std::string> faster_only_skip_reason(std::optional<double> kernel_speedup, double min_speedup) {
    if (!kernel_speedup) return std::string("no measured speedup");
    if (*kernel_speedup <= 1.0) return "not faster than PyTorch (" + format_fixed(*kernel_speedup, 2) + "x)";
    if (*kernel_speedup <= min_speedup)
        return "within " + format_fixed((min_speedup - 1.0) * 100.0, 0) + " % of PyTorch (" +
               format_fixed(*kernel_speedup, 2) + "x; --faster-only needs more than " + format_fixed(min_speedup, 2) + "x)";
    return std::nullopt;
}

std::optional<double> predict_speedup(const std::vector<VerifyKernelRow>& kernels) {
    std::vector<double> fractions, speedups;
    for (const auto& k : kernels) {
        if (!k.substituted || !(k.model_fraction > 0)) continue;
        fractions.push_back(k.model_fraction);
        speedups.push_back(k.kernel_speedup.value_or(1.0));
    }
    if (fractions.empty()) return std::nullopt;
    return amdahl_speedup(fractions, speedups);
}

std::optional<double> in_model_prediction(const std::vector<TypeCoverage>& coverage, double forward_us) {
    if (!(forward_us > 0)) return std::nullopt;
    double after = forward_us;
    bool any = false;
    for (const auto& c : coverage) {
        if (c.aten_calls == 0 && c.routed_calls + c.fallback_calls == 0) continue;
        after += (c.routed_us + c.fallback_us) - c.aten_us;
        any = true;
    }
    if (!any || !(after > 0)) return std::nullopt;
    return forward_us / after;
}

std::optional<double> VerifyReport::measured_speedup() const {
    if (!measurement) return std::nullopt;
    return measurement->measured_speedup();
}

namespace {

std::string fixed(double v, int decimals) { return format_fixed(v, decimals); }
std::string times(double v) { return format_fixed(v, 2) + "x"; }
std::string pct(double fraction) { return format_fixed(100.0 * fraction, fraction < 0.1 && fraction > 0 ? 1 : 0) + " %"; }

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

}  // namespace

void complete_report(VerifyReport& report, double threshold) {
    report.explanations.clear();
    report.predicted_speedup.reset();
    report.in_model_predicted.reset();
    try {
        report.predicted_speedup = predict_speedup(report.kernels);
    } catch (const Error& e) {
        report.explanations.push_back(std::string("no Amdahl prediction: ") + e.what());
    }
    if (!report.measurement) return;
    const VerifyMeasurement& m = *report.measurement;
    const auto coverage = aggregate_coverage(m);
    report.in_model_predicted = in_model_prediction(coverage, m.forward_gpu_us);

    for (const auto& f : m.failures)
        report.explanations.push_back("kernel " + f.kernel + " failed inside the model (" + f.what + "): " + f.detail);

    // The timing's own noise floor first: a speedup within it is not a measurement of anything.
    if (const VerifyTiming* t = m.primary_timing()) {
        const double floor = verify_noise_floor(t->control_ratio);
        const SpeedupVerdict v = classify_speedup(*t);
        report.explanations.push_back(
            "noise floor (" + t->mode + "): the unmodified model against itself measured " + fixed(t->control_ratio.median, 3) + "x [" +
            fixed(t->control_ratio.q1, 3) + "-" + fixed(t->control_ratio.q3, 3) + "], floor +-" + fixed(100 * floor, 1) +
            " %; the measured " + times(t->speedup.median) +
            (v == SpeedupVerdict::NoMeasurableDifference ? " is within it: no measurable difference" : " is " + std::string(to_string(v))));
        const VerifyTiming* e = m.timing("eager");
        if (t->mode == "graph" && e) {
            const double gap = e->speedup.median / t->speedup.median - 1.0;
            if (std::fabs(gap) > std::max(floor, verify_noise_floor(e->control_ratio)))
                report.explanations.push_back("eager passes measured " + times(e->speedup.median) + " against " + times(t->speedup.median) +
                                              " in graph replays: the host's launch path (in eager passes only) " +
                                              (gap < 0 ? "hides part of the GPU gain (or the substitution's dispatcher work adds host time)"
                                                       : "favours our kernels (fewer launches per pass)"));
        }
    }
    for (const auto& t : m.timings)
        if (!t.measured && !t.reason.empty()) report.explanations.push_back(t.mode + " timing not measured: " + t.reason);

    const auto measured = m.measured_speedup();
    if (!measured || !report.predicted_speedup) return;
    const double gap = *measured / *report.predicted_speedup - 1.0;
    if (std::fabs(gap) <= threshold) return;
    report.explanations.push_back("measured " + times(*measured) + " vs predicted " + times(*report.predicted_speedup) + " (" +
                                  (gap > 0 ? "+" : "") + fixed(100 * gap, 0) + " %):");

    // Types that got slower inside the model: usually the largest part of a gap, largest first.
    std::vector<const TypeCoverage*> slower;
    for (const auto& c : coverage)
        if (c.routed_calls > 0 && c.routed_us + c.fallback_us > c.aten_us * (1 + threshold)) slower.push_back(&c);
    std::sort(slower.begin(), slower.end(), [](const TypeCoverage* a, const TypeCoverage* b) {
        return (a->routed_us + a->fallback_us - a->aten_us) > (b->routed_us + b->fallback_us - b->aten_us);
    });
    for (const TypeCoverage* c : slower)
        report.explanations.push_back("  slower than ATen: " + std::string(to_string(c->type)) + " took " + fixed(c->routed_us + c->fallback_us, 0) +
                                      " us with our kernels against " + fixed(c->aten_us, 0) + " us on ATen (" +
                                      times(*c->in_model_speedup()) + ") per forward pass");
    for (const auto& k : report.kernels)
        if (k.substituted && !k.kernel_speedup)
            report.explanations.push_back("  not measured: " + k.name + " has no measured speedup in the session, so the prediction counts it as 1x");

    // Fallbacks: part of a type's time stayed on ATen.
    for (const auto& c : coverage) {
        if (c.fallback_calls == 0) continue;
        std::string reasons;
        for (std::size_t i = 0; i < c.fallback_reasons.size() && i < 3; ++i)
            reasons += (i ? "; " : "") + c.fallback_reasons[i].first + " (" + std::to_string(c.fallback_reasons[i].second) + ")";
        report.explanations.push_back("  fallbacks: " + std::string(to_string(c.type)) + " ran " + std::to_string(c.fallback_calls) +
                                      " of " + std::to_string(c.routed_calls + c.fallback_calls) + " calls (" +
                                      pct(1.0 - c.time_coverage()) + " of its GPU time) on ATen" +
                                      (reasons.empty() ? "" : ": " + reasons));
    }
    // The kernel's speed inside the model against its speed at the session's shapes.
    for (const auto& k : report.kernels) {
        if (!k.kernel_speedup || !k.substituted) continue;
        const auto c = std::find_if(coverage.begin(), coverage.end(), [&](const TypeCoverage& t) { return t.type == k.type; });
        if (c == coverage.end() || c->routed_calls == 0) {
            report.explanations.push_back("  not used: " + k.name + " (" + std::string(to_string(k.type)) +
                                          ") had no call it could take in this model, so its " + times(*k.kernel_speedup) +
                                          " counts for nothing here");
            continue;
        }
        const auto in_model = c->in_model_speedup();
        if (in_model && std::fabs(*in_model / *k.kernel_speedup - 1.0) > threshold)
            report.explanations.push_back("  in-model speed: " + k.name + " is " + times(*k.kernel_speedup) +
                                          " at the session's shapes but its ops are " + times(*in_model) +
                                          " inside the model (other shapes, warm L2 between ops, launch gaps" +
                                          (c->copied_calls > 0 ? ", layout copies" : "") + ")");
    }
    // Layout copies.
    for (const auto& c : coverage)
        if (c.copied_calls > 0)
            report.explanations.push_back("  layout copies: " + std::to_string(c.copied_calls) + " " + std::string(to_string(c.type)) +
                                          " calls copied non-contiguous inputs before our kernel (ATen reads them in place)");
    // Shares: the profile's against this run's.
    if (m.forward_gpu_us > 0) {
        for (const auto& k : report.kernels) {
            if (!k.substituted || !(k.model_fraction > 0)) continue;
            const auto c = std::find_if(coverage.begin(), coverage.end(), [&](const TypeCoverage& t) { return t.type == k.type; });
            if (c == coverage.end()) continue;
            const double share = c->aten_us / m.forward_gpu_us;
            const bool one_of_type = std::count_if(report.kernels.begin(), report.kernels.end(),
                                                   [&](const VerifyKernelRow& r) { return r.type == k.type; }) == 1;
            if (one_of_type && std::fabs(share - k.model_fraction) > std::max(0.02, threshold * k.model_fraction))
                report.explanations.push_back("  shares: " + k.name + " has " + pct(k.model_fraction) +
                                              " of the profiled time but its ops took " + pct(share) +
                                              " of this run's forward pass (batch, sequence or the model differ from the profile)");
        }
    }
    // Host overhead: the GPU-time arithmetic of this run against the wall time.
    if (report.in_model_predicted && std::fabs(*measured / *report.in_model_predicted - 1.0) > threshold)
        report.explanations.push_back(m.timing("graph")
                                          ? "  per-op vs whole pass: this run's per-op GPU times predict " + times(*report.in_model_predicted) +
                                                " but graph replays of the whole pass measured " + times(*measured) +
                                                " (the per-op times come from events around each call in one eager pass, the measured speedup from whole replayed passes)"
                                          : "  host overhead: this run's GPU times predict " + times(*report.in_model_predicted) +
                                                " but the forward pass measured " + times(*measured) +
                                                " (launch overhead and gaps between kernels, or the substitution's own host work)");
}

// ---- JSON ------------------------------------------------------------------------------------------------

std::string verify_report_to_json(const VerifyReport& r) {
    json kernels = json::array();
    for (const auto& k : r.kernels) {
        json row = {{"name", k.name}, {"type", to_string(k.type)}, {"model_fraction", jsonf::number(k.model_fraction)},
                    {"commit", k.commit}};
        if (k.kernel_speedup) row["kernel_speedup"] = jsonf::number(*k.kernel_speedup);
        if (k.best_experiment) row["best_experiment"] = *k.best_experiment;
        row["substituted"] = k.substituted;
        if (!k.skipped.empty()) row["skipped"] = k.skipped;
        kernels.push_back(row);
    }
    json model = {{"builtin", r.model.builtin}, {"torchscript", r.model.torchscript}, {"inputs", r.model.inputs},
                  {"batch", r.model.batch}, {"seq", r.model.seq}, {"dtype", to_string(r.model.dtype)}, {"seed", r.model.seed}};
    json coverage = json::array();
    if (r.measurement)
        for (const auto& c : aggregate_coverage(*r.measurement))
            coverage.push_back({{"type", to_string(c.type)}, {"routed_calls", c.routed_calls}, {"fallback_calls", c.fallback_calls},
                                {"routed_us", jsonf::number(c.routed_us)}, {"fallback_us", jsonf::number(c.fallback_us)},
                                {"call_coverage", jsonf::number(c.call_coverage())},
                                {"time_coverage", jsonf::number(c.time_coverage())}, {"aten_calls", c.aten_calls},
                                {"aten_us", jsonf::number(c.aten_us)},
                                {"in_model_speedup", c.in_model_speedup() ? json(jsonf::number(*c.in_model_speedup())) : json(nullptr)}});
    json j = {{"format_version", r.format_version},
              {"created_utc", r.created_utc},
              {"session", r.session},
              {"device", r.device},
              {"tool_version", r.tool_version},
              {"model", model},
              {"verdict", r.verdict},
              {"detail", r.detail},
              {"kernels", kernels},
              {"explanations", r.explanations},
              {"coverage_by_type", coverage}};  // derived; written for readers, ignored when read
    if (r.predicted_speedup) j["predicted_speedup"] = jsonf::number(*r.predicted_speedup);
    if (r.in_model_predicted) j["in_model_predicted_speedup"] = jsonf::number(*r.in_model_predicted);
    if (const auto s = r.measured_speedup()) j["measured_speedup"] = jsonf::number(*s);
    if (r.measurement) j["measurement"] = json::parse(encode_verify_measurement(*r.measurement));
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

VerifyReport verify_report_from_json(std::string_view text, std::string_view origin) {
    const json j = jsonf::parse_object(text, origin);
    const Reader r(j, std::string(origin));
    VerifyReport out;
    out.format_version = r.integer<int>("format_version");
    if (out.format_version != kVerifyReportFormat)
        r.fail_field("format_version", "is " + std::to_string(out.format_version) + "; this build reads format " +
                                           std::to_string(kVerifyReportFormat));
    out.created_utc = r.string("created_utc", "");
    out.session = r.string("session", "");
    out.device = r.string("device", "");
    out.tool_version = r.string("tool_version", "");
    const Reader m = r.object("model");
    out.model.builtin = m.string("builtin", "");
    out.model.torchscript = m.string("torchscript", "");
    m.each("inputs", [&](const Reader& s) {
        if (!s.value().is_string()) s.fail("must be a string");
        out.model.inputs.push_back(s.value().get<std::string>());
    });
    out.model.batch = m.integer<int>("batch", 0);
    out.model.seq = m.integer<int>("seq", 0);
    const std::string dtype = m.string("dtype", "fp16");
    const auto d = parse_kernel_dtype(dtype);
    if (!d) m.fail_field("dtype", "'" + dtype + "' is not fp16, bf16 or fp32");
    out.model.dtype = *d;
    out.model.seed = m.integer<std::uint64_t>("seed", 0);
    out.verdict = r.string("verdict");
    if (out.verdict != "PASS" && out.verdict != "FAIL" && out.verdict != "CRASH" && out.verdict != "TIMEOUT")
        r.fail_field("verdict", "'" + out.verdict + "' is not PASS, FAIL, CRASH or TIMEOUT");
    out.detail = r.string("detail", "");
    r.each("kernels", [&](const Reader& k) {
        VerifyKernelRow row;
        row.name = k.string("name");
        const std::string t = k.string("type");
        const auto type = parse_kernel_type(t);
        if (!type) k.fail_field("type", "unknown kernel type '" + t + "'");
        row.type = *type;
        row.model_fraction = k.number("model_fraction", 0);
        if (row.model_fraction < 0 || row.model_fraction > 1) k.fail_field("model_fraction", "must be between 0 and 1");
        row.kernel_speedup = k.optional_number("kernel_speedup");
        if (row.kernel_speedup && !(*row.kernel_speedup > 0)) k.fail_field("kernel_speedup", "must be positive");
        if (k.has("best_experiment")) row.best_experiment = k.integer<int>("best_experiment");
        row.commit = k.string("commit", "");
        row.substituted = k.boolean("substituted", true);
        row.skipped = k.string("skipped", "");
        out.kernels.push_back(std::move(row));
    });
    r.each("explanations", [&](const Reader& e) {
        if (!e.value().is_string()) e.fail("must be a string");
        out.explanations.push_back(e.value().get<std::string>());
    });
    out.predicted_speedup = r.optional_number("predicted_speedup");
    out.in_model_predicted = r.optional_number("in_model_predicted_speedup");
    if (r.has("measurement")) {
        const Reader mm = r.object("measurement");
        out.measurement = decode_verify_measurement(mm.value().dump(), mm.path());
    }
    return out;
}

std::filesystem::path verify_report_path(const std::filesystem::path& session_dir) { return session_dir / "verify.json"; }

void write_verify_report(const std::filesystem::path& session_dir, const VerifyReport& report) {
    replace_durably(verify_report_path(session_dir), verify_report_to_json(report));
}

VerifyReport read_verify_report(const std::filesystem::path& session_dir) {
    const auto path = verify_report_path(session_dir);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw Error(ErrorKind::NotFound, path.string() + " does not exist: run `autokernel verify " + session_dir.string() + "` first");
    return verify_report_from_json(read_file(path), path.string());
}

// ---- text ------------------------------------------------------------------------------------------------

namespace {

// `s` padded to `width`, and always followed by at least one space.
std::string pad(std::string s, std::size_t width) {
    s.append(s.size() < width ? width - s.size() : 1, ' ');
    return s;
}

std::string latency_text(const std::optional<VerifyLatency>& l) {
    if (!l) return "not timed";
    return fixed(l->median_ms, 3) + " ms (IQR " + fixed(l->iqr_ms, 3) + " ms, " + std::to_string(l->samples) + " runs)";
}

// "graph: unmodified 5.012 ms (IQR 0.004), A/A control 5.010 ms, ours 4.100 ms; A/A ratio 1.000 [0.998-1.002],
// floor +-0.5 %; speedup 1.222x [1.219-1.225]: faster"
std::string timing_text(const VerifyTiming& t) {
    if (!t.measured) return "  " + t.mode + ": not measured: " + t.reason + "\n";
    auto ms = [](const VerifyLatency& l) { return fixed(l.median_ms, 3) + " ms (IQR " + fixed(l.iqr_ms, 3) + ")"; };
    auto ratio = [](const VerifyRatio& r) { return fixed(r.median, 3) + " [" + fixed(r.q1, 3) + "-" + fixed(r.q3, 3) + "]"; };
    const double floor = verify_noise_floor(t.control_ratio);
    return "  " + t.mode + " (" + std::to_string(t.unmodified.samples) + " samples of " + std::to_string(t.passes_per_sample) +
           " passes each): unmodified " + ms(t.unmodified) + ", unmodified again (A/A) " + ms(t.control) + ", with our kernels " +
           ms(t.substituted) + "\n    A/A ratio " + ratio(t.control_ratio) + " (noise floor +-" + fixed(floor * 100, 1) +
           " %), speedup " + ratio(t.speedup) + ": " + std::string(to_string(classify_speedup(t))) + "\n";
}

}  // namespace

std::string format_verify_report(const VerifyReport& r) {
    std::string s;
    s += "verify " + r.verdict + ": " + r.session + " on " + r.model.label() + (r.device.empty() ? "" : " (" + r.device + ")") + "\n";
    if (!r.detail.empty()) s += "  " + r.detail + "\n";
    if (r.measurement) {
        const auto& m = *r.measurement;
        if (!m.model_description.empty()) s += "  model: " + m.model_description + "\n";
        const auto& o = m.output;
        s += "  output (" + o.name + "): max abs err " + sci(o.max_abs_err) + ", max rel err " + sci(o.max_rel_err) +
             ", norm-relative err " + sci(o.norm_rel_err) + " (allowed " + sci(o.tolerance) + "; the unmodified model against itself " +
             sci(o.noise_norm_rel_err) + ")" + (o.finite ? "" : ", NOT FINITE") + " -> " + (o.passed ? "PASS" : "FAIL") + "\n";
        if (m.timings.empty())
            s += "  latency: unmodified " + latency_text(m.unmodified) + ", with our kernels " + latency_text(m.substituted) + "\n";
        for (const auto& t : m.timings) s += timing_text(t);
    }
    const auto measured = r.measured_speedup();
    const VerifyTiming* primary = r.measurement ? r.measurement->primary_timing() : nullptr;
    s += "  speedup: measured " + (measured ? times(*measured) : std::string("-")) +
         (primary ? " (" + primary->mode + ", " + std::string(to_string(classify_speedup(*primary))) + ")" : std::string()) + ", Amdahl from the session's shares " +
         (r.predicted_speedup ? times(*r.predicted_speedup) : std::string("- (no shares)")) + ", from this run's GPU times " +
         (r.in_model_predicted ? times(*r.in_model_predicted) : std::string("-")) + "\n";

    s += "\n  " + pad("kernel", 18) + pad("type", 18) + pad("share", 9) + pad("kernel speedup", 16) + "best\n";
    for (const auto& k : r.kernels)
        s += "  " + pad(k.name, 18) + pad(std::string(to_string(k.type)), 18) +
             pad(k.model_fraction > 0 ? pct(k.model_fraction) : std::string("-"), 9) +
             pad(k.kernel_speedup ? times(*k.kernel_speedup) : std::string("-"), 16) +
             pad(k.best_experiment ? "#" + std::to_string(*k.best_experiment) : std::string("-"), 6) +
             (k.substituted ? "" : "not substituted: " + k.skipped) + "\n";

    if (r.measurement) {
        const auto coverage = aggregate_coverage(*r.measurement);
        s += "\n  " + pad("coverage", 18) + pad("calls ours/all", 16) + pad("GPU time ours", 15) + pad("ATen us", 11) +
             pad("ours+fb us", 12) + "in-model speedup\n";
        for (const auto& c : coverage) {
            const auto sp = c.in_model_speedup();
            s += "  " + pad(std::string(to_string(c.type)), 18) +
                 pad(std::to_string(c.routed_calls) + "/" + std::to_string(c.routed_calls + c.fallback_calls), 16) +
                 pad(pct(c.time_coverage()), 15) + pad(fixed(c.aten_us, 1), 11) + pad(fixed(c.routed_us + c.fallback_us, 1), 12) +
                 (sp ? times(*sp) : std::string("-")) + "\n";
            for (const auto& [why, n] : c.fallback_reasons) s += "      fallback: " + why + " (" + std::to_string(n) + " calls)\n";
        }
        if (!r.measurement->checks.empty()) {
            s += "\n  per-call checks against ATen:\n";
            for (const auto& c : r.measurement->checks)
                s += "    " + pad(c.kernel, 16) + (c.passed ? "ok   " : "FAIL ") + std::to_string(c.calls) + " calls, worst max abs " +
                     sci(c.max_abs_err) + ", norm-relative " + sci(c.norm_rel_err) + (c.detail.empty() ? "" : ": " + c.detail) + "\n";
        }
        if (!r.measurement->notes.empty()) {
            s += "\n";
            for (const auto& n : r.measurement->notes) s += "  note: " + n + "\n";
        }
    }
    if (!r.explanations.empty()) {
        s += "\n";
        for (const auto& e : r.explanations) s += "  " + e + "\n";
    }
    return s;
}

}  // namespace ak
