#pragma once
// The launch descriptions a candidate publishes (ak_stage, kernels/include/autokernel/contract.cuh):
// checking them against the device and the compiled function, and turning them into grid, block,
// cluster and shared-memory sizes for one problem. Pure C++ (no CUDA calls, no LibTorch), so every
// rule is unit-tested without a GPU; launcher.cpp does the driver calls.
#include "util/error.h"

#include "autokernel/contract.cuh"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ak::eval {

// A candidate's stage description breaks the contract (unknown grid rule, block too large, shared
// memory above the device's maximum, a missing entry point, ...). The message names the symbol and
// the field, e.g. "ak_launch0.block_x = 2048 exceeds the device's maximum of 1024". Reported as
// COMPILE_ERROR: the candidate cannot run at all.
class ContractViolation : public Error {
public:
    explicit ContractViolation(std::string message) : Error(ErrorKind::Compile, std::move(message)) {}
};

// A valid stage cannot be launched for one particular problem (its grid exceeds the device's limits,
// a TMA operand's row pitch is not a multiple of 16 bytes, ...). The harness reports the case as
// failed, naming the stage and the shape.
class LaunchError : public Error {
public:
    explicit LaunchError(std::string message) : Error(ErrorKind::Gpu, std::move(message)) {}
};

// What the launcher needs to know about the GPU (cuDeviceGetAttribute).
struct DeviceLimits {
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    int max_threads_per_block = 1024;
    std::array<int, 3> max_block_dims{1024, 1024, 64};
    std::array<std::int64_t, 3> max_grid_dims{2147483647, 65535, 65535};
    int max_shared_per_block = 48 * 1024;        // without opting in
    int max_shared_per_block_optin = 48 * 1024;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    bool cluster_launch = false;                 // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
    std::int64_t l2_bytes = 0;
};

// What the compiled entry point reports (cuFuncGetAttribute).
struct FunctionLimits {
    int max_threads_per_block = 1024;  // lower than the device's when the kernel uses many registers
    int static_shared_bytes = 0;
    int registers = 0;
    int local_bytes = 0;
};

// The problem sizes the grid rules refer to (from the kernel type's adapter).
struct GridInputs {
    std::int64_t rows = 1;         // AK_GRID_ROWS
    std::int64_t tiles_m = 1;      // AK_GRID_TILES: m; AK_GRID_ATTENTION: seq
    std::int64_t tiles_n = 1;      // AK_GRID_TILES: n
    std::int64_t tiles_batch = 1;  // AK_GRID_TILES: batch; AK_GRID_ATTENTION: batch * heads
};

// Launch configuration of one kernel stage for one problem.
struct LaunchDims {
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    std::array<unsigned, 3> cluster{1, 1, 1};
    bool has_cluster = false;
    int dynamic_smem_bytes = 0;
};

// "ak_launch0"
std::string launch_symbol(int index);
// "ak_kernel0"
std::string kernel_symbol(int index);

// Problems with stage `index` as the candidate declared it, one message per problem, each naming
// ak_launch<index> and the field. `function` is null for library stages (and when the entry point is
// not loaded yet: then the per-function limits are not checked). `element_bytes` is the size of ak_t
// in the compiled dtype (TMA boxes); `tma_operands` how many tensor maps the type's argument struct
// holds (3 for matmul and flash_attention, else 0).
std::vector<std::string> stage_problems(const ak_stage& stage, int index, const DeviceLimits& device,
                                        const FunctionLimits* function, int element_bytes, int tma_operands);

// Problems with the stage sequence as a whole: ak_launch0 must be a stage, and stages must be
// contiguous (no declared stage after an empty slot).
std::vector<std::string> sequence_problems(const std::vector<ak_stage>& slots);

// Throws ContractViolation listing every problem (one per line) when `problems` is not empty.
void throw_if_problems(const std::vector<std::string>& problems);

// Grid, block, cluster and shared memory of kernel stage `index` for a problem. The grid is rounded up
// to a multiple of the cluster shape (blocks past the end must return, exactly as with the ceil
// divisions of the grid rules). Throws LaunchError when a grid dimension exceeds the device's limit.
LaunchDims launch_dims(const ak_stage& stage, int index, const GridInputs& sizes, const DeviceLimits& device);

// Scratch bytes the stage sequence needs: the largest workspace_bytes_per_row * rows + workspace_bytes
// over the stages. Throws LaunchError when it overflows 64 bits.
std::int64_t workspace_bytes(const std::vector<ak_stage>& stages, std::int64_t rows);

// Whether the stages keep their workspace zero themselves (AK_WORKSPACE_KEPT_ZERO): true only if some stage
// declares workspace and every stage that does says so. Then the launcher does not zero it in the launch;
// the harness zeroes it outside the timed window and checks that each checked run left it zero.
bool workspace_kept_zero(const std::vector<ak_stage>& stages);

// One line describing a stage: "kernel ak_kernel0: block 256x1x1, grid rows (1 row/block), 0 B smem".
std::string describe_stage(const ak_stage& stage, int index);

// Whether any TMA box is declared in the stage.
bool stage_uses_tma(const ak_stage& stage);

}  // namespace ak::eval
