// softmax: y[r, :] = softmax(x[r, :]) over the last dimension (contract.cuh, ak_softmax_args).
// inputs: {x [rows, cols]}; output y [rows, cols].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

#include <cstdio>

namespace ak::eval {
namespace {

using namespace adapters;

class SoftmaxAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::Softmax; }
    std::vector<std::string> input_names() const override { return {"x"}; }

    // Regular: N(0, 2^2) logits, a moderately peaked distribution. Adversarial: adversarial_logits
    // (near-equal large rows, one dominant entry, very negative rows, rows of mixed spread).
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        RandomSource rs(gen);
        at::Tensor x = kind == InputKind::Adversarial ? adversarial_logits(rs, d[0], d[1], p.dtype)
                                                      : rs.normal({d[0], d[1]}).mul_(2.0);
        return {rs.finish(x, p.dtype)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const auto& d = checked_dims(type(), p);
        return {d[0], d[1]};
    }

    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 1, type());
        return at::softmax(inputs[0].to(reference_dtype(p.dtype)), -1);
    }

    at::Tensor baseline(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 1, type());
        return at::softmax(inputs[0], -1);
    }

    std::string baseline_name() const override { return "at::softmax"; }

    // Every row of a softmax sums to 1: |sum - 1| <= 2 * the norm gate (fp16 4e-3, bf16 2e-2, fp32 4e-5). The
    // output's own rounding moves a row's sum by at most half an ulp of each element (2^-11 relative in
    // fp16, 2^-9 in bf16), far inside that; dropping the small probabilities does not.
    std::optional<std::string> check_invariants(const Problem&, const at::Tensor& output, const Tolerance& tol) const override {
        const double allowed = 2.0 * tol.norm_rtol;
        if (!(allowed > 0) || output.numel() == 0) return std::nullopt;
        const at::Tensor deviation = output.to(at::kDouble).sum(-1).sub_(1.0).abs_();
        const at::Tensor stats = at::stack({deviation.max(), deviation.argmax().to(at::kDouble)}).cpu();
        const double worst = stats[0].item<double>();
        if (worst <= allowed) return std::nullopt;
        const auto row = std::int64_t(stats[1].item<double>());
        const double sum = output[row].to(at::kDouble).sum().item<double>();
        char buf[200];
        std::snprintf(buf, sizeof buf, "row %lld sums to %.6g, but every row of a softmax sums to 1 (allowed |sum - 1| <= %.3g)",
                      static_cast<long long>(row), sum, allowed);
        return std::string(buf);
    }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 1, type());
        ak_softmax_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.y = tensor_address(t.output, "y");
        a.rows = to_int(d[0], "rows");
        a.cols = to_int(d[1], "cols");
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_softmax_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_softmax_adapter() { return std::make_unique<SoftmaxAdapter>(); }

}  // namespace ak::eval
