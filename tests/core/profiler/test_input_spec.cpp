// --input specs of the TorchScript route: sizes, dtypes, integer ranges, and errors that name the spec.
#include "profiler/input_spec.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak::profiler {
namespace {

std::string error_of(const std::string& text) {
    try {
        parse_input_spec(text);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        return e.what();
    }
    return "";
}

TEST(InputSpec, SizesAndDtype) {
    const InputSpec s = parse_input_spec("8x1024:int64");
    EXPECT_EQ(s.sizes, (std::vector<std::int64_t>{8, 1024}));
    EXPECT_EQ(s.dtype, "int64");
    EXPECT_EQ(s.low, 0);
    EXPECT_EQ(s.high, 2);
    EXPECT_EQ(s.text, "8x1024:int64");
    const InputSpec f = parse_input_spec("2x3:fp16");
    EXPECT_EQ(f.sizes, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(f.dtype, "fp16");
    EXPECT_EQ(parse_input_spec("7:bool").sizes, (std::vector<std::int64_t>{7}));
}

TEST(InputSpec, IntegerRange) {
    const InputSpec s = parse_input_spec("4x128:int64:0-50257");
    EXPECT_EQ(s.low, 0);
    EXPECT_EQ(s.high, 50257);
    EXPECT_TRUE(is_integer_dtype("int32"));
    EXPECT_FALSE(is_integer_dtype("bool"));
    EXPECT_FALSE(is_integer_dtype("fp32"));
}

TEST(InputSpec, ErrorsNameTheSpecAndTheProblem) {
    EXPECT_NE(error_of("").find("empty"), std::string::npos);
    EXPECT_NE(error_of("8x1024").find("no dtype"), std::string::npos);
    const std::string unknown = error_of("8x1024:float16");
    EXPECT_NE(unknown.find("'8x1024:float16'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("unknown dtype 'float16'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("fp16, bf16"), std::string::npos) << unknown;
    EXPECT_NE(error_of("8x0:int64").find("size '0'"), std::string::npos);
    EXPECT_NE(error_of("8xx4:int64").find("size ''"), std::string::npos);
    EXPECT_NE(error_of("-8x4:int64").find("size '-8'"), std::string::npos);
    EXPECT_NE(error_of("8x4:fp16:0-5").find("only allowed for integer"), std::string::npos);
    EXPECT_NE(error_of("8x4:int64:5-5").find("empty"), std::string::npos);
    EXPECT_NE(error_of("8x4:int64:a-b").find("not LOW-HIGH"), std::string::npos);
    EXPECT_NE(error_of("8x4:int64:0-5:x").find("too many"), std::string::npos);
}

}  // namespace
}  // namespace ak::profiler
