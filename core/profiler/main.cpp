// autokernel-profiler: profiles a built-in model, a TorchScript file or any CUDA command with CUPTI and
// writes profile.json (docs/profile-json.md). `autokernel profile` runs it; docs/profiler.md explains
// the routes. Exit status: 0 after writing the file; 2 for usage errors and inputs the model rejects;
// 1 for everything else (no GPU, a missing or bad file, a failing command), with the reason on stderr.
#include "profile/profile_json.h"
#include "profiler/command_route.h"
#include "profiler/cupti_activity.h"
#include "profiler/profile_assembly.h"
#include "profiler/profiler_options.h"
#include "profiler/torch_routes.h"
#include "util/error.h"

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
    using namespace ak;
    using namespace ak::profiler;
    std::vector<std::string> args(argv + 1, argv + argc);
    ProfilerOptions options;
    try {
        options = parse_profiler_args(args);
    } catch (const Error& e) {
        std::cerr << "autokernel-profiler: " << e.what() << "\n";
        return 2;
    }
    if (options.show_help) {
        std::cout << profiler_usage();
        return 0;
    }
    try {
        profile::Profile p;
        switch (options.route) {
            case Route::Model: p = profile_builtin_model(options); break;
            case Route::TorchScript: p = profile_torchscript(options); break;
            case Route::Command:
                std::cerr << "autokernel-profiler: " << kOneCuptiClient << "\n";
                p = profile_command(options.command, find_injection_library());
                break;
        }
        std::cerr << "autokernel-profiler: " << p.origin.cuda_version << ", GPU " << p.origin.gpu_name << "\n";
        write_profile_json(p, options.out);
        double kernel_ms = 0, in_range_ms = 0;
        for (const auto& k : p.kernels) {
            kernel_ms += double(k.end_ns - k.start_ns) / 1e6;
            if (!k.nvtx_range.empty()) in_range_ms += double(k.end_ns - k.start_ns) / 1e6;
        }
        const bool command = options.route == Route::Command;
        std::fprintf(stderr, "autokernel-profiler: %zu kernels (%.3f ms of GPU time) in %zu iteration(s), %.1f %% %s; wrote %s\n",
                     p.kernels.size(), kernel_ms, p.iterations.size(),
                     command ? (kernel_ms > 0 ? 100.0 * in_range_ms / kernel_ms : 0.0) : 100.0 * attributed_fraction(p),
                     command ? "inside NVTX ranges" : "attributed to ops", options.out.c_str());
        for (const auto& w : p.warnings) std::cerr << "autokernel-profiler: warning: " << w << "\n";
        return 0;
    } catch (const Error& e) {
        std::cerr << "autokernel-profiler: " << e.what() << "\n";
        return e.kind() == ErrorKind::Usage ? 2 : 1;
    } catch (const std::exception& e) {
        std::cerr << "autokernel-profiler: " << e.what() << "\n";
        return 1;
    }
}
