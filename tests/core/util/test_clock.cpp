#include "util/clock.h"

#include <gtest/gtest.h>

#include <regex>

TEST(Clock, FormatsKnownInstantInUtc) {
    using namespace std::chrono;
    // 2026-11-29T08:15:02Z is 1,795,940,102 seconds after the epoch.
    const system_clock::time_point t{seconds{1795940102} + milliseconds{999}};
    EXPECT_EQ(ak::to_iso8601(t), "2026-11-29T08:15:02Z");
    EXPECT_EQ(ak::to_iso8601(system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

TEST(Clock, NowHasIso8601Shape) {
    EXPECT_TRUE(std::regex_match(ak::utc_now_iso8601(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}
