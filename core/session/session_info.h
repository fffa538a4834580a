#pragma once
// session.json: what a session is and where it was recorded.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ak {

struct KernelEntry {
    std::string name;         // "rmsnorm" -> kernels/rmsnorm.cu
    std::string type;         // one of the nine kernel types
    std::string shapes;       // optional shape spec given at creation ("" = the type's defaults)
    double model_fraction = 0.0;  // share of model GPU time (from a profile or the user); 0 = unknown
};

// Where a session made from a profile (`autokernel new --from-profile`) got its kernels, shapes and
// shares: written to session.json as "profile" (absent for sessions made by hand).
struct ProfileOrigin {
    std::string file;               // the profile.json as given
    std::string kind;               // "builtin", "torchscript", "command"
    std::string model;              // built-in model name, TorchScript file, or the command line
    std::string options;            // "batch 4, seq 512, fp16, inference" / the inputs
    std::string gpu;                // the GPU it was recorded on
    std::string recorded_utc;       // when it was recorded
    double gpu_time_us_per_iteration = 0;  // the profiled GPU time the fractions are shares of
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
    std::optional<ProfileOrigin> profile;  // set when made from a profile
};

// Throws Error(BadFormat) naming the field on malformed JSON or wrong types.
SessionInfo parse_session_info(const std::string& json_text, const std::string& origin);
std::string format_session_info(const SessionInfo& info);  // pretty JSON with a trailing newline

}  // namespace ak
