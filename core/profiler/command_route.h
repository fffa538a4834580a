#pragma once
// The command route: runs any CUDA program with the CUPTI injection library (libautokernel-inject.so,
// named in CUDA_INJECTION64_PATH; the driver loads it at cuInit and calls its InitializeInjection), which
// records every kernel, memcpy and memset of the process and its NVTX ranges and writes a profile at
// exit. Each process that initialises CUDA writes its own file; this merges them. The whole run is one
// "iteration"; --warmup and --iterations do not apply. Torch-free.
#include "profile/profile.h"

#include <string>
#include <vector>

namespace ak::profiler {

// Where the injection library is: $AK_INJECT_LIBRARY, else lib/libautokernel-inject.so beside the
// profiler's bin/ folder, else the build tree's copy. Throws ak::Error(NotFound) naming the places looked at.
std::string find_injection_library();

// Runs `command` (argv; searched in PATH) and returns its profile. Throws ak::Error: Gpu "no GPU: ..."
// without a GPU; Usage when the command cannot be started, fails (its exit status or signal), initialises
// no CUDA, or launches no kernel; Gpu when CUPTI could not attach (another CUPTI client).
profile::Profile profile_command(const std::vector<std::string>& command, const std::string& injection_library);

// Environment variables between the profiler and the injection library.
inline constexpr const char* kInjectOutEnv = "AK_INJECT_OUT";  // folder the library writes inject-<pid>.json into

}  // namespace ak::profiler
