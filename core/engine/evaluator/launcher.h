#pragma once
// Runs a candidate's compiled cubin: loads the module, reads its launch descriptions (ak_launch0..3,
// cuModuleGetGlobal) and entry points (ak_kernel0..3), checks them against the contract and the
// device, and enqueues the stage sequence on a stream with the type's argument struct as the single
// kernel parameter. Library stages call the adapter.
//
// TMA: for every operand i a stage declares a box for, a 2D tiled tensor map (rows x cols of the
// adapter's tma_operand(i), the stage's box and swizzle, zero fill out of bounds) is encoded into
// args.tma[i]. When the operand cannot be described (its row pitch cols * sizeof(ak_t) is not a
// multiple of 16 bytes, e.g. K = 4097, or its base is not 16-byte aligned) args.tma[i] stays all
// zero: the kernel must check the same condition and take a non-TMA path for such sizes.
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launch_plan.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ak::eval {

// Layout of a kernel type's argument struct (contract.cuh, host side).
struct ArgsLayout {
    std::size_t size = 0;
    int tma_count = 0;           // tensor maps at offset 0 (ak_tensor_map tma[3]), else 0
};
ArgsLayout args_layout(KernelType type);
// Every argument struct fits in this many bytes.
inline constexpr std::size_t kArgsCapacity = 1024;

// Bytes the contract reserves at the start of the workspace for the type itself, whatever the stages
// declare (kernels/README.md): fused_mlp's gate_up [M, 2F] and hidden [M, F] blocks, M * 3F *
// sizeof(ak_t), because F is a run-time size no compile-time declaration can express; 0 for the
// other types.
std::int64_t reserved_workspace_bytes(KernelType type, const Problem& p);

// Where things lie in a case's workspace: the reserved block first, then the stages' declared
// workspace at declared_offset = round_up(reserved, 256). Only the declared part is zeroed before each
// launch (the reserved block is fully written by the stages that use it); with kept_zero
// (AK_WORKSPACE_KEPT_ZERO) not in the launch: the harness zeroes it outside the timed window and checks it.
struct WorkspaceLayout {
    std::int64_t reserved = 0;
    std::int64_t declared_offset = 0;
    std::int64_t declared = 0;
    bool kept_zero = false;
    std::int64_t total() const { return declared > 0 ? declared_offset + declared : reserved; }
};

// The limits of the GPU `device` (cuDeviceGetAttribute). Throws Error(Gpu) naming the attribute.
DeviceLimits query_device_limits(CUdevice device);

// One compiled entry point as loaded.
struct LoadedFunction {
    int stage = 0;
    std::string name;  // "ak_kernel0"
    CUfunction function = nullptr;
    FunctionLimits limits;
};

// A launch of the whole stage sequence for one case, prepared once (arguments filled, grids sized,
// TMA maps encoded) so that timing loops only enqueue.
struct PreparedLaunch {
    struct Step {
        int stage = 0;
        int kind = AK_STAGE_NONE;
        int library_op = AK_LIB_NONE;
        CUfunction function = nullptr;
        LaunchDims dims;
        alignas(64) std::array<unsigned char, kArgsCapacity> args{};
    };
    std::vector<Step> steps;
    Problem problem;
    CaseTensors tensors;  // kept alive (and needed by library stages)
    CUdeviceptr zero_start = 0;      // the declared part of the workspace, zeroed before every launch
    std::size_t zero_bytes = 0;      // (0 when the stages keep it zero themselves)
};

class CandidateModule {
public:
    // Loads `cubin` (compiled for `dtype`) into the current context and checks its stage descriptions.
    // Throws ContractViolation naming the symbol and field, or Error(Gpu) / StickyCudaError.
    CandidateModule(const std::string& cubin, const KernelAdapter& adapter, at::ScalarType dtype,
                    const DeviceLimits& device);
    ~CandidateModule();
    CandidateModule(const CandidateModule&) = delete;
    CandidateModule& operator=(const CandidateModule&) = delete;

    const std::vector<ak_stage>& stages() const { return stages_; }  // the declared stages, in order
    const std::vector<LoadedFunction>& functions() const { return functions_; }
    at::ScalarType dtype() const { return dtype_; }
    // The workspace of `p`: the type's reserved block and the stages' declared scratch.
    WorkspaceLayout workspace_layout(const Problem& p) const;
    // Bytes to allocate for the workspace of `p` (0 when none): workspace_layout(p).total().
    std::int64_t workspace_bytes(const Problem& p) const { return workspace_layout(p).total(); }
    // One line per stage (describe_stage).
    std::string describe() const;

    // Fills the argument structs, sizes the grids and encodes TMA maps for case `t`. Throws LaunchError
    // (grid too large, TMA operand unusable, adapter refusing a library op) naming the stage.
    PreparedLaunch prepare(const Problem& p, const CaseTensors& t) const;
    // Enqueues the prepared stage sequence on `stream`: zeroes the workspace (unless the stages keep it
    // zero), then every stage in order.
    // No synchronisation. Throws LaunchError for a launch the driver refuses (e.g. too many resources),
    // StickyCudaError when the context is already broken.
    void enqueue(const PreparedLaunch& launch, CUstream stream) const;
    // prepare() + enqueue().
    void launch(const Problem& p, const CaseTensors& t, CUstream stream) const;

private:
    const KernelAdapter& adapter_;
    at::ScalarType dtype_;
    DeviceLimits device_;
    ArgsLayout layout_;
    CUmodule module_ = nullptr;
    std::vector<ak_stage> stages_;
    std::vector<LoadedFunction> functions_;  // one per kernel stage
};

// The grid inputs of a problem, from the adapter.
GridInputs grid_inputs(const KernelAdapter& adapter, const Problem& p);

// ak::DType <-> at::ScalarType for the three kernel dtypes. Throws Error(Usage) for tf32/fp8.
at::ScalarType scalar_type(DType d);
DType kernel_dtype(at::ScalarType t);

}  // namespace ak::eval
