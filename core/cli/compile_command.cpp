// autokernel compile: NVRTC only (no GPU needed). Prints each entry point's registers, spills, shared
// memory and stack, or the compiler log.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/candidate_compiler.h"
#include "engine/kernel_contract.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "gpu/nvrtc_compiler.h"
#include "util/durable_file.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel compile FILE.cu [--arch ARCH] [--type TYPE] [--dtype LIST] [-I DIR]... [-D NAME[=VALUE]]...
                          [--option NVRTC_OPTION]... [--no-cache]

Compiles FILE.cu to a cubin with NVRTC; no GPU is needed. Prints registers, spill stores and loads,
static shared memory and stack frame of every entry point (__global__ function), or the compiler log
on stderr and exit status 1 when the source does not compile.

  --arch ARCH        real architecture, e.g. sm_90a (Hopper with wgmma), sm_90, sm_80. Default: the
                     first GPU's (with the 'a' suffix from Hopper on), or sm_90a without a GPU
  --type TYPE        the kernel type (matmul, softmax, rmsnorm, ...). With --type, or when the source
                     has '// @autokernel' lines, it is compiled as the evaluator compiles it: once
                     per dtype, with its tunables as -D defines and kernels/include on the path
  --dtype LIST       dtypes for that per-dtype compile, e.g. bf16 or fp16,fp32 (default: all three)
  -I DIR             extra include directory (the CUDA include directory is always added)
  -D NAME[=VALUE]    preprocessor definition
  --option OPT       any other NVRTC option, e.g. --option=--use_fast_math
  --no-cache         compile even if the cubin cache has this source
)";

std::string bytes(int n) { return std::to_string(n) + " B"; }

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// The evaluator's view of a candidate (engine/candidate_compiler.h): one compile per dtype.
int compile_candidate_per_dtype(const Arguments& a, const std::string& file, const std::string& source,
                                const CompileOptions& options) {
    CandidateCompileOptions c;
    if (const auto t = a.value("--type")) {
        c.type = parse_kernel_type(*t);
        if (!c.type) a.fail("unknown kernel type '" + *t + "'");
    }
    if (const auto list = a.value("--dtype")) {
        c.dtypes.clear();
        for (auto part : split(*list, ',')) {
            const auto d = parse_kernel_dtype(trim(part));
            if (!d) a.fail("unknown dtype '" + std::string(trim(part)) + "' (use fp16, bf16 or fp32)");
            c.dtypes.push_back(*d);
        }
    }
    c.arch = options.arch;
    c.include_dirs = options.include_dirs;
    c.extra_options = options.options;
    c.use_cache = options.use_cache;
    NvrtcCompiler compiler;
    const CandidateCompileReport report = compile_candidate(compiler, source, file, c);
    std::cout << format_compile_report(report, false);
    for (const auto& one : report.compiles) {
        if (one.result.ok) {
            // Warnings and ptxas' performance notes (e.g. wgmma serialized) of a compile that succeeded.
            if (!one.result.log.empty()) std::cerr << to_string(one.dtype) << " compiler messages:\n" << one.result.log;
            continue;
        }
        std::cerr << one.result.log << "autokernel: " << file << " does not compile for " << to_string(one.dtype) << " ("
                  << options.arch << ")\n";
    }
    for (const std::string& error : report.errors) std::cerr << "autokernel: " << error << "\n";
    return report.ok() ? kExitOk : kExitFailure;
}

std::string default_arch() {
    if (cuda_driver().loaded()) {
        const DeviceInfo d = query_device(0);
        return arch_for(d.cc_major, d.cc_minor, true);
    }
    return "sm_90a";
}

}  // namespace

int run_compile(std::span<const std::string> args) {
    const Arguments a(args, {"--arch", "--type", "--dtype", "-I", "-D", "--option"}, {"--no-cache"}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "FILE.cu");
    const std::string file = a.positional()[0];

    CompileOptions options;
    options.arch = a.value("--arch").value_or(default_arch());
    options.include_dirs = a.values("-I");
    for (const std::string& define : a.values("-D")) options.options.push_back("-D" + define);
    for (const std::string& option : a.values("--option")) options.options.push_back(option);
    options.use_cache = !a.flag("--no-cache");
    const std::optional<std::string> type = a.value("--type");

    const std::string source = read_file(file);
    if (type || a.value("--dtype") || !parse_contract(source).empty())
        return compile_candidate_per_dtype(a, file, source, options);
    NvrtcCompiler compiler;
    const CompileResult r = compiler.compile(source, file, options);
    if (!r.ok) {
        std::cerr << r.log;
        std::cerr << "autokernel: " << file << " does not compile for " << options.arch << "\n";
        return kExitFailure;
    }
    if (!r.log.empty()) std::cerr << r.log;  // warnings
    if (r.resources_reported && r.kernels.empty()) {
        std::cerr << "autokernel: " << file << " has no __global__ entry point: there is nothing to launch"
                  << (source.find("__global__") == std::string::npos ? "" : " (are the kernels templates never instantiated?)")
                  << "\n";
        return kExitFailure;
    }

    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f", r.compile_ms);
    const char* cache = r.cache_hit == CacheHit::memory ? "memory cache hit"
                        : r.cache_hit == CacheHit::disk ? "disk cache hit"
                                                         : "compiled";
    std::cout << file << ": " << options.arch << ", " << r.cubin.size() << " bytes of cubin, " << ms << " ms ("
              << cache << ")\n";

    std::size_t width = std::string_view("entry point").size();
    for (const KernelResources& k : r.kernels) width = std::max(width, k.demangled.size());
    width += 2;
    std::cout << pad("entry point", width) << pad("registers", 11) << pad("spill stores", 14) << pad("spill loads", 13)
              << pad("shared", 10) << "stack\n";
    for (const KernelResources& k : r.kernels)
        std::cout << pad(k.demangled, width) << pad(std::to_string(k.registers), 11)
                  << pad(bytes(k.spill_store_bytes), 14) << pad(bytes(k.spill_load_bytes), 13)
                  << pad(bytes(k.shared_bytes), 10) << bytes(k.stack_frame_bytes) << "\n";
    if (!r.resources_reported)
        std::cout << "(ptxas printed no resource report: registers and memory are unknown)\n";
    else if (r.kernels.empty())
        std::cout << "(no __global__ entry points)\n";
    return kExitOk;
}

}  // namespace ak::cli
