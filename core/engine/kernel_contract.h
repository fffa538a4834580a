#pragma once
// The machine-readable declarations in a candidate's comments (documented in kernels/README.md):
//
//   // @autokernel type rmsnorm
//   // @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512, 1024} tier 1 -- threads per block
//   // @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per 16-byte load
//
// A tunable becomes a -D NAME=VALUE define when the candidate is compiled, so the search agent can
// change it with set_tunable() without parsing C++. Tiers order the search: 1 block shape, threads,
// rows per block; 2 vector width and unrolling; 3 variant switches; 4 and above everything else (the
// default when `tier` is omitted). Only `//` line comments are read; the help text after `--` is optional.
// A tunable that only matters in some variants says so with `when OTHER=V1|V2` (before the help):
//   // @autokernel tunable STAGES = 4 {2, 3, 4, 5} tier 2 when MMA=3 -- TMA ring depth
// The search agent leaves it alone while OTHER has none of those values (its changes would compile to
// the same kernel). OTHER must be a declared tunable without a `when` of its own.
//
// A preset is a known-good configuration, e.g. one measured on a GPU generation:
//   // @autokernel preset hopper sm_90 MMA=3 BLOCK_M=128 BLOCK_N=256 STAGES=4 -- 0.99x cuBLAS at 4096^3
// NAME, then an optional GPU condition (sm_90: compute capability 9.0 only, as code for sm_90a needs;
// sm_80+: 8.0 or newer; none: every GPU), then one or more NAME=VALUE settings of declared tunables with
// allowed values (each tunable once). Unnamed tunables keep the value of the configuration the preset
// is applied to. The search agent evaluates the presets valid for the session's GPU, in the order
// written, before its sweep; each is an experiment like any other (kept only when it is faster).
#include "analysis/dtype.h"
#include "engine/kernel_type.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

struct Tunable {
    std::string name;                  // a C identifier, not starting with AK_ (reserved for the contract)
    std::string value;                 // current value, one of `allowed`
    std::vector<std::string> allowed;  // in the order written
    int tier = 4;
    std::string when;                     // the tunable this one depends on ("" = always active)
    std::vector<std::string> when_values; // ... and the values of it under which this one is active
    std::string help;
    int line = 0;                      // 1-based line of the annotation
};

struct Preset {
    std::string name;                                          // a C identifier, unique in the file
    int sm = 0;                                                // compute capability x 10; 0 = every GPU
    bool sm_or_newer = false;                                  // sm_XY+: that capability or newer
    std::vector<std::pair<std::string, std::string>> values;   // tunable -> value, in the order written
    std::string help;
    int line = 0;
};

// Whether `preset` is meant for a GPU of compute capability `compute_capability` ("9.0"). A preset
// with a condition does not apply when the capability is unknown ("") or malformed.
bool preset_applies(const Preset& preset, std::string_view compute_capability);

// "sm_90", "sm_80+" or "every GPU".
std::string preset_condition_text(const Preset& preset);

struct ContractError {
    int line = 0;         // 1-based
    std::string message;  // names the problem, e.g. "VEC = 3 is not in {1, 2, 4, 8}"
};

struct KernelContract {
    std::optional<KernelType> type;
    int type_line = 0;
    std::vector<Tunable> tunables;
    std::vector<Preset> presets;        // in the order written
    std::vector<ContractError> errors;  // empty when every annotation parsed

    bool ok() const { return errors.empty(); }
    bool empty() const { return !type && tunables.empty(); }  // no annotations at all
    const Tunable* find(std::string_view name) const;
    // "<name>:<line>: <message>" lines, one per error, for compile logs and the CLI.
    std::string error_text(std::string_view source_name) const;
};

// Reads every `// @autokernel ...` annotation. Never throws: problems go to `errors` with their line.
KernelContract parse_contract(std::string_view source);

// Returns `source` with only the value of tunable `name` rewritten (all other bytes unchanged).
// Throws Error(Usage) when the contract has errors, `name` is not declared, or `value` is not allowed.
std::string set_tunable(std::string_view source, std::string_view name, std::string_view value);

// The preprocessor and language options of one compile of a candidate:
//   -DAK_DTYPE_FP16 (or _BF16 / _FP32), -D<NAME>=<value> per tunable, --std=c++17, -default-device.
// Throws Error(Usage) when the contract has errors or for a dtype kernels are not compiled in.
std::vector<std::string> contract_options(const KernelContract& contract, DType dtype);

// Every NVRTC option for calling NVRTC directly: contract_options(), then -I<dir> per include dir,
// then --gpu-architecture=<arch>. `arch` as gpu/nvrtc_compiler.h's arch_for(major, minor, true)
// returns it ("sm_90a" on Hopper, so wgmma is available). Callers of NvrtcCompiler pass
// contract_options() as CompileOptions::options and kernels_include_dir() as an include dir instead.
std::vector<std::string> nvrtc_options(const KernelContract& contract, DType dtype, std::string_view arch,
                                       const std::vector<std::string>& include_dirs);

// Where kernels/include lives (autokernel/contract.cuh): env AK_KERNELS_DIR (the kernels/ folder or
// its include/ folder) when set, else the source tree's kernels/include this was built from.
std::string kernels_include_dir();

}  // namespace ak
