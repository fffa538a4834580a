#include "gpu/device_query.h"

#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <fstream>
#include <regex>


namespace ak {
namespace {

int attribute(const CudaDriver& d, CUdevice device, CUdevice_attribute a, const char* what) {
    int value = 0;
    d.check(d.cuDeviceGetAttribute(&value, a, device), std::string("cuDeviceGetAttribute(") + what + ")");
    return value;
}

DeviceInfo describe(const CudaDriver& d, int ordinal) {
    CUdevice device = 0;
    d.check(d.cuDeviceGet(&device, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    d.check(d.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
    info.name = name;
    info.cc_major = attribute(d, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major");
    info.cc_minor = attribute(d, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor");
    info.sm_count = attribute(d, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
    info.l2_bytes = attribute(d, device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
    info.max_shared_per_block = attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared per block");
    info.max_shared_per_block_optin =
        attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared per block opt-in");
    info.max_shared_per_sm =
        attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared per SM");
    info.max_registers_per_block = attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "registers per block");
    info.max_threads_per_block = attribute(d, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block");
    info.warp_size = attribute(d, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size");
    // Clock rates are deprecated attributes; a driver that stops reporting them must not fail the query.
    int value = 0;
    if (d.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device) == CUDA_SUCCESS) info.clock_khz = value;
    if (d.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device) == CUDA_SUCCESS)
        info.memory_clock_khz = value;
    info.memory_bus_width_bits = attribute(d, device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width");
    size_t total = 0;
    d.check(d.cuDeviceTotalMem_v2(&total, device), "cuDeviceTotalMem");
    info.total_mem = total;
    info.driver_version = d.status().driver_version;
    return info;
}

int device_count(const CudaDriver& d) {
    d.require();
    int count = 0;
    d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) throw Error(ErrorKind::Gpu, "no CUDA GPU found: the NVIDIA driver reports 0 devices");
    return count;
}

}  // namespace

std::string DeviceInfo::compute_capability() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

double DeviceInfo::theoretical_bandwidth_gb_s() const {
    // Double data rate: two transfers per memory clock.
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0) / 1e9;
}

std::vector<DeviceInfo> query_devices() {
    const CudaDriver& d = cuda_driver();
    const int count = device_count(d);
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < count; ++i) devices.push_back(describe(d, i));
    return devices;
}

DeviceInfo query_device(int ordinal) {
    const CudaDriver& d = cuda_driver();
    const int count = device_count(d);
    if (ordinal < 0 || ordinal >= count)
        throw Error(ErrorKind::Gpu, "GPU " + std::to_string(ordinal) + " does not exist: the driver sees " +
                                        std::to_string(count) + (count == 1 ? " GPU" : " GPUs") + " (0.." +
                                        std::to_string(count - 1) + ")");
    return describe(d, ordinal);
}

std::string nvidia_driver_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (in && std::getline(in, line)) {
        // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."
        static const std::regex version(R"((\d+\.\d+(\.\d+)?))");
        const auto module = line.find("Kernel Module");
        std::smatch m;
        const std::string tail = module == std::string::npos ? line : line.substr(module);
        if (std::regex_search(tail, m, version)) return m[1].str();
    }
    const auto& cu = cuda_driver();
    if (cu.loaded() && cu.status().driver_version > 0) return "CUDA " + cuda_version_text(cu.status().driver_version);
    return "unknown";
}

}  // namespace ak
