#include "analysis/dtype.h"

namespace ak {

std::string_view to_string(DType t) {
    switch (t) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
    }
    return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
    if (text == "fp32" || text == "float32" || text == "float") return DType::fp32;
    if (text == "tf32") return DType::tf32;
    if (text == "fp16" || text == "float16" || text == "half") return DType::fp16;
    if (text == "bf16" || text == "bfloat16") return DType::bf16;
    if (text == "fp8" || text == "float8" || text == "e4m3" || text == "e5m2") return DType::fp8;
    return std::nullopt;
}

}  // namespace ak
