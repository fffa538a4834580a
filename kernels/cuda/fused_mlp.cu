// Fused-MLP (SwiGLU) starter: out = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T.
//
// Three stages around vendor GEMMs:
//   stage 0  library AK_LIB_MLP_GATE_UP_GEMM: gate_up[M, 2F] = x @ [w_gate; w_up]^T (gate columns first)
//   stage 1  ak_kernel1: hidden[m, f] = silu(gate_up[m, f]) * gate_up[m, F + f], in fp32, stored as ak_t
//   stage 2  library AK_LIB_MLP_DOWN_GEMM: out[M, D] = hidden @ w_down^T
// Stages 0 and 2 have no kernel (there is no ak_kernel0 or ak_kernel2).
//
// Workspace: args.gate_up ([M, 2F]) and args.hidden ([M, F], right after it) live in the workspace,
// M * 3F * sizeof(ak_t) bytes that the fused_mlp launcher always allocates, whatever the stages declare
// (F is a run-time size, so a compile-time declaration cannot express it; see kernels/README.md).
// Stage 1 runs ROWS_PER_BLOCK rows of M per block and walks the F columns with VEC elements per access
// when F % VEC == 0 and the pointers are aligned (run-time check).
//
// @autokernel type fused_mlp
// @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512, 1024} tier 1 -- threads per block of the activation stage
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8} tier 1 -- rows of M per block of the activation stage
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
#include <autokernel/contract.cuh>
#include <autokernel/helpers.cuh>

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 1
#endif
#ifndef VEC
#define VEC 1
#endif

static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");

AK_LAUNCH(0) = {AK_STAGE_LIBRARY, AK_LIB_MLP_GATE_UP_GEMM};

AK_LAUNCH(1) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
};

AK_LAUNCH(2) = {AK_STAGE_LIBRARY, AK_LIB_MLP_DOWN_GEMM};

__device__ __forceinline__ float silu(float g) { return g / (1.0f + expf(-g)); }  // g -> -inf: -0, no NaN

template <int V>
__device__ __forceinline__ void swiglu_rows(const ak_fused_mlp_args& args, long long first_row, int rows_here) {
    const int f = args.f;
    const int groups = f / V;  // V divides f on the vector path
    for (int idx = threadIdx.x; idx < rows_here * groups; idx += BLOCK_THREADS) {
        const long long row = first_row + idx / groups;
        const int col = idx % groups * V;
        const ak_t* gate = args.gate_up + row * 2 * f + col;
        float g[V], u[V], h[V];
        ak_load<V>(gate, g);
        ak_load<V>(gate + f, u);
#pragma unroll
        for (int j = 0; j < V; ++j) h[j] = silu(g[j]) * u[j];
        ak_store<V>(args.hidden + row * f + col, h);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel1(ak_fused_mlp_args args) {
    const long long first_row = (long long)blockIdx.x * ROWS_PER_BLOCK;
    if (first_row >= args.m) return;
    const int rows_here = (int)min((long long)ROWS_PER_BLOCK, args.m - first_row);
    const bool vector_ok = VEC > 1 && args.f % VEC == 0 && ak_aligned<VEC>(args.gate_up) && ak_aligned<VEC>(args.hidden);
    if (vector_ok)
        swiglu_rows<VEC>(args, first_row, rows_here);
    else
        swiglu_rows<1>(args, first_row, rows_here);
}
