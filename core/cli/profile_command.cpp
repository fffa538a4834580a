// autokernel profile: where a model's GPU time goes. Validates the arguments, checks for a GPU, runs
// autokernel-profiler (LibTorch + CUPTI, beside this executable) which writes DIR/profile.json, then
// writes DIR/trace.json and prints the report. `--show PROFILE.json` reports an existing profile and
// needs no GPU.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/builtin_models.h"
#include "gpu/cuda_driver.h"
#include "profile/breakdown.h"
#include "profile/chrome_trace.h"
#include "profile/profile_json.h"
#include "profile/profile_report.h"
#include "profiler/input_spec.h"
#include "util/error.h"
#include "util/text.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

extern char** environ;

namespace ak::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage = R"(usage: autokernel profile --model MODEL [--batch B] [--seq S] [--dtype DTYPE] [--mode MODE] [options]
       autokernel profile --torchscript FILE.pt --input SHAPE:DTYPE [--input ...] [options]
       autokernel profile [options] -- COMMAND [ARGS...]
       autokernel profile --show PROFILE.json [--json] [--trace TRACE.json] [--top N]

Profiles GPU work kernel by kernel (CUPTI, in the autokernel-profiler process beside this executable),
classifies every kernel into the nine kernel types, and ranks them by what a faster kernel would buy
end to end (Amdahl's law, roofline headroom). Writes DIR/profile.json (docs/profile-json.md) and
DIR/trace.json (opens in Perfetto), and prints the report.

what to profile (one of):
  --model MODEL         a built-in model: gpt2, llama-160m, llama-7b-layers, bert-base
      --batch B         batch size (default 4)
      --seq S           sequence length (default 512; at most 1024 for gpt2, 512 for bert-base)
      --dtype DTYPE     fp16, bf16 or fp32 (default fp16)
      --mode MODE       inference or training (default inference)
  --torchscript FILE.pt a TorchScript module (torch.jit.trace / torch.jit.script, then save)
      --input SPEC      one per forward() argument, in order: DIMS:DTYPE[:LOW-HIGH], e.g. 8x1024:int64,
                        8x1024:int64:0-50257 (integer values drawn from [LOW, HIGH)) or 4x3x224x224:fp16
                        (dtypes: fp16, bf16, fp32, fp64, int64, int32, int8, uint8, bool)
  -- COMMAND ...        any CUDA program, through a CUPTI injection library. Only one CUPTI client can
                        attach to a process: not together with torch.profiler, nsys or ncu.
  --show PROFILE.json   report an existing profile (no GPU needed)

options:
  --iterations N        measured iterations (default 10)
  --warmup N            warm-up iterations before measuring (default 3)
  --out DIR             where profile.json and trace.json go (default ./autokernel-profile)
  --json                print the breakdown as JSON instead of the report
  --trace FILE          with --show: also write the Chrome trace to FILE
  --top N               groups in the report (default 15)

exit status: 0 ok, 1 the profiler failed, 2 no GPU or driver, 64 usage error
)";

int positive_int(const Arguments& a, const std::string& option, int fallback, int minimum = 1) {
    const auto text = a.value(option);
    if (!text) return fallback;
    const auto v = parse_int(*text);
    if (!v || *v < minimum || *v > 1'000'000)
        a.fail(option + " " + *text + ": expected a whole number" + (minimum == 0 ? " >= 0" : " >= 1"));
    return static_cast<int>(*v);
}

// An --input spec, checked by the profiler's own parser (profiler/input_spec.h), so what the CLI accepts
// is exactly what autokernel-profiler accepts: "8x1024:int64", "8x1024:int64:0-50257", "2x3:uint8".
void check_input_spec(const Arguments& a, const std::string& spec) {
    try {
        (void)profiler::parse_input_spec(spec);
    } catch (const Error& e) {
        a.fail(e.what());
    }
}

fs::path profiler_executable() {
    if (const char* env = std::getenv("AK_PROFILER"); env && *env) return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw Error(ErrorKind::NotFound, "cannot find autokernel-profiler: /proc/self/exe is unreadable");
    const fs::path candidate = self.parent_path() / "autokernel-profiler";
    if (!fs::exists(candidate, ec))
        throw Error(ErrorKind::NotFound, "autokernel-profiler is not beside " + self.string() +
                                             " (it is built with LibTorch: the target autokernel-profiler; "
                                             "AK_PROFILER names another path)");
    return candidate;
}

// Runs the profiler with our stdout and stderr (its messages pass through); its exit status.
int run_profiler(const std::vector<std::string>& argv) {
    std::vector<std::string> args = argv;
    std::vector<char*> pointers;
    for (std::string& s : args) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, pointers.data(), environ);
    if (spawned != 0)
        throw Error(ErrorKind::Io, "cannot start " + args[0] + ": " + std::strerror(spawned));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw Error(ErrorKind::Io, std::string("waiting for autokernel-profiler: ") + std::strerror(errno));
    }
    if (WIFSIGNALED(status))
        throw Error(ErrorKind::Internal, "autokernel-profiler was killed by signal " + std::to_string(WTERMSIG(status)) +
                                             " (" + strsignal(WTERMSIG(status)) + ")");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int report(const profile::Profile& p, bool json, std::size_t top) {
    const profile::Breakdown b = profile::compute_breakdown(p);
    if (json) {
        std::cout << profile::breakdown_json(p, b);
    } else {
        profile::ReportOptions options;
        options.top_groups = top;
        std::cout << profile::format_profile_report(p, b, options);
    }
    return kExitOk;
}

}  // namespace

int run_profile(std::span<const std::string> all_args) {
    // Everything after the first "--" is the command to profile, untouched (its own --help included).
    const auto dashes = std::find(all_args.begin(), all_args.end(), std::string("--"));
    const std::span<const std::string> args(all_args.begin(), dashes);
    const std::vector<std::string> command(dashes == all_args.end() ? dashes : dashes + 1, all_args.end());
    const bool command_route = dashes != all_args.end();

    const Arguments a(args,
                      {"--model", "--batch", "--seq", "--dtype", "--mode", "--torchscript", "--input", "--iterations",
                       "--warmup", "--out", "--show", "--trace", "--top"},
                      {"--json"}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(0, 0, "");
    const auto model = a.value("--model");
    const auto torchscript = a.value("--torchscript");
    const auto show = a.value("--show");
    const int routes = int(model.has_value()) + int(torchscript.has_value()) + int(show.has_value()) + int(command_route);
    if (routes == 0) a.fail("say what to profile: --model, --torchscript, -- COMMAND, or --show PROFILE.json");
    if (routes > 1) a.fail("give only one of --model, --torchscript, -- COMMAND and --show");
    const bool json = a.flag("--json");
    const int top = positive_int(a, "--top", 15);

    if (show) {
        for (const char* o : {"--batch", "--seq", "--dtype", "--mode", "--input", "--iterations", "--warmup", "--out"})
            if (a.value(o)) a.fail(std::string(o) + " does not apply to --show (it reports an existing profile)");
        const profile::Profile p = profile::read_profile_json(*show);
        if (const auto trace = a.value("--trace")) profile::write_chrome_trace(p, *trace);
        return report(p, json, static_cast<std::size_t>(top));
    }
    if (a.value("--trace")) a.fail("--trace is for --show; a new profile writes DIR/trace.json");

    const int iterations = positive_int(a, "--iterations", 10);
    const int warmup = positive_int(a, "--warmup", 3, 0);
    const fs::path out_dir = a.value("--out").value_or("autokernel-profile");
    std::vector<std::string> route;
    if (model) {
        if (!is_builtin_model(*model)) a.fail("--model " + *model + ": unknown model (" + builtin_model_list() + ")");
        if (!a.values("--input").empty()) a.fail("--input is for --torchscript; built-in models make their own inputs");
        const int batch = positive_int(a, "--batch", 4);
        const int seq = positive_int(a, "--seq", 512);
        if (*model == "gpt2" && seq > 1024) a.fail("--seq " + std::to_string(seq) + ": gpt2 has 1024 positions");
        if (*model == "bert-base" && seq > 512) a.fail("--seq " + std::to_string(seq) + ": bert-base has 512 positions");
        const std::string dtype = a.value("--dtype").value_or("fp16");
        if (dtype != "fp16" && dtype != "bf16" && dtype != "fp32") a.fail("--dtype " + dtype + ": use fp16, bf16 or fp32");
        const std::string mode = a.value("--mode").value_or("inference");
        if (mode != "inference" && mode != "training") a.fail("--mode " + mode + ": use inference or training");
        route = {"--model", *model, "--batch", std::to_string(batch), "--seq", std::to_string(seq), "--dtype", dtype,
                 "--mode", mode};
    } else {
        for (const char* o : {"--batch", "--seq", "--dtype", "--mode"})
            if (a.value(o)) a.fail(std::string(o) + " is for --model (built-in models)");
        if (torchscript) {
            std::error_code ec;
            const auto status = fs::status(*torchscript, ec);
            if (!fs::exists(status))
                throw Error(ErrorKind::NotFound, "--torchscript " + *torchscript + ": file not found");
            if (!fs::is_regular_file(status))
                throw Error(ErrorKind::Usage, "--torchscript " + *torchscript + ": not a file");
            const std::vector<std::string> inputs = a.values("--input");
            if (inputs.empty()) a.fail("--torchscript needs one --input DIMS:DTYPE per forward() argument");
            for (const std::string& spec : inputs) check_input_spec(a, spec);
            route = {"--torchscript", fs::absolute(*torchscript).string()};
            for (const std::string& spec : inputs) {
                route.push_back("--input");
                route.push_back(spec);
            }
        } else {
            if (!a.values("--input").empty()) a.fail("--input is for --torchscript");
            if (command.empty()) a.fail("nothing after '--': give the command to profile");
            route.push_back("--");
            route.insert(route.end(), command.begin(), command.end());
        }
    }

    const CudaDriver& driver = cuda_driver();
    if (!driver.loaded()) {
        std::cerr << "autokernel: no GPU available: " << driver.status().error << "\n";
        return kExitNoGpu;
    }
    const fs::path profiler = profiler_executable();
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create " + out_dir.string() + ": " + ec.message());
    const fs::path profile_path = out_dir / "profile.json";
    fs::remove(profile_path, ec);  // never report a stale profile of an earlier run

    std::vector<std::string> argv{profiler.string(), "--out", profile_path.string(), "--warmup", std::to_string(warmup),
                                  "--iterations", std::to_string(iterations)};
    argv.insert(argv.end(), route.begin(), route.end());
    std::cerr << "autokernel: profiling with " << profiler.filename().string() << " (" << warmup << " warm-up, "
              << iterations << " measured iterations)\n";
    const int code = run_profiler(argv);
    if (code == kExitNoGpu) return kExitNoGpu;
    if (code != 0)
        throw Error(ErrorKind::Internal, "autokernel-profiler failed (exit status " + std::to_string(code) +
                                             "); its messages are above");
    if (!fs::exists(profile_path))
        throw Error(ErrorKind::Internal, "autokernel-profiler exited 0 but wrote no " + profile_path.string());
    const profile::Profile p = profile::read_profile_json(profile_path);
    if (p.kernels.empty())
        throw Error(ErrorKind::Internal, "the profiled work launched no kernel during the measured iterations (" +
                                             profile_path.string() + ")");
    const fs::path trace_path = out_dir / "trace.json";
    profile::write_chrome_trace(p, trace_path);
    std::cerr << "autokernel: wrote " << profile_path.string() << " and " << trace_path.string() << "\n";
    return report(p, json, static_cast<std::size_t>(top));
}

}  // namespace ak::cli
