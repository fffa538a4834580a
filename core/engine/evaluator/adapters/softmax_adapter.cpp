// softmax: y[r, :] = softmax(x[r, :]) over the last dimension (contract.cuh, ak_softmax_args).
// inputs: {x [rows, cols]}; output y [rows, cols].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

namespace ak::eval {
namespace {

using namespace adapters;

class SoftmaxAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::Softmax; }

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
