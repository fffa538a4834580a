#include "util/text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace ak;

TEST(Split, KeepsEmptyFields) {
    const auto fields = split("a\t\tb\t", '\t');
    ASSERT_EQ(fields.size(), 4u);
    EXPECT_EQ(fields[0], "a");
    EXPECT_EQ(fields[1], "");
    EXPECT_EQ(fields[2], "b");
    EXPECT_EQ(fields[3], "");
}

TEST(Split, EmptyTextIsOneEmptyField) {
    const auto fields = split("", ',');
    ASSERT_EQ(fields.size(), 1u);
    EXPECT_EQ(fields[0], "");
}

TEST(Trim, RemovesSurroundingWhitespaceOnly) {
    EXPECT_EQ(trim("  a b \r\n"), "a b");
    EXPECT_EQ(trim("\t\n "), "");
    EXPECT_EQ(trim("x"), "x");
}

TEST(StartsWith, ComparesPrefix) {
    EXPECT_TRUE(starts_with("refs/autokernel/exp/3", "refs/autokernel/"));
    EXPECT_FALSE(starts_with("refs", "refs/autokernel/"));
    EXPECT_TRUE(starts_with("anything", ""));
}

TEST(ParseDouble, AcceptsPlainAndExponentForms) {
    EXPECT_EQ(parse_double("39.5"), 39.5);
    EXPECT_EQ(parse_double("-0.25"), -0.25);
    EXPECT_EQ(parse_double("1e-3"), 1e-3);
    EXPECT_EQ(parse_double("3342"), 3342.0);
}

TEST(ParseDouble, RejectsGarbageEmptyInfAndNan) {
    EXPECT_FALSE(parse_double(""));
    EXPECT_FALSE(parse_double("12.x"));
    EXPECT_FALSE(parse_double("12 "));
    EXPECT_FALSE(parse_double(" 12"));
    EXPECT_FALSE(parse_double("1,5"));  // a German decimal comma is not a number here
    EXPECT_FALSE(parse_double("inf"));
    EXPECT_FALSE(parse_double("-inf"));
    EXPECT_FALSE(parse_double("nan"));
    EXPECT_FALSE(parse_double("1e999"));  // overflows
}

TEST(ParseInt, AcceptsIntegersOnly) {
    EXPECT_EQ(parse_int("0"), 0);
    EXPECT_EQ(parse_int("-17"), -17);
    EXPECT_EQ(parse_int("9999999999"), 9999999999LL);
    EXPECT_FALSE(parse_int(""));
    EXPECT_FALSE(parse_int("1.0"));
    EXPECT_FALSE(parse_int("7a"));
    EXPECT_FALSE(parse_int("99999999999999999999999"));
}

TEST(FormatDouble, IsShortestAndRoundTrips) {
    EXPECT_EQ(format_double(39.5), "39.5");
    EXPECT_EQ(format_double(0.1), "0.1");
    EXPECT_EQ(format_double(3.0), "3");
    for (const double v : {0.1 + 0.2, 1.0 / 3.0, 1e-300, 6.02214076e23, -123.456, 5e-324,
                           std::numeric_limits<double>::max()}) {
        const std::string text = format_double(v);
        const auto back = parse_double(text);
        ASSERT_TRUE(back.has_value()) << text;
        EXPECT_EQ(*back, v) << text;
    }
}

TEST(EscapeField, EscapesBackslashTabCrLf) {
    EXPECT_EQ(escape_field("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
    EXPECT_EQ(escape_field("plain µ"), "plain µ");
}

TEST(EscapeField, RoundTripsTrickyText) {
    for (const std::string text : {"", "\\", "\\t literally", "tab\there", "\r\n", "ends with \\",
                                   "\\\\n", "unicode µs → 3× faster"}) {
        EXPECT_EQ(unescape_field(escape_field(text)), text) << text;
        EXPECT_EQ(escape_field(text).find_first_of("\t\r\n"), std::string::npos);
    }
}

TEST(UnescapeField, KeepsUnknownEscapesAndTrailingBackslash) {
    EXPECT_EQ(unescape_field("C:\\x"), "C:\\x");
    EXPECT_EQ(unescape_field("end\\"), "end\\");
}

TEST(FormatFixed, RoundsToTheGivenDecimalsInTheCLocale) {
    EXPECT_EQ(ak::format_fixed(2.345, 1), "2.3");
    EXPECT_EQ(ak::format_fixed(1.0 / 3.0, 3), "0.333");
    EXPECT_EQ(ak::format_fixed(1234.5, 0), "1234");  // round half to even
    EXPECT_EQ(ak::format_fixed(-0.06, 1), "-0.1");
}
