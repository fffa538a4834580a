// fused_mlp (SwiGLU): out[M, D] = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T
// (contract.cuh, ak_fused_mlp_args). Shape {M, D, F}.
// inputs: {x [M, D], w_gate [F, D], w_up [F, D], w_down [D, F], w_gate_up [2F, D]} where w_gate and w_up
// are the two halves of w_gate_up (views, no copy): the gate/up library GEMM multiplies by the
// concatenated weight in one cuBLAS call, and nothing has to be concatenated inside a timed stage.
// output out [M, D]. Workspace: gate_up [M, 2F] (gate columns first), then hidden [M, F].
#include "engine/evaluator/adapters/adapter_support.h"
#include "engine/evaluator/adapters/adapters.h"
#include "engine/evaluator/launch_plan.h"

#include "autokernel/contract.cuh"

#include <ATen/Context.h>

#include <cmath>

namespace ak::eval {
namespace {

using namespace adapters;

struct MlpDims {
    int64_t m, d, f;
};

MlpDims mlp_dims(const Problem& p) {
    const auto& d = checked_dims(KernelType::FusedMlp, p);
    return {d[0], d[1], d[2]};
}

// gate_up and hidden inside the workspace, as typed [M, 2F] and [M, F] views. Throws LaunchError when
// the workspace is missing or too small (the candidate must declare workspace_bytes_per_row >=
// 3 * F * sizeof(ak_t), rows = M, or the equivalent workspace_bytes).
struct MlpScratch {
    at::Tensor gate_up;
    at::Tensor hidden;
};

int64_t scratch_bytes(const MlpDims& m, at::ScalarType dtype) {
    return 3 * m.m * m.f * static_cast<int64_t>(c10::elementSize(dtype));
}

MlpScratch scratch_views(const MlpDims& m, at::ScalarType dtype, const CaseTensors& t) {
    const int64_t need = scratch_bytes(m, dtype);
    const int64_t have = t.workspace.defined() ? t.workspace.numel() * t.workspace.element_size() : 0;
    if (have < need)
        throw LaunchError("fused_mlp library stage: gate_up [M, 2F] and hidden [M, F] need a workspace of " +
                          std::to_string(need) + " bytes, the stages declared " + std::to_string(have) +
                          " (declare workspace_bytes_per_row = 3 * F * sizeof(ak_t); rows are M)");
    const at::Tensor bytes = t.workspace.view(at::kByte).reshape({-1});
    const int64_t esize = static_cast<int64_t>(c10::elementSize(dtype));
    const int64_t gate_up_bytes = 2 * m.m * m.f * esize;
    MlpScratch s;
    s.gate_up = bytes.narrow(0, 0, gate_up_bytes).view(dtype).view({m.m, 2 * m.f});
    s.hidden = bytes.narrow(0, gate_up_bytes, m.m * m.f * esize).view(dtype).view({m.m, m.f});
    return s;
}

class FusedMlpAdapter final : public KernelAdapter {
public:
    KernelType type() const override { return KernelType::FusedMlp; }
    std::vector<std::string> input_names() const override { return {"x", "w_gate", "w_up", "w_down", "w_gate_up"}; }

    // Regular: x ~ N(0, 1), w_gate / w_up ~ N(0, 1/D), w_down ~ N(0, 1/F): gate, up and out are O(1).
    // Adversarial, keeping out no larger than Regular (fp16 / bf16 intermediates are rounded, and the
    // error that rounding leaves in out grows with out's scale against a fixed atol):
    //   - rows of x scaled by 2^k, k in [-6, 0];
    //   - channel f of w_gate scaled by 2^c and of w_up by 2^-c, c in [-3, 3]: gates reach |g| ~ 40
    //     (silu's exp(-g) overflows fp16 and must not turn into inf * 0 = NaN) while g * u stays O(1);
    //   - output column d (row d of w_down) scaled by 2^k, k in [-3, 0].
    std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const override {
        const MlpDims m = mlp_dims(p);
        RandomSource rs(gen);
        at::Tensor x = rs.normal({m.m, m.d});
        at::Tensor w_gate_up = rs.normal({2 * m.f, m.d}).mul_(1.0 / std::sqrt(static_cast<double>(m.d)));
        at::Tensor w_down = rs.normal({m.d, m.f}).mul_(1.0 / std::sqrt(static_cast<double>(m.f)));
        if (kind == InputKind::Adversarial) {
            x.mul_(rs.powers_of_two({m.m, 1}, -6, 0));
            const at::Tensor channel = rs.powers_of_two({m.f, 1}, -3, 3);
            w_gate_up.narrow(0, 0, m.f).mul_(channel);
            w_gate_up.narrow(0, m.f, m.f).mul_(channel.reciprocal());
            w_down.mul_(rs.powers_of_two({m.d, 1}, -3, 0));
        }
        const at::Tensor gate_up = rs.finish(w_gate_up, p.dtype);
        return {rs.finish(x, p.dtype), gate_up.narrow(0, 0, m.f), gate_up.narrow(0, m.f, m.f),
                rs.finish(w_down, p.dtype), gate_up};
    }

    std::vector<int64_t> output_shape(const Problem& p) const override {
        const MlpDims m = mlp_dims(p);
        return {m.m, m.d};
    }

    // Upcast GEMMs without rounding in between: gate and up, silu(gate) * up, @ w_down^T.
    at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 4, type());
        const at::NoTF32Guard no_tf32;
        const at::ScalarType rd = reference_dtype(p.dtype);
        const at::Tensor x = inputs[0].to(rd);
        const at::Tensor gate = at::matmul(x, inputs[1].to(rd).t());
        const at::Tensor up = at::matmul(x, inputs[2].to(rd).t());
        return at::matmul(at::silu(gate) * up, inputs[3].to(rd).t());
    }

    // Eager PyTorch as a Llama MLP runs it: three cuBLAS GEMMs, silu, mul.
    at::Tensor baseline(const Problem&, const std::vector<at::Tensor>& inputs) const override {
        expect_inputs(inputs, 4, type());
        const at::NoTF32Guard no_tf32;
        const at::Tensor gate = at::matmul(inputs[0], inputs[1].t());
        const at::Tensor up = at::matmul(inputs[0], inputs[2].t());
        return at::matmul(at::silu(gate) * up, inputs[3].t());
    }

    std::string baseline_name() const override { return "at::matmul + at::silu + mul + at::matmul (eager)"; }

    void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const override {
        const MlpDims m = mlp_dims(p);
        expect_inputs(t, 4, type());
        ak_fused_mlp_args a{};
        a.x = tensor_address(t.inputs[0], "x");
        a.w_gate = tensor_address(t.inputs[1], "w_gate");
        a.w_up = tensor_address(t.inputs[2], "w_up");
        a.w_down = tensor_address(t.inputs[3], "w_down");
        a.out = tensor_address(t.output, "out");
        a.m = to_int(m.m, "M");
        a.d = to_int(m.d, "D");
        a.f = to_int(m.f, "F");
        a.workspace = workspace_address(t);
        // gate_up and hidden only exist when the stages asked for enough scratch; a candidate that
        // does everything in its own kernels may declare none (then both are null).
        const int64_t have = t.workspace.defined() ? t.workspace.numel() * t.workspace.element_size() : 0;
        if (have >= scratch_bytes(m, p.dtype)) {
            const MlpScratch s = scratch_views(m, p.dtype, t);
            a.gate_up = s.gate_up.data_ptr();
            a.hidden = s.hidden.data_ptr();
        }
        store_args(a, args, args_size, "ak_fused_mlp_args");
    }

    // Operands 0, 1, 2: x [M, D], w_gate_up [2F, D] (the concatenated weight: gate rows, then up rows),
    // w_down [D, F].
    bool tma_operand(int index, const Problem& p, const CaseTensors& t, void** base, int64_t* rows,
                     int64_t* cols) const override {
        const MlpDims m = mlp_dims(p);
        const auto set = [&](void* address, int64_t r, int64_t c) {
            *base = address;
            *rows = r;
            *cols = c;
            return true;
        };
        switch (index) {
        case 0: return set(tensor_address(t.inputs.at(0), "x"), m.m, m.d);
        case 1: return set(tensor_address(t.inputs.at(4), "w_gate_up"), 2 * m.f, m.d);
        case 2: return set(tensor_address(t.inputs.at(3), "w_down"), m.d, m.f);
        default: return false;
        }
    }

    int64_t rows(const Problem& p) const override { return mlp_dims(p).m; }
    int64_t tiles_m(const Problem& p) const override { return mlp_dims(p).m; }
    int64_t tiles_n(const Problem& p) const override { return mlp_dims(p).d; }

    // AK_LIB_MLP_GATE_UP_GEMM: gate_up = x @ w_gate_up^T; AK_LIB_MLP_DOWN_GEMM: out = hidden @ w_down^T.
    // cuBLAS through at::mm_out, in the problem dtype with fp32 accumulation (TF32 off for fp32), written
    // straight into the workspace views / the output.
    void library_stage(int library_op, const Problem& p, const CaseTensors& t) const override {
        const MlpDims m = mlp_dims(p);
        expect_inputs(t, 5, type());
        const MlpScratch s = scratch_views(m, p.dtype, t);
        const at::NoTF32Guard no_tf32;
        switch (library_op) {
        case AK_LIB_MLP_GATE_UP_GEMM: {
            at::Tensor out = s.gate_up;
            at::mm_out(out, t.inputs[0], t.inputs[4].t());
            return;
        }
        case AK_LIB_MLP_DOWN_GEMM: {
            at::Tensor out = t.output;
            at::mm_out(out, s.hidden, t.inputs[3].t());
            return;
        }
        default: break;
        }
        throw LaunchError("fused_mlp offers library ops " + std::to_string(AK_LIB_MLP_GATE_UP_GEMM) +
                          " (AK_LIB_MLP_GATE_UP_GEMM) and " + std::to_string(AK_LIB_MLP_DOWN_GEMM) +
                          " (AK_LIB_MLP_DOWN_GEMM), not " + std::to_string(library_op));
    }
};

}  // namespace

std::unique_ptr<KernelAdapter> make_fused_mlp_adapter() { return std::make_unique<FusedMlpAdapter>(); }

}  // namespace ak::eval
