#include "gpu/nvrtc_compiler.h"

#include "gpu/sha256.h"
#include "util/error.h"
#include "util/source_text.h"

#include <nvrtc.h>

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#ifndef AK_CUDA_INCLUDE_DIR
#define AK_CUDA_INCLUDE_DIR ""
#endif

namespace ak {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kVerbosePtxas = "--ptxas-options=-v";
// NVRTC 13 reuses cubins from the driver's compute cache (~/.nv/ComputeCache) when libcuda is present;
// ptxas then does not run and prints no resource lines. We keep our own cache (with the log), so
// NVRTC's is switched off: every real compile reports its resources.
constexpr std::string_view kNoNvrtcCache = "--no-cache";

bool is_real_arch(std::string_view arch) {
    // sm_<digits> with an optional 'a' (arch-specific) or 'f' (family-specific) suffix.
    if (arch.substr(0, 3) != "sm_" || arch.size() < 5) return false;
    std::string_view rest = arch.substr(3);
    if (rest.back() == 'a' || rest.back() == 'f') rest.remove_suffix(1);
    return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string demangle(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

// The number written just before `suffix` in `line` ("40 registers" -> 40 for " registers").
std::optional<int> number_before(std::string_view line, std::string_view suffix) {
    const std::size_t at = line.find(suffix);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    if (start == at) return std::nullopt;
    return std::stoi(std::string(line.substr(start, at - start)));
}

// The text between the first pair of single quotes after `marker`.
std::optional<std::string> quoted_after(std::string_view line, std::string_view marker) {
    const std::size_t at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    const std::size_t open = line.find('\'', at + marker.size());
    if (open == std::string_view::npos) return std::nullopt;
    const std::size_t close = line.find('\'', open + 1);
    if (close == std::string_view::npos) return std::nullopt;
    return std::string(line.substr(open + 1, close - open - 1));
}

bool is_ptxas_info(std::string_view line) {
    return line.starts_with("ptxas info") || line.starts_with("ptxas         .");
}

// Splits NVRTC's log into compiler messages and ptxas' resource lines, and parses the latter:
//   ptxas info    : Compiling entry function 'scale' for 'sm_90'
//   ptxas info    : Function properties for scale
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, used 1 barriers, 4096 bytes smem
void parse_log(const std::string& full_log, CompileResult& result) {
    std::istringstream in(full_log);
    std::string line;
    KernelResources* entry = nullptr;  // the entry function being compiled
    std::string properties_of;         // the function the next "stack frame" line describes
    while (std::getline(in, line)) {
        if (!is_ptxas_info(line)) {
            result.log += line + "\n";
            continue;
        }
        result.ptxas_info += line + "\n";
        // ptxas' performance notes (e.g. C7514: wgmma serialized) are messages a kernel writer must see.
        if (line.find("Potential Performance Loss") != std::string::npos) result.log += line + "\n";
        if (line.find("Compile time") != std::string::npos || line.find("bytes gmem") != std::string::npos)
            result.resources_reported = true;
        if (auto name = quoted_after(line, "Compiling entry function")) {
            result.resources_reported = true;
            result.kernels.push_back(KernelResources{*name, demangle(*name)});
            entry = &result.kernels.back();
            properties_of.clear();
        } else if (const std::size_t at = line.find("Function properties for "); at != std::string::npos) {
            properties_of = line.substr(at + std::string_view("Function properties for ").size());
            while (!properties_of.empty() && std::isspace(static_cast<unsigned char>(properties_of.back())))
                properties_of.pop_back();
        } else if (entry && line.find("bytes stack frame") != std::string::npos && properties_of == entry->name) {
            entry->stack_frame_bytes = number_before(line, " bytes stack frame").value_or(0);
            entry->spill_store_bytes = number_before(line, " bytes spill stores").value_or(0);
            entry->spill_load_bytes = number_before(line, " bytes spill loads").value_or(0);
        } else if (entry && line.find("Used ") != std::string::npos && line.find(" registers") != std::string::npos) {
            entry->registers = number_before(line, " registers").value_or(0);
            entry->barriers = number_before(line, " barriers").value_or(0);
            entry->shared_bytes = number_before(line, " bytes smem").value_or(0);
        }
    }
    // NVRTC's log ends with a NUL and often a blank line; keep messages tidy.
    while (!result.log.empty() && (result.log.back() == '\n' || result.log.back() == '\0' ||
                                   std::isspace(static_cast<unsigned char>(result.log.back()))))
        result.log.pop_back();
    if (!result.log.empty()) result.log += "\n";
}

void hash_field(Sha256& h, std::string_view field) {
    const std::uint64_t size = field.size();
    h.update(&size, sizeof size);
    h.update(field);
}

std::string cache_key(std::string_view source, std::string_view source_name, const CompileOptions& o,
                      const std::vector<std::string>& include_dirs) {
    Sha256 h;
    hash_field(h, "autokernel-nvrtc-cache-v1");
    hash_field(h, nvrtc_version());
    hash_field(h, o.arch);
    hash_field(h, source_name);
    hash_field(h, source);
    for (const auto* list : {&include_dirs, &o.options, &o.name_expressions}) {
        hash_field(h, std::to_string(list->size()));
        for (const std::string& item : *list) hash_field(h, item);
    }
    return h.hex_digest();
}

std::optional<std::string> read_whole(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return buffer.str();
}

// Writes via a temporary file and a rename, so a concurrent reader never sees half a file.
// A cache that cannot be written is not an error: the compile result is still returned.
bool write_atomically(const fs::path& path, std::string_view bytes) {
    static std::atomic<unsigned> counter{0};
    const fs::path tmp = path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) return false;
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) fs::remove(tmp, ec);
    return !ec;
}

std::string format_names(const std::vector<std::pair<std::string, std::string>>& names) {
    std::string out;
    for (const auto& [expression, lowered] : names) out += expression + "\t" + lowered + "\n";
    return out;
}

std::vector<std::pair<std::string, std::string>> parse_names(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> names;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t tab = line.rfind('\t');
        if (tab != std::string::npos) names.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return names;
}

std::string nvrtc_error(nvrtcResult r) { return nvrtcGetErrorString(r); }

}  // namespace

const KernelResources* CompileResult::kernel(std::string_view name) const {
    for (const KernelResources& k : kernels) {
        if (k.name == name || k.demangled == name) return &k;
        const std::size_t paren = k.demangled.find('(');
        if (paren != std::string::npos && std::string_view(k.demangled).substr(0, paren) == name) return &k;
    }
    for (const auto& [expression, lowered] : lowered_names)
        if (expression == name)
            for (const KernelResources& k : kernels)
                if (k.name == lowered) return &k;
    return nullptr;
}

struct NvrtcCompiler::Impl {
    fs::path cache_dir;
    mutable std::mutex mutex;
    std::map<std::string, CompileResult> memory;  // by cache key, successful compiles only
    Stats stats;

    fs::path entry_path(const std::string& key, std::string_view extension) const {
        return cache_dir / key.substr(0, 2) / (key + std::string(extension));
    }

    std::optional<CompileResult> load_from_disk(const std::string& key) const {
        auto cubin = read_whole(entry_path(key, ".cubin"));
        if (!cubin || cubin->empty()) return std::nullopt;
        auto log = read_whole(entry_path(key, ".log"));
        auto names = read_whole(entry_path(key, ".names"));
        if (!log || !names) return std::nullopt;
        CompileResult r;
        r.ok = true;
        r.cubin = std::move(*cubin);
        parse_log(*log, r);
        r.lowered_names = parse_names(*names);
        return r;
    }

    void store_on_disk(const std::string& key, const std::string& full_log, const CompileResult& r) const {
        std::error_code ec;
        fs::create_directories(entry_path(key, "").parent_path(), ec);
        if (ec) return;
        // The cubin goes last: its presence marks a complete entry.
        if (write_atomically(entry_path(key, ".log"), full_log) &&
            write_atomically(entry_path(key, ".names"), format_names(r.lowered_names)))
            write_atomically(entry_path(key, ".cubin"), r.cubin);
    }
};

NvrtcCompiler::NvrtcCompiler(fs::path cache_dir) : impl_(std::make_unique<Impl>()) {
    impl_->cache_dir = cache_dir.empty() ? default_nvrtc_cache_dir() : std::move(cache_dir);
}

NvrtcCompiler::~NvrtcCompiler() = default;

const fs::path& NvrtcCompiler::cache_dir() const { return impl_->cache_dir; }

NvrtcCompiler::Stats NvrtcCompiler::stats() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stats;
}

void NvrtcCompiler::clear_memory_cache() {
    std::lock_guard lock(impl_->mutex);
    impl_->memory.clear();
}

CompileResult NvrtcCompiler::compile(std::string_view source, std::string_view source_name, const CompileOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    auto elapsed_ms = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    if (!is_real_arch(o.arch))
        throw Error(ErrorKind::Usage, "architecture '" + o.arch +
                                          "' is not a real GPU architecture: pass one such as sm_90, sm_90a or sm_80 "
                                          "(a cubin is compiled for one GPU generation)");

    // NVRTC reads the source as a C string and stops at a NUL or a byte that is not UTF-8: refuse
    // such a source instead of compiling what comes before it.
    if (const auto problem = source_text_problem(source, nullptr, true)) {
        CompileResult refused;
        refused.arch = o.arch;
        refused.log = std::string(source_name) + ": " + *problem + "\n";
        refused.compile_ms = elapsed_ms();
        return refused;
    }

    std::vector<std::string> include_dirs;
    if (o.add_cuda_include_dir && !cuda_include_dir().empty()) include_dirs.push_back(cuda_include_dir());
    include_dirs.insert(include_dirs.end(), o.include_dirs.begin(), o.include_dirs.end());
    const std::string key = cache_key(source, source_name, o, include_dirs);

    if (o.use_cache) {
        std::lock_guard lock(impl_->mutex);
        if (auto it = impl_->memory.find(key); it != impl_->memory.end()) {
            ++impl_->stats.memory_hits;
            CompileResult r = it->second;
            r.cache_hit = CacheHit::memory;
            r.compile_ms = elapsed_ms();
            return r;
        }
    }
    if (o.use_cache) {
        if (auto r = impl_->load_from_disk(key)) {
            r->arch = o.arch;
            r->cache_key = key;
            std::lock_guard lock(impl_->mutex);
            ++impl_->stats.disk_hits;
            impl_->memory[key] = *r;
            r->cache_hit = CacheHit::disk;
            r->compile_ms = elapsed_ms();
            return *r;
        }
    }

    const std::string source_text(source);
    const std::string name_text(source_name);
    nvrtcProgram program = nullptr;
    if (nvrtcResult r = nvrtcCreateProgram(&program, source_text.c_str(), name_text.c_str(), 0, nullptr, nullptr);
        r != NVRTC_SUCCESS)
        throw Error(ErrorKind::Compile, "NVRTC could not create a program for " + name_text + ": " + nvrtc_error(r));
    struct Destroy {
        nvrtcProgram* p;
        ~Destroy() { nvrtcDestroyProgram(p); }
    } destroy{&program};

    for (const std::string& expression : o.name_expressions) {
        if (nvrtcResult r = nvrtcAddNameExpression(program, expression.c_str()); r != NVRTC_SUCCESS)
            throw Error(ErrorKind::Compile, "NVRTC rejected the name expression '" + expression + "': " + nvrtc_error(r));
    }

    std::vector<std::string> args{"--gpu-architecture=" + o.arch};
    for (const std::string& dir : include_dirs) args.push_back("-I" + dir);
    args.insert(args.end(), o.options.begin(), o.options.end());
    for (std::string_view always : {kVerbosePtxas, kNoNvrtcCache})
        if (std::find(args.begin(), args.end(), always) == args.end()) args.emplace_back(always);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());

    const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());

    std::size_t log_size = 0;
    std::string full_log;
    if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        full_log.resize(log_size);
        nvrtcGetProgramLog(program, full_log.data());
        while (!full_log.empty() && full_log.back() == '\0') full_log.pop_back();
    }

    CompileResult result;
    result.arch = o.arch;
    result.cache_key = key;
    parse_log(full_log, result);
    {
        std::lock_guard lock(impl_->mutex);
        ++impl_->stats.compiles;
    }
    if (compiled != NVRTC_SUCCESS) {
        if (result.log.empty()) result.log = name_text + ": " + nvrtc_error(compiled) + "\n";
        result.compile_ms = elapsed_ms();
        return result;
    }

    std::size_t cubin_size = 0;
    if (nvrtcGetCUBINSize(program, &cubin_size) != NVRTC_SUCCESS || cubin_size == 0)
        throw Error(ErrorKind::Compile, "NVRTC produced no cubin for " + name_text + " (arch " + o.arch + ")");
    result.cubin.resize(cubin_size);
    if (nvrtcResult r = nvrtcGetCUBIN(program, result.cubin.data()); r != NVRTC_SUCCESS)
        throw Error(ErrorKind::Compile, "NVRTC could not return the cubin of " + name_text + ": " + nvrtc_error(r));
    for (const std::string& expression : o.name_expressions) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(program, expression.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
            result.lowered_names.emplace_back(expression, lowered);
    }
    result.ok = true;

    if (o.use_cache) {
        impl_->store_on_disk(key, full_log, result);
        std::lock_guard lock(impl_->mutex);
        impl_->memory[key] = result;
    }
    result.compile_ms = elapsed_ms();
    return result;
}

fs::path default_nvrtc_cache_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "autokernel" / "nvrtc";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "autokernel" / "nvrtc";
    return fs::temp_directory_path() / "autokernel-nvrtc-cache";
}

std::string cuda_include_dir() { return AK_CUDA_INCLUDE_DIR; }

std::string nvrtc_version() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
    return archs;
}

std::string arch_for(int cc_major, int cc_minor, bool arch_specific) {
    std::string arch = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
    if (arch_specific && cc_major >= 9) arch += 'a';
    return arch;
}

}  // namespace ak
