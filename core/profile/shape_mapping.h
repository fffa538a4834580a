#pragma once
// From an ATen op's input shapes to the kernel type's problem shape (engine/kernel_type.h), one explicit
// rule per op, so a session made from a profile is timed at the model's own shapes:
//
//   matmul     aten::mm       A[M,K] . B[K,N]                    -> {M, N, K}
//              aten::addmm    bias, A[M,K], B[K,N]               -> {M, N, K}
//              aten::matmul   A[...,M,K] . B[...,K,N] (or B[K,N]) -> {prod(batch)*M, N, K} when B is 2-D,
//                                                                   else {M, N, K} per batch (see bmm)
//              aten::bmm / baddbmm  [b,M,K] . [b,K,N]            -> {M, N, K} (one of b problems)
//              aten::linear   x[...,K], weight[N,K]              -> {prod(x[:-1]), N, K}
//   softmax    aten::softmax/_softmax x[..., C] over dim -1      -> {prod(x[:-1]), C}
//   layernorm  aten::layer_norm/native_layer_norm x[...,H]       -> {prod(x[:-1]), H}  (normalized over H)
//   rmsnorm    aten::rms_norm/_fused_rms_norm x[...,H]           -> {prod(x[:-1]), H}
//   flash_attention  q[B,H,S,D] of aten::scaled_dot_product_attention and its _scaled_dot_product_*
//                    variants, q[B,S,H,D] of _flash_attention_forward / _efficient_attention_forward (the
//                    backends' own layout) -> {B, H, S, D, causal}; causal from the recorded is_causal
//                    argument (index 5 of scaled_dot_product_attention, 4 of the _flash_ variant, 6 of the
//                    _efficient_ and _cudnn_ variants, 8 of _flash_attention_forward, 10 of
//                    _cudnn_attention_forward; custom_mask_type != 0, index 9, of _efficient_attention_forward),
//                    0 when not recorded
//   cross_entropy    aten::cross_entropy_loss/nll_loss/log_softmax logits[N,C] or [B,S,C] -> {prod(x[:-1]), C}
//   reduce     aten::sum/mean x[..., C] with dim list [-1]          -> {prod(x[:-1]), C}; over another single
//              dim d: {prod(x)/x[d], x[d]} (the rows are the other elements); without a recorded dim list
//              (a full reduction): {1, prod(x)}; several dims: no shape
//   fused_mlp  a GEMM inside the autokernel::fused_mlp scope: x[...,a], weight[b,a] -> {rows, min(a,b),
//              max(a,b)} (M, D, F: the SwiGLU hidden size F is the larger dim in every LLaMA MLP)
//   rotary_embedding  an op inside autokernel::rotary_embedding with a 4-D first input [B,H,S,D] -> {B,H,S,D}
//
// Anything else maps to nullopt (the kernel's time still counts for its type; it just gives no shape).
#include "engine/kernel_type.h"
#include "profile/profile.h"

#include <optional>
#include <string>

namespace ak::profile {

struct MappedShape {
    Shape shape;
    DType dtype = DType::fp16;   // the op's first floating-point tensor input
};

// The problem shape of `type` for this op call; nullopt when the op or its inputs do not fit a rule
// (also for shapes check_shape rejects, e.g. above the contract's 2^31 elements).
std::optional<MappedShape> map_shape(KernelType type, const OpCall& op);

// "[2048,768] x [768,768] bf16": the op's tensor inputs, for reports and grouping.
std::string input_shapes_text(const OpCall& op);

}  // namespace ak::profile
