#include "profile/classification.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace ak::profile {
namespace {

using enum KernelType;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// ATen op names without the "aten::" prefix.
constexpr std::array<std::pair<std::string_view, KernelType>, 60> kOps{{
    {"mm", Matmul}, {"addmm", Matmul}, {"linear", Matmul}, {"bmm", Matmul}, {"baddbmm", Matmul},
    {"addbmm", Matmul}, {"matmul", Matmul}, {"addmv", Matmul}, {"mv", Matmul}, {"_addmm_activation", Matmul},
    {"_scaled_mm", Matmul}, {"linear_backward", Matmul}, {"matmul_backward", Matmul},
    {"scaled_dot_product_attention", FlashAttention}, {"_scaled_dot_product_flash_attention", FlashAttention},
    {"_scaled_dot_product_efficient_attention", FlashAttention},
    {"_scaled_dot_product_cudnn_attention", FlashAttention}, {"_scaled_dot_product_attention_math", FlashAttention},
    {"_scaled_dot_product_fused_attention_overrideable", FlashAttention},
    {"_scaled_dot_product_flash_attention_backward", FlashAttention},
    {"_scaled_dot_product_efficient_attention_backward", FlashAttention},
    {"_scaled_dot_product_cudnn_attention_backward", FlashAttention},
    {"_flash_attention_forward", FlashAttention}, {"_flash_attention_backward", FlashAttention},
    {"_efficient_attention_forward", FlashAttention}, {"_efficient_attention_backward", FlashAttention},
    {"_cudnn_attention_forward", FlashAttention}, {"_cudnn_attention_backward", FlashAttention},
    {"rms_norm", RmsNorm}, {"_fused_rms_norm", RmsNorm}, {"_fused_rms_norm_backward", RmsNorm},
    {"layer_norm", LayerNorm}, {"native_layer_norm", LayerNorm}, {"native_layer_norm_backward", LayerNorm},
    {"softmax", Softmax}, {"_softmax", Softmax}, {"_safe_softmax", Softmax}, {"_softmax_backward_data", Softmax},
    {"cross_entropy_loss", CrossEntropy}, {"nll_loss", CrossEntropy}, {"nll_loss_nd", CrossEntropy},
    {"nll_loss_forward", CrossEntropy}, {"nll_loss2d", CrossEntropy}, {"nll_loss2d_forward", CrossEntropy},
    {"nll_loss_backward", CrossEntropy}, {"nll_loss2d_backward", CrossEntropy}, {"log_softmax", CrossEntropy},
    {"_log_softmax", CrossEntropy}, {"_log_softmax_backward_data", CrossEntropy},
    {"sum", Reduce}, {"mean", Reduce},
    // autograd nodes, as "autograd::engine::evaluate_function: MmBackward0" names them
    {"MmBackward0", Matmul}, {"AddmmBackward0", Matmul}, {"BmmBackward0", Matmul}, {"MvBackward0", Matmul},
    {"NativeLayerNormBackward0", LayerNorm}, {"SoftmaxBackward0", Softmax}, {"LogSoftmaxBackward0", CrossEntropy},
    {"NllLossBackward0", CrossEntropy}, {"FusedRmsNormBackward0", RmsNorm},
}};

std::optional<KernelType> scope_type(std::string_view name) {
    if (name == "autokernel::fused_mlp") return FusedMlp;
    if (name == "autokernel::rotary_embedding") return RotaryEmbedding;
    return std::nullopt;
}

std::optional<KernelType> module_type(std::string_view path) {
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::string_view part = path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (part == "mlp") return FusedMlp;
        if (part == "rotary_emb" || part == "rotary" || part == "rope") return RotaryEmbedding;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(ClassifiedBy by) {
    switch (by) {
    case ClassifiedBy::Scope: return "scope";
    case ClassifiedBy::Op: return "op";
    case ClassifiedBy::ModulePath: return "module";
    case ClassifiedBy::KernelName: return "kernel name";
    case ClassifiedBy::None: break;
    }
    return "none";
}

std::string type_label(std::optional<KernelType> type) { return type ? std::string(to_string(*type)) : "other"; }

std::optional<KernelType> classify_op(std::string_view name) {
    if (const auto scope = scope_type(name)) return scope;
    constexpr std::string_view kAutograd = "autograd::engine::evaluate_function: ";
    if (name.starts_with(kAutograd)) {
        name.remove_prefix(kAutograd.size());
        if (name.starts_with("ScaledDotProduct")) return FlashAttention;
    } else if (name.starts_with("aten::")) {
        name.remove_prefix(6);
    } else {
        return std::nullopt;
    }
    for (const auto& [op, type] : kOps)
        if (op == name) return type;
    return std::nullopt;
}

std::optional<KernelType> classify_kernel_name(std::string_view kernel_name) {
    const std::string n = lower(kernel_name);
    if (has(n, "nccl")) return std::nullopt;  // collectives (AllReduce) are communication, not a reduce kernel
    // Inductor's kernels are named after the ops they fuse (triton_poi_fused__scaled_dot_product_flash_
    // attention_add_mul_... is a pointwise prologue, not attention): the kind prefix decides first.
    if (n.starts_with("triton_poi_")) {
        if (has(n, "silu") && has(n, "mul")) return FusedMlp;
        return std::nullopt;
    }
    if (n.starts_with("triton_red_") || n.starts_with("triton_per_")) {
        if (has(n, "nll_loss") || has(n, "log_softmax")) return CrossEntropy;
        if (has(n, "softmax")) return Softmax;
        if (has(n, "rsqrt") && has(n, "mean") && has(n, "pow")) return RmsNorm;
        if (has(n, "layer_norm")) return LayerNorm;
        return Reduce;
    }
    if (n.starts_with("triton_tem_"))
        return has(n, "attention") || has(n, "sdpa") || has(n, "flex") ? FlashAttention : Matmul;
    // Attention first: cuDNN's and CUTLASS's attention kernels also say cudnn / cutlass / gemm.
    if (has(n, "flash") || has(n, "fmha") || has(n, "sdpa") || has(n, "attention") || has(n, "attn_fwd") ||
        has(n, "attn_bwd"))
        return FlashAttention;
    if (has(n, "nll_loss") || has(n, "cross_entropy") || has(n, "logsoftmax") || has(n, "log_softmax"))
        return CrossEntropy;
    if (has(n, "softmax")) return Softmax;
    if (has(n, "rms_norm") || has(n, "rmsnorm")) return RmsNorm;
    if (has(n, "layer_norm") || has(n, "layernorm")) return LayerNorm;
    if (has(n, "rotary") || n.starts_with("rope") || has(n, "_rope") || has(n, "rope_")) return RotaryEmbedding;
    if (has(n, "swiglu") || (has(n, "silu") && has(n, "mul") && has(n, "fused"))) return FusedMlp;
    if (n.starts_with("nvjet") || has(n, "gemm") || has(n, "xmma") || has(n, "cutlass") || has(n, "cublas") ||
        has(n, "gemv") || has(n, "splitkreduce") || has(n, "matmul") || has(n, "wgmma"))
        return Matmul;
    if (has(n, "reduce_kernel") || has(n, "reduce_") || has(n, "_reduce"))
        return Reduce;
    return std::nullopt;
}

Classification classify(std::string_view kernel_name, const OpCall* op, std::string_view model) {
    if (op) {
        for (const std::string& name : op->stack)
            if (const auto t = scope_type(name)) return {t, ClassifiedBy::Scope, "scope " + name};
        if (const auto t = scope_type(op->name)) return {t, ClassifiedBy::Scope, "scope " + op->name};
        if (model.starts_with("llama"))
            if (const auto t = module_type(op->module_path))
                return {t, ClassifiedBy::ModulePath, "module " + op->module_path};
        for (const std::string& name : op->stack)
            if (const auto t = classify_op(name)) return {t, ClassifiedBy::Op, "op " + name};
        if (const auto t = classify_op(op->name)) return {t, ClassifiedBy::Op, "op " + op->name};
    }
    if (const auto t = classify_kernel_name(kernel_name))
        return {t, ClassifiedBy::KernelName, "kernel name"};
    return {std::nullopt, ClassifiedBy::None, ""};
}

}  // namespace ak::profile
