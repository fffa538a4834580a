#include "session/experiment.h"

namespace ak {

std::string_view to_string(Correctness c) {
    switch (c) {
    case Correctness::Pass: return "PASS";
    case Correctness::Fail: return "FAIL";
    case Correctness::Timeout: return "TIMEOUT";
    case Correctness::Crash: return "CRASH";
    }
    return "FAIL";
}

std::string_view to_string(Outcome o) {
    switch (o) {
    case Outcome::Baseline: return "baseline";
    case Outcome::Kept: return "kept";
    case Outcome::Reverted: return "reverted";
    case Outcome::Failed: return "failed";
    }
    return "failed";
}

std::string_view to_string(Bound b) {
    switch (b) {
    case Bound::Unknown: return "unknown";
    case Bound::Memory: return "memory";
    case Bound::Compute: return "compute";
    }
    return "unknown";
}

std::optional<Correctness> parse_correctness(std::string_view s) {
    for (const auto c : {Correctness::Pass, Correctness::Fail, Correctness::Timeout, Correctness::Crash})
        if (s == to_string(c)) return c;
    return std::nullopt;
}

std::optional<Outcome> parse_outcome(std::string_view s) {
    for (const auto o : {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed})
        if (s == to_string(o)) return o;
    return std::nullopt;
}

std::optional<Bound> parse_bound(std::string_view s) {
    if (s.empty()) return Bound::Unknown;
    for (const auto b : {Bound::Unknown, Bound::Memory, Bound::Compute})
        if (s == to_string(b)) return b;
    return std::nullopt;
}

}  // namespace ak
