#include "profile/create_session_from_profile.h"

#include "engine/kernel_contract.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "gpu/nvrtc_compiler.h"
#include "profile/breakdown.h"
#include "profile/profile_json.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

namespace ak::profile {

namespace fs = std::filesystem;

fs::path starter_kernels_dir() { return fs::path(kernels_include_dir()).parent_path() / "cuda"; }

std::string read_starter_kernel(KernelType type)
{
    const fs::path path = starter_kernels_dir() / (std::string(to_string(type)) + ".cu");
    if (!fs::exists(path))
        throw Error(ErrorKind::NotFound, "no starter kernel for " + std::string(to_string(type)) + ": " + path.string() +
                                             " does not exist (set AK_KERNELS_DIR to the kernels/ folder)");
    return read_file(path);
}

void fill_tool_versions(SessionInfo& info, const std::string& libtorch_version)
{
    info.gpu = "none";
    std::string nvrtc;
    try {
        nvrtc = "NVRTC " + nvrtc_version();
    } catch (const Error&) {
        nvrtc = "";
    }
    try {
        const DeviceInfo d = query_device(0);
        info.gpu = d.name;
        info.gpu_compute_capability = d.compute_capability();
        info.cuda_version = "driver " + cuda_version_text(d.driver_version) + (nvrtc.empty() ? "" : ", " + nvrtc);
    } catch (const Error&) {
        info.cuda_version = nvrtc.empty() ? "none" : "none (no driver), " + nvrtc;
    }
    if (!libtorch_version.empty())
        info.libtorch_version = libtorch_version;
}

ProfileSession create_session_from_profile(const fs::path& dir, const std::string& profile_file,
                                           const FromProfileOptions& options, const std::string& libtorch_version)
{
    const Profile p = read_profile_json(profile_file);
    const Breakdown b = compute_breakdown(p);
    std::vector<ProfileKernel> chosen = choose_kernels(b, options);
    if (chosen.empty())
        throw Error(ErrorKind::Usage, profile_file + ": no kernel type passes the selection (--min-share " +
                                          format_double(options.min_share) +
                                          (options.types.empty() ? std::string() : ", --types") +
                                          "): nothing to optimize");
    SessionInfo info;
    fill_tool_versions(info, libtorch_version);
    info.profile = profile_origin(p, b, profile_file);
    std::vector<std::pair<KernelEntry, std::string>> sources;
    std::vector<Experiment> baselines;
    for (const ProfileKernel& k : chosen) {
        const std::string source = read_starter_kernel(k.type);
        const KernelContract contract = parse_contract(source);
        if (!contract.ok())
            throw Error(ErrorKind::Usage, "the @autokernel contract of the " + std::string(to_string(k.type)) +
                                              " starter has errors:\n" + contract.error_text(std::string(to_string(k.type))));
        sources.emplace_back(k.entry(), source);
        Experiment m;
        m.description = "starter (not yet evaluated)";
        m.agent = "new";
        m.detail = "from the " + std::string(to_string(k.type)) + " starter, shapes and share from " + profile_file;
        baselines.push_back(m);
    }
    Session session = Session::create(dir, info, sources, baselines);
    return ProfileSession{std::move(session), std::move(info), std::move(chosen)};
}

}  // namespace ak::profile
