#include "profiler/command_route.h"

#include "profile/profile_json.h"
#include "profiler/origin_info.h"
#include "util/error.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ak::profiler {

// No std::filesystem in this file: autokernel-profiler links the torch wheel's libtorch.so, which exports
// its own copies of std::filesystem functions, and the dynamic linker binds ours to them (its remove_all
// crashed the profiler on the H200). Plain POSIX calls instead.
namespace {

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string parent_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// The names in a folder (no "." and ".."), sorted.
std::vector<std::string> folder_entries(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") names.push_back(n);
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Removes a flat folder of files (what the injection library writes).
void remove_flat_folder(const std::string& dir) {
    for (const auto& n : folder_entries(dir)) ::unlink((dir + "/" + n).c_str());
    ::rmdir(dir.c_str());
}

bool ends_with(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string find_injection_library() {
    std::vector<std::string> tried;
    if (const char* env = std::getenv("AK_INJECT_LIBRARY"); env && *env) {
        if (is_file(env)) return env;
        throw Error(ErrorKind::NotFound, std::string("AK_INJECT_LIBRARY=") + env + ": no such file");
    }
    char self[PATH_MAX] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        const std::string beside = parent_of(parent_of(std::string(self, size_t(n)))) + "/lib/libautokernel-inject.so";
        if (is_file(beside)) return beside;
        tried.push_back(beside);
    }
#ifdef AK_INJECT_LIBRARY_BUILD_PATH
    if (is_file(AK_INJECT_LIBRARY_BUILD_PATH)) return AK_INJECT_LIBRARY_BUILD_PATH;
    tried.push_back(AK_INJECT_LIBRARY_BUILD_PATH);
#endif
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    throw Error(ErrorKind::NotFound, "the CUPTI injection library libautokernel-inject.so was not found (looked at " + list +
                                         "; set AK_INJECT_LIBRARY)");
}

namespace {

std::string join_command(const std::vector<std::string>& command) {
    std::string s;
    for (const auto& a : command) s += (s.empty() ? "" : " ") + a;
    return s;
}

}  // namespace

profile::Profile profile_command(const std::vector<std::string>& command, const std::string& injection_library) {
    if (command.empty()) throw Error(ErrorKind::Usage, "no command to profile");
    require_gpu_driver();
    char dir_template[] = "/tmp/ak-inject.XXXXXX";
    if (!::mkdtemp(dir_template)) throw Error(ErrorKind::Io, std::string("cannot create a temporary folder: ") + std::strerror(errno));
    const std::string dir = dir_template;
    struct Cleanup {
        std::string d;
        ~Cleanup() { remove_flat_folder(d); }
    } cleanup{dir};

    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(ErrorKind::Io, std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        ::setenv("CUDA_INJECTION64_PATH", injection_library.c_str(), 1);
        ::setenv(kInjectOutEnv, dir.c_str(), 1);
        std::vector<char*> argv;
        for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "autokernel-profiler: cannot run '%s': %s\n", argv[0], std::strerror(errno));
        std::_Exit(127);
    }
    // Ctrl-C reaches the child (same process group); wait for it either way.
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::string shown = join_command(command);
    if (WIFSIGNALED(status))
        throw Error(ErrorKind::Usage, "the command failed: '" + shown + "' was killed by signal " + std::to_string(WTERMSIG(status)) +
                                          " (" + strsignal(WTERMSIG(status)) + ")");
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        throw Error(ErrorKind::Usage, "the command failed: '" + shown + "' exited with status " + std::to_string(WEXITSTATUS(status)));

    std::vector<std::string> files;
    bool started = false;
    for (const auto& n : folder_entries(dir)) {
        if (ends_with(n, ".json")) files.push_back(dir + "/" + n);
        started = started || n.rfind("started-", 0) == 0;
    }
    if (files.empty() && started)
        throw Error(ErrorKind::Usage, "the command '" + shown + "' initialised CUDA but ended without running its exit handlers "
                                          "(os._exit, abort or a signal), so no profile was written");
    if (files.empty())
        throw Error(ErrorKind::Usage, "the command '" + shown + "' never initialised CUDA, so no kernel was recorded "
                                          "(the injection library is loaded by the CUDA driver at cuInit)");

    profile::Profile merged;
    merged.origin.kind = profile::SourceKind::Command;
    merged.origin.command = command;
    for (const auto& f : files) {
        profile::Profile p = profile::read_profile_json(f);
        for (const auto& w : p.warnings) {
            if (w.rfind("CUPTI could not attach", 0) == 0) throw Error(ErrorKind::Gpu, "profiling '" + shown + "': " + w);
            merged.warnings.push_back(w);
        }
        if (merged.origin.gpu_name.empty()) {
            merged.origin.gpu_name = p.origin.gpu_name;
            merged.origin.driver_version = p.origin.driver_version;
            merged.origin.cuda_version = p.origin.cuda_version;
            merged.origin.tool_version = p.origin.tool_version;
        }
        for (auto& k : p.kernels) merged.kernels.push_back(std::move(k));
        for (auto& m : p.memory) merged.memory.push_back(m);
    }
    if (files.size() > 1)
        merged.warnings.push_back(std::to_string(files.size()) + " processes initialised CUDA; their activity is merged");
    if (merged.kernels.empty()) throw Error(ErrorKind::Usage, "the command '" + shown + "' launched no CUDA kernel");
    std::stable_sort(merged.kernels.begin(), merged.kernels.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(merged.memory.begin(), merged.memory.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    profile::IterationRecord it;
    it.index = 0;
    it.wall_ms = wall_ms;
    it.gpu_start_ns = merged.kernels.front().start_ns;
    for (const auto& k : merged.kernels) it.gpu_end_ns = std::max(it.gpu_end_ns, k.end_ns);
    for (const auto& m : merged.memory) {
        it.gpu_start_ns = std::min(it.gpu_start_ns, m.start_ns);
        it.gpu_end_ns = std::max(it.gpu_end_ns, m.end_ns);
    }
    merged.iterations.push_back(it);
    merged.origin.measured_iterations = 1;
    fill_machine_facts(merged.origin);
    return merged;
}

}  // namespace ak::profiler
