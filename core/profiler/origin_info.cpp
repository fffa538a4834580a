#include "profiler/origin_info.h"

#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "profiler/cupti_activity.h"
#include "util/clock.h"
#include "util/error.h"

namespace ak::profiler {

void require_gpu_driver() {
    const auto& cu = cuda_driver();
    if (!cu.loaded()) throw Error(ErrorKind::Gpu, "no GPU: " + cu.status().error);
    int count = 0;
    if (cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1)
        throw Error(ErrorKind::Gpu, "no GPU: the CUDA driver reports no device");
}

void fill_machine_facts(profile::Origin& origin) {
    const auto& cu = cuda_driver();
    if (cu.loaded()) {
        try {
            origin.gpu_name = query_device(0).name;
        } catch (const std::exception&) {
        }
        origin.driver_version = nvidia_driver_version() + " (CUDA " + cuda_version_text(cu.status().driver_version) + ")";
    }
    origin.cuda_version = CuptiActivity::version_text();
#if defined(AK_VERSION) && defined(AK_GIT_DESCRIBE)
    origin.tool_version = std::string("autokernel-profiler ") + AK_VERSION + " (" + AK_GIT_DESCRIBE + ")";
#endif
    origin.recorded_utc = utc_now_iso8601();
}

}  // namespace ak::profiler
