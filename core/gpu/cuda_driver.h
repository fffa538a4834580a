#pragma once
// The CUDA driver API, loaded with dlopen at first use.
//
// libcuda is never linked: a binary that links it does not even start on a machine without an
// NVIDIA driver (exit 127), and the CLI, the GUI and every test must run there. <cuda.h> is included
// for its types only. The stub libcuda of the toolkit answers every call with
// CUDA_ERROR_STUB_LIBRARY (34) and cannot name its own errors, so CUresult names come from our table.
//
// Only GPU code should include this header (it pulls in <cuda.h>); others use device_query.h.
#include <cuda.h>

#include <string>
#include <string_view>

namespace ak {

// Whether the driver can be used, and if not, why, in words a user understands:
//   "libcuda.so.1 not found: no NVIDIA driver on this machine"
//   "the CUDA stub library was loaded (<path>): no NVIDIA driver on this machine"
//   "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable GPU was found"
struct DriverStatus {
    bool loaded = false;          // libcuda loaded, every required entry point found, cuInit(0) succeeded
    std::string library_path;     // the file actually loaded (when it could be opened)
    std::string error;            // empty when loaded
    int driver_version = 0;       // cuDriverGetVersion, e.g. 13000 for 13.0 (0 when unknown)
};

// Every driver entry point we call: X(name, required). Optional ones (newer than CUDA 11) may be null
// on old drivers; call CudaDriver::need() before using them.
#define AK_CUDA_DRIVER_FUNCTIONS(X)   \
    X(cuGetErrorName, true)           \
    X(cuGetErrorString, true)         \
    X(cuInit, true)                   \
    X(cuDriverGetVersion, true)       \
    X(cuDeviceGetCount, true)         \
    X(cuDeviceGet, true)              \
    X(cuDeviceGetName, true)          \
    X(cuDeviceGetAttribute, true)     \
    X(cuDeviceTotalMem_v2, true)      \
    X(cuDevicePrimaryCtxRetain, true) \
    X(cuDevicePrimaryCtxRelease_v2, true) \
    X(cuCtxSetCurrent, true)          \
    X(cuCtxGetCurrent, true)          \
    X(cuCtxSynchronize, true)         \
    X(cuModuleLoadData, true)         \
    X(cuModuleUnload, true)           \
    X(cuModuleGetFunction, true)      \
    X(cuModuleGetGlobal_v2, true)     \
    X(cuFuncGetAttribute, true)       \
    X(cuFuncSetAttribute, true)       \
    X(cuLaunchKernel, true)           \
    X(cuLaunchKernelEx, false)        \
    X(cuMemAlloc_v2, true)            \
    X(cuMemFree_v2, true)             \
    X(cuMemcpyHtoD_v2, true)          \
    X(cuMemcpyDtoH_v2, true)          \
    X(cuMemcpyDtoDAsync_v2, true)     \
    X(cuMemsetD8Async, true)          \
    X(cuMemsetD32Async, true)         \
    X(cuStreamCreate, true)           \
    X(cuStreamDestroy_v2, true)       \
    X(cuStreamSynchronize, true)      \
    X(cuEventCreate, true)            \
    X(cuEventRecord, true)            \
    X(cuEventSynchronize, true)       \
    X(cuEventElapsedTime_v2, false)   \
    X(cuEventDestroy_v2, true)        \
    X(cuTensorMapEncodeTiled, false)

class CudaDriver {
public:
    // Loads `library` (a file name for the dynamic loader's search, or a path) and initializes it.
    // Never throws: failures end up in status().
    explicit CudaDriver(const std::string& library);
    ~CudaDriver();
    CudaDriver(const CudaDriver&) = delete;
    CudaDriver& operator=(const CudaDriver&) = delete;

    // The process-wide driver, loaded on first use from $AK_LIBCUDA if set, else "libcuda.so.1".
    static const CudaDriver& instance();

    const DriverStatus& status() const { return status_; }
    bool loaded() const { return status_.loaded; }

    // Throws Error(Gpu) with status().error unless loaded.
    void require() const;
    // Throws Error(Gpu) when an optional entry point is missing (driver too old), naming it.
    void need(const void* entry_point, std::string_view name) const;
    // Throws Error(Gpu) "<what> failed: CUDA_ERROR_X (n): description" unless result is CUDA_SUCCESS.
    void check(CUresult result, std::string_view what) const;

    // Elapsed milliseconds between two recorded events (cuEventElapsedTime_v2 on CUDA 12.8+ drivers).
    CUresult event_elapsed_ms(float* ms, CUevent start, CUevent end) const;

#define AK_CUDA_DECLARE_MEMBER(name, required) decltype(&::name) name = nullptr;
    AK_CUDA_DRIVER_FUNCTIONS(AK_CUDA_DECLARE_MEMBER)
#undef AK_CUDA_DECLARE_MEMBER

private:
    void* handle_ = nullptr;
    DriverStatus status_;
    // cuEventElapsedTime before CUDA 12.8 (<cuda.h> now maps the name to _v2, so it is kept apart).
    CUresult (*legacy_event_elapsed_time_)(float*, CUevent, CUevent) = nullptr;
};

// Shorthand for CudaDriver::instance().
inline const CudaDriver& cuda_driver() { return CudaDriver::instance(); }

// Our own CUresult table (the stub library cannot name its errors).
// "CUDA_ERROR_NO_DEVICE" for 100; "" for a code not in the table.
std::string_view cu_result_name(int code);
// A short description ("no CUDA-capable GPU was found"); "" when we have none.
std::string_view cu_result_description(int code);
// "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable GPU was found", or "CUresult 12345 (unknown)".
std::string describe_cu_result(int code);

// "13.0" for 13000, "12.8" for 12080.
std::string cuda_version_text(int version);

}  // namespace ak
