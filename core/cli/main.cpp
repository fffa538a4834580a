// autokernel: the command-line tool. Qt-free; starts on machines without a GPU or driver.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage = R"(usage: autokernel <command> [arguments]

commands:
  --version                        versions of autokernel and of every dependency
  info                             GPU, driver and CUDA details (exit 2 without a GPU)
  session summary DIR              experiment counts, best per kernel, speedups
  session import-autokernel RESULTS.tsv DIR [--repo AK_GIT_DIR]
                                   turn an AutoKernel results.tsv into a new session
  session repair DIR               rebuild a session's results.tsv from git
  compile FILE.cu [--arch ARCH] [--type TYPE]
                                   compile with NVRTC (no GPU needed); registers, spills, shared memory
  bench FILE.cu [--type TYPE] [--dtype DTYPE] [--shapes LIST] [--json]
                                   compile, five correctness stages and timing against the strongest
                                   PyTorch baseline, in the evaluator process (exit 2 without a GPU)
  ceilings [--json]                measure this GPU's copy and GEMM ceilings (exit 2 without a GPU)
  new SESSION --kernel TYPE[=FILE] ...
                                   create a session from starter kernels or given files
  run SESSION [--agent search|llm|command] [--budget N] [--hours H]
                                   the optimization loop, headless (exit 2 without a GPU)
  control SESSION pause|resume|step|stop
                                   steer a running `autokernel run` from another shell
  profile --model M | --torchscript F.pt --input S | -- CMD ...  [--out DIR] [--json]
                                   where a model's GPU time goes, per kernel type, with what-if and
                                   headroom (exit 2 without a GPU)
  profile --show PROFILE.json      the report of an existing profile (no GPU needed)
  verify SESSION --model NAME | --torchscript FILE --input SPEC ...
                                   the whole model unmodified and with the session's kernels, checked
                                   and timed; speedup against Amdahl's prediction, coverage
                                   (exit 2 without a GPU)

'autokernel <command> --help' describes a command.
exit status: 0 ok, 1 failure, 2 no GPU or driver, 64 usage error
)";

int exit_code_for(const ak::Error& e) {
    switch (e.kind()) {
    case ak::ErrorKind::Usage: return ak::cli::kExitUsage;
    case ak::ErrorKind::Gpu:
        // A CUDA error on a working GPU is a failure; no driver or no GPU has its own code.
        return ak::cuda_driver().loaded() ? ak::cli::kExitFailure : ak::cli::kExitNoGpu;
    default: return ak::cli::kExitFailure;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << kUsage;
        return ak::cli::kExitUsage;
    }
    const std::string& command = args[0];
    const std::span<const std::string> rest(args.begin() + 1, args.end());
    try {
        if (command == "--version" || command == "version") return ak::cli::run_version(rest);
        if (command == "--help" || command == "-h" || command == "help") {
            std::cout << kUsage;
            return ak::cli::kExitOk;
        }
        if (command == "info") return ak::cli::run_info(rest);
        if (command == "session") return ak::cli::run_session(rest);
        if (command == "compile") return ak::cli::run_compile(rest);
        if (command == "bench") return ak::cli::run_bench(rest);
        if (command == "ceilings") return ak::cli::run_ceilings(rest);
        if (command == "new") return ak::cli::run_new(rest);
        if (command == "run") return ak::cli::run_run(rest);
        if (command == "control") return ak::cli::run_control(rest);
        if (command == "profile") return ak::cli::run_profile(rest);
        if (command == "verify") return ak::cli::run_verify(rest);
        std::cerr << "autokernel: unknown command '" << command << "'\n\n" << kUsage;
        return ak::cli::kExitUsage;
    } catch (const ak::Error& e) {
        std::cerr << "autokernel: " << e.what() << "\n";
        return exit_code_for(e);
    } catch (const std::exception& e) {
        std::cerr << "autokernel: internal error: " << e.what() << "\n";
        return ak::cli::kExitFailure;
    }
}
