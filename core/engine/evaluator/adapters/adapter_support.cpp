#include "engine/evaluator/adapters/adapter_support.h"

#include <ATen/Context.h>

#include <limits>

namespace ak::eval::adapters {

const std::vector<int64_t>& checked_dims(KernelType t, const Problem& p) {
    check_shape(t, p.shape);
    if (p.dtype != at::kHalf && p.dtype != at::kBFloat16 && p.dtype != at::kFloat)
        throw Error(ErrorKind::Usage, std::string(to_string(t)) + ": kernels are checked in fp16, bf16 and fp32, not " +
                                          std::string(c10::toString(p.dtype)));
    return p.shape.dims;
}

at::ScalarType reference_dtype(at::ScalarType dtype) {
    return dtype == at::kFloat ? at::kDouble : at::kFloat;
}

// ---- RandomSource ------------------------------------------------------------------------------------

namespace {

at::Device input_device_for(const at::Generator& gen) {
    if (gen.device().is_cuda()) return gen.device();
    if (at::hasCUDA()) return at::Device(at::kCUDA);  // the current CUDA device
    return at::Device(at::kCPU);
}

}  // namespace

RandomSource::RandomSource(const at::Generator& gen)
    : gen_(gen), draw_device_(gen.device()), input_device_(input_device_for(gen)) {}

at::TensorOptions RandomSource::float_options() const {
    return at::TensorOptions().dtype(at::kFloat).device(draw_device_);
}

at::Tensor RandomSource::normal(at::IntArrayRef sizes) { return at::randn(sizes, gen_, float_options()); }

at::Tensor RandomSource::uniform(at::IntArrayRef sizes, double lo, double hi) {
    return at::rand(sizes, gen_, float_options()).mul_(hi - lo).add_(lo);
}

at::Tensor RandomSource::integers(at::IntArrayRef sizes, int64_t lo, int64_t hi) {
    return at::randint(lo, hi + 1, sizes, gen_, at::TensorOptions().dtype(at::kLong).device(draw_device_));
}

at::Tensor RandomSource::powers_of_two(at::IntArrayRef sizes, int lo, int hi) {
    return at::exp2(integers(sizes, lo, hi).to(at::kFloat));
}

at::Tensor RandomSource::signs(at::IntArrayRef sizes) {
    return integers(sizes, 0, 1).to(at::kFloat).mul_(2.0).sub_(1.0);
}

at::Tensor RandomSource::permutation(int64_t n) {
    return at::randperm(n, gen_, at::TensorOptions().dtype(at::kLong).device(draw_device_));
}

int64_t RandomSource::integer(int64_t lo, int64_t hi) { return integers({1}, lo, hi).item<int64_t>(); }

at::Tensor RandomSource::finish(const at::Tensor& t, at::ScalarType dtype) const {
    return t.to(input_device_, dtype).contiguous();
}

at::Tensor norm_weight(RandomSource& rs, int64_t n) { return rs.uniform({n}, 0.5, 1.5).mul_(rs.signs({n})); }

at::Tensor norm_bias(RandomSource& rs, int64_t n) { return rs.normal({n}).mul_(0.5); }

// ---- row groups --------------------------------------------------------------------------------------

int64_t group_size(int64_t size, int groups, int group) {
    if (group >= size) return 0;
    return (size - group + groups - 1) / groups;
}

void fill_group(at::Tensor& x, int64_t dim, int groups, int group, const at::Tensor& rows_of_group) {
    if (group_size(x.size(dim), groups, group) == 0) return;
    x.slice(dim, group, x.size(dim), groups).copy_(rows_of_group);
}

at::Tensor adversarial_logits(RandomSource& rs, int64_t rows, int64_t cols, at::ScalarType dtype) {
    // Large offset and spread per dtype. The spread is a few units in the last place at L, so a row
    // keeps many distinct values after rounding: fp16 has a spacing of 0.5 at 1000, bf16 of 1 at 200
    // (bf16's spacing at 1000 is 4, which would leave a handful of distinct values), fp32 of 6e-5 at 1000.
    double large = 1000.0;
    double spread = 0.05;
    if (dtype == at::kHalf) spread = 1.0;
    if (dtype == at::kBFloat16) {
        large = 200.0;
        spread = 1.5;
    }

    constexpr int kGroups = 4;
    at::Tensor x = at::empty({rows, cols}, rs.float_options());
    for (int g = 0; g < kGroups; ++g) {
        const int64_t n = group_size(rows, kGroups, g);
        if (n == 0) continue;
        at::Tensor part;
        switch (g) {
        case 0: part = rs.normal({n, cols}).mul_(spread).add_(large); break;
        case 1: {
            part = rs.normal({n, cols});
            const at::Tensor where = rs.integers({n, 1}, 0, cols - 1);
            part.scatter_(1, where, 30.0);
            break;
        }
        case 2: part = rs.normal({n, cols}).mul_(spread).sub_(large); break;
        default: part = rs.normal({n, cols}).mul_(rs.powers_of_two({n, 1}, -4, 4)); break;
        }
        fill_group(x, 0, kGroups, g, part);
    }
    return x;
}

// ---- argument structs --------------------------------------------------------------------------------

void* tensor_address(const at::Tensor& t, std::string_view what) {
    if (!t.defined()) throw Error(ErrorKind::Internal, "fill_args: tensor " + std::string(what) + " is undefined");
    if (!t.is_contiguous())
        throw Error(ErrorKind::Internal,
                    "fill_args: tensor " + std::string(what) + " is not contiguous (the contract requires row-major)");
    return t.data_ptr();
}

void* workspace_address(const CaseTensors& t) { return t.workspace.defined() ? t.workspace.data_ptr() : nullptr; }

int to_int(int64_t value, std::string_view what) {
    if (value < 0 || value > std::numeric_limits<int>::max())
        throw Error(ErrorKind::Usage, std::string(what) + " = " + std::to_string(value) +
                                          " does not fit the contract's int sizes");
    return static_cast<int>(value);
}

void expect_inputs(const std::vector<at::Tensor>& inputs, std::size_t count, KernelType type) {
    if (inputs.size() < count)
        throw Error(ErrorKind::Internal, std::string(to_string(type)) + " adapter: expected " + std::to_string(count) +
                                             " input tensors, got " + std::to_string(inputs.size()));
}

void expect_inputs(const CaseTensors& t, std::size_t count, KernelType type) { expect_inputs(t.inputs, count, type); }

}  // namespace ak::eval::adapters
