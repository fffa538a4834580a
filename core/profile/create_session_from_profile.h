#pragma once
// Creating a session from a profile: what `autokernel new --from-profile` and the GUI's "Optimize
// selected" both do. Reads the profile, chooses its kernels (session_from_profile.h), starts each from
// its shipped starter kernel (kernels/cuda/<type>.cu) and records the profile's origin in session.json.
#include "profile/session_from_profile.h"
#include "session/session.h"
#include "session/session_info.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ak::profile {

// The shipped starter kernels: kernels/cuda beside kernels_include_dir() (AK_KERNELS_DIR overrides).
std::filesystem::path starter_kernels_dir();
// The starter of `type`. Throws Error(NotFound) naming the missing file.
std::string read_starter_kernel(KernelType type);

// session.json's gpu, gpu_compute_capability, cuda_version (and libtorch_version when given): the first
// GPU and NVRTC when present, "none" when not. Never throws.
void fill_tool_versions(SessionInfo& info, const std::string& libtorch_version = "");

struct ProfileSession {
    Session session;
    SessionInfo info;                    // as written, profile origin included
    std::vector<ProfileKernel> kernels;  // the chosen kernels, largest share first
};

// Creates the session folder `dir` (must not exist or be empty) from `profile_file` with the kernels
// that pass `options`, each a starter baseline not yet evaluated. Throws Error(Usage) when no kernel
// passes (the message names the file), Error(BadFormat) for a malformed profile, Error(NotFound) for a
// missing starter, and Session::create's errors.
ProfileSession create_session_from_profile(const std::filesystem::path& dir, const std::string& profile_file,
                                           const FromProfileOptions& options, const std::string& libtorch_version = "");

}  // namespace ak::profile
