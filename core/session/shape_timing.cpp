#include "session/shape_timing.h"

#include "util/text.h"

#include <cstdio>
#include <limits>

namespace ak {
namespace {

constexpr std::string_view kCountKey = "Autokernel-Timing-Shapes";
constexpr std::string_view kLineKey = "Autokernel-Timing";

bool needs_escape(char c) { return c == '%' || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string encode_value(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (needs_escape(c)) {
            char buffer[4];
            std::snprintf(buffer, sizeof buffer, "%%%02X", static_cast<unsigned char>(c));
            out += buffer;
        } else {
            out += c;
        }
    }
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

std::optional<std::string> decode_value(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size()) return std::nullopt;  // "%" or "%4" at the end
        const int high = hex_digit(text[i + 1]);
        const int low = hex_digit(text[i + 2]);
        if (high < 0 || low < 0) return std::nullopt;
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return out;
}

void put(std::string& line, std::string_view key, std::string_view value) {
    if (!line.empty()) line += ' ';
    line += key;
    line += '=';
    line += encode_value(value);
}

void put(std::string& line, std::string_view key, const std::optional<double>& value) {
    put(line, key, value ? format_double(*value) : std::string());
}

// One "key=value ..." line into `t`; returns false (with `problem` set) when the line cannot be used.
bool parse_line(std::string_view value, std::size_t index, ShapeTiming& t, std::vector<std::string>& problems) {
    const std::string where = std::string(kLineKey) + " line " + std::to_string(index + 1);
    for (std::string_view pair : split(value, ' ')) {
        if (pair.empty()) continue;
        const std::size_t eq = pair.find('=');
        if (eq == std::string_view::npos) {
            problems.push_back(where + ": \"" + std::string(pair) + "\" is not key=value");
            continue;
        }
        const std::string_view key = pair.substr(0, eq);
        const auto decoded = decode_value(pair.substr(eq + 1));
        if (!decoded) {
            problems.push_back(where + ": the value of " + std::string(key) + " has a broken %-escape");
            continue;
        }
        const std::string& text = *decoded;
        const auto number = [&](std::optional<double>& field) {
            if (text.empty()) return;
            field = parse_double(text);
            if (!field) problems.push_back(where + ": " + std::string(key) + "=" + text + " is not a number");
        };
        if (key == "shape") t.shape = text;
        else if (key == "dtype") t.dtype = text;
        else if (key == "baseline") t.baseline_name = text;
        else if (key == "bound") t.bound = text;
        else if (key == "us") number(t.median_us);
        else if (key == "iqr_us") number(t.iqr_us);
        else if (key == "baseline_us") number(t.baseline_median_us);
        else if (key == "baseline_iqr_us") number(t.baseline_iqr_us);
        else if (key == "speedup") number(t.speedup);
        else if (key == "tflops") number(t.tflops);
        else if (key == "gb_s") number(t.gb_s);
        else if (key == "pct_peak") number(t.pct_peak);
        else if (key == "pct_copy") number(t.pct_copy_ceiling);
        else if (key == "pct_gemm") number(t.pct_gemm_ceiling);
        else if (key == "samples") {
            if (text.empty()) continue;
            const auto n = parse_int(text);
            if (n && *n >= 0 && *n <= std::numeric_limits<int>::max()) t.samples = static_cast<int>(*n);
            else problems.push_back(where + ": samples=" + text + " is not a count");
        }
        // Any other key comes from a newer version: ignored.
    }
    if (t.shape.empty() || t.dtype.empty()) {
        problems.push_back(where + " has no " + std::string(t.shape.empty() ? "shape" : "dtype") + "; skipped");
        return false;
    }
    return true;
}

}  // namespace

std::string format_timing_trailers(const std::vector<ShapeTiming>& shapes) {
    std::string out = std::string(kCountKey) + ": " + std::to_string(shapes.size()) + "\n";
    for (const ShapeTiming& t : shapes) {
        std::string line;
        put(line, "shape", t.shape);
        put(line, "dtype", t.dtype);
        put(line, "us", t.median_us);
        put(line, "iqr_us", t.iqr_us);
        put(line, "samples", t.samples ? std::to_string(*t.samples) : std::string());
        put(line, "baseline", t.baseline_name);
        put(line, "baseline_us", t.baseline_median_us);
        put(line, "baseline_iqr_us", t.baseline_iqr_us);
        put(line, "speedup", t.speedup);
        put(line, "tflops", t.tflops);
        put(line, "gb_s", t.gb_s);
        put(line, "pct_peak", t.pct_peak);
        put(line, "pct_copy", t.pct_copy_ceiling);
        put(line, "pct_gemm", t.pct_gemm_ceiling);
        put(line, "bound", t.bound);
        out += std::string(kLineKey) + ": " + line + "\n";
    }
    return out;
}

RecordedTimings parse_timing_trailers(std::string_view message) {
    RecordedTimings out;
    std::optional<long long> expected;
    std::size_t lines = 0;
    for (std::string_view line : split(message, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, colon);
        std::string_view value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (key == kCountKey) {
            if (out.recorded) {
                out.problems.push_back(std::string(kCountKey) + " appears twice; the first one counts");
                continue;
            }
            out.recorded = true;
            expected = parse_int(trim(value));
            if (!expected || *expected < 0)
                out.problems.push_back(std::string(kCountKey) + ": \"" + std::string(value) + "\" is not a count");
        } else if (key == kLineKey) {
            ShapeTiming t;
            if (parse_line(value, lines, t, out.problems)) out.shapes.push_back(std::move(t));
            ++lines;
        }
    }
    if (!out.recorded && lines > 0) {
        out.recorded = true;
        out.problems.push_back(std::string(kCountKey) + " is missing; " + std::to_string(lines) + " " +
                               std::string(kLineKey) + " line(s) found");
    } else if (expected && *expected >= 0 && static_cast<std::size_t>(*expected) != lines) {
        out.problems.push_back(std::string(kCountKey) + " says " + std::to_string(*expected) + " but " +
                               std::to_string(lines) + " " + std::string(kLineKey) + " line(s) follow");
    }
    return out;
}

}  // namespace ak
