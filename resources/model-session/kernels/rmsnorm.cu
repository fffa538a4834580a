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
// PEEL = 1 (VEC > 1): rows whose length or start breaks VEC alignment still take vector loads, a scalar
// head up to the alignment boundary and a scalar tail around the vector body; y and the weight move as
// vectors where they are aligned as x is, else element by element. PEEL = 0: such rows run scalar.
// UNROLL batches that many vector loads before using any.
// SMEM_ROW > 0 stages each row in SMEM_ROW KiB of dynamic shared memory per block (split among its
// ROWS_PER_BLOCK rows) with 16-byte cp.async copies, all in flight at once: x is read from HBM once and
// the second pass reads shared memory. Rows that do not fit take the two-pass path.
// LOAD: the cache hint of x's last read (SMEM_ROW's copies, ROW_CACHE's loads, the two-pass path's
// second pass): 1 streaming (ld.global.cs), 2 an L2 evict-first policy with 256-byte prefetch
// (helpers.cuh: ak_load_vec). On the two-pass path LOAD > 0 also reads the first pass under an L2
// evict-last policy (its lines stay for the second read) and stores y streaming (st.global.cs), so
// neither the written rows nor the rows already done push out the rows still to be read again.
// PREFETCH = 1 (sm_90, the two-pass path): the block first asks the copy engine to bring the whole row
// into L2 (cp.async.bulk.prefetch.L2, helpers.cuh: ak_prefetch_l2), no registers held.
//
// @autokernel type rmsnorm
// @autokernel tunable LOAD = 0 {0, 1, 2} tier 1 -- cache hint of x's read-once loads (SMEM_ROW / ROW_CACHE; 0 plain, 1 streaming, 2 L2 evict-first + 256 B prefetch)
// @autokernel tunable PREFETCH = 0 {0, 1} tier 1 -- two-pass rows: the row prefetched into L2 at the block's start (cp.async.bulk.prefetch.L2, sm_90)
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable VEC = 8 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 2 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ROW_CACHE = 32 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers between the passes (0: re-read the row)
// @autokernel tunable PEEL = 1 {0, 1} tier 3 -- rows that break VEC alignment: scalar head and tail around a vector body (0: scalar row)
// @autokernel tunable SMEM_ROW = 0 {0, 24, 52, 68, 100, 200} tier 3 -- KiB of shared memory per block staging its rows (cp.async; 0: none)
// @autokernel preset long_rows sm_90 BLOCK_THREADS=256 VEC=8 UNROLL=2 ROW_CACHE=32 -- 92.8-96.1 % of a copy at 4096x8192 and 8192x8192 fp16, H200 (bench/2026-12-02-h200-compute.md)
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
#ifndef PEEL
#define PEEL 1
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

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr int kVec = AK_VEC16(VEC);  // the peeled paths' vector: VEC elements, at most 16 bytes
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(ROW_CACHE % VEC == 0, "ROW_CACHE must be a multiple of VEC");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");

static_assert(SMEM_ROW == 0 || ROW_CACHE == 0, "SMEM_ROW and ROW_CACHE both hold the row: choose one");
static_assert(SMEM_ROW <= 226, "SMEM_ROW: at most 226 KiB of shared memory per block (227 KB on Hopper)");
static_assert(SMEM_ROW == 0 || SMEM_ROW * 1024 / ROWS_PER_BLOCK >= 1024,
              "SMEM_ROW: at least 1 KiB of shared memory per row (SMEM_ROW * 1024 / ROWS_PER_BLOCK)");
static_assert(LOAD >= 0 && LOAD <= 2, "LOAD: 0 (plain), 1 (streaming) or 2 (read-only, L2 evict-first)");
static_assert(PREFETCH == 0 || PREFETCH == 1, "PREFETCH: 0 or 1");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(PREFETCH == 0, "PREFETCH uses the bulk L2 prefetch (cp.async.bulk.prefetch.L2): it needs sm_90 or newer");
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(LOAD != 2, "LOAD = 2 uses L2 cache policies (createpolicy): it needs sm_80 or newer");
static_assert(SMEM_ROW == 0, "SMEM_ROW stages rows with cp.async: it needs sm_80 or newer");
#endif

constexpr int kStageBytesPerRow = SMEM_ROW * 1024 / ROWS_PER_BLOCK / 16 * 16;
// Blocks per SM that SMEM_ROW leaves room for (228 KB per SM, 1 KB of it reserved per block), at most 1024
// threads' worth: __launch_bounds__ sets the register budget for that many, so the registers do not cap
// the rows in flight below what the shared memory holds (a budget for 2048 threads, 32 registers, spills).
constexpr int kStageBlocks = SMEM_ROW == 0 ? 1 : (228 / (SMEM_ROW + 1) < 1024 / BLOCK_THREADS ? 228 / (SMEM_ROW + 1) : 1024 / BLOCK_THREADS);

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
    /* dynamic_smem_bytes */ SMEM_ROW * 1024,
};

// Part `p` of the row (the whole row, split for V-element vectors) read from `src` (the row or its
// staged copy): the sum of squares, then y = x * inv_rms * weight. Hinted (src is the row in global
// memory, read twice): the first read under Hint1, the second under Hint2, y stored streaming.
template <int V, int Unroll, int Hint1 = 0, int Hint2 = 0, bool StreamStore = false>
__device__ __forceinline__ void rmsnorm_part(const ak_t* src, const ak_t* w, ak_t* y, const ak_row_part& p, bool y_vec,
                                             bool w_vec, int cols, float eps, int lane, float* scratch) {
    float sum_sq = 0.f;
    ak_part_fold<V, kThreadsPerRow, Unroll, Hint1>(src, p, lane, [&](const auto& v) {
        constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
        for (int j = 0; j < K; ++j) sum_sq = fmaf(v[j], v[j], sum_sq);
    });
    sum_sq = ak_group_sum<kThreadsPerRow>(sum_sq, scratch);
    const float inv_rms = 1.0f / sqrtf(sum_sq / (float)cols + eps);
    ak_part_map<V, kThreadsPerRow, Unroll, true, Hint2, StreamStore>(src, w, y, p, y_vec, w_vec, lane,
                                                 [&](float v, float g) { return v * inv_rms * g; });
}

// The same row with the thread's share held in registers: V-element chunks lane, lane + threads per
// row, ... (SLOTS of them, the caller checked they cover the row). Loads first, then the reduction.
template <int V, int SLOTS>
__device__ __forceinline__ void rmsnorm_row_cached(const ak_t* x, const ak_t* w, ak_t* y, int cols, float eps,
                                                   int lane, bool active, float* scratch) {
    const int chunks = active ? cols / V : 0;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow, LOAD>(x, chunks, lane, 0.f, v);  // padding adds 0 to the sum of squares
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

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, kStageBlocks) ak_kernel0(ak_rmsnorm_args args) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block reductions
    const long long offset = active ? row * args.cols : 0;
    const ak_t* x = args.x + offset;
    ak_t* y = args.y + offset;

    const int cols = active ? args.cols : 0;

    if constexpr (SMEM_ROW > 0) {
        extern __shared__ __align__(16) unsigned char smem[];
        constexpr int kV = AK_STAGE_V;
        if (ak_stage_elems(args.cols + kV) * (int)sizeof(ak_t) <= kStageBytesPerRow) {  // the same in every block
            const ak_row_part p = ak_split_row<kV>(x, cols);
            const ak_t* s = ak_stage_part<kThreadsPerRow, LOAD>(x, p, reinterpret_cast<ak_t*>(smem + group * kStageBytesPerRow), lane);
            ak_stage_wait();
            rmsnorm_part<kV, 1>(s, args.weight, y, p, ak_coaligned<kV>(x, y), ak_coaligned<kV>(x, args.weight), args.cols,
                                args.eps, lane, scratch);
            return;
        }
    }
    if constexpr (ROW_CACHE > 0) {  // rows that do not fit take the two-pass path below
        const bool cache_vec = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.x) && ak_aligned<VEC>(args.y) &&
                               ak_aligned<VEC>(args.weight);
        if (cache_vec && args.cols / VEC <= ROW_CACHE / VEC * kThreadsPerRow) {
            rmsnorm_row_cached<VEC, ROW_CACHE / VEC>(x, args.weight, y, args.cols, args.eps, lane, active, scratch);
            return;
        }
        if (!cache_vec && args.cols <= ROW_CACHE * kThreadsPerRow) {
            rmsnorm_row_cached<1, ROW_CACHE>(x, args.weight, y, args.cols, args.eps, lane, active, scratch);
            return;
        }
    }
    const bool vector_ok = kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.x) &&
                                                      ak_aligned<kVec>(args.y) && ak_aligned<kVec>(args.weight)));
    if constexpr (PREFETCH != 0) ak_prefetch_l2(x, (long long)cols * (long long)sizeof(ak_t), lane, kThreadsPerRow);
    constexpr int kFirstHint = LOAD > 0 ? 3 : 0;  // two-pass: the first read keeps its lines in L2
    if (vector_ok)  // the same for every thread of the block: no divergence around the reductions
        rmsnorm_part<kVec, kUnroll, kFirstHint, LOAD, (LOAD > 0)>(x, args.weight, y, ak_split_row<kVec>(x, cols),
                                                                 ak_coaligned<kVec>(x, y), ak_coaligned<kVec>(x, args.weight),
                                                                 args.cols, args.eps, lane, scratch);
    else
        rmsnorm_part<1, kUnroll>(x, args.weight, y, ak_split_row<1>(x, cols), true, true, args.cols, args.eps, lane,
                                 scratch);
}
