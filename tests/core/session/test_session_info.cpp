#include "session/session_info.h"

#include "util/error.h"

#include <gtest/gtest.h>

using namespace ak;

namespace {
std::string error_text(const std::string& json) {
    try {
        parse_session_info(json, "x/session.json");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
        return e.what();
    }
    ADD_FAILURE() << "expected an error for " << json;
    return "";
}
}  // namespace

TEST(SessionInfo, RoundTripsThroughJson) {
    SessionInfo info;
    info.name = "rmsnorm on H200 — µ-opt";
    info.created_utc = "2026-11-29T08:15:02Z";
    info.gpu = "NVIDIA H200";
    info.gpu_compute_capability = "9.0";
    info.cuda_version = "13.0";
    info.libtorch_version = "2.11.0";
    info.branch = "best";
    info.kernels = {{"rmsnorm", "rmsnorm", "4096x8192", 0.12}, {"softmax", "softmax", "", 0.0}};
    const std::string text = format_session_info(info);
    EXPECT_EQ(text.back(), '\n');
    const SessionInfo back = parse_session_info(text, "session.json");
    EXPECT_EQ(back.name, info.name);
    EXPECT_EQ(back.gpu_compute_capability, "9.0");
    EXPECT_EQ(back.branch, "best");
    ASSERT_EQ(back.kernels.size(), 2u);
    EXPECT_EQ(back.kernels[0].shapes, "4096x8192");
    EXPECT_DOUBLE_EQ(back.kernels[0].model_fraction, 0.12);
    EXPECT_EQ(back.kernels[1].type, "softmax");
}

TEST(SessionInfo, MissingOptionalFieldsTakeDefaults) {
    const SessionInfo info = parse_session_info("{}", "session.json");
    EXPECT_EQ(info.branch, "main");
    EXPECT_EQ(info.format_version, 1);
    EXPECT_TRUE(info.kernels.empty());
}

TEST(SessionInfo, ErrorsNameTheFieldAndOrigin) {
    EXPECT_NE(error_text("{\"name\": 3}").find("'name'"), std::string::npos);
    EXPECT_NE(error_text("{\"kernels\": {}}").find("'kernels'"), std::string::npos);
    EXPECT_NE(error_text("{\"kernels\": [{\"name\": \"a\", \"model_fraction\": \"big\"}]}").find("kernels[0].model_fraction"),
              std::string::npos);
    EXPECT_NE(error_text("{\"kernels\": [{\"name\": \"../evil\"}]}").find("kernels[0].name"), std::string::npos);
    EXPECT_NE(error_text("{\"format_version\": 2}").find("format_version 2"), std::string::npos);
    EXPECT_NE(error_text("[1,2]").find("x/session.json"), std::string::npos);
    EXPECT_NE(error_text("{\"name\": ").find("not valid JSON"), std::string::npos);
}

TEST(SessionInfo, ProfileOriginRoundTripsAndIsOptional) {
    SessionInfo info;
    info.name = "gpt2";
    info.kernels = {{"matmul", "matmul", "2048x3072x768", 0.36}};
    EXPECT_EQ(format_session_info(info).find("\"profile\""), std::string::npos);  // hand-made: no profile field
    EXPECT_FALSE(parse_session_info(format_session_info(info), "s").profile);

    ProfileOrigin p;
    p.file = "out/profile.json";
    p.kind = "builtin";
    p.model = "gpt2";
    p.options = "batch 4, seq 512, fp16, inference";
    p.gpu = "NVIDIA H200";
    p.recorded_utc = "2026-12-02T04:00:00Z";
    p.gpu_time_us_per_iteration = 1475.5;
    info.profile = p;
    const SessionInfo back = parse_session_info(format_session_info(info), "s");
    ASSERT_TRUE(back.profile);
    EXPECT_EQ(back.profile->file, "out/profile.json");
    EXPECT_EQ(back.profile->model, "gpt2");
    EXPECT_EQ(back.profile->options, p.options);
    EXPECT_EQ(back.profile->gpu, "NVIDIA H200");
    EXPECT_EQ(back.profile->recorded_utc, p.recorded_utc);
    EXPECT_DOUBLE_EQ(back.profile->gpu_time_us_per_iteration, 1475.5);
    EXPECT_NE(error_text("{\"profile\": [1]}").find("'profile'"), std::string::npos);
    EXPECT_NE(error_text("{\"profile\": {\"gpu\": 7}}").find("'profile.gpu'"), std::string::npos);
}
