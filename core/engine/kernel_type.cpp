#include "engine/kernel_type.h"

#include "util/error.h"
#include "util/text.h"

#include <array>
#include <cctype>
#include <limits>

namespace ak {

namespace {

constexpr std::array<KernelType, 9> kAllTypes = {
    KernelType::Matmul,         KernelType::Softmax,  KernelType::LayerNorm,
    KernelType::RmsNorm,        KernelType::FlashAttention, KernelType::FusedMlp,
    KernelType::CrossEntropy,   KernelType::RotaryEmbedding, KernelType::Reduce,
};

constexpr std::array<DType, 3> kKernelDtypes = {DType::fp16, DType::bf16, DType::fp32};

Shape dims(std::initializer_list<int64_t> values) { return Shape{std::vector<int64_t>(values)}; }

// Attention shapes: batch, heads, seq, head_dim, causal.
Shape attention(int64_t b, int64_t h, int64_t s, int64_t d, bool causal) {
    return dims({b, h, s, d, causal ? 1 : 0});
}

std::vector<KernelTypeInfo> build_table() {
    std::vector<KernelTypeInfo> t;
    t.push_back({KernelType::Matmul, "matmul", "C[M,N] = A[M,K] @ B[K,N], fp32 accumulation (no TF32)",
                 {"M", "N", "K"},
                 dims({256, 256, 256}),
                 {dims({512, 512, 512}), dims({1024, 768, 512}), dims({64, 1024, 2048}), dims({2048, 256, 1024})},
                 {dims({1537, 1023, 4097}), dims({1023, 4097, 1537}), dims({127, 257, 1023}),
                  dims({1, 7, 33}), dims({33, 1, 7}), dims({7, 33, 1}), dims({63, 127, 2})},
                 dims({2048, 2048, 2048}),
                 dims({4096, 11008, 4096}),
                 true});
    t.push_back({KernelType::Softmax, "softmax", "y[r,:] = softmax(x[r,:]) over the last dimension",
                 {"rows", "cols"},
                 dims({64, 1024}),
                 {dims({256, 4096}), dims({1024, 1024}), dims({128, 32000}), dims({2048, 512})},
                 {dims({1023, 4097}), dims({4097, 1537}), dims({255, 50257}), dims({1, 1023}),
                  dims({3, 1}), dims({5, 2}), dims({17, 7}), dims({9, 33}), dims({31, 63}), dims({7, 127})},
                 dims({4096, 4096}),
                 dims({4096, 50257}),
                 false});
    t.push_back({KernelType::LayerNorm, "layernorm", "y = (x - mean) / sqrt(var + eps) * weight + bias per row",
                 {"rows", "cols"},
                 dims({64, 1024}),
                 {dims({256, 2048}), dims({1024, 4096}), dims({2048, 768}), dims({512, 8192})},
                 {dims({1023, 4097}), dims({4097, 1537}), dims({1537, 1023}),
                  dims({3, 1}), dims({5, 2}), dims({17, 7}), dims({9, 33}), dims({31, 63}), dims({7, 127})},
                 dims({4096, 2048}),
                 dims({8192, 4096}),
                 false});
    t.push_back({KernelType::RmsNorm, "rmsnorm", "y = x / sqrt(mean(x^2) + eps) * weight per row",
                 {"rows", "cols"},
                 dims({64, 1024}),
                 {dims({256, 4096}), dims({1024, 2048}), dims({2048, 768}), dims({512, 8192})},
                 {dims({1023, 4097}), dims({4097, 1537}), dims({1537, 1023}),
                  dims({3, 1}), dims({5, 2}), dims({17, 7}), dims({9, 33}), dims({31, 63}), dims({7, 127})},
                 dims({4096, 4096}),
                 dims({4096, 8192}),
                 false});
    t.push_back({KernelType::FlashAttention, "flash_attention",
                 "o = softmax(q k^T / sqrt(d) [causal mask]) v over [batch, heads, seq, head_dim]",
                 {"batch", "heads", "seq", "head_dim", "causal"},
                 attention(1, 2, 128, 64, false),
                 {attention(1, 4, 256, 64, true), attention(2, 8, 512, 64, false), attention(1, 8, 512, 128, true),
                  attention(2, 4, 1024, 128, false)},
                 {attention(1, 4, 1023, 64, true), attention(1, 4, 1023, 128, false), attention(2, 3, 257, 128, true),
                  attention(3, 1, 1, 64, true), attention(1, 2, 7, 128, false), attention(3, 1, 33, 64, true),
                  attention(1, 3, 63, 128, true)},
                 attention(2, 32, 1024, 64, true),
                 attention(1, 32, 4096, 64, true),
                 true});
    t.push_back({KernelType::FusedMlp, "fused_mlp", "SwiGLU MLP: (silu(x W_gate^T) * (x W_up^T)) W_down^T",
                 {"M", "D", "F"},
                 dims({64, 256, 512}),
                 {dims({256, 512, 1376}), dims({512, 1024, 2752}), dims({128, 2048, 5504})},
                 {dims({1023, 512, 1537}), dims({257, 1024, 2753}), dims({1, 64, 33}), dims({7, 33, 63}), dims({33, 127, 7})},
                 dims({2048, 2048, 5504}),
                 dims({4096, 4096, 11008}),
                 true});
    t.push_back({KernelType::CrossEntropy, "cross_entropy",
                 "mean over rows of logsumexp(logits[r,:]) - logits[r, target[r]]",
                 {"rows", "cols"},
                 dims({64, 1000}),
                 {dims({256, 32000}), dims({1024, 4096}), dims({128, 50257})},
                 {dims({1023, 4097}), dims({4097, 1537}), dims({255, 50257}),
                  dims({3, 1}), dims({5, 2}), dims({17, 7}), dims({9, 33}), dims({31, 63}), dims({7, 127})},
                 dims({4096, 32000}),
                 dims({8192, 50257}),
                 false});
    t.push_back({KernelType::RotaryEmbedding, "rotary_embedding",
                 "rotate-half rotary position embedding over [batch, heads, seq, head_dim]",
                 {"batch", "heads", "seq", "head_dim"},
                 dims({1, 2, 128, 64}),
                 {dims({1, 8, 512, 128}), dims({2, 4, 256, 64}), dims({1, 32, 1024, 128})},
                 {dims({1, 3, 1023, 128}), dims({2, 5, 257, 64}), dims({1, 1, 4097, 128}), dims({3, 1, 1, 64}),
                  dims({3, 1, 7, 128}), dims({1, 3, 33, 64})},
                 dims({2, 32, 1024, 128}),
                 dims({2, 32, 2048, 128}),
                 false});
    t.push_back({KernelType::Reduce, "reduce", "y[r] = sum(x[r,:]) over the last dimension, fp32 accumulation",
                 {"rows", "cols"},
                 dims({64, 1024}),
                 {dims({256, 4096}), dims({1024, 8192}), dims({8192, 256}), dims({16, 65536})},
                 {dims({1023, 4097}), dims({4097, 1537}), dims({1537, 1023}),
                  dims({3, 1}), dims({5, 2}), dims({17, 7}), dims({9, 33}), dims({31, 63}), dims({7, 127})},
                 dims({8192, 8192}),
                 dims({8192, 32768}),
                 false});
    return t;
}

const std::vector<KernelTypeInfo>& table() {
    static const std::vector<KernelTypeInfo> t = build_table();
    return t;
}

double d(const Shape& s, std::size_t i) { return static_cast<double>(s.dims.at(i)); }

std::string shape_error_prefix(KernelType t, const Shape& s) {
    return "shape " + to_string(s) + " for " + std::string(to_string(t)) + ": ";
}

}  // namespace

std::string_view to_string(KernelType t) { return kernel_type_info(t).name; }

std::optional<KernelType> parse_kernel_type(std::string_view s) {
    for (const auto& info : table())
        if (info.name == s) return info.type;
    if (s == "rotary") return KernelType::RotaryEmbedding;
    return std::nullopt;
}

std::span<const KernelType> all_kernel_types() { return kAllTypes; }

std::span<const DType> kernel_dtypes() { return kKernelDtypes; }

bool is_kernel_dtype(DType d) { return d == DType::fp16 || d == DType::bf16 || d == DType::fp32; }

std::optional<DType> parse_kernel_dtype(std::string_view s) {
    const auto d = parse_dtype(s);
    if (d && is_kernel_dtype(*d)) return d;
    return std::nullopt;
}

int dtype_bytes(DType d) {
    switch (d) {
    case DType::fp16:
    case DType::bf16: return 2;
    case DType::fp32:
    case DType::tf32: return 4;
    case DType::fp8: return 1;
    }
    return 0;
}

std::string to_string(const Shape& s) {
    std::string out;
    const bool attention = s.dims.size() == 5;
    const std::size_t n = attention ? 4 : s.dims.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i) out += 'x';
        out += std::to_string(s.dims[i]);
    }
    if (attention && s.dims[4] == 1) out += " causal";
    return out;
}

void check_shape(KernelType t, const Shape& s) {
    const auto& info = kernel_type_info(t);
    if (s.dims.size() != info.shape_dims.size()) {
        std::string names;
        for (auto n : info.shape_dims) names += (names.empty() ? "" : "x") + std::string(n);
        throw Error(ErrorKind::Usage, shape_error_prefix(t, s) + "expected " + std::to_string(info.shape_dims.size()) +
                                          " dimensions (" + names + "), got " + std::to_string(s.dims.size()));
    }
    const std::size_t sized = t == KernelType::FlashAttention ? 4 : s.dims.size();
    for (std::size_t i = 0; i < sized; ++i)
        if (s.dims[i] <= 0)
            throw Error(ErrorKind::Usage, shape_error_prefix(t, s) + std::string(info.shape_dims[i]) +
                                              " must be positive, got " + std::to_string(s.dims[i]));
    if (t == KernelType::FlashAttention && s.dims[4] != 0 && s.dims[4] != 1)
        throw Error(ErrorKind::Usage, shape_error_prefix(t, s) + "causal must be 0 or 1, got " + std::to_string(s.dims[4]));
    if (t == KernelType::RotaryEmbedding && s.dims[3] % 2 != 0)
        throw Error(ErrorKind::Usage, shape_error_prefix(t, s) + "head_dim must be even, got " + std::to_string(s.dims[3]));

    // The contract passes sizes as int: every tensor must stay below 2^31 elements.
    constexpr double kLimit = static_cast<double>(std::numeric_limits<int32_t>::max());
    auto check_elements = [&](const char* what, double elements) {
        if (elements > kLimit)
            throw Error(ErrorKind::Usage, shape_error_prefix(t, s) + what + " would have " + format_double(elements) +
                                              " elements; the kernel contract allows at most 2^31 - 1");
    };
    switch (t) {
    case KernelType::Matmul:
        check_elements("A", d(s, 0) * d(s, 2));
        check_elements("B", d(s, 2) * d(s, 1));
        check_elements("C", d(s, 0) * d(s, 1));
        break;
    case KernelType::FlashAttention:
    case KernelType::RotaryEmbedding: check_elements("each tensor", d(s, 0) * d(s, 1) * d(s, 2) * d(s, 3)); break;
    case KernelType::FusedMlp:
        check_elements("x", d(s, 0) * d(s, 1));
        check_elements("the weights", d(s, 1) * d(s, 2));
        check_elements("the gate/up workspace", d(s, 0) * 2 * d(s, 2));
        break;
    default: check_elements("the input", d(s, 0) * d(s, 1)); break;
    }
}

Shape parse_shape(KernelType t, std::string_view text) {
    const std::string_view original = text;
    text = trim(text);
    std::optional<int64_t> causal_flag;
    if (t == KernelType::FlashAttention) {
        // Optional trailing flag, separated by whitespace or ':'.
        const auto pos = text.find_first_of(" \t:");
        if (pos != std::string_view::npos) {
            const auto flag = trim(text.substr(pos + 1));
            if (flag == "causal")
                causal_flag = 1;
            else if (flag == "noncausal" || flag == "non-causal")
                causal_flag = 0;
            else
                throw Error(ErrorKind::Usage, "shape '" + std::string(original) +
                                                  "' for flash_attention: unknown flag '" + std::string(flag) +
                                                  "' (use 'causal' or 'noncausal')");
            text = trim(text.substr(0, pos));
        }
    }
    if (text.empty())
        throw Error(ErrorKind::Usage, "empty shape for " + std::string(to_string(t)));
    Shape s;
    for (auto part : split(text, 'x')) {
        const auto value = parse_int(trim(part));
        if (!value)
            throw Error(ErrorKind::Usage, "shape '" + std::string(original) + "' for " + std::string(to_string(t)) +
                                              ": '" + std::string(part) + "' is not a whole number");
        s.dims.push_back(*value);
    }
    if (t == KernelType::FlashAttention) {
        if (s.dims.size() == 4) {
            s.dims.push_back(causal_flag.value_or(0));
        } else if (s.dims.size() == 5 && causal_flag && *causal_flag != s.dims[4]) {
            throw Error(ErrorKind::Usage, "shape '" + std::string(original) +
                                              "' for flash_attention: the causal flag contradicts the fifth dimension");
        }
    }
    check_shape(t, s);
    return s;
}

std::vector<Shape> parse_shape_list(KernelType t, std::string_view text) {
    std::vector<Shape> shapes;
    for (auto part : split(text, ',')) shapes.push_back(parse_shape(t, part));
    return shapes;
}

const KernelTypeInfo& kernel_type_info(KernelType t) {
    const auto& tab = table();
    const auto index = static_cast<std::size_t>(t);
    if (index >= tab.size()) throw Error(ErrorKind::Internal, "unknown kernel type index " + std::to_string(index));
    return tab[index];
}

// Elementwise work counted per element (documented so the numbers can be checked by hand):
//   softmax        5 (max, subtract, exp, sum, divide)
//   layernorm      8 (mean add; variance subtract, square, add; normalise subtract, multiply; affine 2)
//   rmsnorm        4 (square, add, scale, weight)
//   cross_entropy  4 per logit (max, subtract, exp, add) + 3 per row (log, subtract, mean)
//   rotary         3 per element (two multiplies, one add)
//   reduce         1 (add)
//   fused_mlp      three GEMMs (2*M*D*F each) + 5 per hidden element (silu: negate, exp, add, divide; gate*up)
//   flash_attention 4*B*H*S*S*D (QK^T and PV), halved when causal; softmax work is not counted
double flop_count(KernelType t, const Shape& s) {
    check_shape(t, s);
    switch (t) {
    case KernelType::Matmul: return 2.0 * d(s, 0) * d(s, 1) * d(s, 2);
    case KernelType::Softmax: return 5.0 * d(s, 0) * d(s, 1);
    case KernelType::LayerNorm: return 8.0 * d(s, 0) * d(s, 1);
    case KernelType::RmsNorm: return 4.0 * d(s, 0) * d(s, 1);
    case KernelType::FlashAttention: {
        const double full = 4.0 * d(s, 0) * d(s, 1) * d(s, 2) * d(s, 2) * d(s, 3);
        return s.dims[4] == 1 ? full / 2.0 : full;
    }
    case KernelType::FusedMlp: return 2.0 * d(s, 0) * d(s, 1) * d(s, 2) * 3.0 + 5.0 * d(s, 0) * d(s, 2);
    case KernelType::CrossEntropy: return 4.0 * d(s, 0) * d(s, 1) + 3.0 * d(s, 0);
    case KernelType::RotaryEmbedding: return 3.0 * d(s, 0) * d(s, 1) * d(s, 2) * d(s, 3);
    case KernelType::Reduce: return d(s, 0) * d(s, 1);
    }
    return 0;
}

double min_bytes(KernelType t, const Shape& s, DType dt) {
    check_shape(t, s);
    const double e = dtype_bytes(dt);
    switch (t) {
    case KernelType::Matmul: return e * (d(s, 0) * d(s, 2) + d(s, 2) * d(s, 1) + d(s, 0) * d(s, 1));
    case KernelType::Softmax: return e * 2.0 * d(s, 0) * d(s, 1);
    case KernelType::LayerNorm: return e * (2.0 * d(s, 0) * d(s, 1) + 2.0 * d(s, 1));
    case KernelType::RmsNorm: return e * (2.0 * d(s, 0) * d(s, 1) + d(s, 1));
    case KernelType::FlashAttention: return e * 4.0 * d(s, 0) * d(s, 1) * d(s, 2) * d(s, 3);
    case KernelType::FusedMlp:
        // x and out [M, D]; w_gate, w_up [F, D]; w_down [D, F]. The hidden activation can stay on chip.
        return e * (2.0 * d(s, 0) * d(s, 1) + 3.0 * d(s, 1) * d(s, 2));
    case KernelType::CrossEntropy:
        // logits in the dtype, int64 targets, one fp32 loss.
        return e * d(s, 0) * d(s, 1) + 8.0 * d(s, 0) + 4.0;
    case KernelType::RotaryEmbedding:
        // x and y [B, H, S, D]; cos and sin [S, D/2].
        return e * (2.0 * d(s, 0) * d(s, 1) * d(s, 2) * d(s, 3) + d(s, 2) * d(s, 3));
    case KernelType::Reduce: return e * (d(s, 0) * d(s, 1) + d(s, 0));
    }
    return 0;
}

double default_tolerance(DType dt) {
    switch (dt) {
    case DType::fp16: return 1e-2;
    case DType::bf16: return 2e-2;
    case DType::fp32: return 1e-4;
    case DType::tf32:
    case DType::fp8: break;
    }
    throw Error(ErrorKind::Usage, "no kernel tolerance for " + std::string(to_string(dt)) +
                                      ": kernels are checked in fp16, bf16 and fp32");
}

}  // namespace ak
