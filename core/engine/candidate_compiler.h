#pragma once
// Compiles a candidate the way the evaluator does: once per dtype, with its @autokernel contract's
// tunables as -D defines and kernels/include on the include path, to a cubin through NVRTC. No GPU is
// needed. `autokernel compile` prints the result; the evaluator turns it into protocol CompileRecords.
#include "engine/evaluation_protocol.h"
#include "engine/kernel_contract.h"
#include "gpu/nvrtc_compiler.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

struct CandidateCompileOptions {
    std::optional<KernelType> type;               // e.g. --type; must agree with the contract's type
    std::vector<DType> dtypes{DType::fp16, DType::bf16, DType::fp32};
    std::string arch = "sm_90a";                  // arch_for(cc_major, cc_minor, true) for a real GPU
    std::vector<std::string> include_dirs;        // extra -I; kernels_include_dir() always comes first
    std::vector<std::string> extra_options;       // after the contract's options
    bool use_cache = true;
};

struct CandidateCompile {
    DType dtype = DType::fp16;
    CompileResult result;
};

struct CandidateCompileReport {
    std::string source_name;
    std::string arch;
    KernelContract contract;
    std::optional<KernelType> type;           // declared in the source or given in the options
    std::vector<CandidateCompile> compiles;   // one per dtype, in the order asked for
    std::vector<std::string> warnings;        // compiler remarks worth showing
    std::vector<std::string> errors;          // e.g. no ak_kernel0 entry point: nothing could be launched

    bool ok() const;  // every dtype compiled, and no errors
};

// Throws Error(Usage) when the source is empty, contains a NUL or a byte that is not UTF-8 (the
// compiler would silently ignore the rest), when the contract has errors (listed as
// "<source_name>:<line>: message"), when
// its type contradicts options.type, or for a dtype that kernels are not compiled in. A source that
// does not compile is not an exception: its CompileResult has ok = false and the log.
CandidateCompileReport compile_candidate(NvrtcCompiler& compiler, std::string_view source, std::string_view source_name,
                                         const CandidateCompileOptions& options);

// The protocol's record of one compile: maximum registers, spill bytes (stores + loads) and static
// shared memory over the entry points, each entry point's resources, the log and the compile time.
CompileRecord to_compile_record(DType dtype, const CompileResult& result);

// A table with one row per dtype and entry point: registers, spill stores and loads, shared memory,
// stack, compile time (or cache hit). With `include_logs`, the compiler log of each dtype that failed
// follows the table.
std::string format_compile_report(const CandidateCompileReport& report, bool include_logs);

}  // namespace ak
