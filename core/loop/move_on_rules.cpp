#include "loop/move_on_rules.h"
#include "util/text.h"

#include <cstdio>

namespace ak {
namespace {

// 2 -> "2", 1.5 -> "1.5"
std::string short_number(double value) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace

std::optional<std::string> should_move_on(const KernelProgress& progress, const MoveOnRules& rules) {
    if (rules.max_consecutive_reverts > 0 && progress.consecutive_reverts >= rules.max_consecutive_reverts)
        return std::to_string(progress.consecutive_reverts) + " reverts in a row (limit " +
               std::to_string(rules.max_consecutive_reverts) + ")";
    if (rules.ceiling_fraction > 0 && progress.best_pct_of_ceiling &&
        *progress.best_pct_of_ceiling >= rules.ceiling_fraction * 100.0)
        return "best reached " + format_fixed(*progress.best_pct_of_ceiling, 1) + "% of its ceiling (target " +
               short_number(rules.ceiling_fraction * 100.0) + "%)";
    if (rules.max_hours > 0 && progress.hours_spent >= rules.max_hours)
        return format_fixed(progress.hours_spent, 2) + " hours spent on it (limit " + short_number(rules.max_hours) + " h)";
    if (rules.target_speedup > 0 && progress.speedup_over_starter &&
        *progress.speedup_over_starter >= rules.target_speedup)
        return format_fixed(*progress.speedup_over_starter, 2) + "x over the starter (target " +
               short_number(rules.target_speedup) + "x)";
    return std::nullopt;
}

}  // namespace ak
