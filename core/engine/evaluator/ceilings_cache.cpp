#include "engine/evaluator/ceilings_cache.h"

#include "engine/evaluation_protocol.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ak::eval {

std::string sanitize_file_component(const std::string& text) {
    std::string out;
    bool dash = false;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
            out += char(c);
            dash = false;
        } else if (!dash && !out.empty()) {
            out += '-';
            dash = true;
        }
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "unknown" : out;
}

std::filesystem::path autokernel_cache_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "autokernel";
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "autokernel";
    return std::filesystem::path("/tmp") / "autokernel";
}

std::filesystem::path ceilings_cache_path(const std::string& device_name, const std::string& driver_version) {
    return autokernel_cache_dir() /
           ("ceilings-" + sanitize_file_component(device_name) + "-" + sanitize_file_component(driver_version) + ".json");
}

std::uint64_t copy_bucket(std::uint64_t bytes) {
    constexpr std::uint64_t kMinimum = std::uint64_t(1) << 20;
    if (bytes <= kMinimum) return kMinimum;
    const double half_steps = std::round(2.0 * std::log2(double(bytes)));
    const double value = std::exp2(half_steps / 2.0);
    const std::uint64_t kib = std::uint64_t(std::llround(value / 1024.0));
    return std::max(kMinimum, kib * 1024);
}

std::vector<std::uint64_t> standard_copy_sizes() {
    std::vector<std::uint64_t> sizes;
    for (int e = 24; e <= 32; e += 2) sizes.push_back(std::uint64_t(1) << e);
    return sizes;
}

std::optional<MeasuredCeilings> load_ceilings(const std::filesystem::path& path, std::string* why) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        if (why) *why = path.string() + " does not exist";
        return std::nullopt;
    }
    try {
        return decode_ceilings(read_file(path));
    } catch (const std::exception& e) {
        if (why) *why = path.string() + ": " + e.what();
        return std::nullopt;
    }
}

void save_ceilings(const std::filesystem::path& path, const MeasuredCeilings& ceilings) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create " + path.parent_path().string() + ": " + ec.message());
    replace_durably(path, encode_ceilings(ceilings) + "\n");
}

}  // namespace ak::eval
