#include "profiler/cupti_activity.h"

#include "util/error.h"

#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ak::profiler {

namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kBufferAlign = 8;

// The state the CUPTI callbacks touch lives on the heap and is never destroyed: in a profiled process
// (the injection library) CUPTI may deliver a buffer after exit() has begun running static destructors,
// and a destroyed mutex or vector there is a crash at exit. After close() the callbacks only free buffers.
struct State {
    std::mutex mutex;
    ActivityData data;
};
State& state() {
    static State* s = new State;  // never deleted (see above)
    return *s;
}
std::atomic<bool> g_running{false};
std::atomic<bool> g_closed{false};
bool g_callbacks_registered = false;
std::atomic<Attribution> g_attribution{Attribution::ApiRecords};
CUpti_SubscriberHandle g_subscriber = nullptr;

// Attribution::ApiCallbacks: this thread's open ops (innermost last) and the (correlation id, op id) pairs
// the API callbacks noted, from every thread, until take().
thread_local std::vector<std::uint64_t> t_ops;
struct Noted {
    std::mutex mutex;
    std::vector<std::pair<uint32_t, uint64_t>> pairs;
};
Noted& noted() {
    static Noted* n = new Noted;  // never deleted (State)
    return *n;
}

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    if (t_ops.empty()) return;
    const auto* d = static_cast<const CUpti_CallbackData*>(data);
    if (d->callbackSite != CUPTI_API_ENTER) return;
    Noted& n = noted();
    std::lock_guard lock(n.mutex);
    n.pairs.emplace_back(d->correlationId, t_ops.back());
}

// External correlation records are emitted for API records, so the launching API calls are recorded too:
// the runtime's and the driver's (cuBLASLt launches through the driver). $AK_PROFILER_API_RECORDS=runtime,
// driver or none narrows that (an overhead experiment; attribution may suffer).
// With Attribution::ApiCallbacks only the first three are enabled (kinds_now()).
std::vector<CUpti_ActivityKind> activity_kinds() {
    std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                             CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    const char* env = std::getenv("AK_PROFILER_API_RECORDS");
    const std::string api = env && *env ? env : "both";
    if (api == "both" || api == "runtime") kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    if (api == "both" || api == "driver") kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
    return kinds;
}
const std::vector<CUpti_ActivityKind>& kinds() {
    static const auto* k = new std::vector<CUpti_ActivityKind>(activity_kinds());  // never deleted (State)
    return *k;
}
const std::vector<CUpti_ActivityKind>& kinds_now() {
    static const auto* k = new std::vector<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                                               CUPTI_ACTIVITY_KIND_MEMSET};  // never deleted
    return g_attribution == Attribution::ApiCallbacks ? *k : kinds();
}

CUpti_ExternalCorrelationKind cupti_kind(ExternalKind k) {
    return k == ExternalKind::Op ? CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 : CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
}

std::string result_text(CUptiResult r) {
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return "CUPTI error " + std::to_string(int(r));
    return std::string(s) + " (" + std::to_string(int(r)) + ")";
}

void check(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return;
    std::string msg = std::string(what) + " failed: " + result_text(r);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_COMPATIBLE ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
        msg += "; " + std::string(kOneCuptiClient);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        msg += "; the driver restricts GPU profiling to administrators (NVreg_RestrictProfilingToAdminUsers)";
    throw Error(ErrorKind::Gpu, msg);
}

profile::MemoryKind memcpy_kind(uint8_t k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return profile::MemoryKind::MemcpyHtoD;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return profile::MemoryKind::MemcpyDtoH;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return profile::MemoryKind::MemcpyDtoD;
        default: return profile::MemoryKind::MemcpyOther;
    }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    if (g_closed) {  // no more records wanted: CUPTI drops what it cannot store
        *buffer = nullptr;
        *size = 0;
        *max_records = 0;
        return;
    }
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t /*size*/, size_t valid) {
    if (g_closed) {
        std::free(buffer);
        return;
    }
    std::vector<profile::KernelRecord> kernels;
    std::vector<RawMemory> memory;
    std::vector<std::pair<uint32_t, uint64_t>> ops, ranges;
    CUpti_Activity* record = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_KERNEL:
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                profile::KernelRecord r;
                r.name = demangle(k->name);
                r.start_ns = k->start;
                r.end_ns = k->end < k->start ? k->start : k->end;
                r.device = k->deviceId;
                r.stream = k->streamId;
                r.grid = {uint32_t(k->gridX), uint32_t(k->gridY), uint32_t(k->gridZ)};
                r.block = {uint32_t(k->blockX), uint32_t(k->blockY), uint32_t(k->blockZ)};
                r.cluster = {k->clusterX, k->clusterY, k->clusterZ};
                if (r.cluster == std::array<uint32_t, 3>{1, 1, 1}) r.cluster = {0, 0, 0};  // a 1x1x1 cluster is no cluster
                r.registers_per_thread = k->registersPerThread;
                r.static_smem_bytes = int(k->staticSharedMemory);
                r.dynamic_smem_bytes = int(k->dynamicSharedMemory);
                r.correlation_id = k->correlationId;
                r.graph_id = k->graphId;
                kernels.push_back(std::move(r));
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
                RawMemory r;
                r.record.kind = memcpy_kind(m->copyKind);
                r.record.bytes = m->bytes;
                r.record.start_ns = m->start;
                r.record.end_ns = m->end < m->start ? m->start : m->end;
                r.record.stream = m->streamId;
                r.correlation_id = m->correlationId;
                memory.push_back(r);
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
                RawMemory r;
                r.record.kind = profile::MemoryKind::Memset;
                r.record.bytes = m->bytes;
                r.record.start_ns = m->start;
                r.record.end_ns = m->end < m->start ? m->start : m->end;
                r.record.stream = m->streamId;
                r.correlation_id = m->correlationId;
                memory.push_back(r);
                break;
            }
            case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
                const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
                if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) ops.emplace_back(e->correlationId, e->externalId);
                if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1) ranges.emplace_back(e->correlationId, e->externalId);
                break;
            }
            default: break;  // runtime and driver API records: only needed for the correlation
        }
    }
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
    std::free(buffer);
    State& st = state();
    std::lock_guard lock(st.mutex);
    for (auto& k : kernels) st.data.kernels.push_back(std::move(k));
    for (auto& m : memory) st.data.memory.push_back(m);
    for (auto& [c, id] : ops) st.data.op_of_correlation[c] = id;
    for (auto& [c, id] : ranges) st.data.range_of_correlation[c] = id;
    st.data.dropped += dropped;
}

}  // namespace

std::string demangle(const char* name) {
    if (!name) return "(unnamed kernel)";
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}

Attribution attribution_from_environment() {
    const char* env = std::getenv("AK_PROFILER_ATTRIBUTION");
    const std::string v = env ? env : "";
    if (v.empty() || v == "records") return Attribution::ApiRecords;
    if (v == "callbacks") return Attribution::ApiCallbacks;
    throw Error(ErrorKind::Usage, "AK_PROFILER_ATTRIBUTION=" + v + ": expected records or callbacks");
}

void CuptiActivity::start(Attribution attribution) {
    if (g_running || g_closed) return;
    if (!g_callbacks_registered) {
        check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
        g_callbacks_registered = true;
    }
    g_attribution = attribution;
    if (attribution == Attribution::ApiCallbacks && !g_subscriber) {
        check(cuptiSubscribe(&g_subscriber, on_api, nullptr), "cuptiSubscribe");
        CUptiResult r = cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
        if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
        if (r != CUPTI_SUCCESS) {
            cuptiUnsubscribe(g_subscriber);
            g_subscriber = nullptr;
            check(r, "cuptiEnableDomain");
        }
    }
    for (CUpti_ActivityKind k : kinds_now()) {
        const CUptiResult r = cuptiActivityEnable(k);
        if (r != CUPTI_SUCCESS) {
            for (CUpti_ActivityKind d : kinds_now()) cuptiActivityDisable(d);
            check(r, "cuptiActivityEnable");
        }
    }
    g_running = true;
}

void CuptiActivity::stop() {
    if (!g_running) return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind k : kinds_now()) cuptiActivityDisable(k);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (g_subscriber) {
        cuptiUnsubscribe(g_subscriber);
        g_subscriber = nullptr;
    }
    g_running = false;
}

void CuptiActivity::flush() {
    if (g_running) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CuptiActivity::close() { g_closed = true; }

bool CuptiActivity::closed() { return g_closed; }

bool CuptiActivity::running() { return g_running; }

ActivityData CuptiActivity::take() {
    State& st = state();
    std::lock_guard lock(st.mutex);
    ActivityData out = std::move(st.data);
    st.data = ActivityData{};
    Noted& n = noted();
    std::lock_guard noted_lock(n.mutex);
    for (const auto& [correlation, op] : n.pairs) out.op_of_correlation[correlation] = op;
    n.pairs.clear();
    return out;
}

std::uint64_t CuptiActivity::timestamp_ns() {
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

void CuptiActivity::push_external(ExternalKind kind, std::uint64_t id) {
    if (kind == ExternalKind::Op && g_attribution == Attribution::ApiCallbacks) {
        t_ops.push_back(id);
        return;
    }
    cuptiActivityPushExternalCorrelationId(cupti_kind(kind), id);
}

void CuptiActivity::pop_external(ExternalKind kind) {
    if (kind == ExternalKind::Op && g_attribution == Attribution::ApiCallbacks) {
        if (!t_ops.empty()) t_ops.pop_back();
        return;
    }
    uint64_t id = 0;
    cuptiActivityPopExternalCorrelationId(cupti_kind(kind), &id);
}

std::string CuptiActivity::version_text() {
    uint32_t api = 0;
    cuptiGetVersion(&api);
    std::string text = "CUPTI API " + std::to_string(api);
    // Two copies of CUPTI may exist (the toolkit's, the torch wheel's): name the one this process loaded.
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname) text += std::string(" (") + info.dli_fname + ")";
    return text;
}

}  // namespace ak::profiler
