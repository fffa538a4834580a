#pragma once
// An input of a TorchScript model given on the command line: "8x1024:int64", "2x3:fp16", and for integer
// inputs optionally the range of the random values, "8x1024:int64:0-50257" (low inclusive, high
// exclusive). Torch-free: the profiler turns a spec into a tensor.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ak::profiler {

struct InputSpec {
    std::vector<std::int64_t> sizes;  // at least one dimension, each >= 1 ("1" for a scalar-like input)
    std::string dtype;                // "fp16", "bf16", "fp32", "fp64", "int64", "int32", "int8", "uint8", "bool"
    std::int64_t low = 0;             // integer inputs: values drawn uniformly from [low, high)
    std::int64_t high = 2;
    std::string text;                 // as given
};

// Throws ak::Error(Usage) naming the spec and what is wrong with it (empty, a size that is not a positive
// integer, an unknown dtype with the known ones listed, a range on a floating-point input, low >= high).
InputSpec parse_input_spec(std::string_view text);

bool is_integer_dtype(std::string_view dtype);  // int64, int32, int8, uint8 (bool is not)

// "fp16, bf16, fp32, fp64, int64, int32, int8, uint8, bool"
std::string known_input_dtypes();

}  // namespace ak::profiler
