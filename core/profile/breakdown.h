#pragma once
// Where a profile's GPU time goes, ranked by what optimizing it could buy: the breakdown the CLI's
// report, the GUI's Profile page and `autokernel new --from-profile` are built on.
//
// Shares are of the profile's GPU time (GpuTimeline::activity_sum_ns: kernels + memcpys + memsets, each
// counted once). Every kernel is classified (classification.h) and grouped by (type, op, the op's input
// shapes, dtype); unattributed kernels form one group per (type, kernel name). For each group and each
// type: time, share, calls, Amdahl what-if at 1.5x, 2x, 3x, 5x, and, where the op's shapes give the
// type's problem shape (shape_mapping.h), the roofline headroom: the achieved TFLOP/s or GB/s against
// the measured ceilings (Profile::ceilings) or else the datasheet of the recording GPU
// (analysis/gpu_specs), and the end-to-end speedup if the group ran at its ceiling.
#include "engine/kernel_type.h"
#include "profile/aggregation.h"
#include "profile/classification.h"
#include "profile/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ak::profile {

// One Amdahl row: this part `kernel_speedup` times faster gives `end_to_end` for the whole model.
struct WhatIf {
    double kernel_speedup = 0;
    double end_to_end = 0;
};

// The roofline position of a group at its mapped shape.
struct Headroom {
    bool memory_bound = false;        // judged against the bandwidth roof (else the compute roof)
    double achieved_tflops = 0;
    double achieved_gb_s = 0;
    double ceiling = 0;               // the binding roof: TFLOP/s when compute-bound, GB/s when memory-bound
    double pct_of_ceiling = 0;        // achieved share of the binding roof, in %
    double end_to_end_bound = 1;      // Amdahl speedup of the model if this group reached its ceiling
    std::string ceiling_source;       // "measured copy 8.4 MB", "measured GEMM bf16", "NVIDIA H200 datasheet"
};

// Kernels of one (type, op, input shapes, dtype).
struct BreakdownGroup {
    std::optional<KernelType> type;   // nullopt: other
    std::string type_label;           // "matmul", ..., "other"
    std::string op;                   // "aten::addmm"; the kernel name when no op launched it
    std::string input_shapes;         // input_shapes_text of the op ("" when unattributed)
    std::string dtype;                // the op's first tensor dtype ("" when unknown)
    std::optional<Shape> type_shape;  // the type's problem shape (shape_mapping.h), when it maps
    std::string module_path;          // the most common module path of its ops ("" when none)
    std::vector<std::string> kernel_names;  // distinct kernel names, by time, largest first
    std::uint64_t calls = 0;          // op calls (kernel launches when unattributed)
    std::uint64_t launches = 0;       // kernel launches
    std::uint64_t total_ns = 0;       // all measured iterations
    double per_iteration_us = 0;      // total / measured iterations
    double share = 0;                 // of the profile's GPU time, 0..1
    std::vector<WhatIf> what_if;      // 1.5x, 2x, 3x, 5x
    std::optional<Headroom> headroom; // when type_shape is known and a ceiling applies
    ClassifiedBy classified_by = ClassifiedBy::None;
};

// All groups of one type (or "other").
struct BreakdownType {
    std::optional<KernelType> type;
    std::string type_label;
    std::uint64_t total_ns = 0;
    double per_iteration_us = 0;
    double share = 0;
    std::uint64_t launches = 0;
    std::uint64_t groups = 0;
    std::vector<WhatIf> what_if;      // 1.5x, 2x, 3x, 5x
    double limit = 1;                 // end-to-end speedup if the type took no time (infinity when share is 1)
};

struct Breakdown {
    GpuTimeline timeline;
    std::vector<BreakdownType> types;        // by time, largest first; "other" included
    std::vector<BreakdownGroup> groups;      // by time, largest first
    std::vector<KernelNameStats> kernels;    // per kernel name, by time
    double attributed_share = 0;             // share of kernel time launched by a recorded op (0..1)
    double classified_share = 0;             // share of GPU time in one of the nine types
    std::string ceiling_note;                // which ceilings the headroom uses, or why there is none
};

struct BreakdownOptions {
    // The GPU whose datasheet is the fallback ceiling; by default the profile's Origin::gpu_name.
    std::string gpu_name;
};

Breakdown compute_breakdown(const Profile& profile, const BreakdownOptions& options = {});

// The groups of `type`, in breakdown order (a view for session extraction and the GUI).
std::vector<const BreakdownGroup*> groups_of(const Breakdown& breakdown, std::optional<KernelType> type);

}  // namespace ak::profile
