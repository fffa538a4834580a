#pragma once
// CUPTI's Activity API for one process: kernels (CONCURRENT_KERNEL), memcpys, memsets and the external
// correlation records that tie each of them to the id we pushed when it was launched. Torch-free: the
// profiler process and the injection library (libautokernel-inject.so) both use it.
//
// CUPTI allows one client per process. If another one is attached (torch.profiler/Kineto, nsys, ncu),
// enabling fails and start() says so.
#include "profile/profile.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ak::profiler {

// The two external id spaces we push (CUPTI keeps one stack per kind and thread).
enum class ExternalKind { Op, NvtxRange };

struct RawMemory {
    profile::MemoryRecord record;  // op_id and iteration unset
    std::uint32_t correlation_id = 0;
};

// Everything the activity buffers delivered since the last take().
struct ActivityData {
    std::vector<profile::KernelRecord> kernels;  // name demangled, correlation_id set; op_id/iteration unset
    std::vector<RawMemory> memory;
    std::unordered_map<std::uint32_t, std::uint64_t> op_of_correlation;     // pushed ExternalKind::Op ids
    std::unordered_map<std::uint32_t, std::uint64_t> range_of_correlation;  // pushed ExternalKind::NvtxRange ids
    std::uint64_t dropped = 0;                                              // records CUPTI could not store
};

// How a kernel learns the op (ExternalKind::Op id) that launched it:
//  ApiRecords: CUPTI's external correlation records, which CUPTI writes beside an activity record of every
//              runtime and driver API call (both kinds enabled: cuBLASLt launches through the driver);
//  ApiCallbacks: a CUPTI callback at the entry of every runtime and driver API call notes the call's
//              correlation id with the op on top of this thread's stack (kept here, not in CUPTI); no API
//              activity records, no external correlation records. Takes the process's one CUPTI
//              subscriber, so not for the injection library (it subscribes to NVTX).
enum class Attribution { ApiRecords, ApiCallbacks };

// $AK_PROFILER_ATTRIBUTION: "records" (the default) or "callbacks"; anything else throws ak::Error(Usage).
Attribution attribution_from_environment();

class CuptiActivity {
public:
    // Registers the buffer callbacks (once) and enables the activity kinds. Throws ak::Error(Gpu) with
    // CUPTI's error text; for CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and the like it adds that only
    // one CUPTI client can attach to a process.
    static void start(Attribution attribution = Attribution::ApiRecords);
    // Flushes every buffer (waits for the GPU's records) and disables the kinds. Never throws.
    static void stop();
    // Flushes completed buffers without disabling (nothing when not running).
    static void flush();
    // For good: later buffers are freed unread and start() does nothing. The injection library calls it
    // once it has taken the process's records at exit, so CUPTI callbacks during the rest of the
    // process's teardown touch nothing of ours.
    static void close();
    static bool closed();
    static bool running();
    // Moves the collected records out.
    static ActivityData take();

    // CUPTI's clock (the one activity timestamps use), in ns.
    static std::uint64_t timestamp_ns();

    static void push_external(ExternalKind kind, std::uint64_t id);
    static void pop_external(ExternalKind kind);

    // "CUPTI API 130001 (/path/of/the/loaded/libcupti.so.13)" for the profile's origin.
    static std::string version_text();
};

// Demangles a C++ symbol ("_Z..."); returns it unchanged when it is not one.
std::string demangle(const char* name);

// The sentence every report and error about CUPTI conflicts carries.
inline constexpr const char* kOneCuptiClient =
    "only one CUPTI client can attach to a process: do not run autokernel profile together with "
    "torch.profiler, nsys or ncu";

}  // namespace ak::profiler
