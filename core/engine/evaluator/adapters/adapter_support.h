#pragma once
// What the nine kernel-type adapters share: where inputs are drawn and where they end up, the
// reference precision, random building blocks (signed weights, powers of two, row groups), and the
// plumbing that writes a contract.cuh argument struct.
//
// Only the adapters include this header.
#include "engine/evaluator/kernel_adapter.h"
#include "util/error.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ak::eval::adapters {

// ---- problem checks --------------------------------------------------------------------------------

// The dims of p.shape after checking them for `t` (check_shape) and checking that p.dtype is one of
// the three kernel dtypes (Half, BFloat16, Float). Throws Error(Usage) naming the type otherwise.
const std::vector<int64_t>& checked_dims(KernelType t, const Problem& p);

// Precision the references compute in: fp64 for fp32 problems, fp32 for fp16 / bf16 problems.
at::ScalarType reference_dtype(at::ScalarType dtype);

// ---- inputs ----------------------------------------------------------------------------------------

// Random draws from the harness's generator. Draws happen on the generator's device, in fp32; the
// adapter shapes them (scales, categories) there and then calls finish(), which converts to the
// problem dtype on the device the inputs live on:
//   - a CUDA generator: its own device;
//   - a CPU generator: the current CUDA device when there is one, else the CPU (the CPU tests).
class RandomSource {
public:
    explicit RandomSource(const at::Generator& gen);

    at::Device draw_device() const { return draw_device_; }
    at::Device input_device() const { return input_device_; }
    at::TensorOptions float_options() const;  // fp32 on the draw device

    at::Tensor normal(at::IntArrayRef sizes);                          // N(0, 1)
    at::Tensor uniform(at::IntArrayRef sizes, double lo, double hi);    // U[lo, hi)
    at::Tensor integers(at::IntArrayRef sizes, int64_t lo, int64_t hi);  // int64, uniform in [lo, hi]
    at::Tensor powers_of_two(at::IntArrayRef sizes, int lo, int hi);    // 2^k, k uniform in [lo, hi]
    at::Tensor signs(at::IntArrayRef sizes);                            // +1 or -1 with equal odds
    at::Tensor permutation(int64_t n);                                  // int64, a random order of 0..n-1
    int64_t integer(int64_t lo, int64_t hi);                            // one draw, uniform in [lo, hi]

    // `t` (built from the draws) as a contiguous tensor of `dtype` on the input device.
    at::Tensor finish(const at::Tensor& t, at::ScalarType dtype) const;

private:
    at::Generator gen_;
    at::Device draw_device_;
    at::Device input_device_;
};

// Weight of a normalisation layer: |w| uniform in [0.5, 1.5) with a random sign per element, so it is
// never all ones and a kernel that ignores it (or its sign) fails.
at::Tensor norm_weight(RandomSource& rs, int64_t n);
// Bias of a normalisation layer: N(0, 0.5^2), never all zeros.
at::Tensor norm_bias(RandomSource& rs, int64_t n);

// Rows of an adversarial input are dealt round-robin to `groups` kinds of hard data (row r belongs to
// group r % groups), so every kind appears even with few rows. Group g's rows are the strided view
// x.slice(dim, g, size, groups); this returns how many rows that is (0 when g >= size).
int64_t group_size(int64_t size, int groups, int group);
// Copies `rows_of_group` (group_size(...) rows along `dim`) into group g's rows of `x`.
void fill_group(at::Tensor& x, int64_t dim, int groups, int group, const at::Tensor& rows_of_group);

// Logits that are hard for softmax / cross_entropy and stay finite in `dtype`, [rows, cols] fp32 on
// the draw device (values already representable in the dtype's range). Four row kinds:
//   0: near-equal large logits: L + s * N(0,1) with L = 1000 (fp32, fp16) or 200 (bf16) and s chosen so
//      that neighbouring values still differ after rounding to the dtype: exp() overflows unless the
//      row maximum is subtracted;
//   1: one dominant entry (30 above a N(0,1) row): the result is nearly one-hot;
//   2: very negative rows, -L + s * N(0,1): exp() underflows to 0 without the maximum, giving 0/0;
//   3: rows of N(0,1) scaled by 2^k, k in [-4, 4]: a wide range of row spreads.
at::Tensor adversarial_logits(RandomSource& rs, int64_t rows, int64_t cols, at::ScalarType dtype);

// ---- argument structs ------------------------------------------------------------------------------

// Address of a tensor an argument struct points to. Throws Error(Internal) naming `what` when the
// tensor is undefined or not contiguous (the contract says every tensor is contiguous, row-major).
void* tensor_address(const at::Tensor& t, std::string_view what);
// The workspace's address, or null when the case has none.
void* workspace_address(const CaseTensors& t);
// `value` as an int (the contract's sizes are ints); throws Error(Usage) naming `what` when it does not fit.
int to_int(int64_t value, std::string_view what);
// Throws Error(Internal) unless `t` holds at least `count` inputs (names the type).
void expect_inputs(const CaseTensors& t, std::size_t count, KernelType type);
void expect_inputs(const std::vector<at::Tensor>& inputs, std::size_t count, KernelType type);

// Copies the filled struct to the launcher's buffer after checking that the launcher's size matches
// the struct's (a mismatch means the launcher and this program disagree about contract.cuh).
template <class Args>
void store_args(const Args& filled, void* args, std::size_t args_size, std::string_view struct_name) {
    if (args_size != sizeof(Args))
        throw Error(ErrorKind::Internal, "fill_args: the launcher passed " + std::to_string(args_size) +
                                             " bytes for " + std::string(struct_name) + ", which has " +
                                             std::to_string(sizeof(Args)) +
                                             " bytes in this build (contract.cuh out of step?)");
    std::memcpy(args, &filled, sizeof(Args));
}

}  // namespace ak::eval::adapters
