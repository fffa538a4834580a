// rotary_embedding, rotate-half convention (GPT-NeoX / Llama; contract.cuh, ak_rotary_args):
//   y[..., i]       = x[..., i] * cos[s, i] - x[..., i + d/2] * sin[s, i]
//   y[..., i + d/2] = x[..., i + d/2] * cos[s, i] + x[..., i] * sin[s, i],   i < d/2
// Shape {batch, heads, seq, head_dim}. inputs: {x [B, H, S, D], cos [S, D/2], sin [S, D/2],
// cos_full [S, D], sin_full [S, D]}; the full-width tables (each half repeated) are what the eager
// baseline multiplies by, prepared here so that no concatenation happens inside its timing. output y.
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

namespace ak::eval {
namespace {

using namespace adapters;

struct RotaryDims {
    int64_t batch, heads, seq, head_dim;
};

RotaryDims rotary_dims(const Problem& p) {
    const auto& d = checked_dims(KernelType::RotaryEmbedding, p);
    return {d[0], d[1], d[2], d[3]};
}

class RotaryEmbeddingAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::RotaryEmbedding; }
    std::vector<std::string> input_names() const override { return {"x", "cos", "sin", "cos_full", "sin_full"}; }

    // The tables are the usual ones: angle[s, i] = position(s) * 10000^(-2i / D), computed in fp64 and
    // rounded to the dtype. Regular: positions 0..S-1, x ~ N(0, 1). Adversarial: positions start at a
    // random offset in [1e5, 1e6] (large angles: cos/sin in all four quadrants and no pattern a kernel
    // could recompute from s), and each row (b, h, s) of x is scaled by 2^k, k in [-4, 10] (|y| stays
    // below 2e4 in fp16); fp32 keeps k <= 5, because a correct fp32 kernel's error grows with |x|
    // against an atol of 1e-4 where the two products nearly cancel.
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const RotaryDims r = rotary_dims(p);
        const int64_t half = r.head_dim / 2;
        RandomSource rs(gen);
        const bool adversarial = kind == InputKind::Adversarial;
        at::Tensor x = rs.normal({r.batch, r.heads, r.seq, r.head_dim});
        if (adversarial)
            x.mul_(rs.powers_of_two({r.batch, r.heads, r.seq, 1}, -4, p.dtype == at::kFloat ? 5 : 10));
        const int64_t first_position = adversarial ? rs.integer(100000, 1000000) : 0;

        const at::TensorOptions f64 = at::TensorOptions().dtype(at::kDouble).device(rs.draw_device());
        const at::Tensor positions = at::arange(r.seq, f64).add_(static_cast<double>(first_position));
        const at::Tensor inv_freq =
            at::pow(10000.0, at::arange(half, f64).mul_(-2.0 / static_cast<double>(r.head_dim)));
        const at::Tensor angle = positions.unsqueeze(1) * inv_freq.unsqueeze(0);  // [S, D/2]
        const at::Tensor cos = rs.finish(angle.cos(), p.dtype);
        const at::Tensor sin = rs.finish(angle.sin(), p.dtype);
        return {rs.finish(x, p.dtype), cos, sin, at::cat({cos, cos}, -1), at::cat({sin, sin}, -1)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const RotaryDims r = rotary_dims(p);
        return {r.batch, r.heads, r.seq, r.head_dim};
    }

    // The contract's formula on the halves, in fp64 (fp32 problems) or fp32.
    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 3, type());
        const int64_t half = rotary_dims(p).head_dim / 2;
        const at::ScalarType rd = reference_dtype(p.dtype);
        const at::Tensor x = inputs[0].to(rd);
        const at::Tensor cos = inputs[1].to(rd);  // [S, D/2], broadcast over batch and heads
        const at::Tensor sin = inputs[2].to(rd);
        const at::Tensor x1 = x.narrow(-1, 0, half);
        const at::Tensor x2 = x.narrow(-1, half, half);
        return at::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
    }

    // Eager rotate-half as in Hugging Face's apply_rotary_pos_emb: x * cos + rotate_half(x) * sin with
    // rotate_half(x) = cat(-x2, x1), on the full-width tables.
    at::Tensor baseline(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 5, type());
        const int64_t half = rotary_dims(p).head_dim / 2;
        const at::Tensor& x = inputs[0];
        const at::Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
        return x * inputs[3] + rotated * inputs[4];
    }

    std::string baseline_name() const override { return "eager rotate-half (x * cos + rotate_half(x) * sin)"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const RotaryDims r = rotary_dims(p);
        expect_inputs(t, 3, type());
        ak_rotary_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.cos = tensor_address(t.inputs[1], "cos");
        a.sin = tensor_address(t.inputs[2], "sin");
        a.y = tensor_address(t.output, "y");
        a.batch = to_int(r.batch, "batch");
        a.heads = to_int(r.heads, "heads");
        a.seq = to_int(r.seq, "seq");
        a.head_dim = to_int(r.head_dim, "head_dim");
        a.rows = to_int(r.batch * r.heads * r.seq, "batch * heads * seq");
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_rotary_args");
    }

    int64_t rows(const Problem& p) const override {
        const RotaryDims r = rotary_dims(p);
        return r.batch * r.heads * r.seq;
    }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_rotary_embedding_adapter() {
    return std::make_unique<RotaryEmbeddingAdapter>();
}

}  // namespace ak::eval
