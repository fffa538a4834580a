#include "gpu/device_query.h"

#include "analysis/gpu_specs.h"
#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak {
namespace {

TEST(DeviceQuery, WithoutADriverThrowsTheDriversPlainMessage) {
    if (cuda_driver().loaded()) GTEST_SKIP() << "a GPU driver is present; the no-driver error cannot occur here";
    try {
        query_devices();
        FAIL() << "query_devices() must throw without a driver";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Gpu);
        EXPECT_EQ(std::string(e.what()), cuda_driver().status().error);
        EXPECT_NE(std::string(e.what()).find("no NVIDIA driver on this machine"), std::string::npos) << e.what();
    }
    EXPECT_THROW(query_device(0), Error);
}

TEST(DeviceQuery, RealGpuIsDescribedAndKnownToTheSpecTable) {
    if (!cuda_driver().loaded()) GTEST_SKIP() << "no GPU driver: " << cuda_driver().status().error;
    const std::vector<DeviceInfo> devices = query_devices();
    ASSERT_FALSE(devices.empty());
    for (const DeviceInfo& d : devices) {
        SCOPED_TRACE(d.name);
        EXPECT_FALSE(d.name.empty());
        EXPECT_GE(d.cc_major, 7);
        EXPECT_GT(d.sm_count, 0);
        EXPECT_GT(d.l2_bytes, 0);
        EXPECT_GE(d.max_shared_per_block_optin, d.max_shared_per_block);
        EXPECT_GT(d.total_mem, 1ULL << 30);
        EXPECT_EQ(d.warp_size, 32);
        EXPECT_GT(d.memory_bus_width_bits, 0);
        EXPECT_EQ(d.driver_version, cuda_driver().status().driver_version);
        const auto spec = find_gpu_spec(d.name, d.cc_major, d.cc_minor);
        ASSERT_TRUE(spec.has_value()) << "GPU not in the spec table";
        if (spec->match == GpuMatch::exact) {
            EXPECT_EQ(spec->sm_count, d.sm_count);
        }
    }
    EXPECT_EQ(query_device(0).name, devices[0].name);
    try {
        query_device(static_cast<int>(devices.size()));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
}

TEST(DeviceInfo, ComputeCapabilityAndBandwidthFromAttributes) {
    DeviceInfo d;
    d.cc_major = 9;
    d.cc_minor = 0;
    d.memory_clock_khz = 2619000;   // H100 SXM: 2.619 GHz, 5120-bit HBM3
    d.memory_bus_width_bits = 5120;
    EXPECT_EQ(d.compute_capability(), "9.0");
    EXPECT_NEAR(d.theoretical_bandwidth_gb_s(), 3352.32, 1e-6);
}

}  // namespace
}  // namespace ak
