#pragma once
// trace.json: the profile as a Chrome trace (the Trace Event Format that Perfetto and chrome://tracing
// open): one track per CUDA stream with its kernels, memcpys and memsets as complete events ("ph":"X",
// microseconds from the first activity), each with its args (grid, block, registers, shared memory,
// correlation id, iteration, and the launching op's name, input shapes, module path and kernel type).
// Ops carry no time in a profile, so there are no op spans: the op is in each kernel's args.
#include "profile/profile.h"

#include <filesystem>
#include <string>

namespace ak::profile {

std::string chrome_trace_json(const Profile& profile);

// Writes durably; throws Error(Io) naming the path.
void write_chrome_trace(const Profile& profile, const std::filesystem::path& path);

}  // namespace ak::profile
