#pragma once
// The nine kernel types: names, shape conventions, default size sets, FLOP and byte counts for the
// roofline, and tolerances. Pure C++ (no LibTorch, no CUDA): the CLI, the agent loop and the GUI use it.
#include "analysis/dtype.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

enum class KernelType {
    Matmul,
    Softmax,
    LayerNorm,
    RmsNorm,
    FlashAttention,
    FusedMlp,
    CrossEntropy,
    RotaryEmbedding,
    Reduce,
};

// Element types come from analysis/dtype.h (ak::DType). Kernels are compiled and checked in three of
// them: fp16, bf16 and fp32 (tf32 and fp8 are roofline-only).
std::string_view to_string(KernelType t);          // "matmul", "softmax", "layernorm", "rmsnorm",
                                                   // "flash_attention", "fused_mlp", "cross_entropy",
                                                   // "rotary_embedding", "reduce"
std::optional<KernelType> parse_kernel_type(std::string_view s);  // also accepts "rotary"
std::span<const KernelType> all_kernel_types();
std::span<const DType> kernel_dtypes();            // fp16, bf16, fp32 (the correctness default)
bool is_kernel_dtype(DType d);                     // one of kernel_dtypes()
// "fp16", "bf16", "fp32" and the aliases parse_dtype knows; nullopt for anything else (also tf32, fp8).
std::optional<DType> parse_kernel_dtype(std::string_view s);
int dtype_bytes(DType d);                          // storage bytes: fp16/bf16 2, fp32/tf32 4, fp8 1

// A problem shape; the meaning of each dimension depends on the type:
//   matmul          {M, N, K}
//   softmax, layernorm, rmsnorm, cross_entropy, reduce   {rows, cols}
//   flash_attention {batch, heads, seq, head_dim, causal(0|1)}
//   fused_mlp       {M, D, F}      x[M,D], w_gate/w_up[F,D], w_down[D,F]
//   rotary_embedding {batch, heads, seq, head_dim}
struct Shape {
    std::vector<int64_t> dims;
    friend bool operator==(const Shape&, const Shape&) = default;
};
std::string to_string(const Shape& s);              // "4096x8192", flash: "2x32x1024x64 causal"
// Parses "4096x8192" (or with ',' between several shapes in parse_shape_list). Throws Error(Usage)
// naming the problem (wrong number of dims for the type, non-positive, not a number).
// flash_attention accepts "2x32x1024x64", "2x32x1024x64 causal" (or ":causal"), "... noncausal" and
// "2x32x1024x64x1"; without a flag it is not causal, so parse_shape(t, to_string(s)) == s.
Shape parse_shape(KernelType t, std::string_view text);
std::vector<Shape> parse_shape_list(KernelType t, std::string_view text);
// Throws Error(Usage) when `s` is not a valid shape of `t` (dimension count, positive sizes, causal flag
// 0|1, even rotary head_dim, every tensor below 2^31 elements as the contract's int sizes require).
void check_shape(KernelType t, const Shape& s);

struct KernelTypeInfo {
    KernelType type;
    std::string_view name;
    std::string_view description;            // one line
    std::vector<std::string_view> shape_dims;  // names of the dims, e.g. {"rows", "cols"}
    Shape smoke;                             // stage 1
    std::vector<Shape> sweep;                // stage 2 (each with every dtype)
    std::vector<Shape> edge;                 // stage 5: sizes that are not powers of two
    Shape large;                             // AutoKernel's primary ("large") size: timed by default
    Shape larger;                            // one larger size: timed by default as well
    bool compute_bound_expected;             // matmul, flash_attention, fused_mlp
};

const KernelTypeInfo& kernel_type_info(KernelType t);

// Work and minimal memory traffic for the roofline (each input read once, each output written once).
double flop_count(KernelType t, const Shape& s);
double min_bytes(KernelType t, const Shape& s, DType d);

// Tolerance per dtype: fp16 1e-2, bf16 2e-2, fp32 1e-4 (atol = rtol). Throws Error(Usage) for tf32/fp8.
double default_tolerance(DType d);

}  // namespace ak
