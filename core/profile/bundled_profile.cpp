#include "profile/bundled_profile.h"

#include <system_error>

namespace ak::profile {

namespace fs = std::filesystem;

fs::path bundled_profile_path(const fs::path& application_dir) {
    std::error_code ec;
#ifdef AK_BUNDLED_PROFILE_SOURCE_PATH
    const fs::path source = AK_BUNDLED_PROFILE_SOURCE_PATH;
    if (fs::is_regular_file(source, ec)) return source;
#endif
    if (!application_dir.empty()) {
        const fs::path installed = (application_dir / ".." / kBundledProfileInstallPath).lexically_normal();
        if (fs::is_regular_file(installed, ec)) return installed;
    }
    return {};
}

}  // namespace ak::profile
