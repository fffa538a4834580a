// AutoKernel Workbench kernel contract (see kernels/README.md).
//
// This header is the single source of truth shared by candidates (compiled by NVRTC) and the
// evaluator's launchers (host C++). It declares:
//   - the element type `ak_t` of the dtype being compiled (AK_DTYPE_FP16 / _BF16 / _FP32, set by the
//     launcher as -D options), plus float conversions;
//   - one argument struct per kernel type, passed BY VALUE as the only kernel parameter;
//   - `ak_stage`, the launch description a candidate publishes as `extern "C" __constant__` variables
//     ak_launch0 .. ak_launch3 (read back by the launcher with cuModuleGetGlobal), each paired with the
//     entry point ak_kernel0 .. ak_kernel3 when the stage is a kernel.
// Candidates never contain host code. The launcher allocates, generates inputs, launches and times.
#ifndef AUTOKERNEL_CONTRACT_CUH
#define AUTOKERNEL_CONTRACT_CUH

#define AK_CONTRACT_VERSION 1
#define AK_MAX_STAGES 4

// ---- stage kinds --------------------------------------------------------------------------------
#define AK_STAGE_NONE 0      // unused slot
#define AK_STAGE_KERNEL 1    // launch ak_kernel<i>
#define AK_STAGE_LIBRARY 2   // the launcher performs `library_op` (timed like any stage)

// ---- library operations a stage may ask for ------------------------------------------------------
#define AK_LIB_NONE 0
// fused_mlp: workspace[M, 2F] = x[M, D] @ [w_gate; w_up]^T  (cuBLAS through LibTorch, dtype in/out,
//            fp32 accumulation). Gate columns first, then up columns.
#define AK_LIB_MLP_GATE_UP_GEMM 1
// fused_mlp: out[M, D] = hidden[M, F] @ w_down^T, where `hidden` is the first M*F elements of the
//            workspace after the gate/up block (see ak_fused_mlp_args::hidden).
#define AK_LIB_MLP_DOWN_GEMM 2

// ---- grid rules: how the launcher sizes the grid ---------------------------------------------------
#define AK_GRID_ROWS 1        // grid.x = ceil(rows / rows_per_block)
#define AK_GRID_TILES 2       // grid = (ceil(n / tile_n), ceil(m / tile_m), batch)
#define AK_GRID_PERSISTENT 3  // grid.x = sm_count * max(grid_x, 1)
#define AK_GRID_FIXED 4       // grid = (grid_x, grid_y, grid_z)
#define AK_GRID_ATTENTION 5   // grid = (ceil(seq_q / tile_m), batch * heads)

// ---- TMA swizzle modes (CUtensorMapSwizzle) --------------------------------------------------------
#define AK_SWIZZLE_NONE 0
#define AK_SWIZZLE_32B 1
#define AK_SWIZZLE_64B 2
#define AK_SWIZZLE_128B 3

// ak_stage::workspace_init: how the declared workspace starts each launch.
#define AK_WORKSPACE_ZEROED 0     // the launcher zeroes it before every launch, inside the timed launch
#define AK_WORKSPACE_KEPT_ZERO 1  // the kernel leaves it all zero when the launch ends; the harness zeroes it
                                  // outside the timed window and checks after every checked run that it is zero

// One stage's launch description. Zero means "default" for every field: block 1 in y/z, no cluster,
// no dynamic shared memory, no TMA map.
struct ak_stage {
    int kind;                 // AK_STAGE_*
    int library_op;           // AK_LIB_* when kind == AK_STAGE_LIBRARY
    int block_x, block_y, block_z;
    int grid;                 // AK_GRID_*
    int rows_per_block;       // AK_GRID_ROWS
    int tile_m, tile_n;       // AK_GRID_TILES, AK_GRID_ATTENTION
    int grid_x, grid_y, grid_z;  // AK_GRID_FIXED, AK_GRID_PERSISTENT (grid_x = blocks per SM)
    int dynamic_smem_bytes;   // above 48 KB the launcher raises the limit with cuFuncSetAttribute
    int cluster_x, cluster_y, cluster_z;  // thread-block cluster shape (cuLaunchKernelEx)
    // TMA: for operand i (type-specific: matmul A,B; attention Q,K,V) a box of rows x cols elements;
    // the launcher encodes a 2D tiled tensor map into args.tma[i] (cuTensorMapEncodeTiled).
    int tma_box_rows[3];
    int tma_box_cols[3];
    int tma_swizzle;          // AK_SWIZZLE_*
    // Scratch memory the stage needs, zero at the start of every launch: workspace_bytes_per_row * rows +
    // workspace_bytes. The largest request of all stages is allocated.
    int workspace_bytes_per_row;
    int workspace_bytes;
    // AK_WORKSPACE_ZEROED (0, the default) or AK_WORKSPACE_KEPT_ZERO; the sequence keeps its workspace zero
    // only if every stage that declares workspace says AK_WORKSPACE_KEPT_ZERO.
    int workspace_init;
};

// 128-byte, 64-byte aligned opaque tensor map, layout-compatible with CUtensorMap.
#if !defined(__CUDACC_RTC__) && !defined(__CUDACC__) && !defined(__align__)
#define __align__(n) alignas(n)  // host compilers: CUDA's spelling of the alignment attribute
#endif
struct __align__(64) ak_tensor_map {
    unsigned long long opaque[16];
};

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
// ---------------------------------------------------------------------------- device side
#if defined(AK_DTYPE_FP16)
#include <cuda_fp16.h>
typedef __half ak_t;
__device__ __forceinline__ float ak_to_float(ak_t v) { return __half2float(v); }
__device__ __forceinline__ ak_t ak_from_float(float v) { return __float2half_rn(v); }
#elif defined(AK_DTYPE_BF16)
#include <cuda_bf16.h>
typedef __nv_bfloat16 ak_t;
__device__ __forceinline__ float ak_to_float(ak_t v) { return __bfloat162float(v); }
__device__ __forceinline__ ak_t ak_from_float(float v) { return __float2bfloat16_rn(v); }
#elif defined(AK_DTYPE_FP32)
typedef float ak_t;
__device__ __forceinline__ float ak_to_float(ak_t v) { return v; }
__device__ __forceinline__ ak_t ak_from_float(float v) { return v; }
#else
#error "compile with -DAK_DTYPE_FP16, -DAK_DTYPE_BF16 or -DAK_DTYPE_FP32 (the launcher does)"
#endif
#define AK_PTR(type) type*
#define AK_LAUNCH(i) extern "C" __constant__ ak_stage ak_launch##i
#else
// ---------------------------------------------------------------------------- host side
#define AK_PTR(type) void*
#endif

// ---- argument structs, one per kernel type -------------------------------------------------------
// All tensors are contiguous, row-major, in ak_t unless stated. Sizes are element counts.

// C[m, n] = A[m, k] @ B[k, n]; accumulate in fp32 (never TF32 for fp32 inputs).
struct ak_matmul_args {
    ak_tensor_map tma[3];            // filled when a stage declares TMA boxes (A, B, C)
    AK_PTR(const ak_t) a;
    AK_PTR(const ak_t) b;
    AK_PTR(ak_t) c;
    int m, n, k;
    AK_PTR(void) workspace;
};

// y[r, :] = softmax(x[r, :]) over the last dimension.
struct ak_softmax_args {
    AK_PTR(const ak_t) x;
    AK_PTR(ak_t) y;
    int rows, cols;
    AK_PTR(void) workspace;
};

// y = (x - mean) / sqrt(var + eps) * weight + bias, per row; biased variance (as torch).
struct ak_layernorm_args {
    AK_PTR(const ak_t) x;
    AK_PTR(const ak_t) weight;
    AK_PTR(const ak_t) bias;
    AK_PTR(ak_t) y;
    int rows, cols;
    float eps;
    AK_PTR(void) workspace;
};

// y = x / sqrt(mean(x^2) + eps) * weight, per row.
struct ak_rmsnorm_args {
    AK_PTR(const ak_t) x;
    AK_PTR(const ak_t) weight;
    AK_PTR(ak_t) y;
    int rows, cols;
    float eps;
    AK_PTR(void) workspace;
};

// o = softmax(q k^T * scale [+ causal mask]) v, tensors [batch, heads, seq, head_dim].
struct ak_flash_attention_args {
    ak_tensor_map tma[3];            // Q, K, V viewed as [batch*heads*seq, head_dim]
    AK_PTR(const ak_t) q;
    AK_PTR(const ak_t) k;
    AK_PTR(const ak_t) v;
    AK_PTR(ak_t) o;
    int batch, heads, seq, head_dim;
    int causal;                      // 1: key j is masked for query i when j > i
    float scale;                     // 1 / sqrt(head_dim)
    AK_PTR(void) workspace;
};

// SwiGLU MLP: out[m, d] = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T
//   x [m, d], w_gate [f, d], w_up [f, d], w_down [d, f].
// `gate_up` = workspace as [m, 2f] (written by AK_LIB_MLP_GATE_UP_GEMM), `hidden` = [m, f] right after it
// (read by AK_LIB_MLP_DOWN_GEMM). A stage sequence library -> kernel -> library fuses the activation
// between vendor GEMMs; a candidate may also do everything in its own kernels.
// Tensor maps (when a stage declares TMA boxes): 0 = x [m, d], 1 = [w_gate; w_up] as one [2f, d] tensor
// (gate rows first), 2 = w_down [d, f].
struct ak_fused_mlp_args {
    ak_tensor_map tma[3];            // filled when a stage declares TMA boxes (x, w_gate_up, w_down)
    AK_PTR(const ak_t) x;
    AK_PTR(const ak_t) w_gate;
    AK_PTR(const ak_t) w_up;
    AK_PTR(const ak_t) w_down;
    AK_PTR(ak_t) out;
    int m, d, f;
    AK_PTR(ak_t) gate_up;
    AK_PTR(ak_t) hidden;
    AK_PTR(void) workspace;          // the whole scratch buffer (gate_up and hidden live in it)
};

// loss = mean over rows of (logsumexp(logits[r, :]) - logits[r, target[r]]); fp32 scalar output.
struct ak_cross_entropy_args {
    AK_PTR(const ak_t) logits;
    AK_PTR(const long long) targets; // int64 class indices in [0, cols)
    AK_PTR(float) loss;              // one float
    int rows, cols;
    AK_PTR(void) workspace;
};

// Rotary embedding, rotate-half convention (GPT-NeoX / Llama):
//   y[..., i]        = x[..., i] * cos[s, i] - x[..., i + d/2] * sin[s, i]
//   y[..., i + d/2]  = x[..., i + d/2] * cos[s, i] + x[..., i] * sin[s, i],   i < d/2
// x, y [batch, heads, seq, head_dim]; cos, sin [seq, head_dim / 2] in ak_t. rows = batch*heads*seq.
struct ak_rotary_args {
    AK_PTR(const ak_t) x;
    AK_PTR(const ak_t) cos;
    AK_PTR(const ak_t) sin;
    AK_PTR(ak_t) y;
    int batch, heads, seq, head_dim;
    int rows;
    AK_PTR(void) workspace;
};

// y[r] = sum(x[r, :]) over the last dimension, accumulated in fp32, stored in ak_t.
struct ak_reduce_args {
    AK_PTR(const ak_t) x;
    AK_PTR(ak_t) y;
    int rows, cols;
    AK_PTR(void) workspace;
};

#endif  // AUTOKERNEL_CONTRACT_CUH
