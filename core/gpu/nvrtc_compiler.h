#pragma once
// Compiles CUDA C++ sources to cubins with NVRTC (no GPU needed), reports each entry function's
// registers, spills, shared and stack memory, and caches cubins in memory and on disk.
//
// Cache key: SHA-256 of the source, its name, the arch, every option, include directory and name
// expression, and the NVRTC version. Files pulled in with #include are NOT part of the key: pass
// use_cache = false while editing a header that a kernel includes.
// Disk layout: <cache dir>/<first two hex digits>/<key>.cubin, .log (NVRTC's log, re-parsed on a hit)
// and .names (lowered names of the name expressions).
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ak {

struct CompileOptions {
    // A real architecture, e.g. "sm_90", or "sm_90a" for Hopper-only instructions (wgmma, setmaxnreg).
    std::string arch = "sm_90";
    std::vector<std::string> include_dirs;      // extra -I directories
    std::vector<std::string> options;           // extra NVRTC options: "-DTILE=64", "--use_fast_math", ...
    // C++ names to instantiate and look up, e.g. "rmsnorm<__nv_bfloat16, 256>": their mangled names
    // come back in CompileResult::lowered_names.
    std::vector<std::string> name_expressions;
    bool add_cuda_include_dir = true;           // -I<CUDA include dir> for cuda_fp16.h, cuda_bf16.h, ...
    bool use_cache = true;
};

// One entry function (__global__) of the cubin, from ptxas' verbose output.
struct KernelResources {
    std::string name;            // as in the cubin: "scale" for extern "C", otherwise mangled
    std::string demangled;       // "tk<3>(__half*)"; equals name for extern "C" kernels
    int registers = 0;           // per thread
    int spill_store_bytes = 0;
    int spill_load_bytes = 0;
    int shared_bytes = 0;        // static shared memory per block (dynamic shared memory comes at launch)
    int stack_frame_bytes = 0;   // local memory per thread
    int barriers = 0;
};

enum class CacheHit { none, memory, disk };

struct CompileResult {
    bool ok = false;
    std::string cubin;                 // raw cubin bytes (empty on failure)
    std::string log;                   // compiler messages (errors, warnings, ptxas' "Potential Performance
                                       // Loss" notes), ptxas' resource lines removed
    std::string ptxas_info;            // ptxas' resource lines
    std::vector<KernelResources> kernels;  // in the order ptxas reports them
    // ptxas printed its resource report. False would mean `kernels` is unknown rather than empty
    // (not expected: NVRTC's own cubin cache, which skips ptxas, is switched off with --no-cache).
    bool resources_reported = false;
    std::vector<std::pair<std::string, std::string>> lowered_names;  // name expression -> mangled name
    std::string arch;
    std::string cache_key;             // 64 hex digits
    CacheHit cache_hit = CacheHit::none;
    double compile_ms = 0;             // wall time of this call (a cache hit is fast)

    // An entry function by its cubin name, its demangled name, the demangled name without the parameter
    // list, or a name expression. nullptr if none.
    const KernelResources* kernel(std::string_view name) const;
};

class NvrtcCompiler {
public:
    // `cache_dir` empty: default_nvrtc_cache_dir().
    explicit NvrtcCompiler(std::filesystem::path cache_dir = {});
    ~NvrtcCompiler();
    NvrtcCompiler(const NvrtcCompiler&) = delete;
    NvrtcCompiler& operator=(const NvrtcCompiler&) = delete;

    // Compiles `source` (named `source_name` in messages, e.g. "kernels/rmsnorm.cu"). A compile error
    // is a result with ok = false and the log naming file and line; throws Error(Usage) for an arch that
    // is not a real one ("compute_90") and Error(Compile) when NVRTC itself fails. Thread-safe.
    CompileResult compile(std::string_view source, std::string_view source_name, const CompileOptions& options);

    const std::filesystem::path& cache_dir() const;
    struct Stats {
        int compiles = 0;      // NVRTC invocations
        int memory_hits = 0;
        int disk_hits = 0;
    };
    Stats stats() const;
    void clear_memory_cache();  // later hits then come from disk

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// $XDG_CACHE_HOME/autokernel/nvrtc, else $HOME/.cache/autokernel/nvrtc.
std::filesystem::path default_nvrtc_cache_dir();

// The CUDA toolkit's include directory found at build time (AK_CUDA_INCLUDE_DIR).
std::string cuda_include_dir();

// "13.0"
std::string nvrtc_version();
// Real architectures NVRTC can compile for, e.g. {75, 80, 86, 87, 89, 90, 100, ...}.
std::vector<int> nvrtc_supported_archs();

// "sm_90a" for compute capability 9.0 with arch_specific (architecture-specific features such as
// wgmma exist from 9.0 on), else "sm_90".
std::string arch_for(int cc_major, int cc_minor, bool arch_specific = false);

}  // namespace ak
