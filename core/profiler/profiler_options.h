#pragma once
// The command line of autokernel-profiler (what `autokernel profile` runs):
//   autokernel-profiler --out FILE.json [--warmup N] [--iterations N]
//       ( --model NAME [--batch B] [--seq S] [--dtype fp16|bf16|fp32] [--mode inference|training]
//       | --torchscript FILE.pt --input SPEC [--input SPEC ...] [--dtype D]
//       | -- CMD ARGS... )
// Torch-free, so the CPU tests check every usage error.
#include "profiler/input_spec.h"

#include <string>
#include <vector>

namespace ak::profiler {

enum class Route { Model, TorchScript, Command };

struct ProfilerOptions {
    Route route = Route::Model;
    std::string out;              // profile.json to write
    int warmup = 5;
    int iterations = 10;
    // --model
    std::string model;
    int batch = 8;
    int seq = 1024;
    std::string dtype = "fp16";   // also the TorchScript module's float dtype when --dtype is given there
    bool dtype_given = false;
    std::string mode = "inference";
    // --torchscript
    std::string torchscript;
    std::vector<InputSpec> inputs;
    // -- CMD
    std::vector<std::string> command;
    bool show_help = false;
};

// Parses argv[1..]. Throws ak::Error(Usage) naming the option and the problem: unknown option, missing
// value, a number that is not a positive integer (iterations >= 1, warmup >= 0), none or several of the
// three routes, options that do not belong to the chosen route, no --out, no --input for --torchscript,
// an unknown model, dtype or mode.
ProfilerOptions parse_profiler_args(const std::vector<std::string>& args);

std::string profiler_usage();

}  // namespace ak::profiler
