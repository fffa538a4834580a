#include "profiler/input_spec.h"

#include "util/error.h"

#include <array>
#include <charconv>

namespace ak::profiler {

namespace {

constexpr std::array<std::string_view, 9> kDtypes = {"fp16", "bf16", "fp32", "fp64", "int64", "int32", "int8", "uint8", "bool"};

[[noreturn]] void bad(std::string_view text, const std::string& why) {
    throw Error(ErrorKind::Usage, "--input '" + std::string(text) + "': " + why +
                                      " (expected SIZESxSIZES:DTYPE, e.g. 8x1024:int64 or 2x3:fp16)");
}

bool parse_int(std::string_view s, std::int64_t& out) {
    if (s.empty()) return false;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        const size_t pos = s.find(sep, start);
        parts.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return parts;
}

}  // namespace

std::string known_input_dtypes() {
    std::string s;
    for (auto d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d);
    return s;
}

bool is_integer_dtype(std::string_view dtype) {
    return dtype == "int64" || dtype == "int32" || dtype == "int8" || dtype == "uint8";
}

InputSpec parse_input_spec(std::string_view text) {
    if (text.empty()) bad(text, "empty");
    const auto fields = split(text, ':');
    if (fields.size() < 2) bad(text, "no dtype");
    if (fields.size() > 3) bad(text, "too many ':'");
    InputSpec spec;
    spec.text = std::string(text);
    for (std::string_view dim : split(fields[0], 'x')) {
        std::int64_t v = 0;
        if (!parse_int(dim, v) || v < 1) bad(text, "size '" + std::string(dim) + "' is not a positive integer");
        spec.sizes.push_back(v);
    }
    const std::string_view dtype = fields[1];
    bool known = false;
    for (auto d : kDtypes) known = known || d == dtype;
    if (!known) bad(text, "unknown dtype '" + std::string(dtype) + "' (known: " + known_input_dtypes() + ")");
    spec.dtype = std::string(dtype);
    if (dtype == "uint8") spec.high = 2;
    if (fields.size() == 3) {
        if (!is_integer_dtype(dtype)) bad(text, "a value range is only allowed for integer inputs");
        const auto range = split(fields[2], '-');
        if (range.size() != 2 || !parse_int(range[0], spec.low) || !parse_int(range[1], spec.high))
            bad(text, "range '" + std::string(fields[2]) + "' is not LOW-HIGH");
        if (spec.low >= spec.high) bad(text, "range " + std::string(fields[2]) + " is empty (LOW must be below HIGH)");
    }
    return spec;
}

}  // namespace ak::profiler
