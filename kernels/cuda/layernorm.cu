// LayerNorm starter: y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * weight + bias, biased variance.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Three passes over the
// row, all with fp32 accumulation and a fixed reduction order:
//   1. a first mean m0;
//   2. s1 = sum(x - m0) / n and s2 = sum((x - m0)^2) / n, so mean = m0 + s1 and var = s2 - s1^2
//      (both reduced in one exchange, ak_group_sum2);
//   3. write ((x - m0) - s1) * inv_std * weight + bias.
// Working with x - m0 (exact for x near m0) keeps rows with a large mean and a tiny variance accurate:
// there is no E[x^2] - E[x]^2 cancellation, and the mean is never rounded to fp32 on its own (at
// mean 100, std 1e-3 that rounding alone costs 1e-3 of output error, over the fp32 tolerance).
// Vector loads of VEC elements only when cols % VEC == 0 and every pointer is aligned (run-time check).
//
// ROW_CACHE > 0 (a variant) keeps the row in registers (up to ROW_CACHE elements per thread): x is read
// once and all loads are issued before the first reduction; the three passes then run on registers.
// Rows that do not fit (cols > ROW_CACHE * threads per row) take the re-reading path.
//
// FUSED_STATS = 1 (a variant) drops pass 1: s1 and s2 are taken around m0 = x[r, 0] instead of a first
// mean, so one pass and one block reduction fewer. x[r, 0] is an element of the row, so rows with a large
// mean and a tiny variance stay accurate for the same reason as above (|x - m0| is of the order of the
// spread).
//
// @autokernel type layernorm
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers (0: re-read the row)
// @autokernel tunable FUSED_STATS = 0 {0, 1} tier 3 -- mean and variance from one pass, shifted by x[r, 0] instead of a first mean
// @autokernel preset loop_best sm_90 BLOCK_THREADS=128 VEC=8 UNROLL=2 FUSED_STATS=1 -- the search agent's best at 4096x2048 and 8192x4096 fp16, 34.4 -> 15.4 us, H200 (bench/2026-11-29-h200-loop.md)
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
#ifndef FUSED_STATS
#define FUSED_STATS 0
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

template <int V>
__device__ __forceinline__ void layernorm_row(const ak_t* x, const ak_t* w, const ak_t* b, ak_t* y, int cols,
                                              float eps, int lane, bool active, float* scratch) {
    const int chunks = active ? cols / V : 0;
    const float n = (float)cols;

    float m0;  // the shift: a first mean, or with FUSED_STATS the row's first element
    if constexpr (FUSED_STATS) {
        m0 = ak_to_float(x[0]);
    } else {
        float sum = 0.f;
#pragma unroll kUnroll
        for (int i = lane; i < chunks; i += kThreadsPerRow) {
            float v[V];
            ak_load<V>(x + i * V, v);
#pragma unroll
            for (int j = 0; j < V; ++j) sum += v[j];
        }
        m0 = ak_group_sum<kThreadsPerRow>(sum, scratch) / n;
    }

    float s1 = 0.f, s2 = 0.f;
#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const float d = v[j] - m0;
            s1 += d;
            s2 = fmaf(d, d, s2);
        }
    }
    ak_group_sum2<kThreadsPerRow>(s1, s2, scratch);
    s1 /= n;  // mean - m0
    s2 /= n;
    const float var = fmaxf(s2 - s1 * s1, 0.f);
    const float inv_std = 1.0f / sqrtf(var + eps);

#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V], g[V], h[V];
        ak_load<V>(x + i * V, v);
        ak_load<V>(w + i * V, g);
        ak_load<V>(b + i * V, h);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = fmaf(((v[j] - m0) - s1) * inv_std, g[j], h[j]);
        ak_store<V>(y + i * V, v);
    }
}

// The same three passes with the thread's share of the row in registers: V-element chunks lane,
// lane + threads per row, ... (SLOTS of them; the caller checked they cover the row). Padding slots
// are skipped by every pass, so they never enter a sum.
template <int V, int SLOTS>
__device__ __forceinline__ void layernorm_row_cached(const ak_t* x, const ak_t* w, const ak_t* b, ak_t* y,
                                                     int cols, float eps, int lane, bool active, float* scratch) {
    const int chunks = active ? cols / V : 0;
    const float n = (float)cols;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow>(x, chunks, lane, 0.f, v);  // padding slots are skipped below

    float m0;  // the shift: a first mean, or with FUSED_STATS the row's first element
    if constexpr (FUSED_STATS) {
        m0 = ak_to_float(x[0]);
    } else {
        float sum = 0.f;
#pragma unroll
        for (int s = 0; s < SLOTS; ++s)
            if (lane + s * kThreadsPerRow < chunks) {
#pragma unroll
                for (int j = 0; j < V; ++j) sum += v[s][j];
            }
        m0 = ak_group_sum<kThreadsPerRow>(sum, scratch) / n;
    }

    float s1 = 0.f, s2 = 0.f;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
        if (lane + s * kThreadsPerRow < chunks) {
#pragma unroll
            for (int j = 0; j < V; ++j) {
                v[s][j] -= m0;
                s1 += v[s][j];
                s2 = fmaf(v[s][j], v[s][j], s2);
            }
        }
    ak_group_sum2<kThreadsPerRow>(s1, s2, scratch);
    s1 /= n;  // mean - m0
    s2 /= n;
    const float var = fmaxf(s2 - s1 * s1, 0.f);
    const float inv_std = 1.0f / sqrtf(var + eps);

#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int i = lane + s * kThreadsPerRow;
        if (i < chunks) {
            float g[V], h[V];
            ak_load<V>(w + i * V, g);
            ak_load<V>(b + i * V, h);
#pragma unroll
            for (int j = 0; j < V; ++j) v[s][j] = fmaf((v[s][j] - s1) * inv_std, g[j], h[j]);
            ak_store<V>(y + i * V, v[s]);
        }
    }
}

// Cached when ROW_CACHE is on and the row fits (the same answer for every thread of the block).
template <int V>
__device__ __forceinline__ void layernorm_row_any(const ak_t* x, const ak_t* w, const ak_t* b, ak_t* y, int cols,
                                                  float eps, int lane, bool active, float* scratch) {
    if constexpr (ROW_CACHE > 0) {
        constexpr int kSlots = ROW_CACHE / V;
        if (cols / V <= kSlots * kThreadsPerRow) {
            layernorm_row_cached<V, kSlots>(x, w, b, y, cols, eps, lane, active, scratch);
            return;
        }
    }
    layernorm_row<V>(x, w, b, y, cols, eps, lane, active, scratch);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel0(ak_layernorm_args args) {
    __shared__ float scratch[2 * BLOCK_THREADS / 32];  // ak_group_sum2 needs two per warp
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block reductions
    const long long offset = active ? row * args.cols : 0;
    const ak_t* x = args.x + offset;
    ak_t* y = args.y + offset;

    const bool vector_ok = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.x) && ak_aligned<VEC>(args.y) &&
                           ak_aligned<VEC>(args.weight) && ak_aligned<VEC>(args.bias);
    if (vector_ok)
        layernorm_row_any<VEC>(x, args.weight, args.bias, y, args.cols, args.eps, lane, active, scratch);
    else
        layernorm_row_any<1>(x, args.weight, args.bias, y, args.cols, args.eps, lane, active, scratch);
}
