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

struct ContractError {
    int line = 0;         // 1-based
    std::string message;  // names the problem, e.g. "VEC = 3 is not in {1, 2, 4, 8}"
};

struct KernelContract {
    std::optional<KernelType> type;
    int type_line = 0;
    std::vector<Tunable> tunables;
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
