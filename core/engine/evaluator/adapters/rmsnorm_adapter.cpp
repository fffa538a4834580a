// rmsnorm: y = x / sqrt(mean(x^2) + eps) * weight per row, eps = 1e-6 (contract.cuh, ak_rmsnorm_args).
// inputs: {x [rows, cols], weight [cols]}; output y [rows, cols].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

namespace ak::eval {
namespace {

using namespace adapters;

class RmsNormAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::RmsNorm; }
    std::vector<std::string> input_names() const override { return {"x", "weight"}; }

    // Regular: N(0, 1). Adversarial, four row kinds:
    //   0: tiny rows, 1e-3 * N(0, 1): mean(x^2) is about eps, so eps must sit inside the square root;
    //   1: |x| ~ 1e3 rows: x^2 overflows fp16 (65504) unless squares are taken in fp32;
    //   2: rows scaled by 2^k, k in [-10, 10] (AutoKernel's starter fails mixed scales);
    //   3: near-constant rows, c + 1e-2 * N(0, 1) with c in [-4, 4].
    // The weight is non-trivial (|w| in [0.5, 1.5), random signs).
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t rows = d[0], cols = d[1];
        RandomSource rs(gen);
        at::Tensor x = rs.normal({rows, cols});
        if (kind == InputKind::Adversarial) {
            constexpr int kGroups = 4;
            for (int g = 0; g < kGroups; ++g) {
                const int64_t n = group_size(rows, kGroups, g);
                if (n == 0) continue;
                at::Tensor part = x.slice(0, g, rows, kGroups);  // a view: scaled in place
                switch (g) {
                case 0: part.mul_(1e-3); break;
                case 1: part.mul_(1000.0); break;
                case 2: part.mul_(rs.powers_of_two({n, 1}, -10, 10)); break;
                default: part.mul_(1e-2).add_(rs.uniform({n, 1}, -4.0, 4.0)); break;
                }
            }
        }
        return {rs.finish(x, p.dtype), rs.finish(norm_weight(rs, cols), p.dtype)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const auto& d = checked_dims(type(), p);
        return {d[0], d[1]};
    }

    // The contract's formula, written out in fp64 (fp32 problems) or fp32 (fp16 / bf16 problems).
    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        const at::ScalarType rd = reference_dtype(p.dtype);
        const at::Tensor x = inputs[0].to(rd);
        const double eps = static_cast<float>(kRmsNormEps);  // the float the kernel receives
        return x * at::rsqrt(x.square().mean(-1, /*keepdim=*/true) + eps) * inputs[1].to(rd);
    }

    at::Tensor baseline(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        const int64_t cols = checked_dims(type(), p)[1];
        return at::rms_norm(inputs[0], {cols}, inputs[1], kRmsNormEps);
    }

    std::string baseline_name() const override { return "at::rms_norm"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 2, type());
        ak_rmsnorm_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.weight = tensor_address(t.inputs[1], "weight");
        a.y = tensor_address(t.output, "y");
        a.rows = to_int(d[0], "rows");
        a.cols = to_int(d[1], "cols");
        a.eps = static_cast<float>(kRmsNormEps);
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_rmsnorm_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_rmsnorm_adapter() { return std::make_unique<RmsNormAdapter>(); }

}  // namespace ak::eval
