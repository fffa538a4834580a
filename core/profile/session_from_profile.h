#pragma once
// From a profile to the kernels of a new session (`autokernel new --from-profile`, the GUI's "Optimize
// selected"): one session kernel per chosen type, or per shape family where one type's shapes differ a
// lot (GPT-2's QKV and MLP GEMMs), each with the model's own most time-weighted shapes as timing shapes
// and its share of the profiled GPU time as model_fraction.
//
// Shape families: the mapped shapes (shape_mapping.h) of a type, largest time first; a shape joins the
// first family whose leading shape is within 2x in every dimension (and has the same causal flag),
// else starts a family. Groups of the type without a shape (e.g. the silu and mul of a SwiGLU MLP) add
// their time to the type's largest family. Groups of the backward pass that have no shape (the backward
// ops of attention, the norms, softmax and the loss: "aten::*_backward*") are not part of any kernel's
// share: a session's kernels replace forward ops, so counting that time would overstate what Amdahl's law
// promises; it is reported as `backward_share` of the type's largest family instead. (The backward pass's
// GEMMs are aten::mm with a shape: they count, a matmul kernel replaces them.) Timing shapes: the family's shapes by time, at most
// `max_shapes`, each with at least 5 % of the family's time (the largest always).
#include "engine/kernel_type.h"
#include "profile/breakdown.h"
#include "profile/profile.h"
#include "session/session_info.h"

#include <optional>
#include <string>
#include <vector>

namespace ak::profile {

struct FromProfileOptions {
    std::size_t top = 0;                 // at most this many kernels, by share (0: no limit)
    double min_share = 0.01;             // leave out kernels below this share of GPU time (0..1)
    std::vector<KernelType> types;       // only these types (empty: all nine)
    std::size_t max_shapes = 3;          // timing shapes per kernel
};

struct ProfileKernel {
    KernelType type;
    std::string name;                    // "matmul", or "matmul_2048x50257x768" when the type has several families
    std::vector<Shape> shapes;           // timing shapes, by time (empty: the type's default sizes)
    std::vector<double> shape_shares;    // each timing shape's share of the profiled GPU time
    double share = 0;                    // model_fraction: the family's share of the profiled GPU time
    std::string dtype;                   // the ops' dtype ("fp16", ...) of the leading shape, "" when unknown
    double backward_share = 0;           // the type's shape-less backward-pass time, not in `share` (largest family only)

    KernelEntry entry() const;           // name, type, shapes ("2048x3072x768,2048x2304x768"), model_fraction
};

// Whether an op is a backward-pass op of its own ("aten::native_layer_norm_backward",
// "aten::_softmax_backward_data", "aten::_efficient_attention_backward", ...).
bool is_backward_op(std::string_view op);

// Every candidate kernel (all families of the nine types, no filter), largest share first.
std::vector<ProfileKernel> candidate_kernels(const Breakdown& breakdown, std::size_t max_shapes = 3);

// The candidates that pass `options` (types, min_share, then top). Throws Error(Usage) for a
// min_share outside [0, 1].
std::vector<ProfileKernel> choose_kernels(const Breakdown& breakdown, const FromProfileOptions& options);

// What session.json records about the profile.
ProfileOrigin profile_origin(const Profile& profile, const Breakdown& breakdown, const std::string& file);

}  // namespace ak::profile
