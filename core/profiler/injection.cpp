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
//
// The library lives inside someone else's process (python with libtorch, any CUDA program), so:
//  - its C++ runtime is its own (linked statically, symbols hidden: CMakeLists.txt), so the host's
//    libstdc++ copies (libtorch exports std::filesystem and more) cannot take over its calls;
//  - everything a CUPTI or NVTX callback touches is on the heap and never destroyed, because those
//    callbacks can arrive while exit() is running static destructors;
//  - a context's records are flushed when the context starts being destroyed (it may be gone by the time
//    exit handlers run), the profile is written by the exit handler, and from then on every callback of
//    ours is a no-op (CuptiActivity::close);
//  - no std::filesystem and no iostreams: POSIX calls only.
// Switches for bisecting a crash (all off by default but the first):
//   AK_INJECT_CONTEXT_FLUSH=0   no flush at context destruction;
//   AK_INJECT_EXIT_FLUSH=0      no CUPTI call at exit (write only what CUPTI already delivered);
//   AK_INJECT_NVTX=0            no NVTX subscription;
//   AK_INJECT_TRACE=1           each step on stderr, and a backtrace on SIGSEGV/SIGBUS/SIGABRT naming the
//                               step the process was in.
#include "profile/profile_json.h"
#include "profiler/command_route.h"
#include "profiler/cupti_activity.h"
#include "profiler/origin_info.h"
#include "profiler/profile_assembly.h"

#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace ak;
using namespace ak::profiler;

bool env_flag(const char* name, bool otherwise) {
    const char* v = std::getenv(name);
    if (!v || !*v) return otherwise;
    return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 || std::strcmp(v, "off") == 0);
}

// Everything the callbacks and the exit handler share. Allocated once, never destroyed (see the top).
struct Injection {
    std::mutex ranges_mutex;
    std::unordered_map<std::string, std::uint64_t> range_ids;
    std::unordered_map<std::uint64_t, std::string> range_names;
    std::vector<std::string> command;  // read at start: /proc may be the only thing left to read at exit
    pid_t pid = 0;
    std::string attach_error;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::atomic<bool> finished{false};  // the profile was written (or given up): callbacks do nothing
    bool trace = false;
    bool context_flush = true;
    bool exit_flush = true;
};
Injection* g = nullptr;

// The step the process is in, for the crash report (a string literal: safe to read from a signal handler).
std::atomic<const char*> g_step{"not started"};

void step(const char* what) {
    g_step = what;
    if (g && g->trace) std::fprintf(stderr, "autokernel-inject[%d]: %s\n", int(::getpid()), what);
}

void write_text(int fd, const char* s) {
    if (s) (void)!::write(fd, s, std::strlen(s));
}

struct sigaction g_previous[32];

// AK_INJECT_TRACE=1: where a crash happened (our step, the thread, a backtrace), then the previous
// handler (Python's faulthandler, say) or the default action, so the exit status stays the signal's.
void on_crash(int sig) {
    char line[160];
    std::snprintf(line, sizeof line, "autokernel-inject[%d]: signal %d in thread %ld (%s thread) during: ", int(::getpid()), sig,
                  long(::syscall(SYS_gettid)), long(::syscall(SYS_gettid)) == long(::getpid()) ? "main" : "another");
    write_text(2, line);
    write_text(2, g_step.load());
    write_text(2, "\n");
    void* frames[64];
    const int n = ::backtrace(frames, 64);
    ::backtrace_symbols_fd(frames, n, 2);
    for (int i = 0; i < n; ++i) {  // the library and offset of each frame, for addr2line
        Dl_info info{};
        if (::dladdr(frames[i], &info) && info.dli_fname) {
            std::snprintf(line, sizeof line, "  #%d %s+0x%lx\n", i, info.dli_fname,
                          static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(frames[i]) -
                                                     reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
            write_text(2, line);
        }
    }
    ::sigaction(sig, &g_previous[sig], nullptr);
    ::raise(sig);
}

void install_crash_report() {
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) {
        struct sigaction a {};
        a.sa_handler = on_crash;
        sigemptyset(&a.sa_mask);
        a.sa_flags = SA_RESETHAND | SA_NODEFER;
        ::sigaction(sig, &a, &g_previous[sig]);
    }
}

std::uint64_t range_id(const std::string& name) {
    std::lock_guard lock(g->ranges_mutex);
    auto [it, inserted] = g->range_ids.emplace(name, g->range_ids.size() + 1);
    if (inserted) g->range_names[it->second] = name;
    return it->second;
}

std::string attribute_message(const nvtxEventAttributes_t* a) {
    if (!a) return "(unnamed range)";
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return "(registered string)";
    return "(unnamed range)";
}

void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* nvtx) {
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

// A context is about to go (cudaDeviceReset, cuCtxDestroy, the runtime's own teardown at exit): its
// records are flushed now, while CUPTI can still read them.
void on_resource(CUpti_CallbackId cbid) {
    if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING || !g->context_flush) return;
    const char* was = g_step.load();
    step("a CUDA context is being destroyed: flushing its records");
    CuptiActivity::flush();
    g_step = was;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (!g || g->finished) return;
    if (domain == CUPTI_CB_DOMAIN_NVTX) on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(data));
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) on_resource(cbid);
}

std::vector<std::string> own_command_line() {
    std::vector<std::string> argv;
    const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return argv;
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
        if (n > 0) all.append(buf, size_t(n));
    ::close(fd);
    for (size_t at = 0; at < all.size();) {
        const size_t end = all.find('\0', at);
        argv.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return argv;
}

// Writes `text` to `path` through a temporary file and a rename (the profiler never sees half a file).
void write_whole_file(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".partial";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + temporary + ": " + std::strerror(errno));
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(temporary.c_str());
            throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(err));
        }
        done += size_t(n);
    }
    if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temporary.c_str());
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
    }
}

void write_at_exit() {
    if (!g || ::getpid() != g->pid) return;  // a forked child inherited the handler: its parent writes
    if (g->finished.exchange(true)) return;   // from here on our callbacks do nothing
    step("exit handler: started");
    const char* out_dir = std::getenv(kInjectOutEnv);
    profile::Profile p;
    try {
        if (g->exit_flush) {
            step("exit handler: flushing CUPTI's buffers and disabling the activity kinds");
            CuptiActivity::stop();
        }
        step("exit handler: taking the records");
        ActivityData data = CuptiActivity::take();
        CuptiActivity::close();
        p.origin.kind = profile::SourceKind::Command;
        p.origin.command = g->command;
        p.origin.measured_iterations = 1;
        step("exit handler: reading the machine's facts (driver, GPU)");
        fill_machine_facts(p.origin);
        if (!g->attach_error.empty()) p.warnings.push_back("CUPTI could not attach: " + g->attach_error);
        IterationWindow all;
        all.index = 0;
        all.begin_ns = 0;
        all.end_ns = UINT64_MAX;
        std::unordered_map<std::uint64_t, std::string> names;
        {
            std::lock_guard lock(g->ranges_mutex);
            names = g->range_names;
        }
        step("exit handler: assembling the profile");
        assemble_profile(p, std::move(data), {}, {all}, names);
        if (!out_dir || !*out_dir) {
            std::fprintf(stderr, "autokernel-inject: %s is not set; %zu kernels recorded, nothing written\n", kInjectOutEnv,
                         p.kernels.size());
            step("exit handler: done (nothing written)");
            return;
        }
        step("exit handler: writing the profile");
        write_whole_file(std::string(out_dir) + "/inject-" + std::to_string(g->pid) + ".json", profile::to_json(p));
        step("exit handler: done; the rest of the process's exit is not ours");
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
    if (g) return 1;
    g = new Injection;  // never deleted (see the top)
    g->pid = ::getpid();
    g->trace = env_flag("AK_INJECT_TRACE", false);
    g->context_flush = env_flag("AK_INJECT_CONTEXT_FLUSH", true);
    g->exit_flush = env_flag("AK_INJECT_EXIT_FLUSH", true);
    if (g->trace) install_crash_report();
    step("InitializeInjection: started");
    g->command = own_command_line();
    const std::string cupti = loaded_cupti_path();
    if (g->trace) std::fprintf(stderr, "autokernel-inject[%d]: CUPTI is %s\n", int(g->pid), cupti.c_str());
    if (!std::getenv("NVTX_INJECTION64_PATH") && !cupti.empty()) ::setenv("NVTX_INJECTION64_PATH", cupti.c_str(), 1);
    try {
        CuptiActivity::start();
        CUptiResult r = cuptiSubscribe(&g->subscriber, on_callback, nullptr);
        if (r == CUPTI_SUCCESS && env_flag("AK_INJECT_NVTX", true)) r = cuptiEnableDomain(1, g->subscriber, CUPTI_CB_DOMAIN_NVTX);
        if (r == CUPTI_SUCCESS)
            r = cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
        if (r != CUPTI_SUCCESS) {
            const char* s = nullptr;
            cuptiGetResultString(r, &s);
            std::fprintf(stderr, "autokernel-inject: no NVTX ranges (CUPTI callbacks: %s); kernels are still recorded\n", s ? s : "?");
        }
    } catch (const std::exception& e) {
        g->attach_error = e.what();
        std::fprintf(stderr, "autokernel-inject: %s\n", e.what());
    }
    std::atexit(write_at_exit);
    // A marker, so the profiler can tell "never initialised CUDA" from "exited without exit handlers".
    if (const char* out_dir = std::getenv(kInjectOutEnv); out_dir && *out_dir) {
        const std::string marker = std::string(out_dir) + "/started-" + std::to_string(g->pid);
        const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
    }
    step("the program is running (InitializeInjection returned)");
    return 1;
}
