#pragma once
// What the driver says about the GPUs of this machine. Qt-free and free of <cuda.h>.
#include <cstdint>
#include <string>
#include <vector>

namespace ak {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;                     // cuDeviceGetName, e.g. "NVIDIA H200"
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    std::int64_t l2_bytes = 0;
    int max_shared_per_block = 0;         // bytes, without opting in
    int max_shared_per_block_optin = 0;   // bytes, with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)
    int max_shared_per_sm = 0;            // bytes
    int max_registers_per_block = 0;
    int max_threads_per_block = 0;
    int warp_size = 0;
    std::uint64_t total_mem = 0;          // bytes
    int clock_khz = 0;                    // SM clock (0 where the driver no longer reports it)
    int memory_clock_khz = 0;
    int memory_bus_width_bits = 0;
    int driver_version = 0;               // e.g. 13000

    std::string compute_capability() const;    // "9.0"
    // 2 * memory clock * bus width, GB/s: what the memory interface allows (0 when not reported).
    double theoretical_bandwidth_gb_s() const;
};

// Every GPU the driver sees. Throws Error(Gpu) with a plain message when there is no driver
// ("libcuda.so.1 not found: no NVIDIA driver on this machine"), only the stub, or no GPU.
std::vector<DeviceInfo> query_devices();

// One GPU by ordinal; throws Error(Gpu) as above or naming the ordinal when it does not exist.
DeviceInfo query_device(int ordinal);

// The NVIDIA driver's version: the kernel module's ("580.159.04", from /proc/driver/nvidia/version), else
// "CUDA 13.0" from the loaded driver, else "unknown". Never throws.
std::string nvidia_driver_version();

}  // namespace ak
