// reduce: y[r] = sum(x[r, :]) over the last dimension, accumulated in fp32, stored in the dtype
// (contract.cuh, ak_reduce_args). inputs: {x [rows, cols]}; output y [rows].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ak::eval {
namespace {

using namespace adapters;

class ReduceAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::Reduce; }
    std::vector<std::string> input_names() const override { return {"x"}; }

    // Regular: N(0, 1). Adversarial, three row kinds:
    //   0: exact cancellation: cols/2 values v (N(0, 1) scaled per element by 2^k) and their negations
    //      -v, in one random column order shared by all rows (plus one N(0, 1) value when cols is odd).
    //      The sum is 0 (or that one value) while sum |x| is large, so a dropped or doubled element
    //      shows at once and the error of the accumulation is exposed;
    //   1: N(0, 1) scaled per element by 2^k: many binades in one sum;
    //   2: same-sign rows, |N(0, 1)| scaled so that the sum is about 1000: an fp16 accumulator stalls
    //      there (its spacing at 1000 is 0.5, the same as the terms).
    // k is in [-8, 6] (fp32: [-8, 2], since fp32 checks an atol that the accumulation error of large
    // terms would exceed); for cols above 2^16 kind 1 is scaled down so its sum stays far from 65504.
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t rows = d[0], cols = d[1];
        RandomSource rs(gen);
        if (kind == InputKind::Regular) return {rs.finish(rs.normal({rows, cols}), p.dtype)};

        const int k_hi = p.dtype == at::kFloat ? 2 : 6;
        constexpr int kGroups = 3;
        at::Tensor x = at::empty({rows, cols}, rs.float_options());
        for (int g = 0; g < kGroups; ++g) {
            const int64_t n = group_size(rows, kGroups, g);
            if (n == 0) continue;
            at::Tensor part;
            if (g == 0) {
                const int64_t pairs = cols / 2;
                // Rounded to the dtype before negating, so that v and -v cancel exactly after finish().
                const at::Tensor v = rs.normal({n, pairs})
                                         .mul_(rs.powers_of_two({n, pairs}, -8, k_hi))
                                         .to(p.dtype)
                                         .to(at::kFloat);
                const at::Tensor odd_one = rs.normal({n, cols - 2 * pairs});
                part = at::cat({v, -v, odd_one}, 1).index_select(1, rs.permutation(cols));
            } else if (g == 1) {
                const double shrink = std::min(1.0, std::sqrt(65536.0 / static_cast<double>(cols)));
                part = rs.normal({n, cols}).mul_(rs.powers_of_two({n, cols}, -8, k_hi)).mul_(shrink);
            } else {
                // E|N(0, 1)| = sqrt(2 / pi), so the expected sum is 1000.
                const double mean_abs = std::sqrt(2.0 / std::numbers::pi);
                part = rs.normal({n, cols}).abs_().mul_(1000.0 / (mean_abs * static_cast<double>(cols)));
            }
            fill_group(x, 0, kGroups, g, part);
        }
        return {rs.finish(x, p.dtype)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override { return {checked_dims(type(), p)[0]}; }

    // In fp64 whatever the dtype: the sum of many terms is where an fp32 reference's own error would show.
    at::Tensor reference(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 1, type());
        return inputs[0].to(at::kDouble).sum(-1);
    }

    at::Tensor baseline(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 1, type());
        return at::sum(inputs[0], -1);
    }

    std::string baseline_name() const override { return "at::sum"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 1, type());
        ak_reduce_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.y = tensor_address(t.output, "y");
        a.rows = to_int(d[0], "rows");
        a.cols = to_int(d[1], "cols");
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_reduce_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }

    // fp32 only: atol 1e-4 * max(1, sqrt(cols / 1024)). Even a well-ordered fp32 sum of n terms of unit
    // size has a rounding error of about 2^-24 * sqrt(n * log2(n)) (3.5e-5 at n = 65536, with tails
    // several times that over thousands of rows); a fixed 1e-4 would fail correct kernels on long rows,
    // while a dropped unit-size term still exceeds the loosened atol (8e-4 at n = 65536). fp16 / bf16
    // keep their defaults: their atol is far above the fp32 accumulation error and the output rounding
    // is relative (rtol).
    Tolerance tolerance(const Problem& p) const override {
        Tolerance tol = KernelAdapter::tolerance(p);
        if (p.dtype == at::kFloat) {
            const double cols = static_cast<double>(checked_dims(type(), p)[1]);
            tol.atol *= std::max(1.0, std::sqrt(cols / 1024.0));
        }
        return tol;
    }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_reduce_adapter() { return std::make_unique<ReduceAdapter>(); }

}  // namespace ak::eval
