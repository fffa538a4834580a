#include "engine/evaluator/poison.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

namespace ak::eval {
namespace {

float float_of(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

TEST(Poison, EveryPatternIsANanOfItsFormat) {
    PoisonSource source(7);
    for (PoisonFormat f : {PoisonFormat::Half, PoisonFormat::BFloat16, PoisonFormat::Float})
        for (int i = 0; i < 2000; ++i) {
            const PoisonPattern p = source.next(f);
            EXPECT_EQ(p.format, f);
            EXPECT_TRUE(is_nan_bits(f, p.bits)) << std::hex << p.bits;
            if (f != PoisonFormat::Float) {
                EXPECT_LE(p.bits, 0xFFFFu) << "a 16-bit pattern";
            }
        }
    // fp32 patterns are NaN for the CPU's float too.
    for (int i = 0; i < 100; ++i) {
        const float v = float_of(source.next(PoisonFormat::Float).bits);
        EXPECT_NE(v, v);
    }
}

TEST(Poison, PatternsChangeFromLaunchToLaunchAndAvoidTheFixedAllOnesPattern) {
    PoisonSource source(11);
    std::set<std::uint32_t> seen;
    std::uint32_t last = 0;
    for (int i = 0; i < 1000; ++i) {
        const PoisonPattern p = source.next(PoisonFormat::Half);
        EXPECT_NE(p.bits, 0xFFFFu) << "the all-ones pattern a candidate could look for";
        EXPECT_NE(p.bits, last) << "two launches in a row got the same poison";
        last = p.bits;
        seen.insert(p.bits);
    }
    // 2 x 1023 fp16 NaN payloads exist; 1000 draws must spread over many of them.
    EXPECT_GT(seen.size(), 500u);
    bool negative = false, positive = false;
    for (auto b : seen) (b & 0x8000u ? negative : positive) = true;
    EXPECT_TRUE(negative && positive) << "both signs";
}

TEST(Poison, RecognisesNanAndRejectsInfinityAndNumbers) {
    EXPECT_TRUE(is_nan_bits(PoisonFormat::Half, 0x7E00u));
    EXPECT_FALSE(is_nan_bits(PoisonFormat::Half, 0x7C00u));   // +Inf
    EXPECT_FALSE(is_nan_bits(PoisonFormat::Half, 0x3C00u));   // 1.0
    EXPECT_TRUE(is_nan_bits(PoisonFormat::BFloat16, 0xFFC1u));
    EXPECT_FALSE(is_nan_bits(PoisonFormat::BFloat16, 0xFF80u));  // -Inf
    EXPECT_TRUE(is_nan_bits(PoisonFormat::Float, 0x7FC00000u));
    EXPECT_FALSE(is_nan_bits(PoisonFormat::Float, 0x7F800000u));
    EXPECT_FALSE(is_nan_bits(PoisonFormat::Float, 0x3F800000u));
}

TEST(Poison, TheSameSeedGivesTheSameSequence) {
    PoisonSource a(99), b(99), c(100);
    bool differs = false;
    for (int i = 0; i < 50; ++i) {
        const auto x = a.next(PoisonFormat::Float), y = b.next(PoisonFormat::Float), z = c.next(PoisonFormat::Float);
        EXPECT_EQ(x.bits, y.bits);
        differs |= x.bits != z.bits;
    }
    EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace ak::eval
