#pragma once
// The profile shipped with the workbench (resources/demo-profile.json: GPT-2, batch 8, seq 1024, fp16
// inference, recorded on an H200), so the GUI's Profile page and `autokernel new --from-profile` can be
// tried with no GPU. Installed to <prefix>/share/autokernel-workbench/demo-profile.json.
#include <filesystem>

namespace ak::profile {

inline constexpr const char* kBundledProfileInstallPath = "share/autokernel-workbench/demo-profile.json";

// The bundled profile: the source tree's resources/demo-profile.json when it exists (a build tree), else
// <application_dir>/../share/autokernel-workbench/demo-profile.json (an install tree); an empty path when
// neither is a regular file. `application_dir` is the folder of the running executable.
std::filesystem::path bundled_profile_path(const std::filesystem::path& application_dir);

}  // namespace ak::profile
