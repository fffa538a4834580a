// The nine kernel-type adapters (core/engine/evaluator/adapters/), on the CPU: inputs are drawn with a
// CPU generator, so on a machine without a GPU they stay on the CPU and everything here runs. On a
// machine with one, the adapters put the inputs on the GPU (adapter_support.h): the independent
// computations here copy what they read to the CPU (f64, f64_of), and the buffers a test allocates
// live beside the inputs.
//   - every input kind stays finite in every dtype, and so does the true result (inside fp16's range);
//   - the adversarial inputs really are adversarial (the property each kind is meant to have);
//   - the references compute the contract's formula (checked against independent fp64 computations);
//   - a legitimate implementation in the dtype (the PyTorch baseline) passes the tolerance on them;
//   - fill_args, tma_operand and fused_mlp's library stages fill and compute what contract.cuh says.
#include "engine/evaluator/adapters/adapters.h"
#include "engine/evaluator/aliased_inputs.h"
#include "engine/evaluator/kernel_adapter.h"
#include "engine/evaluator/launch_plan.h"
#include "engine/kernel_type.h"

#include "autokernel/contract.cuh"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ak;
using namespace ak::eval;

namespace {

constexpr at::ScalarType kDtypes[] = {at::kHalf, at::kBFloat16, at::kFloat};

at::Generator cpu_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }

// fp64 on the CPU, wherever `t` lives.
at::Tensor f64_of(const at::Tensor& t) { return t.to(at::kCPU, at::kDouble); }

std::string describe(KernelType t, const Shape& s, at::ScalarType dtype, InputKind kind) {
    return std::string(to_string(t)) + " " + to_string(s) + " " + c10::toString(dtype) +
           (kind == InputKind::Adversarial ? " adversarial" : " regular");
}

// Largest amount by which |out - ref| exceeds atol + rtol * |ref| (<= 0 means every element passes).
double worst_excess(const at::Tensor& out, const at::Tensor& ref, Tolerance tol) {
    const at::Tensor o = out.to(at::kDouble);
    const at::Tensor r = ref.to(at::kDouble);
    return ((o - r).abs() - (r.abs() * tol.rtol + tol.atol)).max().item<double>();
}

bool all_finite(const at::Tensor& t) {
    if (!at::isFloatingType(t.scalar_type())) return true;
    return at::isfinite(t).all().item<bool>();
}

// Shapes small enough for the CPU: each type's smoke shape and one that is not a power of two.
std::vector<Shape> cpu_shapes(KernelType t) {
    const KernelTypeInfo& info = kernel_type_info(t);
    std::vector<Shape> shapes = {info.smoke};
    switch (t) {
    case KernelType::Matmul: shapes.push_back({{67, 129, 1023}}); break;
    case KernelType::FlashAttention: shapes.push_back({{1, 3, 97, 64, 1}}); break;
    case KernelType::FusedMlp: shapes.push_back({{37, 129, 257}}); break;
    case KernelType::RotaryEmbedding: shapes.push_back({{1, 3, 67, 128}}); break;
    default: shapes.push_back({{37, 1023}}); break;
    }
    return shapes;
}

class EveryAdapter : public ::testing::TestWithParam<KernelType> {
protected:
    std::unique_ptr<KernelAdapter> adapter = make_adapter(GetParam());
};

std::string type_name(const ::testing::TestParamInfo<KernelType>& info) { return std::string(to_string(info.param)); }

INSTANTIATE_TEST_SUITE_P(Adapters, EveryAdapter,
                         ::testing::ValuesIn(all_kernel_types().begin(), all_kernel_types().end()), type_name);

}  // namespace

TEST_P(EveryAdapter, ReportsItsOwnType) { EXPECT_EQ(adapter->type(), GetParam()); }

// Messages name inputs ("the candidate wrote into its input 'x'"): one distinct name per input.
TEST_P(EveryAdapter, NamesEveryInput) {
    at::Generator gen = cpu_generator(5);
    const Problem p{kernel_type_info(GetParam()).smoke, at::kHalf};
    const auto inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    const auto names = adapter->input_names();
    EXPECT_EQ(names.size(), inputs.size());
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "names repeat";
    for (const auto& n : names) EXPECT_FALSE(n.empty());
}

// Inputs of both kinds are finite, and so are the true results: an input or output that overflows to
// inf would make the comparison vacuous. fp16 (the narrowest range) is checked on every smoke, sweep and
// edge shape, bf16 and fp32 (fp32's range) on the smoke shape.
TEST_P(EveryAdapter, InputsAndTrueResultsStayFiniteInEveryDtypeAndShape) {
    const KernelTypeInfo& info = kernel_type_info(GetParam());
    std::vector<Shape> all_shapes = {info.smoke};
    all_shapes.insert(all_shapes.end(), info.sweep.begin(), info.sweep.end());
    all_shapes.insert(all_shapes.end(), info.edge.begin(), info.edge.end());
    at::Generator gen = cpu_generator(7);
    for (at::ScalarType dtype : kDtypes) {
        const std::vector<Shape> shapes = dtype == at::kHalf ? all_shapes : std::vector<Shape>{info.smoke};
        for (const Shape& shape : shapes) {
            for (InputKind kind : {InputKind::Regular, InputKind::Adversarial}) {
                const Problem p{shape, dtype};
                const std::string what = describe(GetParam(), shape, dtype, kind);
                const std::vector<at::Tensor> inputs = adapter->make_inputs(p, kind, gen);
                for (std::size_t i = 0; i < inputs.size(); ++i) {
                    EXPECT_TRUE(all_finite(inputs[i])) << what << ": input " << i;
                    EXPECT_TRUE(inputs[i].is_contiguous()) << what << ": input " << i;
                }
                EXPECT_EQ(inputs[0].scalar_type(), dtype) << what;
                // The fp32 references of the larger sweep shapes take a while on one CPU core: the result's
                // range is checked on the smoke and edge shapes, which include the awkward small and odd sizes.
                const bool sweep = std::find(info.sweep.begin(), info.sweep.end(), shape) != info.sweep.end();
                if (dtype != at::kHalf || sweep) continue;
                const at::Tensor ref = adapter->reference(p, inputs);
                EXPECT_TRUE(all_finite(ref)) << what;
                EXPECT_LT(ref.abs().max().item<double>(), 30000.0) << what << ": the result must fit fp16";
            }
        }
    }
}

// The PyTorch baseline (a legitimate implementation in the problem's dtype) passes the adapter's
// tolerance against the reference on both input kinds: the adversarial data is hard, not unfair.
// One exception, on purpose: eager rotary in fp16 / bf16 rounds x * cos and x * sin to the dtype before
// adding them, which loses about one unit in the last place of |x| where the two nearly cancel; the
// adversarial rows with |x| ~ 1e3 expose that (RotaryLargeRowsNeedFp32ArithmeticInside below).
// And one for cross-entropy in fp16 / bf16: torch returns the loss rounded to the logits' dtype (an error
// of up to 4e-3 on a loss near 10), where the contract's loss is fp32 and compared tightly.
// The baseline also passes the norm gate (tolerance.h): the gate does not fail legitimate arithmetic.
TEST_P(EveryAdapter, BaselinePassesTheToleranceOnBothInputKinds) {
    at::Generator gen = cpu_generator(11);
    for (const Shape& shape : cpu_shapes(GetParam())) {
        for (at::ScalarType dtype : kDtypes) {
            for (InputKind kind : {InputKind::Regular, InputKind::Adversarial}) {
                if (GetParam() == KernelType::RotaryEmbedding && kind == InputKind::Adversarial && dtype != at::kFloat)
                    continue;
                if (GetParam() == KernelType::CrossEntropy && dtype != at::kFloat) continue;
                const Problem p{shape, dtype};
                const std::string what = describe(GetParam(), shape, dtype, kind);
                const std::vector<at::Tensor> inputs = adapter->make_inputs(p, kind, gen);
                const at::Tensor ref = adapter->reference(p, inputs);
                EXPECT_EQ(ref.sizes().vec(), adapter->output_shape(p)) << what;
                const bool fp64_always = GetParam() == KernelType::CrossEntropy || GetParam() == KernelType::Reduce;
                EXPECT_EQ(ref.scalar_type(), dtype == at::kFloat || fp64_always ? at::kDouble : at::kFloat) << what;
                const at::Tensor base = adapter->baseline(p, inputs);
                ASSERT_EQ(base.numel(), ref.numel()) << what;
                const Tolerance tol = adapter->tolerance(p);
                EXPECT_LE(worst_excess(base.reshape(ref.sizes()), ref, tol), 0.0) << what;
                const double err = (f64_of(base).reshape(ref.sizes()) - f64_of(ref)).norm().item<double>();
                const double norm = f64_of(ref).norm().item<double>();
                if (norm > 0) {
                    EXPECT_LE(err / norm, tol.norm_rtol) << what << ": the norm gate";
                }
                EXPECT_FALSE(adapter->check_invariants(p, base.reshape(ref.sizes()), tol)) << what;
            }
        }
    }
}

// The baselines the timing runs side by side: by default the adapter's baseline under its own name.
// flash_attention times every fused SDPA backend that accepts CUDA inputs, each named "SDPA <backend>",
// the one torch picks marked ", SDPA's pick"; CPU tensors (no GPU here) have none, so it falls back to
// the plain SDPA call and names torch's pick. Every route computes the problem; the route that is the
// baseline's own call gives its result bit for bit.
TEST_P(EveryAdapter, BaselineRoutesComputeTheProblemUnderTheBaselinesName) {
    const Problem p{kernel_type_info(GetParam()).smoke, at::kFloat};
    at::Generator gen = cpu_generator(5);
    const std::vector<at::Tensor> inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    const std::vector<BaselineRoute> routes = adapter->baseline_routes(p, inputs);
    const bool sdpa_backends = GetParam() == KernelType::FlashAttention && inputs[0].is_cuda();
    ASSERT_GE(routes.size(), 1u);
    std::size_t baseline_route = 0;
    if (sdpa_backends) {
        const std::string pick = sdpa_backend_name(p, inputs);
        int picked = 0;
        for (std::size_t i = 0; i < routes.size(); ++i) {
            EXPECT_EQ(routes[i].name.rfind("SDPA ", 0), 0u) << routes[i].name;
            if (routes[i].name == "SDPA " + pick + ", SDPA's pick") {
                ++picked;
                baseline_route = i;
            }
        }
        EXPECT_EQ(picked, 1) << "torch's pick (" << pick << ") is one of the timed backends, named once";
    } else {
        ASSERT_EQ(routes.size(), 1u) << "one route: the baseline";
        if (GetParam() == KernelType::FlashAttention) {
            EXPECT_EQ(routes[0].name, adapter->baseline_name() + " (" + sdpa_backend_name(p, inputs) + ")");
        } else {
            EXPECT_EQ(routes[0].name, adapter->baseline_name());
        }
    }
    const at::Tensor ref = adapter->reference(p, inputs);
    for (std::size_t i = 0; i < routes.size(); ++i) {
        const at::Tensor out = routes[i].run(inputs);
        ASSERT_EQ(out.numel(), ref.numel()) << routes[i].name;
        EXPECT_LE(worst_excess(out.reshape(ref.sizes()), ref, adapter->tolerance(p)), 0.0) << routes[i].name;
    }
    EXPECT_TRUE(at::equal(routes[baseline_route].run(inputs), adapter->baseline(p, inputs)))
        << routes[baseline_route].name << " is the baseline's call";
}

// The same seed gives the same inputs, another seed other inputs (each case's seed is recorded).
TEST_P(EveryAdapter, InputsAreReproducibleFromTheSeed) {
    const Problem p{kernel_type_info(GetParam()).smoke, at::kBFloat16};
    for (InputKind kind : {InputKind::Regular, InputKind::Adversarial}) {
        at::Generator a = cpu_generator(123), b = cpu_generator(123), c = cpu_generator(124);
        const auto first = adapter->make_inputs(p, kind, a);
        const auto again = adapter->make_inputs(p, kind, b);
        const auto other = adapter->make_inputs(p, kind, c);
        ASSERT_EQ(first.size(), again.size());
        for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(at::equal(first[i], again[i])) << "input " << i;
        EXPECT_FALSE(at::equal(first[0], other[0]));
    }
}

TEST_P(EveryAdapter, RejectsTheWrongArgumentStructSize) {
    const Problem p{kernel_type_info(GetParam()).smoke, at::kFloat};
    at::Generator gen = cpu_generator(3);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty(adapter->output_shape(p), at::TensorOptions().dtype(adapter->output_dtype(p)));
    alignas(64) unsigned char buffer[1024];
    EXPECT_THROW(adapter->fill_args(buffer, 8, p, t), Error);
}

// ---- references against independent fp64 computations ---------------------------------------------

namespace {

at::Tensor f64(const at::Tensor& t) { return f64_of(t); }

void expect_close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-10) {
    ASSERT_EQ(a.sizes(), b.sizes());
    EXPECT_LE((f64(a) - f64(b)).abs().max().item<double>(), tol);
}

}  // namespace

TEST(AdapterReference, MatmulIsTheFp64ProductForFp32Data) {
    auto adapter = make_matmul_adapter();
    const Problem p{{{33, 17, 65}}, at::kFloat};
    at::Generator gen = cpu_generator(1);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const at::Tensor ref = adapter->reference(p, in);
    EXPECT_EQ(ref.scalar_type(), at::kDouble);
    expect_close(ref, at::mm(f64(in[0]), f64(in[1])));
}

TEST(AdapterReference, SoftmaxSumsToOneAndMatchesExpOverSum) {
    auto adapter = make_softmax_adapter();
    const Problem p{{{8, 100}}, at::kHalf};
    at::Generator gen = cpu_generator(2);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const at::Tensor x = f64(in[0]);
    const at::Tensor e = (x - std::get<0>(x.max(-1, true))).exp();
    expect_close(adapter->reference(p, in), e / e.sum(-1, true), 1e-6);
}

TEST(AdapterReference, LayerNormUsesBiasedVarianceWeightAndBias) {
    auto adapter = make_layernorm_adapter();
    const Problem p{{{6, 50}}, at::kFloat};
    at::Generator gen = cpu_generator(3);
    const auto in = adapter->make_inputs(p, InputKind::Regular, gen);
    const at::Tensor x = f64(in[0]);
    const at::Tensor mean = x.mean(-1, true);
    const at::Tensor var = (x - mean).square().mean(-1, true);
    const double eps = static_cast<float>(kLayerNormEps);
    expect_close(adapter->reference(p, in), (x - mean) / (var + eps).sqrt() * f64(in[1]) + f64(in[2]));
}

TEST(AdapterReference, RmsNormMatchesAtRmsNormInFp64) {
    auto adapter = make_rmsnorm_adapter();
    const Problem p{{{8, 64}}, at::kFloat};
    at::Generator gen = cpu_generator(4);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const double eps = static_cast<float>(kRmsNormEps);
    expect_close(adapter->reference(p, in), at::rms_norm(f64(in[0]), {64}, f64(in[1]), eps));
}

TEST(AdapterReference, AttentionMatchesSdpaMathInFp64CausalAndNot) {
    auto adapter = make_flash_attention_adapter();
    for (int causal : {0, 1}) {
        const Problem p{{{2, 3, 19, 16, causal}}, at::kFloat};
        at::Generator gen = cpu_generator(5);
        const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
        const auto expected = at::_scaled_dot_product_attention_math(f64(in[0]), f64(in[1]), f64(in[2]), {}, 0.0,
                                                                     causal != 0, {}, 0.25);
        expect_close(adapter->reference(p, in), std::get<0>(expected), 1e-9);
    }
}

TEST(AdapterReference, AttentionCausalFirstQueryReturnsTheFirstValue) {
    auto adapter = make_flash_attention_adapter();
    const Problem p{{{1, 2, 9, 8, 1}}, at::kBFloat16};
    at::Generator gen = cpu_generator(6);
    const auto in = adapter->make_inputs(p, InputKind::Regular, gen);
    const at::Tensor ref = adapter->reference(p, in);
    expect_close(ref.select(2, 0), in[2].to(at::kFloat).select(2, 0), 0.0);
}

TEST(AdapterReference, FusedMlpIsSwiGluWithSiluOnTheGate) {
    auto adapter = make_fused_mlp_adapter();
    const Problem p{{{5, 12, 20}}, at::kFloat};
    at::Generator gen = cpu_generator(7);
    const auto in = adapter->make_inputs(p, InputKind::Regular, gen);
    const at::Tensor g = at::mm(f64(in[0]), f64(in[1]).t());
    const at::Tensor u = at::mm(f64(in[0]), f64(in[2]).t());
    const at::Tensor h = g / (1.0 + (-g).exp()) * u;
    expect_close(adapter->reference(p, in), at::mm(h, f64(in[3]).t()));
    // w_gate and w_up are the halves of w_gate_up.
    EXPECT_TRUE(at::equal(in[4], at::cat({in[1], in[2]}, 0)));
}

TEST(AdapterReference, CrossEntropyIsMeanLogSumExpMinusTargetLogit) {
    auto adapter = make_cross_entropy_adapter();
    const Problem p{{{9, 31}}, at::kFloat};
    at::Generator gen = cpu_generator(8);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    EXPECT_EQ(in[1].scalar_type(), at::kLong);
    EXPECT_GE(in[1].min().item<int64_t>(), 0);
    EXPECT_LT(in[1].max().item<int64_t>(), 31);
    const at::Tensor x = f64(in[0]);
    const at::Tensor loss = x.logsumexp(-1) - x.gather(1, in[1].unsqueeze(1)).squeeze(1);
    expect_close(adapter->reference(p, in), loss.mean().reshape({1}), 1e-9);
    EXPECT_EQ(adapter->output_dtype(p), at::kFloat);
}

TEST(AdapterReference, RotaryRotatesEachPairByItsAngle) {
    auto adapter = make_rotary_embedding_adapter();
    const Problem p{{{1, 2, 5, 8}}, at::kFloat};
    at::Generator gen = cpu_generator(9);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const at::Tensor ref = f64(adapter->reference(p, in));  // accessors read host memory
    // Element by element: (x_i, x_{i+4}) rotated by the angle whose cos / sin the tables hold.
    const at::Tensor x64 = f64(in[0]), c64 = f64(in[1]), s64 = f64(in[2]);
    const auto x = x64.accessor<double, 4>();
    const auto c = c64.accessor<double, 2>();
    const auto s = s64.accessor<double, 2>();
    const auto y = ref.accessor<double, 4>();
    for (int h = 0; h < 2; ++h)
        for (int q = 0; q < 5; ++q)
            for (int i = 0; i < 4; ++i) {
                EXPECT_NEAR(y[0][h][q][i], x[0][h][q][i] * c[q][i] - x[0][h][q][i + 4] * s[q][i], 1e-9);
                EXPECT_NEAR(y[0][h][q][i + 4], x[0][h][q][i + 4] * c[q][i] + x[0][h][q][i] * s[q][i], 1e-9);
            }
    // The full-width tables the baseline uses repeat each half.
    EXPECT_TRUE(at::equal(in[3], at::cat({in[1], in[1]}, -1)));
}

TEST(AdapterReference, RotaryRegularTablesStartAtPositionZero) {
    auto adapter = make_rotary_embedding_adapter();
    const Problem p{{{1, 1, 4, 8}}, at::kFloat};
    at::Generator gen = cpu_generator(10);
    const auto in = adapter->make_inputs(p, InputKind::Regular, gen);
    expect_close(in[1][0], at::ones({4}), 0.0);  // cos(0) = 1
    // Position 1, pair 1: angle 10000^(-2/8) = 0.1.
    EXPECT_NEAR(in[2][1][1].item<double>(), std::sin(0.1), 1e-7);
}

TEST(AdapterReference, ReduceIsTheRowSumInFp64) {
    auto adapter = make_reduce_adapter();
    const Problem p{{{7, 333}}, at::kFloat};
    at::Generator gen = cpu_generator(11);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    expect_close(adapter->reference(p, in), f64(in[0]).sum(-1));
}

// ---- the adversarial inputs have the properties they are meant to have --------------------------------

TEST(AdapterAdversarial, SoftmaxRowsOverflowExpWithoutTheMaximum) {
    auto adapter = make_softmax_adapter();
    for (at::ScalarType dtype : kDtypes) {
        const Problem p{{{8, 512}}, dtype};
        at::Generator gen = cpu_generator(20);
        const at::Tensor x = adapter->make_inputs(p, InputKind::Adversarial, gen)[0].to(at::kFloat);
        const at::Tensor row_max = std::get<0>(x.max(-1));
        EXPECT_GT(row_max[0].item<float>(), 88.8f) << c10::toString(dtype);   // exp(x) overflows fp32
        EXPECT_LT(row_max[2].item<float>(), -88.8f) << c10::toString(dtype);  // exp(x) underflows to 0
        // Near-equal rows still hold many distinct values after rounding to the dtype.
        EXPECT_GT(std::get<0>(at::_unique(x[0])).numel(), 8) << c10::toString(dtype);
        // One dominant entry in row 1.
        EXPECT_GT(at::softmax(x[1], 0).max().item<float>(), 0.99f);
    }
}

TEST(AdapterAdversarial, LayerNormHasNearConstantAndLargeRowsAndNonTrivialAffine) {
    auto adapter = make_layernorm_adapter();
    for (at::ScalarType dtype : kDtypes) {
        const Problem p{{{8, 1024}}, dtype};
        at::Generator gen = cpu_generator(21);
        const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
        const at::Tensor x = in[0].to(at::kDouble);
        const at::Tensor var = x.var(-1, /*unbiased=*/false);
        EXPECT_LT(var[0].item<double>(), 1e-3) << c10::toString(dtype);  // near-constant row
        EXPECT_GT(var[0].item<double>(), 0.0) << c10::toString(dtype);   // but not exactly constant
        EXPECT_GT(x[1].abs().max().item<double>(), 1000.0) << c10::toString(dtype);
        const at::Tensor w = in[1].to(at::kFloat), b = in[2].to(at::kFloat);
        EXPECT_TRUE((w < 0).any().item<bool>() && (w > 0).any().item<bool>());
        EXPECT_GT((w.abs() - 1).abs().max().item<float>(), 0.1f);
        EXPECT_GT(b.abs().max().item<float>(), 0.1f);
    }
}

TEST(AdapterAdversarial, RmsNormSquaresOverflowFp16AndTinyRowsMeetEps) {
    auto adapter = make_rmsnorm_adapter();
    const Problem p{{{8, 1024}}, at::kHalf};
    at::Generator gen = cpu_generator(22);
    const at::Tensor x = adapter->make_inputs(p, InputKind::Adversarial, gen)[0].to(at::kDouble);
    const at::Tensor mean_square = x.square().mean(-1);
    EXPECT_GT(x[1].square().max().item<double>(), 65504.0);  // x * x in fp16 would be inf
    EXPECT_LT(mean_square[0].item<double>(), 1e2 * kRmsNormEps);
    EXPECT_GT(mean_square[0].item<double>(), 1e-2 * kRmsNormEps);
}

TEST(AdapterAdversarial, MatmulInputsSpanManyBinadesWhileTheProductFitsFp16) {
    auto adapter = make_matmul_adapter();
    const Problem p{{{256, 256, 256}}, at::kHalf};
    at::Generator gen = cpu_generator(23);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const at::Tensor a = in[0].to(at::kFloat).abs();
    const at::Tensor nonzero = a.masked_select(a > 0);
    EXPECT_GT((nonzero.max() / nonzero.min()).item<double>(), std::pow(2.0, 20));
    const at::Tensor c = adapter->reference(p, in).abs();
    EXPECT_GT(c.max().item<double>(), 200.0);   // rows and columns scaled up by 2^4 each
    EXPECT_LT(c.max().item<double>(), 30000.0);
}

TEST(AdapterAdversarial, AttentionHasHeadsWithLogitsBeyondExpRange) {
    auto adapter = make_flash_attention_adapter();
    const Problem p{{{1, 3, 64, 64, 1}}, at::kBFloat16};
    at::Generator gen = cpu_generator(24);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    const at::Tensor logits = at::matmul(in[0].to(at::kFloat), in[1].to(at::kFloat).transpose(-1, -2)) / 8.0;
    EXPECT_GT(logits[0][0].max().item<float>(), 88.8f);  // head 0: exp() overflows without the maximum
    EXPECT_LT(logits[0][1].abs().max().item<float>(), 1.0f);  // head 1: nearly uniform
}

TEST(AdapterAdversarial, ReduceHasRowsThatCancelExactly) {
    auto adapter = make_reduce_adapter();
    for (at::ScalarType dtype : kDtypes) {
        const Problem p{{{6, 1000}}, dtype};
        at::Generator gen = cpu_generator(25);
        const at::Tensor x = adapter->make_inputs(p, InputKind::Adversarial, gen)[0].to(at::kDouble);
        EXPECT_EQ(x[0].sum().item<double>(), 0.0) << c10::toString(dtype);
        EXPECT_GT(x[0].abs().sum().item<double>(), 100.0) << c10::toString(dtype);
        EXPECT_NEAR(x[2].sum().item<double>(), 1000.0, 100.0) << c10::toString(dtype);
        EXPECT_TRUE((x[2] >= 0).all().item<bool>());
    }
}

// On the adversarial rows a kernel must do its arithmetic in fp32 and round once: eager rotate-half in
// the dtype fails the check there, the same formula in fp32 rounded to the dtype passes.
TEST(AdapterAdversarial, RotaryLargeRowsNeedFp32ArithmeticInside) {
    auto adapter = make_rotary_embedding_adapter();
    for (at::ScalarType dtype : {at::kHalf, at::kBFloat16}) {
        const Problem p{{{1, 4, 64, 128}}, dtype};
        at::Generator gen = cpu_generator(27);
        const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
        const at::Tensor ref = adapter->reference(p, in);
        EXPECT_GT(worst_excess(adapter->baseline(p, in), ref, adapter->tolerance(p)), 0.0) << c10::toString(dtype);
        std::vector<at::Tensor> upcast;
        for (const at::Tensor& t : in) upcast.push_back(t.to(at::kFloat));
        const at::Tensor fp32_inside = adapter->baseline({p.shape, at::kFloat}, upcast).to(dtype);
        EXPECT_LE(worst_excess(fp32_inside, ref, adapter->tolerance(p)), 0.0) << c10::toString(dtype);
    }
}

TEST(AdapterAdversarial, RotaryUsesLargePositions) {
    auto adapter = make_rotary_embedding_adapter();
    const Problem p{{{1, 1, 4, 8}}, at::kFloat};
    at::Generator gen = cpu_generator(26);
    const auto in = adapter->make_inputs(p, InputKind::Adversarial, gen);
    // Position 0 of the table is not angle 0 any more.
    EXPECT_LT(in[1][0].min().item<float>(), 0.999f);
}

// ---- argument structs, TMA operands, tolerances ---------------------------------------------------------

TEST(AdapterArgs, RmsNormFillsPointersSizesAndEps) {
    auto adapter = make_rmsnorm_adapter();
    const Problem p{{{3, 40}}, at::kHalf};
    at::Generator gen = cpu_generator(30);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({3, 40}, at::kHalf);
    ak_rmsnorm_args a{};
    adapter->fill_args(&a, sizeof a, p, t);
    EXPECT_EQ(a.x, t.inputs[0].data_ptr());
    EXPECT_EQ(a.weight, t.inputs[1].data_ptr());
    EXPECT_EQ(a.y, t.output.data_ptr());
    EXPECT_EQ(a.rows, 3);
    EXPECT_EQ(a.cols, 40);
    EXPECT_FLOAT_EQ(a.eps, 1e-6f);
    EXPECT_EQ(a.workspace, nullptr);
}

TEST(AdapterArgs, AttentionFillsScaleCausalFlagAndTmaOperands) {
    auto adapter = make_flash_attention_adapter();
    const Problem p{{{2, 3, 5, 128, 1}}, at::kBFloat16};
    at::Generator gen = cpu_generator(31);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({2, 3, 5, 128}, at::kBFloat16);
    ak_flash_attention_args a{};
    adapter->fill_args(&a, sizeof a, p, t);
    EXPECT_EQ(a.causal, 1);
    EXPECT_FLOAT_EQ(a.scale, static_cast<float>(1.0 / std::sqrt(128.0)));
    EXPECT_EQ(a.v, t.inputs[2].data_ptr());
    EXPECT_EQ(a.seq, 5);
    EXPECT_EQ(adapter->tiles_m(p), 5);
    EXPECT_EQ(adapter->tiles_batch(p), 6);
    EXPECT_EQ(adapter->rows(p), 30);
    void* base = nullptr;
    int64_t rows = 0, cols = 0;
    ASSERT_TRUE(adapter->tma_operand(1, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.inputs[1].data_ptr());
    EXPECT_EQ(rows, 30);
    EXPECT_EQ(cols, 128);
    EXPECT_FALSE(adapter->tma_operand(3, p, t, &base, &rows, &cols));
}

TEST(AdapterArgs, MatmulTmaOperandsAreAThenBThenC) {
    auto adapter = make_matmul_adapter();
    const Problem p{{{16, 32, 48}}, at::kHalf};
    at::Generator gen = cpu_generator(32);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({16, 32}, at::kHalf);
    void* base = nullptr;
    int64_t rows = 0, cols = 0;
    ASSERT_TRUE(adapter->tma_operand(1, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.inputs[1].data_ptr());
    EXPECT_EQ(rows, 48);
    EXPECT_EQ(cols, 32);
    ASSERT_TRUE(adapter->tma_operand(2, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.output.data_ptr());
    EXPECT_EQ(adapter->tiles_n(p), 32);
    ak_matmul_args a{};
    adapter->fill_args(&a, sizeof a, p, t);
    EXPECT_EQ(a.m, 16);
    EXPECT_EQ(a.n, 32);
    EXPECT_EQ(a.k, 48);
}

// fused_mlp's tensor maps: x [M, D], the concatenated [w_gate; w_up] as one [2F, D] tensor (the gate rows
// first, so w_gate's storage), w_down [D, F]; nothing past operand 2.
TEST(AdapterArgs, FusedMlpTmaOperandsAreXThenGateUpThenDown) {
    auto adapter = make_fused_mlp_adapter();
    const Problem p{{{16, 24, 40}}, at::kHalf};
    at::Generator gen = cpu_generator(33);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({16, 24}, at::kHalf);
    void* base = nullptr;
    int64_t rows = 0, cols = 0;
    ASSERT_TRUE(adapter->tma_operand(0, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.inputs[0].data_ptr());
    EXPECT_EQ(rows, 16);
    EXPECT_EQ(cols, 24);
    ASSERT_TRUE(adapter->tma_operand(1, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.inputs[1].data_ptr());  // w_gate is the first half of w_gate_up
    EXPECT_EQ(base, t.inputs[4].data_ptr());
    EXPECT_EQ(rows, 80);
    EXPECT_EQ(cols, 24);
    ASSERT_TRUE(adapter->tma_operand(2, p, t, &base, &rows, &cols));
    EXPECT_EQ(base, t.inputs[3].data_ptr());
    EXPECT_EQ(rows, 24);
    EXPECT_EQ(cols, 40);
    EXPECT_FALSE(adapter->tma_operand(3, p, t, &base, &rows, &cols));
}

TEST(AdapterArgs, RotaryRowsAreBatchTimesHeadsTimesSeq) {
    auto adapter = make_rotary_embedding_adapter();
    const Problem p{{{2, 3, 7, 64}}, at::kFloat};
    EXPECT_EQ(adapter->rows(p), 42);
    at::Generator gen = cpu_generator(33);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({2, 3, 7, 64});
    ak_rotary_args a{};
    adapter->fill_args(&a, sizeof a, p, t);
    EXPECT_EQ(a.rows, 42);
    EXPECT_EQ(a.cos, t.inputs[1].data_ptr());
    EXPECT_EQ(t.inputs[1].sizes(), (at::IntArrayRef{7, 32}));
}

TEST(AdapterArgs, NonContiguousTensorsAreRefused) {
    auto adapter = make_softmax_adapter();
    const Problem p{{{4, 6}}, at::kFloat};
    CaseTensors t;
    t.inputs = {at::randn({6, 4}).t()};
    t.output = at::empty({4, 6});
    ak_softmax_args a{};
    EXPECT_THROW(adapter->fill_args(&a, sizeof a, p, t), Error);
}

TEST(AdapterTolerance, ReduceLoosensFp32AtolWithRowLengthOnly) {
    auto adapter = make_reduce_adapter();
    EXPECT_DOUBLE_EQ(adapter->tolerance({{{8, 1024}}, at::kFloat}).atol, 1e-4);
    EXPECT_DOUBLE_EQ(adapter->tolerance({{{8, 65536}}, at::kFloat}).atol, 8e-4);
    EXPECT_DOUBLE_EQ(adapter->tolerance({{{8, 65536}}, at::kFloat}).rtol, 1e-4);
    EXPECT_DOUBLE_EQ(adapter->tolerance({{{8, 65536}}, at::kHalf}).atol, 1e-2);
}

TEST(AdapterTolerance, CrossEntropyComparesItsFp32LossTightlyInEveryDtype) {
    auto adapter = make_cross_entropy_adapter();
    for (at::ScalarType dtype : kDtypes) {
        const Tolerance t = adapter->tolerance({{{64, 1000}}, dtype});
        EXPECT_DOUBLE_EQ(t.atol, 1e-4);
        EXPECT_DOUBLE_EQ(t.rtol, 1e-4);
        EXPECT_DOUBLE_EQ(t.norm_rtol, 1e-4);
    }
    // A loss averaged without the last of 64 rows is off by far more than that.
    at::Generator gen = cpu_generator(8);
    const Problem p{{{64, 1000}}, at::kHalf};
    const auto inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    const double ref = adapter->reference(p, inputs).item<double>();
    const at::Tensor per_row = at::cross_entropy_loss(inputs[0].to(at::kDouble), inputs[1], {}, at::Reduction::None);
    const double without_last = per_row.narrow(0, 0, 63).mean().item<double>();
    EXPECT_GT(std::abs(without_last - ref), 1e-4 + 1e-4 * std::abs(ref));
    EXPECT_LT(std::abs(without_last - ref), 1e-2 + 1e-2 * std::abs(ref)) << "the old tolerance let it pass";
}

TEST(AdapterInvariants, SoftmaxRowsMustSumToOne) {
    auto adapter = make_softmax_adapter();
    at::Generator gen = cpu_generator(9);
    const Problem p{{{64, 1024}}, at::kHalf};
    const auto inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    const Tolerance tol = adapter->tolerance(p);
    const at::Tensor good = at::softmax(inputs[0].to(at::kFloat), -1).to(at::kHalf);
    EXPECT_FALSE(adapter->check_invariants(p, good, tol));
    // Every probability below 0.0099 written as 0: each element passes atol 1e-2, the rows do not sum to 1.
    const at::Tensor dropped = good.masked_fill(good.to(at::kFloat).lt(0.0099), 0);
    EXPECT_LE(worst_excess(dropped, adapter->reference(p, inputs), tol), 0.0) << "passes element by element";
    const auto why = adapter->check_invariants(p, dropped, tol);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("sums to"), std::string::npos) << *why;
}

TEST(AliasedInputs, ACloneKeepsViewsOfOneStorageTogetherAndReloadsByStorage) {
    const at::Tensor gate_up = at::arange(24, at::kFloat).reshape({6, 4});
    const at::Tensor x = at::arange(8, at::kFloat).reshape({2, 4}).add(100);
    const AliasedInputs original({x, gate_up.narrow(0, 0, 3), gate_up.narrow(0, 3, 3), gate_up});
    EXPECT_EQ(original.storage_count(), 2u);
    EXPECT_EQ(original.bytes(), (8 + 24) * 4);

    const AliasedInputs copy = original.clone();
    ASSERT_EQ(copy.tensors().size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(at::equal(copy.tensors()[i], original.tensors()[i])) << i;
        EXPECT_NE(copy.tensors()[i].data_ptr(), original.tensors()[i].data_ptr()) << i;
    }
    // The views still alias their base in the copy: the second half of w_gate_up is w_up.
    EXPECT_EQ(copy.tensors()[2].data_ptr(), static_cast<float*>(copy.tensors()[3].data_ptr()) + 12);

    // Loading other contents changes every view, one copy per storage.
    const at::Tensor other_gate_up = at::full({6, 4}, 7.0f);
    const AliasedInputs other({at::zeros({2, 4}), other_gate_up.narrow(0, 0, 3), other_gate_up.narrow(0, 3, 3), other_gate_up});
    copy.load(other);
    EXPECT_TRUE(at::equal(copy.tensors()[0], at::zeros({2, 4})));
    EXPECT_TRUE(at::equal(copy.tensors()[2], at::full({3, 4}, 7.0f)));
    EXPECT_TRUE(at::equal(original.tensors()[0], x)) << "the original is untouched";

    const AliasedInputs mismatched({at::zeros({3})});
    EXPECT_THROW(copy.load(mismatched), Error);
}

TEST(AliasedInputs, ShiftedViewsOfPristineContentsWithSlackShowNewContentsOfTheSameKind) {
    const at::Tensor a_base = at::arange(32, at::kFloat).reshape({8, 4});       // 128 bytes
    const at::Tensor b_base = at::arange(32, at::kFloat).reshape({8, 4}).add(1000);
    const at::Tensor a_targets = at::arange(4, at::kLong);                       // 32 bytes
    const at::Tensor b_targets = at::arange(4, at::kLong).add(10);
    const AliasedInputs head({a_base.narrow(0, 0, 4), a_base.narrow(0, 4, 4), a_targets});
    const AliasedInputs tail({b_base.narrow(0, 0, 4), b_base.narrow(0, 4, 4), b_targets});
    const AliasedInputs pristine = AliasedInputs::with_slack(head, tail, 64);
    EXPECT_EQ(pristine.slack_bytes(), 64);
    // Unshifted, the tensors are the head's.
    const AliasedInputs same = pristine.shifted({0, 0});
    for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(same.tensors()[i], head.tensors()[i])) << i;
    // Shifted by 16 bytes (4 floats, 2 int64): the first row moves out, a row of the tail comes in, and the
    // views keep their relative layout.
    const AliasedInputs moved = pristine.shifted({16, 16});
    EXPECT_TRUE(at::equal(moved.tensors()[0], a_base.narrow(0, 1, 4)));
    EXPECT_TRUE(at::equal(moved.tensors()[1].narrow(0, 0, 3), a_base.narrow(0, 5, 3)));
    EXPECT_TRUE(at::equal(moved.tensors()[1][3], b_base[0]));
    EXPECT_TRUE(at::equal(moved.tensors()[2], at::tensor({2, 3, 10, 11}, at::kLong)));
    // A working copy loaded from the shifted view holds exactly those contents.
    const AliasedInputs working = head.clone();
    working.load(moved);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(working.tensors()[i], moved.tensors()[i])) << i;
    // Short tails repeat; offsets must be multiples of 16 within the slack.
    EXPECT_TRUE(at::equal(pristine.shifted({0, 64}).tensors()[2], at::tensor({10, 11, 12, 13}, at::kLong)));
    EXPECT_TRUE(at::equal(pristine.shifted({0, 48}).tensors()[2], at::tensor({12, 13, 10, 11}, at::kLong)));
    EXPECT_THROW(pristine.shifted({8, 0}), Error);
    EXPECT_THROW(pristine.shifted({0, 80}), Error);
    EXPECT_THROW(pristine.shifted({0}), Error);
}

// ---- fused_mlp's library stages -----------------------------------------------------------------------

TEST(AdapterLibraryStages, FusedMlpGemmsAroundAnActivationGiveTheReference) {
    auto adapter = make_fused_mlp_adapter();
    for (at::ScalarType dtype : kDtypes) {
        const Problem p{{{9, 24, 40}}, dtype};
        at::Generator gen = cpu_generator(40);
        CaseTensors t;
        t.inputs = adapter->make_inputs(p, InputKind::Adversarial, gen);
        // The output and the workspace beside the inputs (on the GPU when the machine has one).
        const at::Device device = t.inputs[0].device();
        t.output = at::full({9, 24}, std::numeric_limits<double>::quiet_NaN(),
                            at::TensorOptions().dtype(dtype).device(device));
        const int64_t esize = static_cast<int64_t>(c10::elementSize(dtype));
        t.workspace = at::zeros({3 * 9 * 40 * esize + 64}, at::TensorOptions().dtype(at::kByte).device(device));

        ak_fused_mlp_args a{};
        adapter->fill_args(&a, sizeof a, p, t);
        ASSERT_EQ(a.gate_up, t.workspace.data_ptr());
        ASSERT_EQ(static_cast<char*>(a.hidden), static_cast<char*>(a.gate_up) + 2 * 9 * 40 * esize);

        adapter->library_stage(AK_LIB_MLP_GATE_UP_GEMM, p, t);
        // The activation stage a candidate's kernel would run: hidden = silu(gate) * up.
        const at::Tensor gate_up = at::from_blob(a.gate_up, {9, 80}, at::TensorOptions().dtype(dtype).device(device));
        const at::Tensor hidden = at::from_blob(a.hidden, {9, 40}, at::TensorOptions().dtype(dtype).device(device));
        hidden.copy_(at::silu(gate_up.narrow(1, 0, 40).to(at::kFloat)) * gate_up.narrow(1, 40, 40).to(at::kFloat));
        adapter->library_stage(AK_LIB_MLP_DOWN_GEMM, p, t);

        EXPECT_LE(worst_excess(t.output, adapter->reference(p, t.inputs), adapter->tolerance(p)), 0.0)
            << c10::toString(dtype);
    }
}

TEST(AdapterLibraryStages, FusedMlpRefusesATooSmallWorkspaceAndUnknownOps) {
    auto adapter = make_fused_mlp_adapter();
    const Problem p{{{4, 8, 16}}, at::kFloat};
    at::Generator gen = cpu_generator(41);
    CaseTensors t;
    t.inputs = adapter->make_inputs(p, InputKind::Regular, gen);
    t.output = at::empty({4, 8});
    t.workspace = at::zeros({3 * 4 * 16 * 4 - 4}, at::kByte);
    EXPECT_THROW(adapter->library_stage(AK_LIB_MLP_GATE_UP_GEMM, p, t), LaunchError);
    ak_fused_mlp_args a{};
    adapter->fill_args(&a, sizeof a, p, t);
    EXPECT_EQ(a.gate_up, nullptr);  // not enough scratch: no gate_up / hidden
    t.workspace = at::zeros({3 * 4 * 16 * 4}, at::kByte);
    EXPECT_THROW(adapter->library_stage(99, p, t), LaunchError);
    EXPECT_THROW(make_softmax_adapter()->library_stage(AK_LIB_MLP_GATE_UP_GEMM, p, t), Error);
}
