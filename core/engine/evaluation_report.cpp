#include "engine/evaluation_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ak {

namespace {

// Characters on screen for UTF-8 text (µ and ± are two bytes, one column).
std::size_t display_width(std::string_view s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// Rows of cells printed as left-aligned columns two spaces apart.
class Table {
public:
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    std::string render(std::string_view indent = "") const {
        std::vector<std::size_t> widths;
        for (const auto& row : rows_)
            for (std::size_t i = 0; i < row.size(); ++i) {
                if (widths.size() <= i) widths.push_back(0);
                widths[i] = std::max(widths[i], display_width(row[i]));
            }
        std::string out;
        for (const auto& row : rows_) {
            std::string line(indent);
            for (std::size_t i = 0; i < row.size(); ++i) {
                line += row[i];
                if (i + 1 < row.size()) line.append(widths[i] - display_width(row[i]) + 2, ' ');
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
        return out;
    }

private:
    std::vector<std::vector<std::string>> rows_;
};

std::string fixed(double v, int decimals) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string scientific(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

// Microseconds with about three significant digits.
std::string micros(double us) {
    if (!std::isfinite(us)) return fixed(us, 0);
    return fixed(us, us >= 100 ? 0 : us >= 10 ? 1 : 2);
}

std::string percent(double p) { return fixed(p, p >= 100 ? 0 : 1) + "%"; }

void append_timing_table(std::string& out, const std::vector<TimingRecord>& rows) {
    Table t;
    t.add({"shape", "dtype", "ours µs", "baseline", "baseline µs", "speedup", "achieved", "% peak", "% ceiling", "bound"});
    for (const auto& r : rows) {
        const bool compute = r.bound == "compute";
        std::string ceiling = "-";
        if (compute && r.pct_gemm_ceiling)
            ceiling = percent(*r.pct_gemm_ceiling) + " of GEMM";
        else if (!compute && r.pct_copy_ceiling)
            ceiling = percent(*r.pct_copy_ceiling) + " of copy";
        t.add({to_string(r.shape), std::string(to_string(r.dtype)), micros(r.median_us) + " ± " + micros(r.iqr_us),
               r.baseline_name.empty() ? "-" : r.baseline_name,
               r.baseline_name.empty() ? "-" : micros(r.baseline_median_us) + " ± " + micros(r.baseline_iqr_us),
               r.baseline_name.empty() ? "-" : fixed(r.speedup, 2) + "x",
               compute ? fixed(r.tflops, 1) + " TFLOP/s" : fixed(r.gb_s, 0) + " GB/s", percent(r.pct_peak), ceiling,
               r.bound.empty() ? "-" : r.bound});
    }
    out += t.render("  ");
    int samples = 0;
    for (const auto& r : rows) samples = std::max(samples, r.samples);
    if (samples > 0)
        out += "  (median ± interquartile range of up to " + std::to_string(samples) +
               " runs each; the baseline is timed the same way in the same run)\n";
}

std::string indent_text(std::string_view text, std::string_view prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        out += std::string(prefix) + std::string(text.substr(start, end - start)) + "\n";
        start = end + 1;
    }
    return out;
}

}  // namespace

std::string format_byte_size(double bytes) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        ++u;
    }
    if (u == 0) return fixed(bytes, 0) + " B";
    return fixed(bytes, bytes >= 100 ? 0 : bytes >= 10 ? 1 : 2) + " " + units[u];
}

std::string format_evaluation_report(const EvaluationResult& r, std::optional<KernelType> type,
                                     std::string_view source_name) {
    std::string out(source_name);
    if (type) out += " (" + std::string(to_string(*type)) + ")";
    if (!r.device.empty()) out += " on " + r.device;
    out += ": " + std::string(verdict_to_string(r.verdict));
    if (r.verdict == Verdict::Fail && r.failed_stage) out += " at " + std::string(to_string(*r.failed_stage));
    std::vector<std::string> facts;
    if (r.seed) facts.push_back("seed " + std::to_string(r.seed));
    if (r.wall_ms > 0) facts.push_back(fixed(r.wall_ms, 0) + " ms");
    if (r.worker_pid) facts.push_back("worker pid " + std::to_string(r.worker_pid));
    if (!facts.empty()) {
        out += "  (";
        for (std::size_t i = 0; i < facts.size(); ++i) out += (i ? ", " : "") + facts[i];
        out += ")";
    }
    out += "\n";

    if (!r.compile.empty()) {
        out += "\ncompile\n";
        Table t;
        t.add({"dtype", "result", "registers", "spills", "shared", "time"});
        for (const auto& c : r.compile)
            t.add({std::string(to_string(c.dtype)), c.ok ? "ok" : "ERROR", std::to_string(c.registers),
                   std::to_string(c.spills) + " B", std::to_string(c.shared_bytes) + " B",
                   c.cache_hit ? "cached" : fixed(c.compile_ms, 1) + " ms"});
        out += t.render("  ");
        for (const auto& c : r.compile)
            if (!c.ok && !c.log.empty()) out += "\n" + std::string(to_string(c.dtype)) + " compiler log:\n" + indent_text(c.log, "  ");
    }

    if (!r.checks.empty()) {
        out += "\nchecks\n";
        // Per stage, in the order the stages run: passed / total and the worst case (largest error
        // relative to its tolerance; a failed check always counts as the worst).
        std::map<CheckStage, std::vector<const CheckRecord*>> by_stage;
        for (const auto& c : r.checks) by_stage[c.stage].push_back(&c);
        Table t;
        t.add({"stage", "passed", "worst case", "max abs err", "norm rel err", "tolerance"});
        for (const auto& [stage, checks] : by_stage) {
            const CheckRecord* worst = nullptr;
            double worst_score = -1;
            int passed = 0;
            for (const CheckRecord* c : checks) {
                passed += c->passed;
                double score = c->tolerance > 0 ? c->max_abs_err / c->tolerance : c->max_abs_err;
                if (!c->passed || std::isnan(score)) score = INFINITY;
                if (!worst || score > worst_score) {
                    worst = c;
                    worst_score = score;
                }
            }
            t.add({std::string(to_string(stage)), std::to_string(passed) + "/" + std::to_string(checks.size()),
                   to_string(worst->shape) + " " + std::string(to_string(worst->dtype)), scientific(worst->max_abs_err),
                   scientific(worst->norm_rel_err), scientific(worst->tolerance)});
        }
        out += t.render("  ");
    }

    if (r.verdict != Verdict::Pass && !r.detail.empty()) out += "\n" + std::string(verdict_to_string(r.verdict)) + ": " + r.detail + "\n";

    if (!r.timing.empty()) {
        out += "\ntiming\n";
        append_timing_table(out, r.timing);
    } else if (r.verdict != Verdict::Pass && r.failed_stage == CheckStage::Timing) {
        out += "\nno timing reported: the numbers of a candidate that misbehaves while timed are never results\n";
    } else if (r.verdict != Verdict::Pass && !r.compile.empty()) {
        out += "\nnot timed: a candidate that fails is never timed\n";
    }
    if (!r.reference_timing.empty()) {
        out += "\nreference (the current best, re-timed in the same run)\n";
        append_timing_table(out, r.reference_timing);
    }
    if (r.reference_failure) out += "\nreference not timed: " + *r.reference_failure + "\n";
    return out;
}

std::string format_ceilings_report(const MeasuredCeilings& c, const GpuSpec* spec) {
    std::string out = c.device_name.empty() ? std::string("this GPU") : c.device_name;
    if (!c.measured_utc.empty()) out += ", measured " + c.measured_utc;
    out += "\n";
    if (spec && spec->approximate()) out += "(datasheet numbers are approximate: " + spec->match_note + ")\n";

    out += "\ndevice-to-device copy (read + write counted)\n";
    if (c.copy_gb_s.empty()) {
        out += "  not measured\n";
    } else {
        Table t;
        const bool datasheet = spec && spec->bandwidth_gb_s > 0;
        t.add({"bytes moved", "GB/s", datasheet ? "% of datasheet " + fixed(spec->bandwidth_gb_s, 0) + " GB/s" : ""});
        for (const auto& [bytes, gb_s] : c.copy_gb_s)
            t.add({format_byte_size(static_cast<double>(bytes)), fixed(gb_s, 0),
                   datasheet ? percent(100.0 * gb_s / spec->bandwidth_gb_s) : ""});
        out += t.render("  ");
    }

    out += "\nGEMM (cuBLAS through LibTorch)\n";
    if (c.gemm_tflops.empty()) {
        out += "  not measured\n";
    } else {
        Table t;
        t.add({"dtype", "TFLOP/s", spec ? "% of datasheet dense peak" : ""});
        for (const auto& [dtype, tflops] : c.gemm_tflops) {
            std::string share;
            if (spec && spec->supports(dtype)) {
                const double peak = spec->peak_tflops(dtype);
                share = percent(100.0 * tflops / peak) + " of " + fixed(peak, 0);
            }
            t.add({std::string(to_string(dtype)), fixed(tflops, 0), share});
        }
        out += t.render("  ");
    }
    return out;
}

}  // namespace ak
