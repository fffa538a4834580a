// RMSNorm starter: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Two passes over the
// row (sum of squares, then scale and write); the second pass mostly hits L1/L2. fp32 accumulation,
// fixed reduction order. Vector loads of VEC elements are used only when cols % VEC == 0 and x, y and
// weight are aligned for them, decided at run time; otherwise the scalar path runs.
//
// ROW_CACHE > 0 (a variant) keeps the row in registers between the passes: each thread holds up to
// ROW_CACHE elements, all loads are issued before the reduction and x is read once. Rows that do not fit
// (cols > ROW_CACHE * threads per row) take the two-pass path.
//
// @autokernel type rmsnorm
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers between the passes (0: re-read the row)
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
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef ROW_CACHE
#define ROW_CACHE 0
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(ROW_CACHE % VEC == 0, "ROW_CACHE must be a multiple of VEC");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
};

// One row, V elements per access (V == 1: scalar). `lane` is the thread's index within the row's group.
template <int V>
__device__ __forceinline__ void rmsnorm_row(const ak_t* x, const ak_t* w, ak_t* y, int cols, float eps,
                                            int lane, bool active, float* scratch) {
    const int chunks = active ? cols / V : 0;  // V divides cols on the vector path
    float sum_sq = 0.f;
#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) sum_sq = fmaf(v[j], v[j], sum_sq);
    }
    sum_sq = ak_group_sum<kThreadsPerRow>(sum_sq, scratch);
    const float inv_rms = 1.0f / sqrtf(sum_sq / (float)cols + eps);
#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V], g[V];
        ak_load<V>(x + i * V, v);
        ak_load<V>(w + i * V, g);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = v[j] * inv_rms * g[j];
        ak_store<V>(y + i * V, v);
    }
}

// The same row with the thread's share held in registers: V-element chunks lane, lane + threads per
// row, ... (SLOTS of them, the caller checked they cover the row). Loads first, then the reduction.
template <int V, int SLOTS>
__device__ __forceinline__ void rmsnorm_row_cached(const ak_t* x, const ak_t* w, ak_t* y, int cols, float eps,
                                                   int lane, bool active, float* scratch) {
    const int chunks = active ? cols / V : 0;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow>(x, chunks, lane, 0.f, v);  // padding adds 0 to the sum of squares
    float sum_sq = 0.f;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) sum_sq = fmaf(v[s][j], v[s][j], sum_sq);
    sum_sq = ak_group_sum<kThreadsPerRow>(sum_sq, scratch);
    const float inv_rms = 1.0f / sqrtf(sum_sq / (float)cols + eps);
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int i = lane + s * kThreadsPerRow;
        if (i < chunks) {
            float g[V];
            ak_load<V>(w + i * V, g);
#pragma unroll
            for (int j = 0; j < V; ++j) v[s][j] = v[s][j] * inv_rms * g[j];
            ak_store<V>(y + i * V, v[s]);
        }
    }
}

// Cached when ROW_CACHE is on and the row fits (the same answer for every thread of the block).
template <int V>
__device__ __forceinline__ void rmsnorm_row_any(const ak_t* x, const ak_t* w, ak_t* y, int cols, float eps,
                                                int lane, bool active, float* scratch) {
    if constexpr (ROW_CACHE > 0) {
        constexpr int kSlots = ROW_CACHE / V;
        if (cols / V <= kSlots * kThreadsPerRow) {
            rmsnorm_row_cached<V, kSlots>(x, w, y, cols, eps, lane, active, scratch);
            return;
        }
    }
    rmsnorm_row<V>(x, w, y, cols, eps, lane, active, scratch);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel0(ak_rmsnorm_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block reductions
    const long long offset = active ? row * args.cols : 0;
    const ak_t* x = args.x + offset;
    ak_t* y = args.y + offset;

    const bool vector_ok = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.x) &&
                           ak_aligned<VEC>(args.y) && ak_aligned<VEC>(args.weight);
    if (vector_ok)  // the same for every thread of the block: no divergence around the reductions
        rmsnorm_row_any<VEC>(x, args.weight, y, args.cols, args.eps, lane, active, scratch);
    else
        rmsnorm_row_any<1>(x, args.weight, y, args.cols, args.eps, lane, active, scratch);
}
