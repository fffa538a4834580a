// matmul: C[M, N] = A[M, K] @ B[K, N], fp32 accumulation, never TF32 (contract.cuh, ak_matmul_args).
// inputs: {A [M, K], B [K, N]}; output C [M, N].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"

#include "autokernel/contract.cuh"

#include <ATen/Context.h>

#include <cmath>

namespace ak::eval {
namespace {

using namespace adapters;

// Exponent ranges of the adversarial input: A's rows are scaled by 2^e, B's columns by 2^f, and the
// inner dimension by 2^g on A's columns and 2^-g on B's rows. The inner scaling cancels in every
// product, so C keeps the scale 2^(e+f) while the inputs span a range of 2^(2g); the output scaling
// spreads C itself over many binades.
//
// The scale of C is capped because the check is elementwise (atol + rtol * |C|): where the K products
// nearly cancel, |C| is tiny while a correct kernel's fp32 accumulation error grows with the scale of
// the products, about 7e-6 * 2^(e+f) for K = 4096 on an H200 (cuBLAS fp16, measured). At 2^12 that
// exceeds fp16's atol of 1e-2; at 2^8 it stays ten times below it.
struct ScaleRanges {
    int e_lo, e_hi;  // rows of A
    int f_lo, f_hi;  // columns of B
    int g;           // inner dimension: g in [-g, g]
};

ScaleRanges scale_ranges(at::ScalarType dtype) {
    // fp32 is checked against atol 1e-4, so C stays at scale <= 1 and its range goes downwards.
    if (dtype == at::kFloat) return {-8, 0, -8, 0, 8};
    // fp16 (max 65504): |A| <= 2^(e+g) * 6 and |B| <= 2^(f+g) * 6 stay below 2^11, |C| below 2^8 * 30.
    // bf16 has fp32's range and takes a wider inner range.
    return {-8, 4, -8, 4, dtype == at::kHalf ? 4 : 8};
}

class MatmulAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::Matmul; }
    std::vector<std::string> input_names() const override { return {"a", "b"}; }

    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t m = d[0], n = d[1], k = d[2];
        RandomSource rs(gen);
        // C[i, j] is a sum of K products of size 1/sqrt(K): N(0, 1), far from fp16's range.
        at::Tensor a = rs.normal({m, k});
        at::Tensor b = rs.normal({k, n}).mul_(1.0 / std::sqrt(static_cast<double>(k)));
        if (kind == InputKind::Adversarial) {
            const ScaleRanges r = scale_ranges(p.dtype);
            const at::Tensor inner = rs.powers_of_two({k}, -r.g, r.g);
            a.mul_(rs.powers_of_two({m, 1}, r.e_lo, r.e_hi)).mul_(inner.unsqueeze(0));
            b.mul_(inner.reciprocal().unsqueeze(1)).mul_(rs.powers_of_two({1, n}, r.f_lo, r.f_hi));
        }
        return {rs.finish(a, p.dtype), rs.finish(b, p.dtype)};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const auto& d = checked_dims(type(), p);
        return {d[0], d[1]};
    }

    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        const at::NoTF32Guard no_tf32;
        const at::ScalarType rd = reference_dtype(p.dtype);
        return at::matmul(inputs[0].to(rd), inputs[1].to(rd));
    }

    at::Tensor baseline(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 2, type());
        const at::NoTF32Guard no_tf32;  // fp32 stays fp32 (no effect on fp16 / bf16)
        return at::matmul(inputs[0], inputs[1]);
    }

    std::string baseline_name() const override { return "at::matmul (cuBLAS, no TF32)"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const auto& d = checked_dims(type(), p);
        expect_inputs(t, 2, type());
        ak_matmul_args a{};
        a.a = tensor_address(t.inputs[0], "A");
        a.b = tensor_address(t.inputs[1], "B");
        a.c = tensor_address(t.output, "C");
        a.m = to_int(d[0], "M");
        a.n = to_int(d[1], "N");
        a.k = to_int(d[2], "K");
        a.workspace = workspace_address(t);
        store_args(a, args, args_size, "ak_matmul_args");
    }

    int64_t rows(const Problem& p) const override { return checked_dims(type(), p)[0]; }
    int64_t tiles_m(const Problem& p) const override { return checked_dims(type(), p)[0]; }
    int64_t tiles_n(const Problem& p) const override { return checked_dims(type(), p)[1]; }
    int64_t tiles_batch(const Problem&) const override { return 1; }

    // Operands 0, 1, 2: A [M, K], B [K, N], C [M, N].
    bool tma_operand(int index, const Problem& p, const CaseTensors& t, void** base, int64_t* rows,
                     int64_t* cols) const override {
        const auto& d = checked_dims(type(), p);
        const int64_t m = d[0], n = d[1], k = d[2];
        const auto set = [&](void* address, int64_t r, int64_t c) {
            *base = address;
            *rows = r;
            *cols = c;
            return true;
        };
        switch (index) {
        case 0: return set(tensor_address(t.inputs.at(0), "A"), m, k);
        case 1: return set(tensor_address(t.inputs.at(1), "B"), k, n);
        case 2: return set(tensor_address(t.output, "C"), m, n);
        default: return false;
        }
    }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_matmul_adapter() { return std::make_unique<MatmulAdapter>(); }

}  // namespace ak::eval
