#include "analysis/amdahl.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ak {
namespace {

// Expects Error(Usage) whose message contains `needle`.
template <typename F>
void expect_usage_error(F&& f, const std::string& needle) {
    try {
        f();
        FAIL() << "no error thrown; expected one mentioning '" << needle << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(Amdahl, HalfTheTimeTwiceAsFastGivesFourThirds) {
    // 1 / (0.5 + 0.5 / 2) = 1 / 0.75
    EXPECT_DOUBLE_EQ(amdahl_speedup(0.5, 2.0), 4.0 / 3.0);
}

TEST(Amdahl, TwelvePercentKernelAtTwoTimes) {
    // 1 / (0.88 + 0.06) = 1 / 0.94
    EXPECT_NEAR(amdahl_speedup(0.12, 2.0), 1.0638297872340425, 1e-15);
}

TEST(Amdahl, WholeProgramGetsTheKernelSpeedupAndNoShareGetsNothing) {
    EXPECT_DOUBLE_EQ(amdahl_speedup(1.0, 4.0), 4.0);
    EXPECT_DOUBLE_EQ(amdahl_speedup(0.0, 100.0), 1.0);
}

TEST(Amdahl, SlowdownBelowOneIsAllowed) {
    // A regression: 1 / (0.5 + 0.5 / 0.5) = 1 / 1.5
    EXPECT_DOUBLE_EQ(amdahl_speedup(0.5, 0.5), 2.0 / 3.0);
}

TEST(Amdahl, SeveralKernelsCombine) {
    // saved = 0.2 * (1 - 1/2) + 0.3 * (1 - 1/3) = 0.1 + 0.2 = 0.3 -> 1 / 0.7
    EXPECT_NEAR(amdahl_speedup({0.2, 0.3}, {2.0, 3.0}), 1.0 / 0.7, 1e-14);
}

TEST(Amdahl, SeveralKernelsWithOneMatchesTheSingleForm) {
    EXPECT_DOUBLE_EQ(amdahl_speedup({0.37}, {2.5}), amdahl_speedup(0.37, 2.5));
}

TEST(Amdahl, NoKernelsMeansNoSpeedup) { EXPECT_DOUBLE_EQ(amdahl_speedup(std::vector<double>{}, {}), 1.0); }

TEST(Amdahl, FractionOutsideZeroToOneIsRejectedWithItsValue) {
    expect_usage_error([] { amdahl_speedup(-0.1, 2.0); }, "-0.1");
    expect_usage_error([] { amdahl_speedup(1.5, 2.0); }, "between 0 and 1");
    expect_usage_error([] { amdahl_speedup(std::nan(""), 2.0); }, "fraction");
}

TEST(Amdahl, NonPositiveSpeedupIsRejected) {
    expect_usage_error([] { amdahl_speedup(0.5, 0.0); }, "above 0");
    expect_usage_error([] { amdahl_speedup(0.5, -2.0); }, "-2");
    expect_usage_error([] { amdahl_speedup(0.5, INFINITY); }, "speedup");
}

TEST(Amdahl, FractionsAddingUpToMoreThanOneAreRejected) {
    expect_usage_error([] { amdahl_speedup({0.6, 0.5}, {2.0, 2.0}); }, "add up to 1.1");
}

TEST(Amdahl, FractionsAddingUpToOneWithRoundingErrorAreAccepted) {
    // 0.1 + 0.2 + 0.7 is 1.0000000000000002 in doubles.
    EXPECT_NO_THROW(amdahl_speedup({0.1, 0.2, 0.7}, {2.0, 2.0, 2.0}));
    EXPECT_NEAR(amdahl_speedup({0.1, 0.2, 0.7}, {2.0, 2.0, 2.0}), 2.0, 1e-12);
}

TEST(Amdahl, MismatchedListsAreRejectedWithBothSizes) {
    expect_usage_error([] { amdahl_speedup({0.1, 0.2}, {2.0}); }, "2 fractions but 1 speedups");
}

TEST(Amdahl, SecondBadSpeedupIsNamedByPosition) {
    expect_usage_error([] { amdahl_speedup({0.1, 0.2}, {2.0, 0.0}); }, "speedup 2");
}

TEST(Amdahl, LimitIsOneOverTheRestOfTheTime) {
    EXPECT_DOUBLE_EQ(amdahl_limit({0.2, 0.3}), 2.0);
    EXPECT_TRUE(std::isinf(amdahl_limit({0.5, 0.5})));
    EXPECT_DOUBLE_EQ(amdahl_limit({}), 1.0);
}

TEST(WhatIfTable, RowsAtStandardAndMeasuredSpeedups) {
    const WhatIfTable t = what_if_table({{"rmsnorm", 0.12, 2.1}, {"softmax", 0.3, std::nullopt}});
    ASSERT_EQ(t.kernels.size(), 2u);

    const WhatIfKernel& rms = t.kernels[0];
    EXPECT_EQ(rms.name, "rmsnorm");
    ASSERT_EQ(rms.rows.size(), 5u);
    EXPECT_DOUBLE_EQ(rms.rows[0].kernel_speedup, 1.5);
    EXPECT_DOUBLE_EQ(rms.rows[3].kernel_speedup, 5.0);
    EXPECT_NEAR(rms.rows[1].end_to_end, 1.0638297872340425, 1e-15);  // 2x
    EXPECT_FALSE(rms.rows[3].measured);
    EXPECT_TRUE(rms.rows[4].measured);
    EXPECT_DOUBLE_EQ(rms.rows[4].kernel_speedup, 2.1);
    EXPECT_NEAR(rms.rows[4].end_to_end, 1.0670731707317074, 1e-15);  // 1 / (0.88 + 0.12 / 2.1)
    EXPECT_NEAR(rms.limit, 1.0 / 0.88, 1e-15);

    const WhatIfKernel& soft = t.kernels[1];
    EXPECT_EQ(soft.rows.size(), 4u);  // no measured row
    EXPECT_NEAR(soft.rows[2].end_to_end, 1.0 / (0.7 + 0.1), 1e-15);  // 3x

    // softmax has no measurement, so it counts as 1x: the aggregate equals rmsnorm's own row.
    ASSERT_TRUE(t.aggregate_measured.has_value());
    EXPECT_NEAR(*t.aggregate_measured, 1.0670731707317074, 1e-15);
}

TEST(WhatIfTable, AggregateCombinesEveryMeasuredKernel) {
    const WhatIfTable t = what_if_table({{"a", 0.2, 2.0}, {"b", 0.3, 3.0}});
    ASSERT_TRUE(t.aggregate_measured.has_value());
    EXPECT_NEAR(*t.aggregate_measured, 1.0 / 0.7, 1e-14);
}

TEST(WhatIfTable, NoMeasurementsMeansNoAggregate) {
    const WhatIfTable t = what_if_table({{"a", 0.2, std::nullopt}});
    EXPECT_FALSE(t.aggregate_measured.has_value());
    EXPECT_NE(format_what_if_table(t).find("no kernel has a measured speedup yet"), std::string::npos);
}

TEST(WhatIfTable, InvalidInputNamesTheKernel) {
    expect_usage_error([] { what_if_table({{"rmsnorm", 1.2, std::nullopt}}); }, "'rmsnorm'");
    expect_usage_error([] { what_if_table({{"softmax", 0.2, -1.0}}); }, "measured speedup of kernel 'softmax'");
    expect_usage_error([] { what_if_table({{"a", 0.7, std::nullopt}, {"b", 0.7, std::nullopt}}); }, "add up to 1.4");
}

TEST(WhatIfTable, FormattedTextShowsEveryNumber) {
    const std::string text = format_what_if_table(what_if_table({{"rmsnorm", 0.12, 2.1}}));
    EXPECT_NE(text.find("kernel"), std::string::npos);
    EXPECT_NE(text.find("rmsnorm"), std::string::npos);
    EXPECT_NE(text.find("12.0%"), std::string::npos);
    EXPECT_NE(text.find("1.064x"), std::string::npos);         // at 2x
    EXPECT_NE(text.find("2.10x -> 1.067x"), std::string::npos);  // measured
    EXPECT_NE(text.find("1.136x"), std::string::npos);         // limit 1 / 0.88
    EXPECT_NE(text.find("all measured speedups together: 1.067x"), std::string::npos);
}

}  // namespace
}  // namespace ak
