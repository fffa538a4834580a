#pragma once
// Which of the nine kernel types (or "other") a profiled kernel belongs to.
//
// Rules, first match wins (docs/profile-json.md lists the scopes; the fixture
// tests/fixtures/profile/kernel_names.tsv holds real and known kernel names with their expected type):
//   1. a scope of the built-in models in the op stack: autokernel::fused_mlp, autokernel::rotary_embedding;
//   2. the module path of a LLaMA-family built-in model (Origin::model "llama-*"): a component "mlp"
//      -> fused_mlp (its gate/up/down GEMMs, silu and mul are the SwiGLU pattern), a component
//      "rotary_emb", "rotary" or "rope" -> rotary_embedding;
//   3. the op stack, outermost op first (so the kernels of aten::_log_softmax inside
//      aten::cross_entropy_loss are cross_entropy, and those of aten::addmm inside aten::linear matmul):
//      aten::mm/addmm/linear/bmm/matmul/baddbmm/addmv/mv -> matmul,
//      aten::scaled_dot_product_attention and aten::_scaled_dot_product_* / _flash_attention_* /
//      _efficient_attention_* / _cudnn_attention_* -> flash_attention, aten::rms_norm/_fused_rms_norm -> rmsnorm,
//      aten::layer_norm/native_layer_norm -> layernorm, aten::softmax/_softmax -> softmax,
//      aten::cross_entropy_loss/nll_loss*/log_softmax/_log_softmax -> cross_entropy, aten::sum/mean -> reduce,
//      with their backward ops (aten::*_backward*, autograd's "evaluate_function: MmBackward0" nodes);
//   4. the kernel name (what Hopper launches: nvjet_*, sm90_xmma_*, cutlass*, cudnn* attention,
//      flash/fmha kernels, triton_*, at::native reduce/softmax/norm kernels, ...);
//   5. otherwise "other" (elementwise, copies, fills, ...).
#include "engine/kernel_type.h"
#include "profile/profile.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ak::profile {

// How a classification was decided.
enum class ClassifiedBy { Scope, Op, ModulePath, KernelName, None };
std::string_view to_string(ClassifiedBy by);  // "scope", "op", "module", "kernel name", "none"

struct Classification {
    std::optional<KernelType> type;  // nullopt: "other"
    ClassifiedBy by = ClassifiedBy::None;
    std::string rule;                // what matched, e.g. "op aten::addmm" or "name nvjet_"
};

// "other" for nullopt, else the type's name.
std::string type_label(std::optional<KernelType> type);

// The scope or op rule alone: the type of an op name ("aten::addmm" -> matmul), nullopt when it has none.
std::optional<KernelType> classify_op(std::string_view op_name);
// The kernel-name rule alone.
std::optional<KernelType> classify_kernel_name(std::string_view kernel_name);

// A kernel with its launching op (nullptr when not attributed) and the profiled model's name
// (Origin::model of a built-in model; "" otherwise).
Classification classify(std::string_view kernel_name, const OpCall* op, std::string_view model = {});

}  // namespace ak::profile
