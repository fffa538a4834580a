#include "util/utf8.h"

#include <gtest/gtest.h>

#include <string>

using ak::first_invalid_utf8;
using ak::is_valid_utf8;

TEST(Utf8, AcceptsAsciiAndMultiByteText) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("plain ascii\twith tab"));
    EXPECT_TRUE(is_valid_utf8("latency 40 \xC2\xB5s"));              // µ, 2 bytes
    EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC euro"));                  // €, 3 bytes
    EXPECT_TRUE(is_valid_utf8("rocket \xF0\x9F\x9A\x80"));           // U+1F680, 4 bytes
    EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));                   // U+10FFFF, the last code point
    EXPECT_TRUE(is_valid_utf8(std::string("nul\0inside", 10)));
}

TEST(Utf8, ReportsOffsetOfStrayContinuationByte) {
    EXPECT_EQ(first_invalid_utf8("abc\x80" "def"), 3u);
}

TEST(Utf8, ReportsLatin1ByteAtItsOffset) {
    // "caf\xE9" is Latin-1 for café: 0xE9 starts a 3-byte sequence that never continues.
    EXPECT_EQ(first_invalid_utf8("caf\xE9 au lait"), 3u);
    EXPECT_EQ(first_invalid_utf8("\xFF"), 0u);
}

TEST(Utf8, RejectsTruncatedSequenceAtEnd) {
    EXPECT_EQ(first_invalid_utf8("ok \xE2\x82"), 3u);
    EXPECT_EQ(first_invalid_utf8("\xF0\x9F\x9A"), 0u);
}

TEST(Utf8, RejectsOverlongForms) {
    EXPECT_EQ(first_invalid_utf8("\xC0\x80"), 0u);          // NUL in 2 bytes
    EXPECT_EQ(first_invalid_utf8("x\xC1\xBF"), 1u);         // 0x7F in 2 bytes
    EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // '/' in 3 bytes
    EXPECT_EQ(first_invalid_utf8("\xF0\x8F\xBF\xBF"), 0u);  // U+FFFF in 4 bytes
}

TEST(Utf8, RejectsSurrogatesAndCodePointsBeyondUnicode) {
    EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);      // U+D800
    EXPECT_EQ(first_invalid_utf8("ab\xED\xBF\xBF"), 2u);    // U+DFFF
    EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));             // U+D7FF is fine
    EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // U+110000
    EXPECT_EQ(first_invalid_utf8("\xF8\x88\x80\x80\x80"), 0u);
}

TEST(Utf8, ReportsFirstOfSeveralErrors) {
    EXPECT_EQ(first_invalid_utf8("\xC2\xB5 ok \xFF then \x80"), 6u);
}
