#pragma once
// Checking what a candidate wrote, on the GPU with ATen:
//   - the output lives in a larger byte buffer between two guard regions filled with a sentinel
//     pattern: any change there is an out-of-bounds write;
//   - before every launch the output is poisoned with 0xFF bytes (NaN in fp16, bf16 and fp32), so an
//     element the candidate never writes stays NaN and fails;
//   - every element is compared with the reference: |out - ref| <= atol + rtol * |ref|, NaN and Inf
//     never pass; the norm-based relative error ||out - ref|| / ||ref|| is reported as well;
//   - determinism compares outputs bit for bit.
// One host synchronisation per check, none per element.
#include "engine/evaluator/kernel_adapter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ak::eval {

inline constexpr std::int64_t kGuardBytes = 4096;

struct GuardedOutput {
    at::Tensor buffer;  // uint8: [front guard | output | back guard]
    at::Tensor output;  // the candidate's output tensor (a view into buffer)
    std::int64_t output_bytes = 0;
};

// Allocates the buffer for an output of `shape` and `dtype` on the current CUDA device.
GuardedOutput make_guarded_output(const std::vector<std::int64_t>& shape, at::ScalarType dtype);

// Fills the output with 0xFF bytes and both guards with the sentinel pattern (asynchronous).
void poison(const GuardedOutput& out);

// nullopt when both guards are intact; otherwise which guard, how many bytes changed and where the
// first one is ("out-of-bounds write: 12 bytes of the 4096-byte guard region after the output were
// overwritten, the first 0 bytes past its end"). Synchronises.
std::optional<std::string> check_guards(const GuardedOutput& out);

struct Comparison {
    bool passed = false;
    double max_abs_err = 0;    // over finite elements
    double norm_rel_err = 0;   // ||out - ref|| / ||ref|| (inf when an element is not finite)
    std::int64_t elements = 0;
    std::int64_t bad = 0;        // outside the tolerance, or not finite
    std::int64_t unwritten = 0;  // still the 0xFF poison
    std::int64_t non_finite = 0; // NaN or Inf (includes unwritten)
    std::string detail;          // empty when passed; otherwise the first failure and the error summary
};

// Compares `out` (the dtype under test) with `ref` (fp32 or fp64, same number of elements).
// Throws Error(Internal) when the reference itself is not finite (the adapter's inputs overflowed).
Comparison compare_with_reference(const at::Tensor& out, const at::Tensor& ref, const Tolerance& tol);

// nullopt when `a` and `b` are bitwise identical; otherwise how many elements differ and the first
// ("12 of 4096 elements differ, first at [3, 17]: 0.12500 vs 0.12494"). Synchronises.
std::optional<std::string> bitwise_difference(const at::Tensor& a, const at::Tensor& b);

}  // namespace ak::eval
