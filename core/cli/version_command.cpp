// autokernel --version: our version and that of every dependency, as the binary sees them.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "gpu/cuda_driver.h"
#include "gpu/nvrtc_compiler.h"

#include <git2/common.h>
#include <nlohmann/json_fwd.hpp>

#include <algorithm>
#include <iostream>

#ifndef AK_VERSION
#define AK_VERSION "unknown"
#endif
#ifndef AK_GIT_DESCRIBE
#define AK_GIT_DESCRIBE ""
#endif

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel --version

Prints the versions of autokernel and of every library it uses: libgit2, nlohmann_json, NVRTC, the CUDA
headers it was built with, the NVIDIA driver (when one is loadable), libcurl, LibTorch (the evaluator)
and the C++ compiler.
)";

std::string compiler() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
           std::to_string(__GNUC_PATCHLEVEL__);
#else
    return "unknown";
#endif
}

void row(std::string_view name, const std::string& value) {
    std::string padded(name);
    padded.resize(std::max<std::size_t>(padded.size(), 16), ' ');
    std::cout << "  " << padded << value << "\n";
}

}  // namespace

std::string version_line() {
    std::string line = std::string("autokernel ") + AK_VERSION;
    if (std::string_view(AK_GIT_DESCRIBE).size() > 0) line += std::string(" (git ") + AK_GIT_DESCRIBE + ")";
    return line;
}

int run_version(std::span<const std::string> args) {
    const Arguments a(args, {}, {}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(0, 0, "");

    std::cout << version_line() << "\n";
    int major = 0, minor = 0, patch = 0;
    git_libgit2_version(&major, &minor, &patch);
    row("libgit2", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
    row("nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                             "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH));
    row("NVRTC", nvrtc_version());
    row("CUDA headers", cuda_version_text(CUDA_VERSION));
    const CudaDriver& driver = cuda_driver();
    if (driver.loaded())
        row("CUDA driver", cuda_version_text(driver.status().driver_version) + " (" + driver.status().library_path + ")");
    else
        row("CUDA driver", "no driver (" + driver.status().error + ")");
#ifdef AK_CURL_VERSION
    row("libcurl", AK_CURL_VERSION);
#else
    row("libcurl", "not found at build time");
#endif
#ifdef AK_LIBTORCH_VERSION
    row("evaluator", std::string("LibTorch ") + AK_LIBTORCH_VERSION);
#else
    row("evaluator", "not built (LibTorch not found at build time)");
#endif
    row("compiler", compiler());
    return kExitOk;
}

}  // namespace ak::cli
