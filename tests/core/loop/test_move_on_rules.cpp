// should_move_on: the first rule that fires, with a reason naming the numbers; rules <= 0 are off.
#include "loop/move_on_rules.h"

#include <gtest/gtest.h>

using namespace ak;

TEST(MoveOnRules, StaysWhenNoRuleFires) {
    KernelProgress p;
    p.consecutive_reverts = 4;
    p.best_pct_of_ceiling = 89.9;
    p.hours_spent = 1.99;
    p.speedup_over_starter = 1.99;
    EXPECT_EQ(should_move_on(p, MoveOnRules{}), std::nullopt);
}

TEST(MoveOnRules, EachRuleFiresAtItsLimit) {
    KernelProgress reverts;
    reverts.consecutive_reverts = 5;
    EXPECT_EQ(should_move_on(reverts, MoveOnRules{}).value_or(""), "5 reverts in a row (limit 5)");

    KernelProgress ceiling;
    ceiling.best_pct_of_ceiling = 90.0;
    EXPECT_EQ(should_move_on(ceiling, MoveOnRules{}).value_or(""), "best reached 90.0% of its ceiling (target 90%)");

    KernelProgress hours;
    hours.hours_spent = 2.5;
    EXPECT_EQ(should_move_on(hours, MoveOnRules{}).value_or(""), "2.50 hours spent on it (limit 2 h)");

    KernelProgress speedup;
    speedup.speedup_over_starter = 2.0;
    EXPECT_EQ(should_move_on(speedup, MoveOnRules{}).value_or(""), "2.00x over the starter (target 2x)");
}

TEST(MoveOnRules, FirstRuleInOrderWins) {
    KernelProgress p;
    p.consecutive_reverts = 7;
    p.speedup_over_starter = 3.0;
    EXPECT_EQ(should_move_on(p, MoveOnRules{}).value_or("").rfind("7 reverts", 0), 0u);
}

TEST(MoveOnRules, LimitsAreConfigurableAndZeroSwitchesARuleOff) {
    KernelProgress p;
    p.consecutive_reverts = 50;
    p.best_pct_of_ceiling = 99;
    p.hours_spent = 10;
    p.speedup_over_starter = 10;
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0, 0, 0}), std::nullopt);
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0, 0, 20}), std::nullopt);
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0, 0, 1.5}).value_or(""), "10.00x over the starter (target 1.5x)");
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0, 12, 0}), std::nullopt);
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0.995, 0, 0}), std::nullopt);
}

TEST(MoveOnRules, UnknownCeilingAndSpeedupNeverFire) {
    KernelProgress p;  // no % of ceiling, no speedup measured
    EXPECT_EQ(should_move_on(p, MoveOnRules{0, 0.01, 0, 0.01}), std::nullopt);
}
