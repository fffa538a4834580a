#pragma once
// Checking what a candidate wrote, on the GPU with ATen:
//   - every output and every workspace lives in a larger byte buffer between two 1 MiB guard regions
//     filled with a random pattern (drawn once per process): any change there is an out-of-bounds write,
//     found also for strided strays far beyond the end;
//   - before every launch, checked or timed, the output is poisoned with a NaN of a fresh random payload
//     (poison.h), so an element the candidate never writes stays that exact pattern and fails, and no
//     launch can tell from its buffer whether it will be looked at;
//   - every element is compared with the reference: |out - ref| <= atol + rtol * |ref|, NaN and Inf never
//     pass; then the whole output: ||out - ref|| / ||ref|| <= norm_rtol (tolerance.h);
//   - inputs are compared bit for bit with a copy taken before the launch: a candidate must not write
//     into its (const) inputs;
//   - determinism compares outputs bit for bit.
// One host synchronisation per check, none per element.
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/poison.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ak::eval {

inline constexpr std::int64_t kGuardBytes = std::int64_t(1) << 20;

// A tensor the candidate writes, with guard regions on both sides.
struct GuardedBuffer {
    at::Tensor buffer;   // uint8: [front guard | payload | back guard]
    at::Tensor payload;  // the tensor the candidate gets (a view into buffer, 1 MiB aligned)
    std::int64_t payload_bytes = 0;
    std::string name;    // "the output", "the workspace"
};

// Allocates a guarded buffer for `shape` x `dtype` on the current CUDA device and arms its guards.
GuardedBuffer make_guarded(const std::vector<std::int64_t>& shape, at::ScalarType dtype, std::string name);

// (Re)writes both guards with the guard pattern (asynchronous).
void arm_guards(const GuardedBuffer& b);

// nullopt when both guards are intact; otherwise which guard of which buffer, how many bytes changed and
// where the nearest one is ("out-of-bounds write: 12 bytes of the 1048576-byte guard region after the
// output were overwritten, the first 0 bytes past its end ..."). Synchronises.
std::optional<std::string> check_guards(const GuardedBuffer& b);

// The poison format of an output dtype (Half, BFloat16, Float). Throws Error(Internal) for others.
PoisonFormat poison_format(at::ScalarType dtype);

// Fills `bytes` bytes of `t` (a contiguous tensor) from its start with `pattern` (asynchronous).
// `bytes` must be a multiple of the pattern's width.
void fill_pattern(const at::Tensor& t, std::int64_t bytes, const PoisonPattern& pattern);

struct Comparison {
    bool passed = false;
    double max_abs_err = 0;    // over finite elements
    double norm_rel_err = 0;   // ||out - ref|| / ||ref|| (inf when an element is not finite)
    std::int64_t elements = 0;
    std::int64_t bad = 0;        // outside the tolerance, or not finite
    std::int64_t unwritten = 0;  // still the launch's poison pattern
    std::int64_t non_finite = 0; // NaN or Inf (includes unwritten)
    std::string detail;          // empty when passed; otherwise the first failure and the error summary
};

// Compares `out` (the dtype under test) with `ref` (fp32 or fp64, same number of elements): the
// elementwise test, then the norm gate. `poison` is the pattern `out` was filled with before the launch
// (elements still equal to it count as unwritten); null: none.
// Throws Error(Internal) when the reference itself is not finite (the adapter's inputs overflowed).
Comparison compare_with_reference(const at::Tensor& out, const at::Tensor& ref, const Tolerance& tol,
                                  const PoisonPattern* poison);

// nullopt when `a` and `b` are bitwise identical; otherwise how many elements differ and the first
// ("12 of 4096 elements differ, first at [3, 17]: 0.12500 vs 0.12494"). Synchronises.
std::optional<std::string> bitwise_difference(const at::Tensor& a, const at::Tensor& b);

// Copies of a case's inputs taken before a launch.
struct InputSnapshot {
    std::vector<at::Tensor> copies;
};
InputSnapshot snapshot_inputs(const std::vector<at::Tensor>& inputs);

// nullopt when every input still equals its snapshot bit for bit; otherwise which one changed
// ("the candidate wrote into its input 'x', which is const: 4096 of 16777216 elements differ, ...").
std::optional<std::string> changed_input(const InputSnapshot& before, const std::vector<at::Tensor>& inputs,
                                         const std::vector<std::string>& names);

}  // namespace ak::eval
