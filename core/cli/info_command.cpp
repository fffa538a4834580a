// autokernel info: the GPUs, the driver and the CUDA toolkit, with the spec table's numbers.
#include "analysis/gpu_specs.h"
#include "analysis/roofline.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "gpu/nvrtc_compiler.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel info

Prints every GPU the NVIDIA driver sees (name, compute capability, SMs, L2, memory, shared memory,
clocks), the matching datasheet numbers from the GPU table, the driver, the CUDA headers and NVRTC.
Without a driver or GPU it says so on stderr and exits with status 2.
)";

std::string fixed(double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return buf;
}

std::string kib(std::int64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }
std::string mib(std::int64_t bytes) { return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 0) + " MiB"; }
std::string gib(std::uint64_t bytes) { return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 1) + " GiB"; }

void row(std::string_view name, const std::string& value) {
    std::string padded(name);
    padded.resize(std::max<std::size_t>(padded.size(), 22), ' ');
    std::cout << "  " << padded << value << "\n";
}

void print_spec(const DeviceInfo& d) {
    const auto spec = find_gpu_spec(d.name, d.cc_major, d.cc_minor);
    if (!spec) {
        row("datasheet", "not in the GPU table: no peak numbers (roofline and % of peak need measured ceilings)");
        return;
    }
    std::string match = spec->model + " (" + std::string(to_string(spec->match)) + ")";
    row("datasheet", match);
    if (spec->approximate()) row("", spec->match_note);
    row("  bandwidth", fixed(spec->bandwidth_gb_s, 0) + " GB/s " + spec->memory);
    std::string peaks;
    for (DType t : {DType::fp32, DType::tf32, DType::fp16, DType::bf16, DType::fp8}) {
        if (!spec->supports(t)) continue;
        if (!peaks.empty()) peaks += ", ";
        peaks += std::string(to_string(t)) + " " + fixed(spec->peak_tflops(t), 1);
    }
    row("  dense TFLOP/s", peaks);
    if (spec->supports(DType::bf16))
        row("  bf16 ridge point", fixed(ridge_point(datasheet_ceilings(*spec, DType::bf16)), 0) + " FLOP/byte");
    row("  source", spec->source);
}

}  // namespace

int run_info(std::span<const std::string> args) {
    const Arguments a(args, {}, {}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(0, 0, "");

    const CudaDriver& driver = cuda_driver();
    if (!driver.loaded()) {
        std::cerr << "autokernel: no GPU available: " << driver.status().error << "\n";
        return kExitNoGpu;
    }
    const std::vector<DeviceInfo> devices = query_devices();
    for (const DeviceInfo& d : devices) {
        std::cout << "GPU " << d.ordinal << ": " << d.name << "\n";
        row("compute capability", d.compute_capability() + " (NVRTC arch " + arch_for(d.cc_major, d.cc_minor, true) + ")");
        row("SMs", std::to_string(d.sm_count));
        row("L2 cache", mib(d.l2_bytes));
        std::string memory = gib(d.total_mem) + ", " + std::to_string(d.memory_bus_width_bits) + "-bit bus";
        if (d.memory_clock_khz > 0)
            memory += ", " + std::to_string(d.memory_clock_khz / 1000) + " MHz (" +
                      fixed(d.theoretical_bandwidth_gb_s(), 0) + " GB/s theoretical)";
        row("memory", memory);
        row("shared memory", kib(d.max_shared_per_block) + " per block, " + kib(d.max_shared_per_block_optin) +
                                 " opt-in, " + kib(d.max_shared_per_sm) + " per SM");
        row("registers", std::to_string(d.max_registers_per_block) + " per block");
        row("threads", std::to_string(d.max_threads_per_block) + " per block, warp " + std::to_string(d.warp_size));
        if (d.clock_khz > 0) row("SM clock", std::to_string(d.clock_khz / 1000) + " MHz");
        print_spec(d);
    }
    std::cout << "driver: CUDA " << cuda_version_text(driver.status().driver_version) << " ("
              << driver.status().library_path << ")\n";
    std::cout << "CUDA headers: " << cuda_version_text(CUDA_VERSION) << ", NVRTC " << nvrtc_version()
              << ", include dir " << cuda_include_dir() << "\n";
    return kExitOk;
}

}  // namespace ak::cli
