#include "util/clock.h"

#include <ctime>

namespace ak {

std::string to_iso8601(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(
        std::chrono::floor<std::chrono::seconds>(t));
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[32];
    const std::size_t n = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(buffer, n);
}

std::string utc_now_iso8601() { return to_iso8601(std::chrono::system_clock::now()); }

}  // namespace ak
