#include "gpu/cuda_driver.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace ak {
namespace {

TEST(CuResultTable, NamesTheCodesTheStubCannotName) {
    EXPECT_EQ(cu_result_name(0), "CUDA_SUCCESS");
    EXPECT_EQ(cu_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
    EXPECT_EQ(cu_result_name(100), "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(cu_result_name(700), "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_EQ(cu_result_name(701), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
    EXPECT_EQ(cu_result_name(999), "CUDA_ERROR_UNKNOWN");
}

TEST(CuResultTable, DescribesKnownAndUnknownCodes) {
    EXPECT_EQ(describe_cu_result(100), "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable GPU was found");
    EXPECT_EQ(describe_cu_result(CUDA_ERROR_ILLEGAL_ADDRESS),
              "CUDA_ERROR_ILLEGAL_ADDRESS (700): the kernel accessed an illegal memory address");
    EXPECT_EQ(cu_result_name(12345), "");
    EXPECT_EQ(describe_cu_result(12345), "CUresult 12345 (unknown)");
    // A code we name but do not describe has no trailing colon.
    EXPECT_EQ(describe_cu_result(CUDA_ERROR_MAP_FAILED), "CUDA_ERROR_MAP_FAILED (205)");
}

TEST(CuResultTable, EveryCodeOfTheHeaderIsNamedOnce) {
    // Spot-check codes across the enum's ranges; names must be distinct and start with CUDA_.
    std::set<std::string_view> names;
    for (int code = 0; code < 1000; ++code) {
        const std::string_view name = cu_result_name(code);
        if (name.empty()) continue;
        EXPECT_TRUE(name.starts_with("CUDA_")) << code;
        EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    }
    EXPECT_EQ(names.size(), 101u);  // CUresult values of CUDA 13.0's cuda.h
}

TEST(CudaVersionText, FormatsMajorAndMinor) {
    EXPECT_EQ(cuda_version_text(13000), "13.0");
    EXPECT_EQ(cuda_version_text(12080), "12.8");
    EXPECT_EQ(cuda_version_text(11040), "11.4");
}

TEST(CudaDriver, MissingLibraryIsReportedAsNoDriver) {
    const CudaDriver driver("libcuda-that-does-not-exist.so.1");
    EXPECT_FALSE(driver.loaded());
    EXPECT_EQ(driver.status().error, "libcuda-that-does-not-exist.so.1 not found: no NVIDIA driver on this machine");
    EXPECT_EQ(driver.cuInit, nullptr);
    try {
        driver.require();
        FAIL() << "require() must throw without a driver";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Gpu);
        EXPECT_EQ(std::string(e.what()), driver.status().error);
    }
}

TEST(CudaDriver, StubLibraryIsReportedAsNoDriver) {
    if (!std::filesystem::exists(AK_TEST_CUDA_STUB)) GTEST_SKIP() << "no stub libcuda at " << AK_TEST_CUDA_STUB;
    const CudaDriver driver(AK_TEST_CUDA_STUB);
    EXPECT_FALSE(driver.loaded());
    EXPECT_EQ(driver.status().error,
              std::string("the CUDA stub library was loaded (") + AK_TEST_CUDA_STUB + "): no NVIDIA driver on this machine");
    // The stub still exports every entry point; only cuInit refuses.
    EXPECT_NE(driver.cuLaunchKernel, nullptr);
    EXPECT_NE(driver.cuTensorMapEncodeTiled, nullptr);
}

TEST(CudaDriver, CheckNamesTheCallAndTheError) {
    const CudaDriver driver("libcuda-that-does-not-exist.so.1");
    EXPECT_NO_THROW(driver.check(CUDA_SUCCESS, "cuMemAlloc"));
    try {
        driver.check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(1 GiB)");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Gpu);
        EXPECT_EQ(std::string(e.what()), "cuMemAlloc(1 GiB) failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of GPU memory");
    }
}

TEST(CudaDriver, ProcessDriverOnThisMachine) {
    const CudaDriver& driver = CudaDriver::instance();
    if (driver.loaded()) {
        EXPECT_TRUE(driver.status().error.empty());
        EXPECT_GE(driver.status().driver_version, 12000);
        EXPECT_FALSE(driver.status().library_path.empty());
        GTEST_SKIP() << "a real driver is present (" << driver.status().library_path << "): the no-driver message "
                     << "cannot be checked here";
    }
    // This machine has no NVIDIA driver: the plain message, unless a stub or a GPU-less driver is found.
    const std::string& error = driver.status().error;
    EXPECT_TRUE(error == "libcuda.so.1 not found: no NVIDIA driver on this machine" ||
                error.starts_with("the CUDA stub library was loaded") || error.starts_with("cuInit failed: "))
        << error;
}

}  // namespace
}  // namespace ak
