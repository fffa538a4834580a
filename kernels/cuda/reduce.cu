// Reduce starter: y[r] = sum(x[r, :]) over the last dimension, fp32 accumulation, stored as ak_t.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Each thread sums a
// strided slice of the row, then the row's threads combine their partial sums in a fixed order
// (no atomics), so the result is bitwise identical from run to run. Vector loads of VEC elements: with
// PEEL = 1 every row takes them, a scalar head up to the alignment boundary and a scalar tail around the
// vector body (rows of odd length start at a different element offset each); PEEL = 0 takes them only
// when cols % VEC == 0 and x is aligned. UNROLL batches that many vector loads before adding any.
// CLUSTER > 1 (sm_90) splits every row across a cluster of blocks, each summing a contiguous share; the
// shares are added through distributed shared memory in rank order, and rank 0 writes y.
// LOAD picks the cache hint of the vector body's loads (helpers.cuh: ak_load_vec): 1 streams them
// evict-first (ld.global.cs), 2 takes the read-only path with an L2 evict-first policy and 256-byte
// prefetch. x is read once, so evict-first lines leave L2's other lines (dirty ones among them, whose
// write-back would share HBM with this read) where they are.
//
// @autokernel type reduce
// @autokernel tunable LOAD = 0 {0, 1, 2} tier 1 -- cache hint of the row's vector loads (0 plain, 1 streaming evict-first, 2 read-only L2 evict-first + 256 B prefetch)
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4, 8} tier 2 -- vector loads issued together before any is added
// @autokernel tunable PEEL = 1 {0, 1} tier 3 -- rows that break VEC alignment: scalar head and tail around a vector body (0: scalar row)
// @autokernel tunable CLUSTER = 1 {1, 2, 4, 8} tier 3 -- blocks of a cluster sharing each row (sm_90, distributed shared memory)
// @autokernel preset l2_evict_first sm_90 BLOCK_THREADS=128 VEC=8 UNROLL=8 LOAD=2 -- 94.4-97.7 % of a copy at 4096x8192 and 8192x8192 fp16, H200 (bench/2026-12-02-h200-compute.md)
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
#ifndef PEEL
#define PEEL 1
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef LOAD
#define LOAD 0
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr int kVec = AK_VEC16(VEC);  // the peeled paths' vector: VEC elements, at most 16 bytes
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");

static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER: 1, 2, 4 or 8 blocks per row (8 is the portable cluster maximum)");
static_assert(LOAD >= 0 && LOAD <= 2, "LOAD: 0 (plain), 1 (streaming) or 2 (read-only, L2 evict-first)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(LOAD != 2, "LOAD = 2 uses L2 cache policies (createpolicy): it needs sm_80 or newer");
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(CLUSTER == 1, "CLUSTER uses thread-block clusters and distributed shared memory: it needs sm_90 or newer");
#endif

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
    /* dynamic_smem_bytes */ 0,
    /* cluster: CLUSTER blocks along y share a row (grid.y = CLUSTER) */ 0, CLUSTER > 1 ? CLUSTER : 0, 0,
};

// This thread's share of part `p` of the row (split for V-element vectors), summed over the group.
template <int V>
__device__ __forceinline__ float part_sum(const ak_t* x, const ak_row_part& p, int lane, float* scratch) {
    float sum = 0.f;
    ak_part_fold<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) {
        constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
        for (int j = 0; j < K; ++j) sum += v[j];
    });
    return ak_group_sum<kThreadsPerRow>(sum, scratch);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel0(ak_reduce_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    __shared__ float xch[ROWS_PER_BLOCK];  // CLUSTER: this block's partial sum per row, read by the cluster
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block (and cluster) reductions
    const ak_t* x = args.x + (active ? row * args.cols : 0);
    const int cols = active ? args.cols : 0;
    const int rank = CLUSTER > 1 ? ak_cluster_rank() : 0;

    float sum;
    if (kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.x))))
        sum = part_sum<kVec>(x, ak_row_share<kVec>(ak_split_row<kVec>(x, cols), rank, CLUSTER), lane, scratch);
    else
        sum = part_sum<1>(x, ak_row_share<1>(ak_split_row<1>(x, cols), rank, CLUSTER), lane, scratch);
    if constexpr (CLUSTER > 1) sum = ak_cluster_sum<CLUSTER>(sum, xch, group, lane == 0);
    if (active && lane == 0 && rank == 0) args.y[row] = ak_from_float(sum);
}
