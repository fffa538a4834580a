#pragma once
// The machine and tool facts every profile records (GPU, driver, CUDA/CUPTI, tool version, time).
// Torch-free; the LibTorch routes add the torch version themselves.
#include "profile/profile.h"

namespace ak::profiler {

// Fills gpu_name, driver_version, cuda_version, tool_version and recorded_utc of `origin`.
void fill_machine_facts(profile::Origin& origin);

// Throws ak::Error(Gpu) "no GPU: <why>" unless the CUDA driver loads and reports at least one device.
void require_gpu_driver();

}  // namespace ak::profiler
