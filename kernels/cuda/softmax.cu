// Softmax starter: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), over the last dimension.
//
// ROWS_PER_BLOCK rows per block, BLOCK_THREADS / ROWS_PER_BLOCK threads per row. Three passes over the
// row: the row max, the sum of exp(x - max), then the normalized write. Subtracting the max keeps
// large inputs finite; fp32 accumulation and a fixed reduction order. Vector loads of VEC elements
// only when cols % VEC == 0 and x and y are aligned (run-time check).
//
// Variants:
//   PEEL = 1      (VEC > 1) rows whose length or start breaks VEC alignment (50257 columns: every row starts
//                 at another element offset) still take vector loads: a scalar head up to the alignment
//                 boundary, the vector body, a scalar tail (helpers.cuh: ak_split_row). y is stored as
//                 vectors when it is aligned where x is. PEEL = 0: such rows take the scalar path.
//   ROW_CACHE > 0 keeps the row in registers (up to ROW_CACHE elements per thread): x is read once, all
//                 loads are issued before the first reduction, exp(x - max) is computed once.
//   ONLINE = 1    (rows that are not cached) finds the max and the sum of exp in one pass, rescaling
//                 the running sum when the running max grows; the write pass is the second read.
//   FAST_EXP = 1  computes exp as the hardware ex2 of x * log2 e (helpers.cuh: ak_exp): fewer instructions per element.
//   SMEM_ROW > 0  stages each row in SMEM_ROW KiB of dynamic shared memory per block (split among its
//                 ROWS_PER_BLOCK rows) with 16-byte cp.async copies, all issued at once: x is read from
//                 HBM once, both passes read shared memory. Rows that do not fit take the streaming path.
//                 Above 100 KiB one block fits an SM (fp32 rows of 50257 need 200).
//   CLUSTER > 1   splits every row across a cluster of CLUSTER blocks (sm_90): each block takes a
//                 contiguous share, and the blocks combine their (max, sum) through distributed shared
//                 memory in rank order (deterministic). With SMEM_ROW each block stages only its share.
//   PIPELINE = 1  (with SMEM_ROW) a persistent grid (AK_GRID_PERSISTENT, as many blocks per SM as the
//                 shared memory holds) whose blocks loop over rows with SMEM_ROW split into two buffers:
//                 the next row's cp.async copies are in flight while this row is reduced and written, so
//                 every SM keeps reading while it computes. One row per block, no cluster.
//   LOAD          the cache hint of x's read where it is read once (SMEM_ROW's copies, ROW_CACHE's loads;
//                 the streaming path re-reads x from L2 and keeps plain loads): 1 streaming (ld.global.cs),
//                 2 an L2 evict-first policy with 256-byte prefetch (helpers.cuh: ak_load_vec).
//   UNROLL        batches UNROLL vector loads before using any (memory-level parallelism) and folds them
//                 into the online statistics together (one rescale per batch).
//
// @autokernel type softmax
// @autokernel tunable LOAD = 0 {0, 1, 2} tier 1 -- cache hint of x's read-once loads (SMEM_ROW / ROW_CACHE; 0 plain, 1 streaming, 2 L2 evict-first + 256 B prefetch)
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers (0: re-read the row)
// @autokernel tunable ONLINE = 0 {0, 1} tier 3 -- uncached rows: max and sum of exp in one pass (online rescaling)
// @autokernel tunable FAST_EXP = 0 {0, 1} tier 3 -- exp as the hardware ex2 of x * log2 e (one multiply, MUFU.EX2)
// @autokernel tunable PEEL = 1 {0, 1} tier 3 -- rows that break VEC alignment: scalar head and tail around a vector body (0: scalar row)
// @autokernel tunable SMEM_ROW = 0 {0, 24, 52, 68, 100, 200} tier 3 -- KiB of shared memory per block staging its rows (cp.async; 0: none)
// @autokernel tunable CLUSTER = 1 {1, 2, 4, 8} tier 3 -- blocks of a cluster sharing each row (sm_90, distributed shared memory)
// @autokernel tunable PIPELINE = 0 {0, 1} tier 3 -- with SMEM_ROW: persistent blocks stage the next row (cp.async) while they finish this one
// @autokernel preset long_rows sm_90 BLOCK_THREADS=512 VEC=8 SMEM_ROW=100 FAST_EXP=1 -- 91.2 % of a copy at 4096x50257 and 8192x50257 fp16, 1.6x at::softmax, H200 (bench/2026-12-02-h200-compute.md)
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
#ifndef PEEL
#define PEEL 1
#endif
#ifndef SMEM_ROW
#define SMEM_ROW 0
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef PIPELINE
#define PIPELINE 0
#endif
#ifndef LOAD
#define LOAD 0
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr int kVec = AK_VEC16(VEC);  // the peeled paths' vector: VEC elements, at most 16 bytes
constexpr bool kFastExp = FAST_EXP != 0;
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(ROW_CACHE % VEC == 0, "ROW_CACHE must be a multiple of VEC");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER: 1, 2, 4 or 8 blocks per row (8 is the portable cluster maximum)");
static_assert(SMEM_ROW == 0 || ROW_CACHE == 0, "SMEM_ROW and ROW_CACHE both hold the row: choose one");
static_assert(CLUSTER == 1 || ROW_CACHE == 0,
              "CLUSTER splits a row across blocks, ROW_CACHE holds a whole row in one block's registers: choose one");
static_assert(SMEM_ROW <= 226, "SMEM_ROW: at most 226 KiB of shared memory per block (227 KB on Hopper)");
static_assert(SMEM_ROW == 0 || SMEM_ROW * 1024 / ROWS_PER_BLOCK >= 1024,
              "SMEM_ROW: at least 1 KiB of shared memory per row (SMEM_ROW * 1024 / ROWS_PER_BLOCK)");
static_assert(PIPELINE == 0 || SMEM_ROW > 0, "PIPELINE double-buffers the SMEM_ROW stage: it needs SMEM_ROW > 0");
static_assert(PIPELINE == 0 || (ROWS_PER_BLOCK == 1 && CLUSTER == 1),
              "PIPELINE loops one row per block at a time: it needs ROWS_PER_BLOCK = 1 and CLUSTER = 1");
static_assert(LOAD >= 0 && LOAD <= 2, "LOAD: 0 (plain), 1 (streaming) or 2 (read-only, L2 evict-first)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(LOAD != 2, "LOAD = 2 uses L2 cache policies (createpolicy): it needs sm_80 or newer");
static_assert(SMEM_ROW == 0, "SMEM_ROW stages rows with cp.async: it needs sm_80 or newer");
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(CLUSTER == 1, "CLUSTER uses thread-block clusters and distributed shared memory: it needs sm_90 or newer");
#endif

constexpr int kStageBytesPerRow = SMEM_ROW * 1024 / ROWS_PER_BLOCK / 16 * 16;
// Blocks per SM that SMEM_ROW leaves room for (228 KB per SM, 1 KB of it reserved per block), at most 1024
// threads' worth: __launch_bounds__ sets the register budget for that many, so the registers do not cap
// the rows in flight below what the shared memory holds (a budget for 2048 threads, 32 registers, spills).
constexpr int kStageBlocks = SMEM_ROW == 0 ? 1 : (228 / (SMEM_ROW + 1) < 1024 / BLOCK_THREADS ? 228 / (SMEM_ROW + 1) : 1024 / BLOCK_THREADS);

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ PIPELINE ? AK_GRID_PERSISTENT : AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x (PIPELINE: blocks per SM), grid_y, grid_z */ PIPELINE ? kStageBlocks : 0, 0, 0,
    /* dynamic_smem_bytes */ SMEM_ROW * 1024,
    /* cluster: CLUSTER blocks along y share a row (grid.y = CLUSTER) */ 0, CLUSTER > 1 ? CLUSTER : 0, 0,
};

// Folds an array of any length into the running (max, sum of exp) (ak_online_add with the length deduced).
template <int K>
__device__ __forceinline__ void online_fold(const float (&v)[K], float& run_max, float& run_sum) {
    ak_online_add<K, kFastExp>(v, run_max, run_sum);
}

// The row's (max, sum) from this thread's (max, sum) or max and sum: over the group, then the cluster.
__device__ __forceinline__ void finish_stats(float& row_max, float& sum, float* scratch, float* xch, int slot,
                                             bool writer) {
    ak_online_group<kThreadsPerRow, kFastExp>(row_max, sum, scratch);
    if constexpr (CLUSTER > 1) ak_cluster_online<CLUSTER, kFastExp>(row_max, sum, xch, slot, writer);
}

// Streams part `p` of the row (split for V-element vectors): the statistics in one pass (ONLINE) or two
// (max, then sum), then the normalized write, re-reading x (from L2 when it is still there).
template <int V>
__device__ __forceinline__ void softmax_stream(const ak_t* x, ak_t* y, const ak_row_part& p, bool y_vec, int lane,
                                               float* scratch, float* xch, int slot) {
    float row_max = AK_NEG_INF, sum = 0.f;
    if constexpr (ONLINE != 0) {
        ak_part_fold<V, kThreadsPerRow, kUnroll>(x, p, lane, [&](const auto& v) { online_fold(v, row_max, sum); });
        finish_stats(row_max, sum, scratch, xch, slot, lane == 0);
    } else {
        ak_part_fold<V, kThreadsPerRow, kUnroll>(x, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
        row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
        if constexpr (CLUSTER > 1) {  // the cluster's max first, so every share sums against the same shift
            float unused = 0.f;
            ak_cluster_online<CLUSTER, kFastExp>(row_max, unused, xch, slot, lane == 0);
        }
        const float shift = row_max == AK_NEG_INF ? 0.f : row_max;  // empty groups: keep exps finite
        ak_part_fold<V, kThreadsPerRow, kUnroll>(x, p, lane, [&](const auto& v) {
            constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
            for (int j = 0; j < K; ++j) sum += ak_exp<kFastExp>(v[j] - shift);
        });
        sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
        if constexpr (CLUSTER > 1) sum = ak_cluster_sum<CLUSTER>(sum, xch, slot, lane == 0);
    }
    const float inv_sum = 1.0f / sum;  // sum >= 1 for a non-empty row: the max contributes exp(0)
    ak_part_map<V, kThreadsPerRow, kUnroll, false>(x, nullptr, y, p, y_vec, false, lane,
                                                   [&](float v, float) { return ak_exp<kFastExp>(v - row_max) * inv_sum; });
}

// Part `p` of the row (split for AK_STAGE_V) from its copy in shared memory (`s`: element c is column c,
// ak_stage_part's pointer, the copies waited for): the max and the sum of exp, then the normalized write.
__device__ __forceinline__ void softmax_from_stage(const ak_t* s, ak_t* y, const ak_row_part& p, bool y_vec, int lane,
                                                   float* scratch, float* xch, int slot) {
    constexpr int kV = AK_STAGE_V;
    float row_max = AK_NEG_INF;
    ak_part_fold<kV, kThreadsPerRow, 1>(s, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
    row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
    if constexpr (CLUSTER > 1) {
        float unused = 0.f;
        ak_cluster_online<CLUSTER, kFastExp>(row_max, unused, xch, slot, lane == 0);
    }
    const float shift = row_max == AK_NEG_INF ? 0.f : row_max;
    float sum = 0.f;
    ak_part_fold<kV, kThreadsPerRow, 1>(s, p, lane, [&](const auto& v) {
        constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
        for (int j = 0; j < K; ++j) sum += ak_exp<kFastExp>(v[j] - shift);
    });
    sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
    if constexpr (CLUSTER > 1) sum = ak_cluster_sum<CLUSTER>(sum, xch, slot, lane == 0);
    const float inv_sum = 1.0f / sum;
    ak_part_map<kV, kThreadsPerRow, 1, false>(s, nullptr, y, p, y_vec, false, lane,
                                              [&](float v, float) { return ak_exp<kFastExp>(v - shift) * inv_sum; });
}

// Part `p` of the row staged in shared memory: one HBM read, both passes from shared memory.
__device__ __forceinline__ void softmax_staged(const ak_t* x, ak_t* y, const ak_row_part& p, bool y_vec, int lane,
                                               float* scratch, float* xch, int slot, ak_t* stage) {
    const ak_t* s = ak_stage_part<kThreadsPerRow, LOAD>(x, p, stage, lane);
    ak_stage_wait();
    softmax_from_stage(s, y, p, y_vec, lane, scratch, xch, slot);
}

// A whole row streamed (no stage), split for the peeled vector body when VEC allows.
__device__ __forceinline__ void softmax_streamed_row(const ak_softmax_args& args, const ak_t* x, ak_t* y, int cols,
                                                     int lane, float* scratch, float* xch, int slot, int rank) {
    const bool vector_ok = kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.x) &&
                                                      ak_aligned<kVec>(args.y)));
    if (vector_ok) {
        const ak_row_part p = ak_row_share<kVec>(ak_split_row<kVec>(x, cols), rank, CLUSTER);
        softmax_stream<kVec>(x, y, p, ak_coaligned<kVec>(x, y), lane, scratch, xch, slot);
    } else {
        const ak_row_part p = ak_row_share<1>(ak_split_row<1>(x, cols), rank, CLUSTER);
        softmax_stream<1>(x, y, p, true, lane, scratch, xch, slot);
    }
}

// PIPELINE: persistent blocks, rows blockIdx.x, + gridDim.x, ...; SMEM_ROW as two buffers, the next row's
// copies issued before this row is reduced (cp.async.wait_group 1 waits for all but the newest group).
// Rows too long for a buffer stream instead.
__device__ __forceinline__ void softmax_pipelined(const ak_softmax_args& args, float* scratch, float* xch) {
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int kV = AK_STAGE_V;
    constexpr int kBufBytes = SMEM_ROW * 1024 / 2 / 16 * 16;
    const int lane = threadIdx.x;
    const long long step = gridDim.x;
    if (ak_stage_elems(args.cols + kV) * (int)sizeof(ak_t) > kBufBytes) {  // the same in every block
        for (long long row = blockIdx.x; row < args.rows; row += step)
            softmax_streamed_row(args, args.x + row * args.cols, args.y + row * args.cols, args.cols, lane, scratch,
                                 xch, 0, 0);
        return;
    }
    ak_t* buf[2] = {reinterpret_cast<ak_t*>(smem), reinterpret_cast<ak_t*>(smem + kBufBytes)};
    long long row = blockIdx.x;
    const ak_t* cur = nullptr;
    if (row < args.rows) {
        const ak_t* x = args.x + row * args.cols;
        cur = ak_stage_part<BLOCK_THREADS, LOAD>(x, ak_split_row<kV>(x, args.cols), buf[0], lane);
    }
    for (int b = 0; row < args.rows; row += step, b ^= 1) {
        const long long next = row + step;
        const ak_t* upcoming = nullptr;
        if (next < args.rows) {
            const ak_t* xn = args.x + next * args.cols;
            upcoming = ak_stage_part<BLOCK_THREADS, LOAD>(xn, ak_split_row<kV>(xn, args.cols), buf[b ^ 1], lane);
        } else {
            asm volatile("cp.async.commit_group;" ::: "memory");  // an empty group keeps the count
        }
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncthreads();
        const ak_t* x = args.x + row * args.cols;
        ak_t* y = args.y + row * args.cols;
        softmax_from_stage(cur, y, ak_split_row<kV>(x, args.cols), ak_coaligned<kV>(x, y), lane, scratch, xch, 0);
        __syncthreads();  // every thread is done with buf[b] before the next iteration refills it
        cur = upcoming;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

// The same row with the thread's share held in registers: V-element chunks lane, lane + threads per
// row, ... (SLOTS of them; the caller checked they cover the row).
template <int V, int SLOTS>
__device__ __forceinline__ void softmax_row_cached(const ak_t* x, ak_t* y, int cols, int lane, bool active,
                                                   float* scratch) {
    const int chunks = active ? cols / V : 0;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow, LOAD>(x, chunks, lane, AK_NEG_INF, v);  // padding: exp(-inf - max) = 0
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

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, kStageBlocks) ak_kernel0(ak_softmax_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    __shared__ float xch[2 * ROWS_PER_BLOCK];  // CLUSTER: this block's (max, sum) per row, read by the cluster
    if constexpr (PIPELINE != 0) {
        softmax_pipelined(args, scratch, xch);
        return;
    }
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block (and cluster) reductions
    const long long offset = active ? row * args.cols : 0;
    const ak_t* x = args.x + offset;
    ak_t* y = args.y + offset;
    const int cols = active ? args.cols : 0;
    const int rank = CLUSTER > 1 ? ak_cluster_rank() : 0;

    if constexpr (SMEM_ROW > 0) {
        extern __shared__ __align__(16) unsigned char smem[];
        constexpr int kV = AK_STAGE_V;
        // The largest share any row of this size can give a block (the same answer in every block).
        const int bound = ak_stage_elems(((args.cols / kV + CLUSTER - 1) / CLUSTER) * kV + 2 * kV);
        if (bound * (int)sizeof(ak_t) <= kStageBytesPerRow) {
            const ak_row_part p = ak_row_share<kV>(ak_split_row<kV>(x, cols), rank, CLUSTER);
            softmax_staged(x, y, p, ak_coaligned<kV>(x, y), lane, scratch, xch, group,
                           reinterpret_cast<ak_t*>(smem + group * kStageBytesPerRow));
            return;
        }
    }
    if constexpr (ROW_CACHE > 0) {  // CLUSTER == 1 here; rows that do not fit stream below
        const bool cache_vec = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.x) && ak_aligned<VEC>(args.y);
        if (cache_vec && args.cols / VEC <= ROW_CACHE / VEC * kThreadsPerRow) {
            softmax_row_cached<VEC, ROW_CACHE / VEC>(x, y, args.cols, lane, active, scratch);
            return;
        }
        if (!cache_vec && args.cols <= ROW_CACHE * kThreadsPerRow) {
            softmax_row_cached<1, ROW_CACHE>(x, y, args.cols, lane, active, scratch);
            return;
        }
    }
    softmax_streamed_row(args, x, y, cols, lane, scratch, xch, group, rank);
}
