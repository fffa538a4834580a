#pragma once
// Reading JSON objects field by field with errors that name the file and the field path
// ("verify.json: measurement.coverage[2].calls: must be a whole number"). Header-only, for the .cpp
// files that read verify requests, measurements and verify.json; nlohmann stays out of public headers.
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace ak::jsonf {

using nlohmann::json;

[[noreturn]] inline void bad(const std::string& message) { throw Error(ErrorKind::BadFormat, message); }

inline json parse_object(std::string_view text, std::string_view origin) {
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        bad(std::string(origin) + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object()) bad(std::string(origin) + ": not a JSON object");
    return j;
}

inline std::string dump_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Non-finite numbers travel as "nan", "inf", "-inf" (JSON has no literal for them).
inline json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

class Reader {
public:
    Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

    const json& value() const { return j_; }
    const std::string& path() const { return path_; }
    [[noreturn]] void fail(const std::string& message) const { bad(path_ + ": " + message); }
    [[noreturn]] void fail_field(const char* name, const std::string& message) const {
        bad(path_ + "." + name + ": " + message);
    }

    bool has(const char* name) const {
        if (!j_.is_object()) return false;
        const auto it = j_.find(name);
        return it != j_.end() && !it->is_null();
    }

    std::string string(const char* name) const {
        const json& f = need(name);
        if (!f.is_string()) fail_field(name, "must be a string");
        return f.get<std::string>();
    }
    std::string string(const char* name, std::string fallback) const { return has(name) ? string(name) : fallback; }

    double number(const char* name) const {
        const json& f = need(name);
        if (f.is_number()) return f.get<double>();
        if (f.is_string()) {
            const auto s = f.get<std::string>();
            if (s == "nan") return std::nan("");
            if (s == "inf") return INFINITY;
            if (s == "-inf") return -INFINITY;
        }
        fail_field(name, "must be a number");
    }
    double number(const char* name, double fallback) const { return has(name) ? number(name) : fallback; }
    std::optional<double> optional_number(const char* name) const {
        if (!has(name)) return std::nullopt;
        return number(name);
    }

    template <typename Int>
    Int integer(const char* name) const {
        const json& f = need(name);
        if (!f.is_number_integer()) fail_field(name, "must be a whole number");
        if constexpr (std::is_unsigned_v<Int>) {
            if (f.is_number_unsigned()) return static_cast<Int>(f.get<std::uint64_t>());
            if (f.get<std::int64_t>() < 0) fail_field(name, "must not be negative");
        }
        return static_cast<Int>(f.get<std::int64_t>());
    }
    template <typename Int>
    Int integer(const char* name, Int fallback) const {
        return has(name) ? integer<Int>(name) : fallback;
    }

    bool boolean(const char* name, bool fallback) const {
        if (!has(name)) return fallback;
        const json& f = j_.at(name);
        if (!f.is_boolean()) fail_field(name, "must be true or false");
        return f.get<bool>();
    }

    Reader object(const char* name) const {
        const json& f = need(name);
        if (!f.is_object()) fail_field(name, "must be an object");
        return Reader(f, path_ + "." + name);
    }

    // Calls `fn` for every element of the array `name` (nothing when the field is absent).
    void each(const char* name, const std::function<void(const Reader&)>& fn) const {
        if (!has(name)) return;
        const json& f = j_.at(name);
        if (!f.is_array()) fail_field(name, "must be an array");
        for (std::size_t i = 0; i < f.size(); ++i) fn(Reader(f[i], path_ + "." + name + "[" + std::to_string(i) + "]"));
    }

private:
    const json& need(const char* name) const {
        if (!j_.is_object()) fail("must be an object");
        if (!has(name)) fail("missing field '" + std::string(name) + "'");
        return j_.at(name);
    }

    const json& j_;
    std::string path_;
};

}  // namespace ak::jsonf
