#pragma once
// The evaluator worker's GPU state, set up once: LibTorch's CUDA context on the chosen device (the
// driver API shares it: the primary context), the device's limits and description, LibTorch's
// current stream (every launch, timing and reference runs there), the timer with its L2 flush buffer,
// the ceilings cache, the NVRTC compiler and the datasheet spec of this GPU.
#include "analysis/gpu_specs.h"
#include "engine/evaluation_protocol.h"
#include "engine/evaluator/ceilings.h"
#include "engine/evaluator/launch_plan.h"
#include "engine/evaluator/timing.h"
#include "gpu/nvrtc_compiler.h"

#include <cuda.h>

#include <memory>
#include <optional>
#include <string>

namespace ak::eval {

class GpuSession {
public:
    // Initialises everything on device `ordinal`. Throws Error(Gpu) with a plain reason when there is no
    // usable GPU ("no GPU: libcuda.so.1 not found: no NVIDIA driver on this machine").
    explicit GpuSession(int ordinal = 0);
    ~GpuSession();
    GpuSession(const GpuSession&) = delete;
    GpuSession& operator=(const GpuSession&) = delete;

    int ordinal() const { return ordinal_; }
    CUdevice device() const { return device_; }
    CUstream stream() const { return stream_; }
    const DeviceLimits& limits() const { return limits_; }
    const DeviceDescription& description() const { return description_; }
    const std::optional<GpuSpec>& spec() const { return spec_; }
    Timer& timer() { return *timer_; }
    CeilingsMeter& ceilings() { return *ceilings_; }
    NvrtcCompiler& compiler() { return compiler_; }
    // NVRTC target for this GPU ("sm_90a" on Hopper).
    const std::string& arch() const { return arch_; }

private:
    int ordinal_ = 0;
    CUdevice device_ = 0;
    CUstream stream_ = nullptr;
    DeviceLimits limits_;
    DeviceDescription description_;
    std::optional<GpuSpec> spec_;
    std::string arch_;
    NvrtcCompiler compiler_;
    std::unique_ptr<Timer> timer_;
    std::unique_ptr<CeilingsMeter> ceilings_;
};

// Turns off TF32 everywhere LibTorch could use it (cuBLAS, cuDNN, float32 matmul precision "highest"),
// so fp32 references and baselines are true fp32. Returns false when LibTorch still reports TF32 on.
bool disable_tf32();

}  // namespace ak::eval
