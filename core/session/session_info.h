#pragma once
// session.json: what a session is and where it was recorded.
#include <filesystem>
#include <string>
#include <vector>

namespace ak {

struct KernelEntry {
    std::string name;         // "rmsnorm" -> kernels/rmsnorm.cu
    std::string type;         // one of the nine kernel types
    std::string shapes;       // optional shape spec given at creation ("" = the type's defaults)
    double model_fraction = 0.0;  // share of model GPU time (from a profile or the user); 0 = unknown
};

struct SessionInfo {
    int format_version = 1;
    std::string name;
    std::string created_utc;        // ISO 8601
    std::string gpu;                // driver's device name, or "none"
    std::string gpu_compute_capability;  // "9.0", or ""
    std::string cuda_version;       // toolkit / driver versions as text
    std::string libtorch_version;
    std::string branch = "main";    // the session branch: the current best of every kernel
    std::vector<KernelEntry> kernels;
};

// Throws Error(BadFormat) naming the field on malformed JSON or wrong types.
SessionInfo parse_session_info(const std::string& json_text, const std::string& origin);
std::string format_session_info(const SessionInfo& info);  // pretty JSON with a trailing newline

}  // namespace ak
