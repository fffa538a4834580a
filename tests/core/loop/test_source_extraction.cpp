// Taking a kernel source and a description out of a model's reply.
#include "loop/source_extraction.h"

#include <gtest/gtest.h>

namespace ak {
namespace {

const std::string kKernel = "extern \"C\" __global__ void ak_kernel0(ak_softmax_args args) {\n  // body\n}\n";

TEST(FencedBlocks, FindsBacktickAndTildeFencesWithTheirInfo) {
    const auto blocks = fenced_blocks("text\n```cuda\nA\nB\n```\nmiddle\n  ~~~c++\nC\n  ~~~\n````\nD\n```\nE\n````\n");
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_EQ(blocks[0].info, "cuda");
    EXPECT_EQ(blocks[0].body, "A\nB\n");
    EXPECT_TRUE(blocks[0].closed);
    EXPECT_EQ(blocks[1].info, "c++");
    EXPECT_EQ(blocks[1].body, "C\n");
    // A longer fence is closed only by a fence at least as long; the shorter one is content.
    EXPECT_EQ(blocks[2].body, "D\n```\nE\n");
}

TEST(FencedBlocks, ReportsAnUnclosedBlock) {
    const auto blocks = fenced_blocks("```cpp\nint x;\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].closed);
    EXPECT_EQ(blocks[0].body, "int x;\n");
}

TEST(HasEntryPoint, NeedsADefinitionOfAkKernel0To3) {
    EXPECT_TRUE(has_entry_point(kKernel));
    EXPECT_TRUE(has_entry_point("extern \"C\" __global__ void ak_kernel1 (ak_fused_mlp_args a) {}"));
    EXPECT_FALSE(has_entry_point("__global__ void ak_kernel4(int) {}"));
    EXPECT_FALSE(has_entry_point("__global__ void my_ak_kernel0(int) {}"));
    EXPECT_FALSE(has_entry_point("__global__ void ak_kernel00(int) {}"));
    EXPECT_FALSE(has_entry_point("// the entry point is ak_kernel0, below\n__global__ void k() {}"));
}

TEST(ExtractSource, PrefersTheLongestBlockWithTheEntryPoint) {
    const std::string helper(400, 'x');
    const std::string reply = "Here is the old kernel for reference:\n```cuda\n" + helper +
                              "\n```\nAnd the new one:\n```cuda\n" + kKernel + "```\nA short usage note:\n```cuda\nak_kernel0\n```\n"
                              "DESCRIPTION: one warp per row\n";
    const auto r = extract_source(reply, "default");
    ASSERT_TRUE(r.ok) << r.failure;
    EXPECT_EQ(r.source, kKernel);
    EXPECT_EQ(r.description, "one warp per row");
}

TEST(ExtractSource, TakesTheLongestOfSeveralCompleteCandidates) {
    const std::string longer = "// with a comment that makes it longer\n" + kKernel;
    const auto r = extract_source("```cuda\n" + kKernel + "```\n```cpp\n" + longer + "```\n", "default");
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.source, longer);
    EXPECT_EQ(r.description, "default");
}

TEST(ExtractSource, RejectsRepliesWithoutAUsableBlock) {
    auto r = extract_source("I cannot help with that.", "d");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.failure.find("no fenced code block"), std::string::npos);

    r = extract_source("```cuda\n__global__ void other(float* x) {}\n```\n", "d");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.failure.find("no entry point"), std::string::npos);

    r = extract_source("```cuda\n" + kKernel.substr(0, 30), "d");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.failure.find("not closed"), std::string::npos);

    r = extract_source("```\n\n```\n", "d");
    EXPECT_FALSE(r.ok);
}

TEST(DescriptionLine, AcceptsMarkdownDecorationAndTakesTheLastOutsideBlocks) {
    EXPECT_EQ(description_line("**DESCRIPTION:** use BLOCK_THREADS = 128\n"), "use BLOCK_THREADS = 128");
    EXPECT_EQ(description_line("- Description: two rows per block"), "two rows per block");
    EXPECT_EQ(description_line("description: first\ntext\nDESCRIPTION: second\n"), "second");
    EXPECT_EQ(description_line("```cuda\n// DESCRIPTION: inside the code\n```\n"), "");
    EXPECT_EQ(description_line("no such line"), "");
    EXPECT_EQ(description_line("DESCRIPTION:\t tabs\tinside "), "tabs inside");
    const std::string long_line = "DESCRIPTION: " + std::string(300, 'y');
    EXPECT_EQ(description_line(long_line).size(), 200u);
    // Cut at a UTF-8 boundary: 150 two-byte characters (300 bytes) become 100 characters.
    std::string umlauts;
    for (int i = 0; i < 150; ++i) umlauts += "\xc3\xa4";
    EXPECT_EQ(description_line("DESCRIPTION: " + umlauts), umlauts.substr(0, 200));
    EXPECT_EQ(description_line("DESCRIPTION: x" + umlauts).size(), 199u);
}

}  // namespace
}  // namespace ak
