// layernorm: y = (x - mean) / sqrt(var + eps) * weight + bias per row, biased variance, eps = 1e-5
// (contract.cuh, ak_layernorm_args). inputs: {x [rows, cols], weight [cols], bias [cols]}; output y.
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

namespace ak::eval {
namespace {

using namespace adapters;

// Near-constant rows: c + noise with c uniform in [-c_max, c_max]. The variance (about noise^2) is at or
// below eps, so E[x^2] - mean^2 in fp32 loses most of it while a two-pass or Welford kernel does not.
// fp32 keeps c small: a correct fp32 kernel's mean is off by about 2^-24 * |c|, and that error is
// multiplied by 1/sqrt(var + eps) (about 300) against an atol of 1e-4. fp16 / bf16 noise is a unit or
// so in the last place at c_max, so the rows keep several distinct values.
struct NearConstant {
    double c_max;
    double noise;
};

NearConstant near_constant(at::ScalarType dtype) {
    if (dtype == at::kFloat) return {0.25, 1e-3};
    if (dtype == at::kHalf) return {4.0, 2e-3};
    return {4.0, 1e-2};  // bf16: spacing 2^-6 on [2, 4)
}

class LayerNormAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::LayerNorm; }
    std::vector<std::string> input_names() const override { return {"x", "weight", "bias"}; }

    // Regular: N(0, 1) plus a per-row offset in [-1, 1] (a kernel that skips the mean fails).
    // Adversarial, four row kinds: near-constant rows, |x| ~ 1e3 rows, rows scaled by 2^k with
    // k in [-10, 10], and rows offset by up to +-50 from zero. Weight and bias are non-trivial.
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t rows = d[0], cols = d[1];
        RandomSource rs(gen);
        at::Tensor x;
        if (kind == InputKind::Regular) {
            x = rs.normal({rows, cols}).add_(rs.uniform({rows, 1}, -1.0, 1.0));
        } else {
            constexpr int kGroups = 4;
            x = at::empty({rows, cols}, rs.float_options());
            const NearConstant nc = near_constant(p.dtype);
            for (int g = 0; g < kGroups; ++g) {
                const int64_t n = group_size(rows, kGroups, g);
                if (n == 0) continue;
                at::Tensor part = rs.normal({n, cols});
                switch (g) {
                case 0: part.mul_(nc.noise).add_(rs.uniform({n, 1}, -nc.c_max, nc.c_max)); break;
                case 1: part.mul_(1000.0); break;
                case 2: part.mul_(rs.powers_of_two({n, 1}, -10, 10)); break;
                default: part.add_(rs.uniform({n, 1}, -50.0, 50.0)); break;
                }
                fill_group(x, 0, kGroups, g, part);
            }
        }
        return {rs.finish(x, p.dtype), rs.finish(norm_weight(rs, cols), p.dtype),
                rs.finish(norm_bias(rs, cols), p.dtype)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const auto& d = checked_dims(type(), p);
        return {d[0], d[1]};
    }

    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 3, type());
        const at::ScalarType rd = reference_dtype(p.dtype);
        const int64_t cols = checked_dims(type(), p)[1];
        // The eps the kernel receives (a float), so reference and kernel use the same value.
        const double eps = static_cast<float>(kLayerNormEps);
        return at::layer_norm(inputs[0].to(rd), {cols}, inputs[1].to(rd), inputs[2].to(rd), eps);
    }

    at::Tensor baseline(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 3, type());
        const int64_t cols = checked_dims(type(), p)[1];
        return at::layer_norm(inputs[0], {cols}, inputs[1], inputs[2], kLayerNormEps);
    }

    std::string baseline_name() const override { return "at::layer_norm"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 3, type());
        ak_layernorm_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.weight = tensor_address(t.inputs[1], "weight");
        a.bias = tensor_address(t.inputs[2], "bias");
        a.y = tensor_address(t.output, "y");
        a.rows = to_int(d[0], "rows");
        a.cols = to_int(d[1], "cols");
        a.eps = static_cast<float>(kLayerNormEps);
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_layernorm_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_layernorm_adapter() { return std::make_unique<LayerNormAdapter>(); }

}  // namespace ak::eval
