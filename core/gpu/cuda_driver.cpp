#include "gpu/cuda_driver.h"

#include "util/error.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ak {
namespace {

struct ResultEntry {
    int code;
    std::string_view name;
    std::string_view description;
};

#define AK_RESULT(name, description) {name, #name, description}
// Every CUresult of CUDA 13.0's <cuda.h>, in its order. Descriptions are ours, for the codes a
// user of this program is likely to meet.
constexpr ResultEntry kResults[] = {
    AK_RESULT(CUDA_SUCCESS, "no error"),
    AK_RESULT(CUDA_ERROR_INVALID_VALUE, "an argument is out of range"),
    AK_RESULT(CUDA_ERROR_OUT_OF_MEMORY, "out of GPU memory"),
    AK_RESULT(CUDA_ERROR_NOT_INITIALIZED, "the driver was not initialized (cuInit)"),
    AK_RESULT(CUDA_ERROR_DEINITIALIZED, "the driver is shutting down"),
    AK_RESULT(CUDA_ERROR_PROFILER_DISABLED, ""),
    AK_RESULT(CUDA_ERROR_PROFILER_NOT_INITIALIZED, ""),
    AK_RESULT(CUDA_ERROR_PROFILER_ALREADY_STARTED, ""),
    AK_RESULT(CUDA_ERROR_PROFILER_ALREADY_STOPPED, ""),
    AK_RESULT(CUDA_ERROR_STUB_LIBRARY, "the CUDA stub library was loaded instead of the real driver"),
    AK_RESULT(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "this call needs a newer NVIDIA driver"),
    AK_RESULT(CUDA_ERROR_DEVICE_UNAVAILABLE, "the GPU is busy or unavailable (exclusive compute mode?)"),
    AK_RESULT(CUDA_ERROR_NO_DEVICE, "no CUDA-capable GPU was found"),
    AK_RESULT(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    AK_RESULT(CUDA_ERROR_DEVICE_NOT_LICENSED, ""),
    AK_RESULT(CUDA_ERROR_INVALID_IMAGE, "the cubin is not valid for this driver"),
    AK_RESULT(CUDA_ERROR_INVALID_CONTEXT, "no valid CUDA context is current"),
    AK_RESULT(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, ""),
    AK_RESULT(CUDA_ERROR_MAP_FAILED, ""),
    AK_RESULT(CUDA_ERROR_UNMAP_FAILED, ""),
    AK_RESULT(CUDA_ERROR_ARRAY_IS_MAPPED, ""),
    AK_RESULT(CUDA_ERROR_ALREADY_MAPPED, ""),
    AK_RESULT(CUDA_ERROR_NO_BINARY_FOR_GPU, "the module has no code for this GPU's architecture"),
    AK_RESULT(CUDA_ERROR_ALREADY_ACQUIRED, ""),
    AK_RESULT(CUDA_ERROR_NOT_MAPPED, ""),
    AK_RESULT(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, ""),
    AK_RESULT(CUDA_ERROR_NOT_MAPPED_AS_POINTER, ""),
    AK_RESULT(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error"),
    AK_RESULT(CUDA_ERROR_UNSUPPORTED_LIMIT, ""),
    AK_RESULT(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, ""),
    AK_RESULT(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, ""),
    AK_RESULT(CUDA_ERROR_INVALID_PTX, "the PTX could not be compiled by the driver"),
    AK_RESULT(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, ""),
    AK_RESULT(CUDA_ERROR_NVLINK_UNCORRECTABLE, ""),
    AK_RESULT(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, ""),
    AK_RESULT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the PTX is newer than this driver supports"),
    AK_RESULT(CUDA_ERROR_JIT_COMPILATION_DISABLED, ""),
    AK_RESULT(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, ""),
    AK_RESULT(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, ""),
    AK_RESULT(CUDA_ERROR_CONTAINED, ""),
    AK_RESULT(CUDA_ERROR_INVALID_SOURCE, ""),
    AK_RESULT(CUDA_ERROR_FILE_NOT_FOUND, ""),
    AK_RESULT(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, ""),
    AK_RESULT(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, ""),
    AK_RESULT(CUDA_ERROR_OPERATING_SYSTEM, "an operating system call failed"),
    AK_RESULT(CUDA_ERROR_INVALID_HANDLE, "invalid handle (stream, event, module or function)"),
    AK_RESULT(CUDA_ERROR_ILLEGAL_STATE, ""),
    AK_RESULT(CUDA_ERROR_LOSSY_QUERY, ""),
    AK_RESULT(CUDA_ERROR_NOT_FOUND, "named symbol not found (kernel or global name)"),
    AK_RESULT(CUDA_ERROR_NOT_READY, "the operation has not completed yet"),
    AK_RESULT(CUDA_ERROR_ILLEGAL_ADDRESS, "the kernel accessed an illegal memory address"),
    AK_RESULT(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many registers or too much shared memory for this launch"),
    AK_RESULT(CUDA_ERROR_LAUNCH_TIMEOUT, "the kernel ran too long and was stopped"),
    AK_RESULT(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, ""),
    AK_RESULT(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, ""),
    AK_RESULT(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, ""),
    AK_RESULT(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, ""),
    AK_RESULT(CUDA_ERROR_CONTEXT_IS_DESTROYED, ""),
    AK_RESULT(CUDA_ERROR_ASSERT, "a device-side assert failed"),
    AK_RESULT(CUDA_ERROR_TOO_MANY_PEERS, ""),
    AK_RESULT(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, ""),
    AK_RESULT(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, ""),
    AK_RESULT(CUDA_ERROR_HARDWARE_STACK_ERROR, "device stack overflow or corruption"),
    AK_RESULT(CUDA_ERROR_ILLEGAL_INSTRUCTION, "the kernel executed an illegal instruction"),
    AK_RESULT(CUDA_ERROR_MISALIGNED_ADDRESS, "the kernel made a misaligned memory access"),
    AK_RESULT(CUDA_ERROR_INVALID_ADDRESS_SPACE, ""),
    AK_RESULT(CUDA_ERROR_INVALID_PC, ""),
    AK_RESULT(CUDA_ERROR_LAUNCH_FAILED, "the kernel failed while running"),
    AK_RESULT(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, ""),
    AK_RESULT(CUDA_ERROR_TENSOR_MEMORY_LEAK, ""),
    AK_RESULT(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    AK_RESULT(CUDA_ERROR_NOT_SUPPORTED, "operation not supported on this device"),
    AK_RESULT(CUDA_ERROR_SYSTEM_NOT_READY, ""),
    AK_RESULT(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "the kernel-mode driver and libcuda versions differ"),
    AK_RESULT(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, ""),
    AK_RESULT(CUDA_ERROR_MPS_CONNECTION_FAILED, ""),
    AK_RESULT(CUDA_ERROR_MPS_RPC_FAILURE, ""),
    AK_RESULT(CUDA_ERROR_MPS_SERVER_NOT_READY, ""),
    AK_RESULT(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, ""),
    AK_RESULT(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, ""),
    AK_RESULT(CUDA_ERROR_MPS_CLIENT_TERMINATED, ""),
    AK_RESULT(CUDA_ERROR_CDP_NOT_SUPPORTED, ""),
    AK_RESULT(CUDA_ERROR_CDP_VERSION_MISMATCH, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_MERGE, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, ""),
    AK_RESULT(CUDA_ERROR_CAPTURED_EVENT, ""),
    AK_RESULT(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, ""),
    AK_RESULT(CUDA_ERROR_TIMEOUT, "wait timed out"),
    AK_RESULT(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, ""),
    AK_RESULT(CUDA_ERROR_EXTERNAL_DEVICE, ""),
    AK_RESULT(CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid thread block cluster size"),
    AK_RESULT(CUDA_ERROR_FUNCTION_NOT_LOADED, ""),
    AK_RESULT(CUDA_ERROR_INVALID_RESOURCE_TYPE, ""),
    AK_RESULT(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, ""),
    AK_RESULT(CUDA_ERROR_KEY_ROTATION, ""),
    AK_RESULT(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef AK_RESULT

const ResultEntry* find_result(int code) {
    for (const ResultEntry& e : kResults)
        if (e.code == code) return &e;
    return nullptr;
}

// Path of the loaded object that defines `symbol`.
std::string path_of(void* symbol) {
    Dl_info info{};
    if (symbol && dladdr(symbol, &info) != 0 && info.dli_fname) return info.dli_fname;
    return {};
}

}  // namespace

std::string_view cu_result_name(int code) {
    const ResultEntry* e = find_result(code);
    return e ? e->name : std::string_view{};
}

std::string_view cu_result_description(int code) {
    const ResultEntry* e = find_result(code);
    return e ? e->description : std::string_view{};
}

std::string describe_cu_result(int code) {
    const ResultEntry* e = find_result(code);
    if (!e) return "CUresult " + std::to_string(code) + " (unknown)";
    std::string text = std::string(e->name) + " (" + std::to_string(code) + ")";
    if (!e->description.empty()) text += ": " + std::string(e->description);
    return text;
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

CudaDriver::CudaDriver(const std::string& library) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
        const char* why = dlerror();
        status_.error = library + " not found: no NVIDIA driver on this machine";
        if (library.find('/') != std::string::npos && why) status_.error += " (" + std::string(why) + ")";
        return;
    }

    std::string missing;
#define AK_CUDA_RESOLVE(name, required)                                           \
    name = reinterpret_cast<decltype(name)>(dlsym(handle_, #name));               \
    if (!name && required) missing += std::string(missing.empty() ? "" : ", ") + #name;
    AK_CUDA_DRIVER_FUNCTIONS(AK_CUDA_RESOLVE)
#undef AK_CUDA_RESOLVE
    legacy_event_elapsed_time_ = reinterpret_cast<decltype(legacy_event_elapsed_time_)>(dlsym(handle_, "cuEventElapsedTime"));
    status_.library_path = path_of(reinterpret_cast<void*>(cuInit));
    if (status_.library_path.empty()) status_.library_path = library;

    if (!missing.empty()) {
        status_.error = status_.library_path + " lacks driver entry points (" + missing +
                        "): the NVIDIA driver is too old for this program";
        return;
    }

    const CUresult init = cuInit(0);
    if (init == CUDA_ERROR_STUB_LIBRARY) {
        status_.error = "the CUDA stub library was loaded (" + status_.library_path + "): no NVIDIA driver on this machine";
        return;
    }
    int version = 0;
    if (cuDriverGetVersion(&version) == CUDA_SUCCESS) status_.driver_version = version;
    if (init != CUDA_SUCCESS) {
        status_.error = "cuInit failed: " + describe_cu_result(init);
        if (init == CUDA_ERROR_NO_DEVICE) status_.error += " (the NVIDIA driver is installed but sees no GPU)";
        return;
    }
    status_.loaded = true;
}

CudaDriver::~CudaDriver() {
    // libcuda does not support being unloaded while contexts exist; keep it mapped for the process.
    // Only a failed load (no cuInit) is closed again.
    if (handle_ && !status_.loaded) dlclose(handle_);
}

const CudaDriver& CudaDriver::instance() {
    static const CudaDriver driver([] {
        const char* override_path = std::getenv("AK_LIBCUDA");
        return std::string(override_path && *override_path ? override_path : "libcuda.so.1");
    }());
    return driver;
}

void CudaDriver::require() const {
    if (!status_.loaded) throw Error(ErrorKind::Gpu, status_.error);
}

void CudaDriver::need(const void* entry_point, std::string_view name) const {
    require();
    if (!entry_point)
        throw Error(ErrorKind::Gpu, std::string(name) + " is missing from " + status_.library_path + " (driver " +
                                        cuda_version_text(status_.driver_version) + "): update the NVIDIA driver");
}

void CudaDriver::check(CUresult result, std::string_view what) const {
    if (result == CUDA_SUCCESS) return;
    throw Error(ErrorKind::Gpu, std::string(what) + " failed: " + describe_cu_result(result));
}

CUresult CudaDriver::event_elapsed_ms(float* ms, CUevent start, CUevent end) const {
    if (cuEventElapsedTime_v2) return cuEventElapsedTime_v2(ms, start, end);
    if (legacy_event_elapsed_time_) return legacy_event_elapsed_time_(ms, start, end);
    return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace ak
