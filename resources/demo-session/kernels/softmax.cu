// Softmax starter: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), over the last dimension.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Three passes over the
// row: the row max, the sum of exp(x - max), then the normalized write. Subtracting the max keeps
// large inputs finite; fp32 accumulation and a fixed reduction order. Vector loads of VEC elements
// only when cols % VEC == 0 and x and y are aligned (run-time check).
//
// @autokernel type softmax
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 8 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
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

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
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

    float row_max = AK_NEG_INF;
#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) row_max = fmaxf(row_max, v[j]);
    }
    row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);

    float sum = 0.f;
#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) sum += expf(v[j] - row_max);
    }
    sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
    const float inv_sum = 1.0f / sum;  // sum >= 1: the max element contributes exp(0)

#pragma unroll kUnroll
    for (int i = lane; i < chunks; i += kThreadsPerRow) {
        float v[V];
        ak_load<V>(x + i * V, v);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = expf(v[j] - row_max) * inv_sum;
        ak_store<V>(y + i * V, v);
    }
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
        softmax_row<VEC>(args.x + offset, args.y + offset, args.cols, lane, active, scratch);
    else
        softmax_row<1>(args.x + offset, args.y + offset, args.cols, lane, active, scratch);
}
