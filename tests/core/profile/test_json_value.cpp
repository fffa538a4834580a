// The strict JSON parser behind profile.json: values, escapes, numbers, and every kind of bad text.
#include "profile/json_value.h"

#include <gtest/gtest.h>

namespace ak::profile::fastjson {
namespace {

std::string error_of(std::string_view text) {
    try {
        parse(text);
    } catch (const ParseError& e) {
        return e.message();
    }
    return "(no error)";
}

TEST(JsonValue, ValuesAndNesting) {
    const Value v = parse(R"( {"a": [1, -2, 3.5, true, false, null, "x"], "b": {"c": []}, "d": 18446744073709551615} )");
    ASSERT_TRUE(v.is_object());
    EXPECT_EQ(v.size(), 3u);
    const auto a = v.find("a");
    ASSERT_TRUE(a && a->is_array());
    ASSERT_EQ(a->size(), 7u);
    EXPECT_TRUE((*a)[0].is_number_unsigned());
    EXPECT_EQ((*a)[0].as_u64(), 1u);
    EXPECT_TRUE((*a)[1].is_number_integer());
    EXPECT_FALSE((*a)[1].is_number_unsigned());
    EXPECT_EQ((*a)[1].as_i64(), -2);
    EXPECT_TRUE((*a)[2].is_number_float());
    EXPECT_DOUBLE_EQ((*a)[2].as_double(), 3.5);
    EXPECT_EQ((*a)[3].dump(), "true");
    EXPECT_EQ((*a)[4].type_name(), std::string("boolean"));
    EXPECT_TRUE((*a)[5].is_null());
    EXPECT_EQ((*a)[6].get<std::string>(), "x");
    EXPECT_EQ(v.find("b")->find("c")->size(), 0u);
    EXPECT_EQ(v.find("d")->as_u64(), 18446744073709551615ull);
    EXPECT_FALSE(v.find("zzz"));
    const auto items = v.items();
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[1].first, "b");
}

TEST(JsonValue, StringEscapes) {
    const Value v = parse(R"(["a\"b\\c\/d\n\t", "\u00e9\u20ac", "\ud83d\ude00", "\u0000x"])");
    EXPECT_EQ(v[0].text(), "a\"b\\c/d\n\t");
    EXPECT_EQ(v[1].text(), "\xC3\xA9\xE2\x82\xAC");
    EXPECT_EQ(v[2].text(), "\xF0\x9F\x98\x80");
    EXPECT_EQ(v[3].text(), std::string_view("\0x", 2));
}

TEST(JsonValue, BadTextNamesLineAndColumn) {
    EXPECT_EQ(error_of("{\n  \"a\": 1,\n}"), "line 3, column 1: expected a member name in quotes, found '}'");
    EXPECT_NE(error_of("[1, 2").find("expected ',' or ']'"), std::string::npos);
    EXPECT_NE(error_of("[1] x").find("unexpected text after"), std::string::npos);
    EXPECT_NE(error_of("\"abc").find("not closed"), std::string::npos);
    EXPECT_NE(error_of("\"a\tb\"").find("control character"), std::string::npos);
    EXPECT_NE(error_of("\"\\q\"").find("unknown escape"), std::string::npos);
    EXPECT_NE(error_of("\"\\ud83d\"").find("high surrogate"), std::string::npos);
    EXPECT_NE(error_of("\"\\ude00\"").find("low surrogate"), std::string::npos);
    EXPECT_NE(error_of("[01]").find("expected ',' or ']'"), std::string::npos);
    EXPECT_NE(error_of("[1.]").find("decimal point"), std::string::npos);
    EXPECT_NE(error_of("[1e]").find("exponent"), std::string::npos);
    EXPECT_NE(error_of("[1e999]").find("out of range"), std::string::npos);
    EXPECT_NE(error_of("[nul]").find("invalid literal"), std::string::npos);
    EXPECT_NE(error_of("").find("expected a JSON value"), std::string::npos);
    EXPECT_NE(error_of("[\"\xff\"]").find("not valid UTF-8"), std::string::npos);
    EXPECT_NE(error_of(std::string(100, '[') + std::string(100, ']')).find("deeper than 64"), std::string::npos);
}

}  // namespace
}  // namespace ak::profile::fastjson
