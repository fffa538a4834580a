#include "engine/evaluator/gpu_session.h"

#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/launcher.h"
#include "engine/evaluator/loaded_libraries.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/headeronly/version.h>

#include <fstream>
#include <iostream>
#include <regex>

namespace ak::eval {

bool disable_tf32() {
    auto& ctx = at::globalContext();
    ctx.setAllowTF32CuBLAS(false);
    ctx.setAllowTF32CuDNN(false);
    ctx.setFloat32MatmulPrecision("highest");
    return !ctx.allowTF32CuBLAS() && !ctx.allowTF32CuDNN() &&
           ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGHEST;
}

GpuSession::GpuSession(int ordinal) : ordinal_(ordinal) {
    const auto& cu = cuda_driver();
    if (!cu.loaded()) throw Error(ErrorKind::Gpu, "no GPU: " + cu.status().error);
    if (!at::hasCUDA())
        throw Error(ErrorKind::Gpu, "no GPU: LibTorch cannot use CUDA here (the CUDA runtime found no usable device)");
    const int count = int(c10::cuda::device_count());
    if (count <= ordinal)
        throw Error(ErrorKind::Gpu, "no GPU: device " + std::to_string(ordinal) + " requested, LibTorch sees " +
                                        std::to_string(count) + " CUDA device(s)");

    // LibTorch creates (or retains) the device's primary context; the driver API then uses the same one.
    c10::cuda::set_device(c10::DeviceIndex(ordinal));
    at::empty({1}, at::TensorOptions().device(at::kCUDA, c10::DeviceIndex(ordinal))).fill_(1);
    c10::cuda::device_synchronize();
    check_cu(cu.cuDeviceGet(&device_, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
    CUcontext current = nullptr;
    check_cu(cu.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
    if (!current) {
        CUcontext primary = nullptr;
        check_cu(cu.cuDevicePrimaryCtxRetain(&primary, device_), "cuDevicePrimaryCtxRetain");
        check_cu(cu.cuCtxSetCurrent(primary), "cuCtxSetCurrent");
    }
    stream_ = reinterpret_cast<CUstream>(at::cuda::getCurrentCUDAStream(c10::DeviceIndex(ordinal)).stream());

    limits_ = query_device_limits(device_);
    const DeviceInfo info = query_device(ordinal);
    description_.name = info.name;
    description_.cc_major = info.cc_major;
    description_.cc_minor = info.cc_minor;
    description_.sm_count = info.sm_count;
    description_.memory_gb = double(info.total_mem) / 1e9;
    description_.l2_mb = double(info.l2_bytes) / double(1 << 20);
    description_.driver_version = ak::nvidia_driver_version();
    if (cu.status().driver_version > 0) description_.driver_version += " (CUDA " + cuda_version_text(cu.status().driver_version) + ")";
    description_.torch_version = TORCH_VERSION;
    description_.cuda_runtime = describe_loaded_libraries(loaded_cuda_libraries());
    arch_ = arch_for(info.cc_major, info.cc_minor, /*arch_specific=*/true);
    spec_ = find_gpu_spec(info.name, info.cc_major, info.cc_minor);

    timer_ = std::make_unique<Timer>(stream_, limits_.l2_bytes);
    ceilings_ = std::make_unique<CeilingsMeter>(*timer_, stream_, description_.name, ak::nvidia_driver_version());

    std::cerr << "autokernel-evaluator: " << description_.name << " (sm_" << info.cc_major << info.cc_minor << ", "
              << info.sm_count << " SMs, " << description_.l2_mb << " MiB L2, driver " << description_.driver_version
              << "), LibTorch " << TORCH_VERSION << ", NVRTC target " << arch_
              << (spec_ ? ", spec " + spec_->model + (spec_->approximate() ? " (approximate: " + spec_->match_note + ")" : "")
                        : std::string(", no datasheet spec for this GPU"))
              << "\n";
}

GpuSession::~GpuSession() = default;

}  // namespace ak::eval
