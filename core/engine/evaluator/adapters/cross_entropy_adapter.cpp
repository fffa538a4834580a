// cross_entropy: loss = mean over rows of (logsumexp(logits[r, :]) - logits[r, target[r]]), one fp32
// value (contract.cuh, ak_cross_entropy_args). inputs: {logits [rows, cols], targets int64 [rows]};
// output: loss, fp32 [1]. The reference is computed in fp64 from the (exactly representable) logits, and the
// tolerance is tight for every dtype (atol = rtol = norm 1e-4): the loss is about log(cols), a kernel that
// accumulates in fp32 is off by about 1e-6 of that (1.9e-7 measured for the starter on the H200), while the
// dtype's default (fp16 atol 1e-2 + rtol 1e-2 * 10) would let a loss averaged over a subset of the rows pass.
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

namespace ak::eval {
namespace {

using namespace adapters;

class CrossEntropyAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::CrossEntropy; }
    std::vector<std::string> input_names() const override { return {"logits", "targets"}; }

    // Regular: N(0, 2^2) logits. Adversarial: adversarial_logits (near-equal large rows, one dominant
    // entry, very negative rows, rows of mixed spread). Targets uniform in [0, cols) either way.
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t rows = d[0], cols = d[1];
        RandomSource rs(gen);
        at::Tensor logits = kind == InputKind::Adversarial ? adversarial_logits(rs, rows, cols, p.dtype)
                                                           : rs.normal({rows, cols}).mul_(2.0);
        return {rs.finish(logits, p.dtype), rs.finish(rs.integers({rows}, 0, cols - 1), at::kLong)};
    }

    std::vector<int64_t> output_shape(const Problem&) const override { return {1}; }
    at::ScalarType output_dtype(const Problem&) const override { return at::kFloat; }

    // Mean cross-entropy on the logits upcast to fp64, as a [1] tensor.
    at::Tensor reference(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        return at::cross_entropy_loss(inputs[0].to(at::kDouble), inputs[1]).reshape({1});
    }

    Tolerance tolerance(const Problem&) const override { return {1e-4, 1e-4, 1e-4}; }

    // As torch runs it: the loss comes back in the logits' dtype.
    at::Tensor baseline(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        return at::cross_entropy_loss(inputs[0], inputs[1]).reshape({1});
    }

    std::string baseline_name() const override { return "at::cross_entropy_loss"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 2, type());
        ak_cross_entropy_args a{};
        a.logits = tensor_address(t.inputs[0], "logits");
        a.targets = tensor_address(t.inputs[1], "targets");
        a.loss = tensor_address(t.output, "loss");
        a.rows = to_int(d[0], "rows");
        a.cols = to_int(d[1], "cols");
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_cross_entropy_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_cross_entropy_adapter() { return std::make_unique<CrossEntropyAdapter>(); }

}  // namespace ak::eval
