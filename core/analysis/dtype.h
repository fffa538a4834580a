#pragma once
// The element types whose peak throughput a GPU spec lists.
#include <optional>
#include <string_view>

namespace ak {

// fp32: plain FP32 on the CUDA cores (no tensor cores); tf32: FP32 inputs on tensor cores;
// fp16 / bf16 / fp8: tensor-core peaks with FP32 accumulation.
enum class DType { fp32, tf32, fp16, bf16, fp8 };

std::string_view to_string(DType t);                       // "fp32", "tf32", "fp16", "bf16", "fp8"
std::optional<DType> parse_dtype(std::string_view text);   // the names above; also "float32", "half", "bfloat16"

}  // namespace ak
