#pragma once
// One factory per kernel-type adapter (adapters/<type>_adapter.cpp). adapter_registry.cpp calls them
// to build the table behind adapter_for(); tests may build an adapter directly.
//
// Conventions every adapter follows (see each file for the type's details):
//   - make_inputs: Regular = well-scaled random data; Adversarial = type-specific hard numerics that
//     stay finite in the dtype. Weights and biases are never all ones or zeros. Inputs are created on
//     the generator's device when it is a CUDA generator; with a CPU generator they are drawn on the
//     CPU and moved to the current CUDA device (to the CPU when there is no GPU: the CPU tests).
//   - reference: the contract's formula in fp64 for fp32 problems and in fp32 for fp16 / bf16
//     problems, never TF32.
//   - baseline: the strongest PyTorch implementation in the problem's dtype.
//   - inputs may hold more tensors than the candidate sees: fused_mlp's inputs[4] is [w_gate; w_up]
//     (w_gate and w_up are views into it) for the gate/up library GEMM, rotary's inputs[3..4] are the
//     full-width cos/sin tables the eager baseline uses. Both are prepared here, outside any timing.
#include "engine/evaluator/kernel_adapter.h"

#include <memory>
#include <string>
#include <vector>

namespace ak::eval {

std::unique_ptr<KernelAdapter> make_matmul_adapter();
std::unique_ptr<KernelAdapter> make_softmax_adapter();
std::unique_ptr<KernelAdapter> make_layernorm_adapter();
std::unique_ptr<KernelAdapter> make_rmsnorm_adapter();
std::unique_ptr<KernelAdapter> make_flash_attention_adapter();
std::unique_ptr<KernelAdapter> make_fused_mlp_adapter();
std::unique_ptr<KernelAdapter> make_cross_entropy_adapter();
std::unique_ptr<KernelAdapter> make_rotary_embedding_adapter();
std::unique_ptr<KernelAdapter> make_reduce_adapter();

// The adapter of `type`, freshly made (adapter_registry.cpp keeps one of each).
std::unique_ptr<KernelAdapter> make_adapter(KernelType type);

// The backend at::scaled_dot_product_attention picks for these flash_attention inputs ("flash",
// "efficient", "cudnn", "math", ...), for reports: the flash_attention baseline lets torch choose (on
// an H200 with torch 2.11: "cudnn" for fp16 / bf16, "efficient" for fp32).
std::string sdpa_backend_name(const Problem& p, const std::vector<at::Tensor>& inputs);

// Epsilons the norm adapters pass to candidates, the reference and the baseline.
inline constexpr double kLayerNormEps = 1e-5;
inline constexpr double kRmsNormEps = 1e-6;

}  // namespace ak::eval
