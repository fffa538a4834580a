// Softmax starter: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), over the last dimension.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Three passes over the
// row: the row max, the sum of exp(x - max), then the normalized write. Subtracting the max keeps
// large inputs finite; fp32 accumulation and a fixed reduction order. Vector loads of VEC elements
// only when cols % VEC == 0 and x and y are aligned (run-time check).
//
// Three variants:
//   ROW_CACHE > 0 keeps the row in registers (up to ROW_CACHE elements per thread): x is read once, all
//                 loads are issued before the first reduction, exp(x - max) is computed once.
//   ONLINE = 1    (rows that are not cached) finds the max and the sum of exp in one pass, rescaling
//                 the running sum when the running max grows; the write pass is the second read.
//   FAST_EXP = 1  computes exp as the hardware ex2 of x * log2 e (helpers.cuh: ak_exp): fewer instructions per element.
//
// @autokernel type softmax
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers (0: re-read the row)
// @autokernel tunable ONLINE = 0 {0, 1} tier 3 -- uncached rows: max and sum of exp in one pass (online rescaling)
// @autokernel tunable FAST_EXP = 0 {0, 1} tier 3 -- exp as the hardware ex2 of x * log2 e (one multiply, MUFU.EX2)
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
#ifndef ONLINE
#define ONLINE 0
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr bool kFastExp = FAST_EXP != 0;
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
__device__ __forceinline__ void softmax_row(const ak_t* x, ak_t* y, int cols, int lane, bool active,
                                            float* scratch) {
    const int chunks = active ? cols / V : 0;

    float row_max, sum;
    ak_row_max_sumexp<V, kThreadsPerRow, kUnroll, ONLINE != 0, kFastExp>(x, chunks, lane, scratch, row_max, sum);
    const float inv_sum = 1.0f / sum;  // sum >= 1: the max element contributes exp(0)

#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = ak_exp<kFastExp>(v[j] - row_max) * inv_sum;
        ak_store<V>(y + i * V, v);
    }
}

// The same row with the thread's share held in registers: V-element chunks lane, lane + threads per
// row, ... (SLOTS of them; the caller checked they cover the row).
template <int V, int SLOTS>
__device__ __forceinline__ void softmax_row_cached(const ak_t* x, ak_t* y, int cols, int lane, bool active,
                                                   float* scratch) {
    const int chunks = active ? cols / V : 0;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow>(x, chunks, lane, AK_NEG_INF, v);  // padding: exp(-inf - max) = 0
    float row_max = AK_NEG_INF;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) row_max = fmaxf(row_max, v[s][j]);
    row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
    // Rows of an inactive group have max -inf; keep their (unused) exps finite.
    const float shift = row_max == AK_NEG_INF ? 0.f : row_max;

    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) {
            v[s][j] = ak_exp<kFastExp>(v[s][j] - shift);
            sum += v[s][j];
        }
    sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
    const float inv_sum = 1.0f / sum;

#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int i = lane + s * kThreadsPerRow;
        if (i < chunks) {
#pragma unroll
            for (int j = 0; j < V; ++j) v[s][j] *= inv_sum;
            ak_store<V>(y + i * V, v[s]);
        }
    }
}

// Cached when ROW_CACHE is on and the row fits (the same answer for every thread of the block).
template <int V>
__device__ __forceinline__ void softmax_row_any(const ak_t* x, ak_t* y, int cols, int lane, bool active,
                                                float* scratch) {
    if constexpr (ROW_CACHE > 0) {
        constexpr int kSlots = ROW_CACHE / V;
        if (cols / V <= kSlots * kThreadsPerRow) {
            softmax_row_cached<V, kSlots>(x, y, cols, lane, active, scratch);
            return;
        }
    }
    softmax_row<V>(x, y, cols, lane, active, scratch);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel0(ak_softmax_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block reductions
    const long long offset = active ? row * args.cols : 0;

    const bool vector_ok = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.x) && ak_aligned<VEC>(args.y);
    if (vector_ok)
        softmax_row_any<VEC>(args.x + offset, args.y + offset, args.cols, lane, active, scratch);
    else
        softmax_row_any<1>(args.x + offset, args.y + offset, args.cols, lane, active, scratch);
}
