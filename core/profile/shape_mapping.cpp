#include "profile/shape_mapping.h"

#include "util/error.h"

#include <algorithm>

namespace ak::profile {
namespace {

using enum KernelType;

std::string_view short_name(std::string_view op) {
    if (op.starts_with("aten::")) op.remove_prefix(6);
    return op;
}

const TensorArg* tensor(const OpCall& op, std::size_t index) {
    if (index >= op.inputs.size() || !op.inputs[index].is_tensor()) return nullptr;
    return &op.inputs[index];
}

// The recorded number of a non-tensor argument.
std::optional<double> scalar(const OpCall& op, std::size_t index) {
    if (index >= op.inputs.size() || op.inputs[index].is_tensor() || op.inputs[index].values.empty()) return std::nullopt;
    return op.inputs[index].values.front();
}

std::optional<DType> first_float_dtype(const OpCall& op) {
    for (const TensorArg& a : op.inputs)
        if (a.is_tensor())
            if (const auto d = parse_kernel_dtype(a.dtype)) return d;
    return std::nullopt;
}

// rows = product of all but the last dim, cols = the last dim.
std::optional<Shape> rows_cols(const TensorArg* x) {
    if (!x || x->sizes.empty()) return std::nullopt;
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < x->sizes.size(); ++i) rows *= x->sizes[i];
    return Shape{{rows, x->sizes.back()}};
}

std::optional<Shape> gemm(const TensorArg* a, const TensorArg* b, bool b_transposed) {
    if (!a || !b || a->sizes.size() < 2 || b->sizes.size() != 2) return std::nullopt;
    std::int64_t m = 1;
    for (std::size_t i = 0; i + 1 < a->sizes.size(); ++i) m *= a->sizes[i];
    const std::int64_t k = a->sizes.back();
    const std::int64_t n = b_transposed ? b->sizes[0] : b->sizes[1];
    const std::int64_t kb = b_transposed ? b->sizes[1] : b->sizes[0];
    if (kb != k) return std::nullopt;
    return Shape{{m, n, k}};
}

// [b, M, K] . [b, K, N] (any number of batch dims): one of the problems.
std::optional<Shape> batched_gemm(const TensorArg* a, const TensorArg* b) {
    if (!a || !b || a->sizes.size() < 3 || b->sizes.size() < 3) return std::nullopt;
    const auto& as = a->sizes;
    const auto& bs = b->sizes;
    if (as[as.size() - 1] != bs[bs.size() - 2]) return std::nullopt;
    return Shape{{as[as.size() - 2], bs[bs.size() - 1], as[as.size() - 1]}};
}

std::optional<Shape> matmul_shape(std::string_view name, const OpCall& op) {
    if (name == "mm") return gemm(tensor(op, 0), tensor(op, 1), false);
    if (name == "addmm" || name == "_addmm_activation") return gemm(tensor(op, 1), tensor(op, 2), false);
    if (name == "linear") {
        const TensorArg* x = tensor(op, 0);
        if (x && x->sizes.size() == 1) return std::nullopt;
        return gemm(x, tensor(op, 1), true);
    }
    if (name == "bmm") return batched_gemm(tensor(op, 0), tensor(op, 1));
    if (name == "baddbmm") return batched_gemm(tensor(op, 1), tensor(op, 2));
    if (name == "matmul") {
        const TensorArg* b = tensor(op, 1);
        if (b && b->sizes.size() == 2) return gemm(tensor(op, 0), b, false);
        return batched_gemm(tensor(op, 0), b);
    }
    return std::nullopt;
}

struct AttentionOp {
    std::string_view name;
    bool bshd;               // q is [B, S, H, D] (else [B, H, S, D])
    std::size_t causal_arg;
    bool mask_type;          // the argument is custom_mask_type (causal when != 0)
};

constexpr AttentionOp kAttentionOps[] = {
    {"scaled_dot_product_attention", false, 5, false},
    {"_scaled_dot_product_attention_math", false, 5, false},
    {"_scaled_dot_product_flash_attention", false, 4, false},
    {"_scaled_dot_product_efficient_attention", false, 6, false},
    {"_scaled_dot_product_cudnn_attention", false, 6, false},
    {"_flash_attention_forward", true, 8, false},
    {"_efficient_attention_forward", true, 9, true},
    {"_cudnn_attention_forward", false, 10, false},
};

std::optional<Shape> attention_shape(std::string_view name, const OpCall& op) {
    for (const AttentionOp& a : kAttentionOps) {
        if (a.name != name) continue;
        const TensorArg* q = tensor(op, 0);
        if (!q || q->sizes.size() != 4) return std::nullopt;
        const auto& s = q->sizes;
        const auto flag = scalar(op, a.causal_arg);
        const std::int64_t causal = flag && *flag != 0 ? 1 : 0;
        if (a.bshd) return Shape{{s[0], s[2], s[1], s[3], causal}};
        return Shape{{s[0], s[1], s[2], s[3], causal}};
    }
    return std::nullopt;
}

// sum / mean over the last dim, over all dims, or over one other dim d (rows = the other elements).
std::optional<Shape> reduce_shape(const OpCall& op) {
    const TensorArg* x = tensor(op, 0);
    if (!x || x->sizes.empty()) return std::nullopt;
    const auto rank = static_cast<std::int64_t>(x->sizes.size());
    std::int64_t total = 1;
    for (const auto v : x->sizes) total *= v;
    const TensorArg* dims = op.inputs.size() > 1 && !op.inputs[1].is_tensor() ? &op.inputs[1] : nullptr;
    if (!dims || dims->values.empty()) return Shape{{1, total}};  // no dim list: every element in one row
    if (dims->values.size() != 1) return std::nullopt;
    auto d = static_cast<std::int64_t>(dims->values.front());
    if (d < 0) d += rank;
    if (d < 0 || d >= rank || x->sizes[d] == 0) return std::nullopt;
    if (d == rank - 1) return rows_cols(x);
    return Shape{{total / x->sizes[d], x->sizes[d]}};
}

std::optional<Shape> fused_mlp_shape(std::string_view name, const OpCall& op) {
    if (name != "linear" && name != "mm" && name != "addmm" && name != "matmul") return std::nullopt;
    const auto s = matmul_shape(name, op);
    if (!s) return std::nullopt;
    const std::int64_t n = s->dims[1], k = s->dims[2];
    return Shape{{s->dims[0], std::min(n, k), std::max(n, k)}};
}

std::optional<Shape> shape_for(KernelType type, const OpCall& op) {
    const std::string_view name = short_name(op.name);
    switch (type) {
    case Matmul: return matmul_shape(name, op);
    case FlashAttention: return attention_shape(name, op);
    case Softmax:
        if (name == "softmax" || name == "_softmax" || name == "_safe_softmax") {
            // Over the last dim only (dim is argument 1 when recorded).
            const TensorArg* x = tensor(op, 0);
            if (const auto d = scalar(op, 1); d && x && *d != -1 && *d != double(x->sizes.size()) - 1)
                return std::nullopt;
            return rows_cols(x);
        }
        return std::nullopt;
    case LayerNorm:
        if (name == "layer_norm" || name == "native_layer_norm") return rows_cols(tensor(op, 0));
        return std::nullopt;
    case RmsNorm:
        if (name == "rms_norm" || name == "_fused_rms_norm") return rows_cols(tensor(op, 0));
        return std::nullopt;
    case CrossEntropy:
        if (name == "cross_entropy_loss" || name == "nll_loss" || name == "nll_loss_nd" || name == "nll_loss_forward" ||
            name == "log_softmax" || name == "_log_softmax")
            return rows_cols(tensor(op, 0));
        return std::nullopt;
    case Reduce:
        if (name == "sum" || name == "mean") return reduce_shape(op);
        return std::nullopt;
    case FusedMlp: return fused_mlp_shape(name, op);
    case RotaryEmbedding: {
        const TensorArg* x = tensor(op, 0);
        if (!x || x->sizes.size() != 4) return std::nullopt;
        return Shape{x->sizes};
    }
    }
    return std::nullopt;
}

std::string sizes_text(const std::vector<std::int64_t>& sizes) {
    std::string out = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? "," : "") + std::to_string(sizes[i]);
    return out + "]";
}

}  // namespace

std::optional<MappedShape> map_shape(KernelType type, const OpCall& op) {
    const auto shape = shape_for(type, op);
    const auto dtype = first_float_dtype(op);
    if (!shape || !dtype) return std::nullopt;
    try {
        check_shape(type, *shape);
    } catch (const Error&) {
        return std::nullopt;
    }
    return MappedShape{*shape, *dtype};
}

std::string input_shapes_text(const OpCall& op) {
    std::string out;
    std::string dtype;
    for (const TensorArg& a : op.inputs) {
        if (!a.is_tensor()) continue;
        if (!out.empty()) out += " x ";
        out += sizes_text(a.sizes);
        if (dtype.empty()) dtype = a.dtype;
    }
    if (!dtype.empty()) out += " " + dtype;
    return out;
}

}  // namespace ak::profile
