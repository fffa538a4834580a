#include "engine/evaluator/cuda_check.h"

#include <gtest/gtest.h>

namespace ak::eval {
namespace {

TEST(CudaCheck, ContextCorruptingErrorsAreSticky) {
    for (int code : {700, 702, 710, 714, 715, 716, 717, 718, 719, 999}) EXPECT_TRUE(is_sticky_cuda_error(code)) << code;
    // Out of memory, bad launch configuration, too many resources, not found: the context survives.
    for (int code : {0, 1, 2, 98, 200, 209, 500, 701, 720}) EXPECT_FALSE(is_sticky_cuda_error(code)) << code;
}

TEST(CudaCheck, StickyErrorsCarryTheirNameAndWhere) {
    EXPECT_NO_THROW(check_cu(0, "nothing"));
    try {
        check_cu(700, "the smoke stage, 64x1024 fp16");
        FAIL() << "expected StickyCudaError";
    } catch (const StickyCudaError& e) {
        EXPECT_EQ(e.code(), 700);
        EXPECT_EQ(e.error_name(), "CUDA_ERROR_ILLEGAL_ADDRESS");
        EXPECT_EQ(e.where(), "the smoke stage, 64x1024 fp16");
        EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos);
    }
}

TEST(CudaCheck, OtherErrorsAreOrdinaryGpuErrorsNamingTheCall) {
    try {
        check_cu(2, "allocating the flush buffer");
        FAIL() << "expected Error";
    } catch (const StickyCudaError&) {
        FAIL() << "out of memory is not sticky";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Gpu);
        const std::string what = e.what();
        EXPECT_NE(what.find("allocating the flush buffer failed"), std::string::npos) << what;
        EXPECT_NE(what.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace ak::eval
