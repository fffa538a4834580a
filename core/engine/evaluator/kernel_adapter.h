#pragma once
// What the evaluator needs to know about one kernel type, in LibTorch terms.
//
// The harness (harness.cpp) is generic: it asks the adapter for fresh inputs, poisons and guards the
// output, launches the candidate's stages through the launcher, compares against the adapter's
// high-precision reference, and times the candidate against the adapter's strongest PyTorch baseline.
// One adapter per kernel type lives in adapters/<type>_adapter.cpp and registers itself in
// adapter_registry.cpp.
//
// Only the evaluator process includes this header (it pulls in ATen).
#include "engine/evaluator/tolerance.h"
#include "engine/kernel_type.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ak::eval {

// How inputs are drawn. Every kind stays finite in the dtype under test: an input that overflows to
// inf would make the comparison vacuous.
enum class InputKind {
    Regular,      // well-scaled random data (fresh per case, seeded)
    Adversarial,  // type-specific hard-but-finite numerics (near-equal large softmax rows, near-zero
                  // variance rows for norms, wide dynamic range for matmul, mixed scales, ...)
};

// One problem instance: the shape (type-specific meaning, see KernelTypeInfo::shape_dims) and dtype.
struct Problem {
    Shape shape;
    at::ScalarType dtype;
};

// Tensors of one case. `inputs` in the order the adapter defines; `output` is the tensor the
// candidate writes (a view into a larger buffer whose tail is the guard region; the harness
// allocates it from output_shape()/output_dtype()).
struct CaseTensors {
    std::vector<at::Tensor> inputs;
    at::Tensor output;
    at::Tensor workspace;  // uint8, zeroed before each launch; may be undefined when unused
};

// One way PyTorch computes a problem, timed as a baseline: a name for reports and the call (inputs in
// the adapter's order, a fresh output in the problem's dtype).
struct BaselineRoute {
    std::string name;
    std::function<at::Tensor(const std::vector<at::Tensor>&)> run;
};

class KernelAdapter {
public:
    virtual ~KernelAdapter() = default;

    virtual KernelType type() const = 0;

    // Fresh inputs on the current CUDA device, drawn from `gen` (a CPU or CUDA generator seeded by the
    // harness, so every case's seed is recorded). Weights and biases must be non-trivial (never all
    // ones / zeros).
    virtual std::vector<at::Tensor> make_inputs(const Problem& p, InputKind kind, at::Generator& gen) const = 0;
    // The inputs' names in make_inputs() order ("x", "weight"), for messages ("the candidate wrote into
    // its input 'x'").
    virtual std::vector<std::string> input_names() const = 0;

    virtual std::vector<int64_t> output_shape(const Problem& p) const = 0;
    virtual at::ScalarType output_dtype(const Problem& p) const { return p.dtype; }

    // Reference in higher precision (fp32 upcast for fp16/bf16; fp64 for fp32), returned as a tensor
    // of output_shape() in fp32/fp64. Never TF32.
    virtual at::Tensor reference(const Problem& p, const std::vector<at::Tensor>& inputs) const = 0;

    // The strongest PyTorch implementation, in the problem's dtype, writing a fresh tensor
    // (at::rms_norm, at::layer_norm, SDPA, at::matmul / cuBLAS, ...). Timed the same way
    // as the candidate.
    virtual at::Tensor baseline(const Problem& p, const std::vector<at::Tensor>& inputs) const = 0;
    // Name shown in reports, e.g. "at::rms_norm".
    virtual std::string baseline_name() const = 0;

    // The baselines timed side by side with the candidate (same run, same inputs, same L2 flushes); the
    // report keeps the fastest and names it. Default: baseline() as baseline_name(). A type whose
    // strongest PyTorch path is one of several backends (attention: SDPA's cuDNN, flash and
    // memory-efficient kernels) lists every backend that accepts these inputs, so the comparison is
    // against the fastest whatever PyTorch would pick. `inputs` are one set of the timed inputs.
    virtual std::vector<BaselineRoute> baseline_routes(const Problem& p, const std::vector<at::Tensor>& inputs) const;

    // Fills the type's argument struct (contract.cuh, ak_<type>_args) at `args`, which has
    // `args_size` bytes (the launcher checks the size). TMA maps are filled later by the launcher.
    virtual void fill_args(void* args, std::size_t args_size, const Problem& p, const CaseTensors& t) const = 0;

    // Rows for AK_GRID_ROWS and workspace_bytes_per_row; m/n/batch for AK_GRID_TILES;
    // seq/batch*heads for AK_GRID_ATTENTION.
    virtual int64_t rows(const Problem& p) const = 0;
    virtual int64_t tiles_m(const Problem& p) const { return rows(p); }
    virtual int64_t tiles_n(const Problem&) const { return 1; }
    virtual int64_t tiles_batch(const Problem&) const { return 1; }

    // Performs a library stage (AK_LIB_*). Default: throws (the type offers none).
    virtual void library_stage(int library_op, const Problem& p, const CaseTensors& t) const;

    // Global-memory tensors for TMA operand i (2D view rows x cols) — types without TMA return false.
    virtual bool tma_operand(int index, const Problem& p, const CaseTensors& t, void** base, int64_t* rows,
                             int64_t* cols) const {
        (void)index, (void)p, (void)t, (void)base, (void)rows, (void)cols;
        return false;
    }

    // Per-dtype tolerance (tolerance.h: elementwise fp16 1e-2, bf16 2e-2, fp32 1e-4 for atol and rtol, and
    // the norm gate fp16 2e-3, bf16 1e-2, fp32 2e-5). A type may loosen atol for a documented reason (e.g.
    // a sum over 50k elements in fp32) or tighten it where the output is exact enough (cross-entropy's
    // fp32 loss).
    virtual Tolerance tolerance(const Problem& p) const;

    // Properties every correct output has beyond the comparison with the reference (softmax: each row sums
    // to 1). nullopt when they hold, else what is violated, naming the row. `output` is the candidate's,
    // already known to be finite.
    virtual std::optional<std::string> check_invariants(const Problem& p, const at::Tensor& output,
                                                        const Tolerance& tol) const {
        (void)p, (void)output, (void)tol;
        return std::nullopt;
    }
};

// All nine adapters, indexed by KernelType.
const KernelAdapter& adapter_for(KernelType type);

}  // namespace ak::eval
