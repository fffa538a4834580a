// Cross-entropy starter: loss = mean over rows of (logsumexp(logits[r, :]) - logits[r, target[r]]).
//
// Two stages:
//   ak_kernel0: ROWS_PER_BLOCK rows per block; each row's loss (fp32) goes to workspace[r]
//               (workspace_bytes_per_row = 4). Two passes over the row: the max, then the sum of
//               exp(x - max); loss = log(sum) + max - x[target]. Subtracting the max keeps large logits finite.
//               A target outside [0, cols) gives a NaN loss rather than an out-of-bounds read.
//   ak_kernel1: ONE block sums the per-row losses in a fixed order and writes the mean to *loss.
// No atomics: the result is bitwise identical from run to run.
//
// Variants of the row stage:
//   PEEL = 1      (VEC > 1) rows whose length or start breaks VEC alignment (50257 columns) still take
//                 vector loads: a scalar head up to the alignment boundary, the vector body, a scalar tail.
//                 PEEL = 0: such rows take the scalar path.
//   UNROLL        batches UNROLL vector loads before using any, folded into the online statistics
//                 together (one rescale per batch).
//   SMEM_ROW > 0  stages each row in SMEM_ROW KiB of dynamic shared memory per block (split among its
//                 ROWS_PER_BLOCK rows) with 16-byte cp.async copies, all issued at once (the whole row in
//                 flight, no registers held), then the max and the sum of exp from shared memory. Rows
//                 that do not fit stream. One row, one pass over HBM, either way.
//   CLUSTER > 1   splits every row across a cluster of CLUSTER blocks (sm_90): each takes a contiguous
//                 share, the (max, sum) pairs are combined through distributed shared memory in rank
//                 order; rank 0 writes the row's loss.
//   ONLINE = 1    finds the max and the sum of exp(x - max) in ONE pass, rescaling the running sum when
//                 the running max grows: the row is read once instead of twice.
//   ROW_CACHE > 0 keeps the row in registers (up to ROW_CACHE elements per thread) when it fits, with
//                 every load issued before the first reduction.
//   LOAD          the cache hint of the row's HBM reads (helpers.cuh: ak_load_vec): 1 streaming
//                 (ld.global.cs), 2 read-only with an L2 evict-first policy and 256-byte prefetch (also on the
//                 SMEM_ROW copies). The logits are read once, so their lines go first and L2's other lines
//                 (dirty ones whose write-back would share HBM with this read) stay. The two-pass row
//                 (ONLINE = 0) hints only its second read; the first must stay in L2 for it.
//   PREFETCH = 1  (sm_90, streamed rows) the block first asks the copy engine to bring its whole share of
//                 the row into L2 (cp.async.bulk.prefetch.L2 in 4 KiB pieces, helpers.cuh: ak_prefetch_l2):
//                 the row is on its way at once, with no registers held, while the loads walk it.
//   PERSISTENT    1 or 2: a persistent grid (AK_GRID_PERSISTENT, that many blocks per SM) whose blocks loop
//                 over the rows, one streamed row at a time; with PREFETCH the next row is prefetched into
//                 L2 as each row starts. ROWS_PER_BLOCK = 1, CLUSTER = 1, no SMEM_ROW / ROW_CACHE.
//   FAST_EXP = 1  computes exp as the hardware ex2 of x * log2 e (helpers.cuh: ak_exp): fewer instructions for the
//                 nine exponentials the one-pass row spends on every eight elements. FAST_EXP = 2 folds the
//                 max into the scale: ex2(x * log2 e - max * log2 e), one FMA + MUFU.EX2 per element
//                 (ak_exp_shifted) instead of a subtraction, a multiply and MUFU.EX2.
// and one of the mean:
//   FUSED_MEAN = 1 drops ak_kernel1: every block of ak_kernel0 counts itself done on a counter in the
//                 workspace (zeroed before every launch), and the last one sums the row losses in the
//                 same fixed order as ak_kernel1 would: one launch instead of two, still deterministic
//                 (the atomic only elects the block; it never adds a loss).
//
// @autokernel type cross_entropy
// @autokernel tunable LOAD = 0 {0, 1, 2} tier 1 -- cache hint of the logits' reads (0 plain, 1 streaming evict-first, 2 read-only L2 evict-first + 256 B prefetch)
// @autokernel tunable PREFETCH = 0 {0, 1} tier 1 -- streamed rows: the block's share of the row prefetched into L2 at the start (cp.async.bulk.prefetch.L2, sm_90)
// @autokernel tunable PERSISTENT = 0 {0, 1, 2} tier 1 -- 0: one block per row; 1, 2: persistent blocks per SM looping over streamed rows (with PREFETCH: the next row prefetched)
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block of the row stage
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable MEAN_THREADS = 1024 {128, 256, 512, 1024} tier 1 -- threads of the single block that averages the row losses
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ONLINE = 0 {0, 1} tier 3 -- max and sum of exp in one pass (online rescaling)
// @autokernel tunable FAST_EXP = 0 {0, 1, 2} tier 3 -- exp as the hardware ex2 of x * log2 e (1: a multiply + MUFU.EX2; 2: the max folded in, one FMA + MUFU.EX2)
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers (0: stream the row)
// @autokernel tunable FUSED_MEAN = 0 {0, 1} tier 3 -- the last block of the row stage averages the losses (no second launch)
// @autokernel tunable PEEL = 1 {0, 1} tier 3 -- rows that break VEC alignment: scalar head and tail around a vector body (0: scalar row)
// @autokernel tunable SMEM_ROW = 0 {0, 24, 52, 68, 100, 200} tier 3 -- KiB of shared memory per block staging its rows (cp.async; 0: none)
// @autokernel tunable CLUSTER = 1 {1, 2, 4, 8} tier 3 -- blocks of a cluster sharing each row (sm_90, distributed shared memory)
// @autokernel preset long_rows sm_90 BLOCK_THREADS=512 VEC=8 UNROLL=4 ONLINE=1 FAST_EXP=1 FUSED_MEAN=1 LOAD=2 -- 77.8-83.2 % of a copy at 4096x50257 and 8192x50257 fp16, 2.3x at::cross_entropy_loss, H200 (bench/2026-12-02-h200-compute.md)
#include <autokernel/contract.cuh>
#include <autokernel/helpers.cuh>

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 1
#endif
#ifndef MEAN_THREADS
#define MEAN_THREADS 1024
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef ONLINE
#define ONLINE 0
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif
#ifndef ROW_CACHE
#define ROW_CACHE 0
#endif
#ifndef FUSED_MEAN
#define FUSED_MEAN 0
#endif
#ifndef PEEL
#define PEEL 1
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef SMEM_ROW
#define SMEM_ROW 0
#endif
#ifndef LOAD
#define LOAD 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef PERSISTENT
#define PERSISTENT 0
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr int kVec = AK_VEC16(VEC);  // the peeled paths' vector: VEC elements, at most 16 bytes
constexpr bool kFastExp = FAST_EXP != 0;
static_assert(FAST_EXP >= 0 && FAST_EXP <= 2, "FAST_EXP: 0 (expf), 1 (ex2 of x * log2 e) or 2 (the max folded into an FMA)");

// exp(x - shift) the way FAST_EXP asks; shift_log2e = shift * log2 e (used by FAST_EXP = 2 only).
__device__ __forceinline__ float exp_shifted(float x, float shift, float shift_log2e) {
    if constexpr (FAST_EXP == 2) return ak_exp_shifted(x, shift_log2e);
    else return ak_exp<kFastExp>(x - shift);
}
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");
static_assert(ROW_CACHE % VEC == 0, "ROW_CACHE must be a multiple of VEC");
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER: 1, 2, 4 or 8 blocks per row (8 is the portable cluster maximum)");
static_assert(SMEM_ROW == 0 || ROW_CACHE == 0, "SMEM_ROW and ROW_CACHE both hold the row: choose one");
static_assert(SMEM_ROW == 0 || CLUSTER == 1, "SMEM_ROW stages whole rows: it needs CLUSTER = 1");
static_assert(SMEM_ROW <= 226, "SMEM_ROW: at most 226 KiB of shared memory per block (227 KB on Hopper)");
static_assert(SMEM_ROW == 0 || SMEM_ROW * 1024 / ROWS_PER_BLOCK >= 1024,
              "SMEM_ROW: at least 1 KiB of shared memory per row (SMEM_ROW * 1024 / ROWS_PER_BLOCK)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(SMEM_ROW == 0, "SMEM_ROW stages rows with cp.async: it needs sm_80 or newer");
#endif
constexpr int kStageBytesPerRow = SMEM_ROW * 1024 / ROWS_PER_BLOCK / 16 * 16;
// Blocks per SM that SMEM_ROW leaves room for (at most 1024 threads' registers; see softmax.cu).
constexpr int kStageBlocks = SMEM_ROW == 0 ? 1 : (228 / (SMEM_ROW + 1) < 1024 / BLOCK_THREADS ? 228 / (SMEM_ROW + 1) : 1024 / BLOCK_THREADS);
static_assert(CLUSTER == 1 || ROW_CACHE == 0,
              "CLUSTER splits a row across blocks, ROW_CACHE holds a whole row in one block's registers: choose one");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(CLUSTER == 1, "CLUSTER uses thread-block clusters and distributed shared memory: it needs sm_90 or newer");
#endif
static_assert(LOAD >= 0 && LOAD <= 2, "LOAD: 0 (plain), 1 (streaming) or 2 (read-only, L2 evict-first)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(LOAD != 2, "LOAD = 2 uses L2 cache policies (createpolicy): it needs sm_80 or newer");
#endif
static_assert(PREFETCH == 0 || PREFETCH == 1, "PREFETCH: 0 or 1");
static_assert(PERSISTENT >= 0 && PERSISTENT <= 2, "PERSISTENT: 0, 1 or 2 blocks per SM");
static_assert(PERSISTENT == 0 || (ROWS_PER_BLOCK == 1 && CLUSTER == 1 && SMEM_ROW == 0 && ROW_CACHE == 0),
              "PERSISTENT loops one streamed row per block at a time: it needs ROWS_PER_BLOCK = 1, CLUSTER = 1, "
              "SMEM_ROW = 0 and ROW_CACHE = 0");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(PREFETCH == 0, "PREFETCH uses the bulk L2 prefetch (cp.async.bulk.prefetch.L2): it needs sm_90 or newer");
#endif
static_assert(MEAN_THREADS % 32 == 0 && MEAN_THREADS <= 1024 && (MEAN_THREADS & (MEAN_THREADS - 1)) == 0,
              "MEAN_THREADS: power of two, 32..1024");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ PERSISTENT ? AK_GRID_PERSISTENT : AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x (PERSISTENT: blocks per SM), grid_y, grid_z */ PERSISTENT, 0, 0,
    /* dynamic_smem_bytes */ SMEM_ROW * 1024,
    /* cluster: CLUSTER blocks along y share a row (grid.y = CLUSTER) */ 0, CLUSTER > 1 ? CLUSTER : 0, 0,
    /* tma_box_rows */ {0, 0, 0},
    /* tma_box_cols */ {0, 0, 0},
    /* tma_swizzle */ AK_SWIZZLE_NONE,
    /* workspace_bytes_per_row */ 4,  // one fp32 loss per row
    /* workspace_bytes */ FUSED_MEAN ? 4 : 0,  // FUSED_MEAN: the blocks-done counter after the losses
};

#if !FUSED_MEAN
AK_LAUNCH(1) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ MEAN_THREADS, 1, 1,
    /* grid */ AK_GRID_FIXED, /* rows_per_block */ 0,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x, grid_y, grid_z */ 1, 1, 1,
};
#endif

// *loss = the mean of the row losses in workspace[0, rows), by THREADS threads of one block: thread t
// sums rows t, t + THREADS, ... in order, then a fixed-order block reduction. Loads bypass L1 (__ldcg):
// with FUSED_MEAN the losses were written by other blocks.
template <int THREADS>
__device__ __forceinline__ void write_mean_loss(const ak_cross_entropy_args& args, float* scratch) {
    const float* row_loss = static_cast<const float*>(args.workspace);
    float sum = 0.f;
    for (int r = threadIdx.x; r < args.rows; r += THREADS) sum += __ldcg(row_loss + r);
    sum = ak_group_sum<THREADS>(sum, scratch);
    if (threadIdx.x == 0) *args.loss = sum / (float)args.rows;
}

// log(sum(exp(x - max))) + max - x[target] from the group's reduced max and sum; NaN for a target
// outside [0, cols) rather than an out-of-bounds read.
__device__ __forceinline__ float finish_loss(const ak_t* x, int cols, long long target, float row_max, float sum) {
    if (target < 0 || target >= cols) return __int_as_float(0x7fc00000);
    return logf(sum) + row_max - ak_to_float(x[target]);
}

template <int K>
__device__ __forceinline__ void online_fold(const float (&v)[K], float& run_max, float& run_sum) {
    if constexpr (FAST_EXP == 2) ak_online_add_fma<K>(v, run_max, run_sum);
    else ak_online_add<K, kFastExp>(v, run_max, run_sum);
}

// PREFETCH: part `p` of the row (split for V-element vectors) on its way into L2, issued by the group.
template <int V>
__device__ __forceinline__ void prefetch_part(const ak_t* x, const ak_row_part& p, int lane) {
    ak_prefetch_l2(x + p.begin, (long long)(p.head + p.chunks * V + p.tail) * (long long)sizeof(ak_t), lane,
                   kThreadsPerRow);
}

// This thread's share of part `p` of the row (split for V-element vectors) folded into the row's max
// and sum of exp(x - max): one pass (ONLINE) or two, over the group, then over the cluster.
template <int V>
__device__ __forceinline__ void row_stats(const ak_t* x, const ak_row_part& p, int lane, float* scratch, float* xch,
                                          int slot, float& row_max, float& sum) {
    row_max = AK_NEG_INF;
    sum = 0.f;
    if constexpr (ONLINE != 0) {
        ak_part_fold<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) { online_fold(v, row_max, sum); });
        ak_online_group<kThreadsPerRow, kFastExp>(row_max, sum, scratch);
        if constexpr (CLUSTER > 1) ak_cluster_online<CLUSTER, kFastExp>(row_max, sum, xch, slot, lane == 0);
    } else {
        ak_part_fold<V, kThreadsPerRow, kUnroll>(x, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
        row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
        if constexpr (CLUSTER > 1) {
            float unused = 0.f;
            ak_cluster_online<CLUSTER, kFastExp>(row_max, unused, xch, slot, lane == 0);
        }
        const float shift = row_max == AK_NEG_INF ? 0.f : row_max;  // empty groups: keep exps finite
        const float shift_log2e = shift * 1.4426950408889634f;
        ak_part_fold<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) {  // the last read: hinted
            constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
            for (int j = 0; j < K; ++j) sum += exp_shifted(v[j], shift, shift_log2e);
        });
        sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
        if constexpr (CLUSTER > 1) sum = ak_cluster_sum<CLUSTER>(sum, xch, slot, lane == 0);
    }
}

// The same loss with the thread's share of the row in registers: V-element chunks lane, lane + threads
// per row, ... (SLOTS of them; the caller checked they cover the row).
template <int V, int SLOTS>
__device__ __forceinline__ float row_loss_cached(const ak_t* x, int cols, long long target, int lane, bool active,
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
    const float shift = row_max == AK_NEG_INF ? 0.f : row_max;  // inactive groups: keep exps finite
    const float shift_log2e = shift * 1.4426950408889634f;

    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) sum += exp_shifted(v[s][j], shift, shift_log2e);
    sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
    return finish_loss(x, cols, target, row_max, sum);
}

// One block's rows (ROWS_PER_BLOCK of them, or its share of one under CLUSTER): each row's loss to the workspace.
__device__ __forceinline__ void block_rows(const ak_cross_entropy_args& args, float* scratch, float* xch) {
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block (and cluster) reductions
    const ak_t* x = args.logits + (active ? row * args.cols : 0);
    const long long target = active ? args.targets[row] : 0;
    const int rank = CLUSTER > 1 ? ak_cluster_rank() : 0;

    float loss = 0.f;
    bool done = false;
    if constexpr (SMEM_ROW > 0) {  // CLUSTER == 1 here; rows that do not fit stream below
        extern __shared__ __align__(16) unsigned char smem[];
        constexpr int kV = AK_STAGE_V;
        if (ak_stage_elems(args.cols + kV) * (int)sizeof(ak_t) <= kStageBytesPerRow) {  // the same in every block
            const ak_row_part p = ak_split_row<kV>(x, active ? args.cols : 0);
            const ak_t* st = ak_stage_part<kThreadsPerRow, LOAD>(x, p, reinterpret_cast<ak_t*>(smem + group * kStageBytesPerRow), lane);
            ak_stage_wait();
            float row_max = AK_NEG_INF, sum = 0.f;
            ak_part_fold<kV, kThreadsPerRow, 1>(st, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
            row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
            const float shift = row_max == AK_NEG_INF ? 0.f : row_max;
            const float shift_log2e = shift * 1.4426950408889634f;
            ak_part_fold<kV, kThreadsPerRow, 1>(st, p, lane, [&](const auto& v) {
                constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
                for (int j = 0; j < K; ++j) sum += exp_shifted(v[j], shift, shift_log2e);
            });
            sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
            loss = finish_loss(x, args.cols, target, row_max, sum);
            done = true;
        }
    }
    if constexpr (ROW_CACHE > 0) {  // CLUSTER == 1 here; rows that do not fit stream below
        const bool cache_vec = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.logits);
        if (cache_vec && args.cols / VEC <= ROW_CACHE / VEC * kThreadsPerRow) {
            loss = row_loss_cached<VEC, ROW_CACHE / VEC>(x, args.cols, target, lane, active, scratch);
            done = true;
        } else if (!cache_vec && args.cols <= ROW_CACHE * kThreadsPerRow) {
            loss = row_loss_cached<1, ROW_CACHE>(x, args.cols, target, lane, active, scratch);
            done = true;
        }
    }
    if (!done) {
        const int cols = active ? args.cols : 0;
        float row_max, sum;
        if (kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.logits)))) {
            const ak_row_part p = ak_row_share<kVec>(ak_split_row<kVec>(x, cols), rank, CLUSTER);
            if constexpr (PREFETCH != 0) prefetch_part<kVec>(x, p, lane);
            row_stats<kVec>(x, p, lane, scratch, xch, group, row_max, sum);
        } else {
            const ak_row_part p = ak_row_share<1>(ak_split_row<1>(x, cols), rank, CLUSTER);
            if constexpr (PREFETCH != 0) prefetch_part<1>(x, p, lane);
            row_stats<1>(x, p, lane, scratch, xch, group, row_max, sum);
        }
        loss = finish_loss(x, args.cols, target, row_max, sum);
    }
    if (active && lane == 0 && rank == 0) static_cast<float*>(args.workspace)[row] = loss;
}

// PERSISTENT: blocks loop over rows blockIdx.x, + gridDim.x, ... (one row at a time, streamed); with
// PREFETCH each row's successor is handed to the copy engine (cp.async.bulk.prefetch.L2) when the row
// starts, so HBM keeps streaming into L2 while the loads walk this row and no block ends before the last
// rows: no tail of blocks that start late.
__device__ __forceinline__ void persistent_rows(const ak_cross_entropy_args& args, float* scratch, float* xch) {
    const int lane = threadIdx.x;
    const long long step = gridDim.x;
    const long long row_bytes = (long long)args.cols * (long long)sizeof(ak_t);
    if constexpr (PREFETCH != 0)
        if (blockIdx.x < args.rows) ak_prefetch_l2(args.logits + blockIdx.x * args.cols, row_bytes, lane, BLOCK_THREADS);
    for (long long row = blockIdx.x; row < args.rows; row += step) {
        const ak_t* x = args.logits + row * args.cols;
        if constexpr (PREFETCH != 0)
            if (row + step < args.rows) ak_prefetch_l2(x + step * args.cols, row_bytes, lane, BLOCK_THREADS);
        float row_max, sum;
        if (kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.logits))))
            row_stats<kVec>(x, ak_split_row<kVec>(x, args.cols), lane, scratch, xch, 0, row_max, sum);
        else
            row_stats<1>(x, ak_split_row<1>(x, args.cols), lane, scratch, xch, 0, row_max, sum);
        const float loss = finish_loss(x, args.cols, args.targets[row], row_max, sum);
        if (lane == 0) static_cast<float*>(args.workspace)[row] = loss;
    }
}

// PERSISTENT blocks must all be resident at once (the grid is sized for it): the register budget allows it.
constexpr int kMinBlocks = PERSISTENT > 0 ? PERSISTENT : kStageBlocks;

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, kMinBlocks) ak_kernel0(ak_cross_entropy_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    __shared__ float xch[2 * ROWS_PER_BLOCK];  // CLUSTER: this block's (max, sum) per row, read by the cluster
    if constexpr (PERSISTENT > 0)
        persistent_rows(args, scratch, xch);
    else
        block_rows(args, scratch, xch);

    if constexpr (FUSED_MEAN) {
        __shared__ bool last_block;
        __threadfence();  // this block's losses are visible to every block before it counts itself done
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned* blocks_done = reinterpret_cast<unsigned*>(static_cast<float*>(args.workspace) + args.rows);
            last_block = atomicAdd(blocks_done, 1u) == gridDim.x * gridDim.y - 1;
        }
        __syncthreads();
        if (last_block) {
            __threadfence();
            write_mean_loss<BLOCK_THREADS>(args, scratch);
        }
    }
}

#if !FUSED_MEAN
// One block averages the row losses.
extern "C" __global__ void __launch_bounds__(MEAN_THREADS) ak_kernel1(ak_cross_entropy_args args) {
    __shared__ float scratch[MEAN_THREADS / 32];
    write_mean_loss<MEAN_THREADS>(args, scratch);
}
#endif
