#include "engine/evaluator/launch_plan.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace ak::eval {

namespace {

std::string field(int index, const char* name) { return launch_symbol(index) + "." + name; }

std::string field(int index, const char* name, int element) {
    return launch_symbol(index) + "." + name + "[" + std::to_string(element) + "]";
}

const char* grid_rule_name(int grid) {
    switch (grid) {
    case AK_GRID_ROWS: return "AK_GRID_ROWS";
    case AK_GRID_TILES: return "AK_GRID_TILES";
    case AK_GRID_PERSISTENT: return "AK_GRID_PERSISTENT";
    case AK_GRID_FIXED: return "AK_GRID_FIXED";
    case AK_GRID_ATTENTION: return "AK_GRID_ATTENTION";
    default: return "unknown";
    }
}

int or_one(int v) { return v == 0 ? 1 : v; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

int swizzle_span_bytes(int swizzle) {
    switch (swizzle) {
    case AK_SWIZZLE_32B: return 32;
    case AK_SWIZZLE_64B: return 64;
    case AK_SWIZZLE_128B: return 128;
    default: return 0;
    }
}

void check_non_negative(std::vector<std::string>& out, int index, const char* name, int value) {
    if (value < 0) out.push_back(field(index, name) + " = " + std::to_string(value) + " must not be negative");
}

}  // namespace

std::string launch_symbol(int index) { return "ak_launch" + std::to_string(index); }
std::string kernel_symbol(int index) { return "ak_kernel" + std::to_string(index); }

bool stage_uses_tma(const ak_stage& s) {
    for (int i = 0; i < 3; ++i)
        if (s.tma_box_rows[i] != 0 || s.tma_box_cols[i] != 0) return true;
    return false;
}

std::vector<std::string> stage_problems(const ak_stage& s, int index, const DeviceLimits& device,
                                        const FunctionLimits* function, int element_bytes, int tma_operands) {
    std::vector<std::string> out;
    check_non_negative(out, index, "workspace_bytes_per_row", s.workspace_bytes_per_row);
    check_non_negative(out, index, "workspace_bytes", s.workspace_bytes);
    if (s.workspace_init != AK_WORKSPACE_ZEROED && s.workspace_init != AK_WORKSPACE_KEPT_ZERO)
        out.push_back(field(index, "workspace_init") + " = " + std::to_string(s.workspace_init) +
                      " is not AK_WORKSPACE_ZEROED (0) or AK_WORKSPACE_KEPT_ZERO (1)");

    if (s.kind == AK_STAGE_NONE) return out;
    if (s.kind == AK_STAGE_LIBRARY) {
        if (s.library_op != AK_LIB_MLP_GATE_UP_GEMM && s.library_op != AK_LIB_MLP_DOWN_GEMM)
            out.push_back(field(index, "library_op") + " = " + std::to_string(s.library_op) +
                          " is not a library operation (AK_LIB_MLP_GATE_UP_GEMM = 1, AK_LIB_MLP_DOWN_GEMM = 2)");
        return out;
    }
    if (s.kind != AK_STAGE_KERNEL) {
        out.push_back(field(index, "kind") + " = " + std::to_string(s.kind) +
                      " is not AK_STAGE_NONE (0), AK_STAGE_KERNEL (1) or AK_STAGE_LIBRARY (2)");
        return out;
    }

    // ---- block shape
    const char* block_names[3] = {"block_x", "block_y", "block_z"};
    const int block_raw[3] = {s.block_x, s.block_y, s.block_z};
    std::int64_t threads = 1;
    bool block_ok = true;
    for (int d = 0; d < 3; ++d) {
        const int v = block_raw[d];
        if (d == 0 && v < 1) {
            out.push_back(field(index, "block_x") + " = " + std::to_string(v) + ": a kernel stage needs at least 1 thread");
            block_ok = false;
            continue;
        }
        if (v < 0) {
            out.push_back(field(index, block_names[d]) + " = " + std::to_string(v) + " must not be negative");
            block_ok = false;
            continue;
        }
        const int eff = or_one(v);
        if (eff > device.max_block_dims[d]) {
            out.push_back(field(index, block_names[d]) + " = " + std::to_string(eff) + " exceeds the device's maximum of " +
                          std::to_string(device.max_block_dims[d]));
            block_ok = false;
        }
        threads *= eff;
    }
    if (block_ok) {
        if (threads > device.max_threads_per_block) {
            out.push_back(launch_symbol(index) + ": block " + std::to_string(or_one(s.block_x)) + "x" +
                          std::to_string(or_one(s.block_y)) + "x" + std::to_string(or_one(s.block_z)) + " = " +
                          std::to_string(threads) + " threads exceeds the device's maximum of " +
                          std::to_string(device.max_threads_per_block) + " threads per block");
        } else if (function && threads > function->max_threads_per_block) {
            out.push_back(launch_symbol(index) + ": block of " + std::to_string(threads) + " threads exceeds " +
                          kernel_symbol(index) + "'s limit of " + std::to_string(function->max_threads_per_block) +
                          " threads per block (it uses " + std::to_string(function->registers) +
                          " registers per thread; use fewer threads or __launch_bounds__)");
        }
    }

    // ---- grid rule
    check_non_negative(out, index, "rows_per_block", s.rows_per_block);
    check_non_negative(out, index, "tile_m", s.tile_m);
    check_non_negative(out, index, "tile_n", s.tile_n);
    check_non_negative(out, index, "grid_x", s.grid_x);
    check_non_negative(out, index, "grid_y", s.grid_y);
    check_non_negative(out, index, "grid_z", s.grid_z);
    switch (s.grid) {
    case AK_GRID_ROWS:
    case AK_GRID_PERSISTENT:
    case AK_GRID_FIXED:
        break;
    case AK_GRID_TILES:
        if (s.tile_m < 1) out.push_back(field(index, "tile_m") + " = " + std::to_string(s.tile_m) + ": AK_GRID_TILES needs tile_m >= 1");
        if (s.tile_n < 1) out.push_back(field(index, "tile_n") + " = " + std::to_string(s.tile_n) + ": AK_GRID_TILES needs tile_n >= 1");
        break;
    case AK_GRID_ATTENTION:
        if (s.tile_m < 1)
            out.push_back(field(index, "tile_m") + " = " + std::to_string(s.tile_m) + ": AK_GRID_ATTENTION needs tile_m >= 1");
        break;
    default:
        out.push_back(field(index, "grid") + " = " + std::to_string(s.grid) +
                      " is not a grid rule (AK_GRID_ROWS = 1, AK_GRID_TILES = 2, AK_GRID_PERSISTENT = 3, "
                      "AK_GRID_FIXED = 4, AK_GRID_ATTENTION = 5)");
    }

    // ---- shared memory
    if (s.dynamic_smem_bytes < 0) {
        out.push_back(field(index, "dynamic_smem_bytes") + " = " + std::to_string(s.dynamic_smem_bytes) + " must not be negative");
    } else {
        const int static_bytes = function ? function->static_shared_bytes : 0;
        const std::int64_t total = std::int64_t(s.dynamic_smem_bytes) + static_bytes;
        if (total > device.max_shared_per_block_optin) {
            out.push_back(field(index, "dynamic_smem_bytes") + " = " + std::to_string(s.dynamic_smem_bytes) +
                          (static_bytes ? " plus " + std::to_string(static_bytes) + " bytes of static shared memory" : std::string()) +
                          " exceeds the device's maximum of " + std::to_string(device.max_shared_per_block_optin) +
                          " bytes per block");
        }
    }

    // ---- cluster
    const char* cluster_names[3] = {"cluster_x", "cluster_y", "cluster_z"};
    const int cluster_raw[3] = {s.cluster_x, s.cluster_y, s.cluster_z};
    bool any_cluster = false;
    bool cluster_ok = true;
    std::int64_t cluster_blocks = 1;
    for (int d = 0; d < 3; ++d) {
        if (cluster_raw[d] < 0) {
            out.push_back(field(index, cluster_names[d]) + " = " + std::to_string(cluster_raw[d]) + " must not be negative");
            cluster_ok = false;
        }
        if (cluster_raw[d] > 0) any_cluster = true;
        cluster_blocks *= or_one(cluster_raw[d] < 0 ? 1 : cluster_raw[d]);
    }
    if (any_cluster && cluster_ok && cluster_blocks > 1) {
        if (!device.cluster_launch || device.cc_major < 9) {
            out.push_back(launch_symbol(index) + " declares a thread-block cluster, but this GPU (compute capability " +
                          std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor) +
                          ") cannot launch clusters (Hopper, sm_90, or newer needed)");
        } else if (cluster_blocks > 16) {
            out.push_back(launch_symbol(index) + ": cluster " + std::to_string(or_one(s.cluster_x)) + "x" +
                          std::to_string(or_one(s.cluster_y)) + "x" + std::to_string(or_one(s.cluster_z)) + " = " +
                          std::to_string(cluster_blocks) + " blocks exceeds the maximum of 16 (8 portable)");
        }
    }

    // ---- TMA boxes
    for (int i = 0; i < 3; ++i) {
        const int r = s.tma_box_rows[i];
        const int c = s.tma_box_cols[i];
        if (r == 0 && c == 0) continue;
        if (i >= tma_operands) {
            out.push_back(launch_symbol(index) + " declares a TMA box for operand " + std::to_string(i) +
                          (tma_operands == 0 ? ", but this kernel type's arguments hold no tensor maps"
                                             : ", but this kernel type's arguments hold only " +
                                                   std::to_string(tma_operands) + " tensor maps"));
            continue;
        }
        if (r < 1 || r > 256)
            out.push_back(field(index, "tma_box_rows", i) + " = " + std::to_string(r) + " must be in 1..256");
        if (c < 1 || c > 256)
            out.push_back(field(index, "tma_box_cols", i) + " = " + std::to_string(c) + " must be in 1..256");
        if (c >= 1 && element_bytes > 0) {
            const int row_bytes = c * element_bytes;
            if (row_bytes % 16 != 0)
                out.push_back(field(index, "tma_box_cols", i) + " = " + std::to_string(c) + ": a box row of " +
                              std::to_string(row_bytes) + " bytes is not a multiple of 16 bytes");
            const int span = swizzle_span_bytes(s.tma_swizzle);
            if (span > 0 && row_bytes > span)
                out.push_back(field(index, "tma_box_cols", i) + " = " + std::to_string(c) + ": a box row of " +
                              std::to_string(row_bytes) + " bytes exceeds the " + std::to_string(span) +
                              "-byte swizzle span of tma_swizzle = " + std::to_string(s.tma_swizzle));
        }
    }
    if (s.tma_swizzle < AK_SWIZZLE_NONE || s.tma_swizzle > AK_SWIZZLE_128B)
        out.push_back(field(index, "tma_swizzle") + " = " + std::to_string(s.tma_swizzle) +
                      " is not AK_SWIZZLE_NONE (0), _32B (1), _64B (2) or _128B (3)");
    if (stage_uses_tma(s) && device.cc_major < 9)
        out.push_back(launch_symbol(index) + " declares TMA boxes, but this GPU (compute capability " +
                      std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor) +
                      ") has no tensor memory accelerator (Hopper, sm_90, or newer needed)");
    return out;
}

std::vector<std::string> sequence_problems(const std::vector<ak_stage>& slots) {
    std::vector<std::string> out;
    if (slots.empty() || slots[0].kind == AK_STAGE_NONE) {
        out.push_back("the candidate declares no stage: define extern \"C\" __constant__ ak_stage ak_launch0 "
                      "(AK_LAUNCH(0) = {...}) with kind AK_STAGE_KERNEL and an extern \"C\" __global__ ak_kernel0");
        return out;
    }
    bool gap = false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].kind == AK_STAGE_NONE) {
            gap = true;
        } else if (gap) {
            out.push_back(launch_symbol(int(i)) + " declares a stage after an empty slot: stages must be ak_launch0, "
                          "ak_launch1, ... without gaps");
        }
    }
    return out;
}

void throw_if_problems(const std::vector<std::string>& problems) {
    if (problems.empty()) return;
    std::string message = "kernel contract violated:";
    for (const auto& p : problems) message += "\n  " + p;
    throw ContractViolation(message);
}

LaunchDims launch_dims(const ak_stage& s, int index, const GridInputs& sizes, const DeviceLimits& device) {
    LaunchDims d;
    d.block = {unsigned(or_one(s.block_x)), unsigned(or_one(s.block_y)), unsigned(or_one(s.block_z))};
    d.dynamic_smem_bytes = s.dynamic_smem_bytes;
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::string rule_detail;
    switch (s.grid) {
    case AK_GRID_ROWS: {
        const int rpb = or_one(s.rows_per_block);
        grid[0] = ceil_div(sizes.rows, rpb);
        rule_detail = "ceil(rows " + std::to_string(sizes.rows) + " / rows_per_block " + std::to_string(rpb) + ")";
        break;
    }
    case AK_GRID_TILES:
        grid[0] = ceil_div(sizes.tiles_n, s.tile_n);
        grid[1] = ceil_div(sizes.tiles_m, s.tile_m);
        grid[2] = sizes.tiles_batch;
        rule_detail = "(ceil(n " + std::to_string(sizes.tiles_n) + " / tile_n " + std::to_string(s.tile_n) + "), ceil(m " +
                      std::to_string(sizes.tiles_m) + " / tile_m " + std::to_string(s.tile_m) + "), batch " +
                      std::to_string(sizes.tiles_batch) + ")";
        break;
    case AK_GRID_PERSISTENT:
        grid[0] = std::int64_t(device.sm_count) * std::max(s.grid_x, 1);
        rule_detail = std::to_string(device.sm_count) + " SMs x " + std::to_string(std::max(s.grid_x, 1)) + " blocks per SM";
        break;
    case AK_GRID_FIXED:
        grid = {or_one(s.grid_x), or_one(s.grid_y), or_one(s.grid_z)};
        rule_detail = "fixed";
        break;
    case AK_GRID_ATTENTION:
        grid[0] = ceil_div(sizes.tiles_m, s.tile_m);
        grid[1] = sizes.tiles_batch;
        rule_detail = "(ceil(seq " + std::to_string(sizes.tiles_m) + " / tile_m " + std::to_string(s.tile_m) +
                      "), batch*heads " + std::to_string(sizes.tiles_batch) + ")";
        break;
    default:
        throw ContractViolation(field(index, "grid") + " = " + std::to_string(s.grid) + " is not a grid rule");
    }
    const int cluster_raw[3] = {s.cluster_x, s.cluster_y, s.cluster_z};
    for (int k = 0; k < 3; ++k) {
        d.cluster[k] = unsigned(or_one(cluster_raw[k]));
        if (d.cluster[k] > 1) d.has_cluster = true;
    }
    const char axis[3] = {'x', 'y', 'z'};
    for (int k = 0; k < 3; ++k) {
        if (grid[k] < 1) grid[k] = 1;  // an empty problem still launches one block; kernels check bounds
        if (d.has_cluster) grid[k] = ceil_div(grid[k], d.cluster[k]) * d.cluster[k];
        if (grid[k] > device.max_grid_dims[k])
            throw LaunchError(launch_symbol(index) + ": grid." + axis[k] + " = " + std::to_string(grid[k]) +
                              " exceeds the device's limit of " + std::to_string(device.max_grid_dims[k]) + " (" +
                              grid_rule_name(s.grid) + " " + rule_detail + ")");
        d.grid[k] = unsigned(grid[k]);
    }
    return d;
}

std::int64_t workspace_bytes(const std::vector<ak_stage>& stages, std::int64_t rows) {
    std::int64_t best = 0;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const auto& s = stages[i];
        if (s.kind == AK_STAGE_NONE) continue;
        const std::int64_t per_row = s.workspace_bytes_per_row;
        if (per_row > 0 && rows > (std::numeric_limits<std::int64_t>::max() - s.workspace_bytes) / per_row)
            throw LaunchError(launch_symbol(int(i)) + ": workspace_bytes_per_row " + std::to_string(per_row) + " x rows " +
                              std::to_string(rows) + " overflows");
        best = std::max(best, per_row * rows + s.workspace_bytes);
    }
    return best;
}

bool workspace_kept_zero(const std::vector<ak_stage>& stages) {
    bool any = false;
    for (const auto& s : stages) {
        if (s.kind == AK_STAGE_NONE || (s.workspace_bytes_per_row == 0 && s.workspace_bytes == 0)) continue;
        if (s.workspace_init != AK_WORKSPACE_KEPT_ZERO) return false;
        any = true;
    }
    return any;
}

std::string describe_stage(const ak_stage& s, int index) {
    std::ostringstream o;
    if (s.kind == AK_STAGE_LIBRARY) {
        o << "library stage " << index << ": "
          << (s.library_op == AK_LIB_MLP_GATE_UP_GEMM ? "AK_LIB_MLP_GATE_UP_GEMM"
              : s.library_op == AK_LIB_MLP_DOWN_GEMM  ? "AK_LIB_MLP_DOWN_GEMM"
                                                      : "unknown op");
    } else if (s.kind == AK_STAGE_KERNEL) {
        o << "kernel " << kernel_symbol(index) << ": block " << or_one(s.block_x) << "x" << or_one(s.block_y) << "x"
          << or_one(s.block_z) << ", grid " << grid_rule_name(s.grid);
        if (s.grid == AK_GRID_ROWS) o << " (" << or_one(s.rows_per_block) << " rows/block)";
        if (s.grid == AK_GRID_TILES || s.grid == AK_GRID_ATTENTION) o << " (tile " << s.tile_m << "x" << s.tile_n << ")";
        o << ", " << s.dynamic_smem_bytes << " B dynamic smem";
        if (s.cluster_x > 1 || s.cluster_y > 1 || s.cluster_z > 1)
            o << ", cluster " << or_one(s.cluster_x) << "x" << or_one(s.cluster_y) << "x" << or_one(s.cluster_z);
        if (stage_uses_tma(s)) o << ", TMA";
    } else {
        o << "empty slot " << index;
    }
    return o.str();
}

}  // namespace ak::eval
