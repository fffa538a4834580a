#include "util/durable_file.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ak;

namespace {

class DurableFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "ak_durable_XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override {
        std::error_code ec;
        fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(dir_, ec);
    }
    std::size_t entries() const {
        std::size_t n = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
        return n;
    }
    fs::path dir_;
};

}  // namespace

TEST_F(DurableFile, AppendCreatesThenAppends) {
    const fs::path file = dir_ / "log.tsv";
    append_durably(file, "one\n");
    append_durably(file, "two\n");
    append_durably(file, "");
    EXPECT_EQ(read_file(file), "one\ntwo\n");
}

TEST_F(DurableFile, AppendIntoMissingFolderIsIoError) {
    try {
        append_durably(dir_ / "missing" / "log.tsv", "x");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
}

TEST_F(DurableFile, ReplaceWritesNewContentAndLeavesNoTemporary) {
    const fs::path file = dir_ / "kernel.cu";
    replace_durably(file, "old");
    replace_durably(file, std::string(100000, 'x') + "new");
    EXPECT_EQ(read_file(file), std::string(100000, 'x') + "new");
    EXPECT_EQ(entries(), 1u);
}

TEST_F(DurableFile, ReplaceKeepsBinaryBytes) {
    const std::string bytes("a\0b\xff\r\n", 6);
    replace_durably(dir_ / "bin", bytes);
    EXPECT_EQ(read_file(dir_ / "bin"), bytes);
}

TEST_F(DurableFile, ReadMissingFileIsNotFoundNamingPath) {
    try {
        read_file(dir_ / "nope.txt");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find("nope.txt"), std::string::npos) << e.what();
    }
}

TEST_F(DurableFile, ReadFolderIsIoError) {
    try {
        read_file(dir_);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
    }
}

TEST_F(DurableFile, DirectoryWritableDetectsMissingFolderAndLeavesNoProbe) {
    EXPECT_TRUE(directory_writable(dir_));
    EXPECT_EQ(entries(), 0u);
    EXPECT_FALSE(directory_writable(dir_ / "does-not-exist"));
}

TEST_F(DurableFile, ReadOnlyFolderGivesReadOnlyError) {
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    if (directory_writable(dir_)) GTEST_SKIP() << "running as root: permissions do not stop writes here";
    try {
        append_durably(dir_ / "log.tsv", "x");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ReadOnly) << e.what();
    }
    try {
        replace_durably(dir_ / "kernel.cu", "x");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ReadOnly) << e.what();
    }
}
