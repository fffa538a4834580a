#include "engine/evaluator/ceilings_cache.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

namespace ak::eval {
namespace {

class ScratchDir : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("ak-ceilings-test-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

TEST(CeilingsCache, FileNamesKeepOnlySafeCharacters) {
    EXPECT_EQ(sanitize_file_component("NVIDIA H200"), "NVIDIA-H200");
    EXPECT_EQ(sanitize_file_component("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3");
    EXPECT_EQ(sanitize_file_component("580.159.04 (CUDA 13.0)"), "580.159.04-CUDA-13.0");
    EXPECT_EQ(sanitize_file_component("a/../b"), "a-..-b");
    EXPECT_EQ(sanitize_file_component("   "), "unknown");
}

TEST(CeilingsCache, PathFollowsXdgCacheHome) {
    const char* old = std::getenv("XDG_CACHE_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
    EXPECT_EQ(ceilings_cache_path("NVIDIA H200", "580.159.04").string(),
              "/tmp/xdg-test/autokernel/ceilings-NVIDIA-H200-580.159.04.json");
    if (old)
        setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
}

TEST(CeilingsCache, CopyBucketsAreSqrtTwoApartAndStable) {
    EXPECT_EQ(copy_bucket(std::uint64_t(1) << 24), std::uint64_t(1) << 24);
    EXPECT_EQ(copy_bucket(134217728 + 1000), std::uint64_t(1) << 27);  // RMSNorm 4096x8192 bf16 moves ~134 MB
    EXPECT_EQ(copy_bucket(100), std::uint64_t(1) << 20);               // at least 1 MiB
    for (std::uint64_t bytes = 1 << 20; bytes < (std::uint64_t(1) << 34); bytes = bytes * 13 / 10) {
        const std::uint64_t b = copy_bucket(bytes);
        EXPECT_EQ(copy_bucket(b), b) << bytes;
        const double ratio = double(b) / double(bytes);
        EXPECT_GT(ratio, 0.83) << bytes;  // within a factor 2^(1/4) of the size
        EXPECT_LT(ratio, 1.2) << bytes;
    }
    const auto sizes = standard_copy_sizes();
    ASSERT_EQ(sizes.size(), 5u);
    EXPECT_EQ(sizes.front(), std::uint64_t(16) << 20);
    EXPECT_EQ(sizes.back(), std::uint64_t(4) << 30);
    for (auto s : sizes) EXPECT_EQ(copy_bucket(s), s);
}

TEST_F(ScratchDir, SavedCeilingsLoadBack) {
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.measured_utc = "2026-11-29T08:00:00Z";
    c.copy_gb_s[std::uint64_t(1) << 27] = 3705.5;
    c.copy_gb_s[std::uint64_t(1) << 32] = 4257.0;
    c.gemm_tflops[DType::bf16] = 721.25;
    const auto path = dir_ / "sub" / "ceilings-x.json";
    save_ceilings(path, c);
    std::string why;
    const auto back = load_ceilings(path, &why);
    ASSERT_TRUE(back) << why;
    EXPECT_EQ(back->device_name, "NVIDIA H200");
    EXPECT_EQ(back->copy_gb_s, c.copy_gb_s);
    EXPECT_EQ(back->gemm_tflops, c.gemm_tflops);
}

TEST_F(ScratchDir, MissingOrBrokenCacheFilesAreReportedNotThrown) {
    std::string why;
    EXPECT_FALSE(load_ceilings(dir_ / "none.json", &why));
    EXPECT_NE(why.find("does not exist"), std::string::npos);
    const auto broken = dir_ / "broken.json";
    std::ofstream(broken) << "{not json";
    EXPECT_FALSE(load_ceilings(broken, &why));
    EXPECT_NE(why.find("broken.json"), std::string::npos) << why;
}

}  // namespace
}  // namespace ak::eval
