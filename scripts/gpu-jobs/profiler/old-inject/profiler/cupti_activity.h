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

class CuptiActivity {
public:
    // Registers the buffer callbacks (once) and enables the activity kinds. Throws ak::Error(Gpu) with
    // CUPTI's error text; for CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and the like it adds that only
    // one CUPTI client can attach to a process.
    static void start();
    // Flushes every buffer (waits for the GPU's records) and disables the kinds. Never throws.
    static void stop();
    // Flushes completed buffers without disabling.
    static void flush();
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
