#pragma once
#include <chrono>
#include <string>

namespace ak {
std::string utc_now_iso8601();  // 2026-11-29T08:15:02Z
std::string to_iso8601(std::chrono::system_clock::time_point t);
}  // namespace ak
