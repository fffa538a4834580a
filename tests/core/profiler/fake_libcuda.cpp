// A stand-in for libcuda.so.1 (loaded through $AK_LIBCUDA) that reports one GPU and answers every other
// entry point core/gpu/cuda_driver.h resolves with CUDA_SUCCESS. It lets the CPU tests drive the
// profiler's command route past its GPU check; nothing in it launches anything. Keep the list in step
// with AK_CUDA_DRIVER_FUNCTIONS: a missing required entry point makes the driver fail to load.
#include <cstring>

extern "C" {

int cuDeviceGetCount(int* count) { *count = 1; return 0; }
int cuDriverGetVersion(int* version) { *version = 13000; return 0; }
int cuDeviceGet(int* device, int ordinal) { (void)ordinal; *device = 0; return 0; }
int cuDeviceGetName(char* name, int length, int device) { (void)device; std::strncpy(name, "Fake GPU", (size_t)length); return 0; }
int cuDeviceGetAttribute(int* value, int attribute, int device) { (void)attribute; (void)device; *value = 1; return 0; }
int cuDeviceTotalMem_v2(unsigned long* bytes, int device) { (void)device; *bytes = 1ul << 30; return 0; }
int cuGetErrorName() { return 0; }
int cuGetErrorString() { return 0; }
int cuInit() { return 0; }
int cuDevicePrimaryCtxRetain() { return 0; }
int cuDevicePrimaryCtxRelease_v2() { return 0; }
int cuCtxSetCurrent() { return 0; }
int cuCtxGetCurrent() { return 0; }
int cuCtxSynchronize() { return 0; }
int cuModuleLoadData() { return 0; }
int cuModuleUnload() { return 0; }
int cuModuleGetFunction() { return 0; }
int cuModuleGetGlobal_v2() { return 0; }
int cuFuncGetAttribute() { return 0; }
int cuFuncSetAttribute() { return 0; }
int cuLaunchKernel() { return 0; }
int cuLaunchKernelEx() { return 0; }
int cuMemAlloc_v2() { return 0; }
int cuMemFree_v2() { return 0; }
int cuMemcpyHtoD_v2() { return 0; }
int cuMemcpyDtoH_v2() { return 0; }
int cuMemcpyDtoDAsync_v2() { return 0; }
int cuMemsetD8Async() { return 0; }
int cuMemsetD32Async() { return 0; }
int cuStreamCreate() { return 0; }
int cuStreamDestroy_v2() { return 0; }
int cuStreamSynchronize() { return 0; }
int cuEventCreate() { return 0; }
int cuEventRecord() { return 0; }
int cuEventSynchronize() { return 0; }
int cuEventElapsedTime_v2() { return 0; }
int cuEventDestroy_v2() { return 0; }
int cuTensorMapEncodeTiled() { return 0; }
int cuEventElapsedTime() { return 0; }

}  // extern "C"
