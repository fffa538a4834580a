// libautokernel-inject.so: the CUPTI injection library of the command route (command_route.h).
//
// The CUDA driver loads the library named in CUDA_INJECTION64_PATH at cuInit and calls its
// InitializeInjection. It enables CUPTI's activity records (kernels, memcpys, memsets), subscribes to
// NVTX callbacks (push/pop ranges) and pushes an external correlation id for the innermost open range,
// so every kernel names the NVTX range it was launched in, and at exit writes the process's profile to
// $AK_INJECT_OUT/inject-<pid>.json. When CUPTI cannot attach (another CUPTI client: torch.profiler, nsys,
// ncu) the file carries a warning starting "CUPTI could not attach" and the profiler reports it.
//
// NVTX reaches CUPTI only when NVTX_INJECTION64_PATH names the libcupti loaded in the process; it is set
// here to that very file (a second copy of CUPTI must not be loaded), so ranges opened before the
// process's first CUDA call are not seen.
#include "profile/profile_json.h"
#include "profiler/command_route.h"
#include "profiler/cupti_activity.h"
#include "profiler/origin_info.h"
#include "profiler/profile_assembly.h"

#include <cupti.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {

using namespace ak;
using namespace ak::profiler;

std::mutex g_ranges_mutex;
std::unordered_map<std::string, std::uint64_t> g_range_ids;
std::unordered_map<std::uint64_t, std::string> g_range_names;
pid_t g_pid = 0;
std::string g_attach_error;
CUpti_SubscriberHandle g_subscriber = nullptr;

std::uint64_t range_id(const std::string& name) {
    std::lock_guard lock(g_ranges_mutex);
    auto [it, inserted] = g_range_ids.emplace(name, g_range_ids.size() + 1);
    if (inserted) g_range_names[it->second] = name;
    return it->second;
}

std::string attribute_message(const nvtxEventAttributes_t* a) {
    if (!a) return "(unnamed range)";
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return "(registered string)";
    return "(unnamed range)";
}

void CUPTIAPI on_nvtx(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_NVTX) return;
    const auto* nvtx = static_cast<const CUpti_NvtxData*>(data);
    switch (cbid) {
        case CUPTI_CBID_NVTX_nvtxRangePushA: {
            const auto* p = static_cast<const nvtxRangePushA_params*>(nvtx->functionParams);
            CuptiActivity::push_external(ExternalKind::NvtxRange, range_id(p && p->message ? p->message : "(unnamed range)"));
            break;
        }
        case CUPTI_CBID_NVTX_nvtxRangePushEx: {
            const auto* p = static_cast<const nvtxRangePushEx_params*>(nvtx->functionParams);
            CuptiActivity::push_external(ExternalKind::NvtxRange, range_id(attribute_message(p ? p->eventAttrib : nullptr)));
            break;
        }
        case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
            const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(nvtx->functionParams);
            CuptiActivity::push_external(ExternalKind::NvtxRange, range_id(attribute_message(p ? p->core.eventAttrib : nullptr)));
            break;
        }
        case CUPTI_CBID_NVTX_nvtxRangePop:
        case CUPTI_CBID_NVTX_nvtxDomainRangePop: CuptiActivity::pop_external(ExternalKind::NvtxRange); break;
        default: break;
    }
}

std::vector<std::string> own_command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> argv;
    std::string arg;
    while (std::getline(in, arg, '\0')) argv.push_back(arg);
    return argv;
}

void write_at_exit() {
    if (::getpid() != g_pid) return;  // a forked child inherited the handler: its parent writes
    const char* out_dir = std::getenv(kInjectOutEnv);
    profile::Profile p;
    try {
        CuptiActivity::stop();
        p.origin.kind = profile::SourceKind::Command;
        p.origin.command = own_command_line();
        p.origin.measured_iterations = 1;
        fill_machine_facts(p.origin);
        if (!g_attach_error.empty()) p.warnings.push_back("CUPTI could not attach: " + g_attach_error);
        IterationWindow all;
        all.index = 0;
        all.begin_ns = 0;
        all.end_ns = UINT64_MAX;
        std::unordered_map<std::uint64_t, std::string> names;
        {
            std::lock_guard lock(g_ranges_mutex);
            names = g_range_names;
        }
        assemble_profile(p, CuptiActivity::take(), {}, {all}, names);
        if (!out_dir || !*out_dir) {
            std::fprintf(stderr, "autokernel-inject: %s is not set; %zu kernels recorded, nothing written\n", kInjectOutEnv,
                         p.kernels.size());
            return;
        }
        write_profile_json(p, std::string(out_dir) + "/inject-" + std::to_string(g_pid) + ".json");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "autokernel-inject: cannot write the profile: %s\n", e.what());
    }
}

// The file of the libcupti this library is linked against, as loaded in this process.
std::string loaded_cupti_path() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) && info.dli_fname) return info.dli_fname;
    return {};
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    static bool done = false;
    if (done) return 1;
    done = true;
    g_pid = ::getpid();
    if (!std::getenv("NVTX_INJECTION64_PATH")) {
        const std::string cupti = loaded_cupti_path();
        if (!cupti.empty()) ::setenv("NVTX_INJECTION64_PATH", cupti.c_str(), 1);
    }
    try {
        CuptiActivity::start();
        CUptiResult r = cuptiSubscribe(&g_subscriber, on_nvtx, nullptr);
        if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_NVTX);
        if (r != CUPTI_SUCCESS) {
            const char* s = nullptr;
            cuptiGetResultString(r, &s);
            std::fprintf(stderr, "autokernel-inject: no NVTX ranges (cuptiSubscribe: %s); kernels are still recorded\n", s ? s : "?");
        }
    } catch (const std::exception& e) {
        g_attach_error = e.what();
        std::fprintf(stderr, "autokernel-inject: %s\n", e.what());
    }
    std::atexit(write_at_exit);
    // A marker, so the profiler can tell "never initialised CUDA" from "exited without exit handlers".
    if (const char* out_dir = std::getenv(kInjectOutEnv); out_dir && *out_dir)
        std::ofstream(std::string(out_dir) + "/started-" + std::to_string(g_pid));
    return 1;
}
