#include "session/session_ceilings.h"

#include "engine/evaluation_protocol.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace ak;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "ak_ceilings_test_XXXXXX").string();
        if (!::mkdtemp(pattern.data())) std::abort();
        path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

MeasuredCeilings h200_like() {
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.measured_utc = "2026-12-02T08:00:00Z";
    c.copy_gb_s = {{std::uint64_t(1) << 24, 3100.0}, {std::uint64_t(1) << 30, 4100.5}};
    c.gemm_tflops = {{DType::fp16, 700.0}, {DType::bf16, 690.0}};
    return c;
}

}  // namespace

TEST(SessionCeilings, AbsentFileIsNoCeilings) {
    TempDir dir;
    EXPECT_FALSE(read_session_ceilings(dir.path).has_value());
    EXPECT_EQ(session_ceilings_path(dir.path), dir.path / "ceilings.json");
}

// What `autokernel ceilings --json > <session>/ceilings.json` writes is read back as it was measured.
TEST(SessionCeilings, TheOutputOfCeilingsJsonReadsBack) {
    TempDir dir;
    replace_durably(session_ceilings_path(dir.path), encode_ceilings(h200_like()) + "\n");
    const auto back = read_session_ceilings(dir.path);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->device_name, "NVIDIA H200");
    EXPECT_EQ(back->copy_gb_s, h200_like().copy_gb_s);
    EXPECT_EQ(back->gemm_tflops, h200_like().gemm_tflops);
}

TEST(SessionCeilings, DamagedFilesAreBadFormatNamingTheFile) {
    TempDir dir;
    for (const std::string& text : {std::string("{not json"), std::string("[1, 2]"),
                                   std::string("{\"device_name\": 3}"), std::string("")}) {
        replace_durably(session_ceilings_path(dir.path), text);
        try {
            (void)read_session_ceilings(dir.path);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::BadFormat) << text;
            EXPECT_NE(std::string(e.what()).find("ceilings.json"), std::string::npos) << e.what();
        }
    }
}
