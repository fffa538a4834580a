// Matmul starter: C[m, n] = A[m, k] @ B[k, n], row-major, fp32 accumulation.
//
// Three variants (MMA, tier 1 and declared first: on a GEMM no tile shape comes near what the switch to
// tensor cores gives, so the search tries it before the tiles). BLOCK_N comes before BLOCK_M: under
// MMA = 3 it is the wgmma N, and the widest instruction (m64n256) with the TMA-store epilogue is what
// reaches cuBLAS, so a greedy sweep should grow N to 256 before M takes the 256 that would rule it out
// (BLOCK_M 256 allows N <= 128). Tunables that only one variant reads say so (`when MMA=...`), so the
// search does not evaluate them under the others. fp32 data always takes the FMA path (no TF32, so fp32 results meet an
// fp32 tolerance; under MMA = 1 and 3 in the starter's 64 x 64 x 16 shape, since the tunables then
// describe tensor-core tiles).
//   MMA = 0  FMA path: one block per BLOCK_M x BLOCK_N tile of C (AK_GRID_TILES). Each step stages a
//            BLOCK_M x BLOCK_K slice of A and a BLOCK_K x BLOCK_N slice of B in shared memory (zero-filled
//            past the matrix edges, so any m, n, k work); every thread computes THREAD_M x THREAD_N outputs
//            with fp32 FMAs.
//   MMA = 1  fp16/bf16: the same tiling on tensor cores through nvcuda::wmma 16x16x16 fragments with fp32
//            accumulators; each warp computes a WARP_M x WARP_N sub-tile. Accumulators go through shared
//            memory so the edge tiles can be written with bounds checks.
//   MMA = 3  fp16/bf16, Hopper (sm_90a): wgmma.mma_async fed by TMA with warp specialization. A persistent
//            grid (one block per SM) walks the tiles in GROUP_M-row groups (L2 reuse of B). In each block
//            one producer warpgroup (one thread) issues the TMA loads of A (a BLOCK_M x 64 box) and B
//            (BLOCK_N / 64 boxes of 64 x 64), 128-byte swizzled, into a ring of STAGES buffers, each with a
//            "full" mbarrier carrying its byte count and an "empty" one the consumer warps arrive on; one or
//            two consumer warpgroups (BLOCK_M = 64: one; 128 and 256: two, of BLOCK_M / 2 rows) run
//            wgmma m64nBLOCK_Nk16 with A K-major and B N-major straight from the swizzled buffers, one
//            k-step's group in flight while the next is issued; setmaxnreg gives two consumer warpgroups 232
//            registers. The k depth of a stage is 64 (one 128-byte swizzled row) whatever BLOCK_K says.
//            CLUSTER = 2 (one block per tile, not persistent): pairs of blocks (a thread-block cluster) take
//            horizontally adjacent tiles that
//            share their A rows; each block's producer loads half of the A tile and multicasts it into both
//            blocks, and a buffer is refilled only after the consumers of both blocks released it (their
//            warps arrive on both blocks' "empty" barriers). TMA_STORE = 1 (the default; measured 0.99x
//            cuBLAS at 2048^3 against 0.83x with direct stores, H200 fp16): the epilogue writes each 64 x 64
//            block of the accumulators, rounded, into one of two 8 KB staging buffers per consumer
//            warpgroup (128-byte swizzled: conflict-free), and one thread issues a TMA store of it (the
//            map clips rows and columns past C's edges), so the next tile's wgmmas start while C is written;
//            without a tensor map for C the accumulators are stored directly.
//            Inputs a TMA map cannot describe (k or n not a multiple of 8 in fp16/bf16, misaligned
//            pointers) run the same wgmma code on buffers that every thread fills with bounds-checked
//            loads in the swizzled layout (one stage, synchronous): slow but any m, n, k.
// Every output element is computed by exactly one thread, summing over k in a fixed order (bitwise
// deterministic); tunable combinations a variant cannot run are a static_assert naming the rule.
//
// @autokernel type matmul
// @autokernel tunable MMA = 0 {0, 1, 3} tier 1 -- 0 fp32 FMA, 1 nvcuda::wmma, 3 wgmma+TMA warp-specialized persistent (sm_90a); fp32 always FMA
// @autokernel tunable BLOCK_N = 64 {32, 64, 128, 256} tier 1 -- columns of C per block (MMA=3: the wgmma N, a multiple of 64)
// @autokernel tunable BLOCK_M = 64 {32, 64, 128, 256} tier 1 -- rows of C per block (MMA=3: 64 per consumer warpgroup row block)
// @autokernel tunable BLOCK_K = 16 {16, 32, 64} tier 1 when MMA=0|1 -- k-slice staged in shared memory per step (MMA=3: always 64)
// @autokernel tunable CLUSTER = 1 {1, 2} tier 1 when MMA=3 -- MMA=3: blocks per cluster along N; 2 multicasts the A tile they share (each block loads half)
// @autokernel tunable THREAD_M = 4 {2, 4, 8} tier 2 when MMA=0 -- FMA path: rows of C per thread
// @autokernel tunable THREAD_N = 4 {2, 4, 8} tier 2 when MMA=0 -- FMA path: columns of C per thread
// @autokernel tunable STAGES = 4 {2, 3, 4, 5} tier 2 when MMA=3 -- MMA=3: TMA ring depth (k-slices of 64 in flight)
// @autokernel tunable WARP_M = 32 {16, 32, 64} tier 3 when MMA=1 -- WMMA path: rows of C per warp
// @autokernel tunable WARP_N = 32 {16, 32, 64} tier 3 when MMA=1 -- WMMA path: columns of C per warp
// @autokernel tunable TMA_STORE = 1 {0, 1} tier 3 when MMA=3 -- MMA=3: 1 the epilogue stages 64 x 64 blocks of C in swizzled shared memory and writes them with TMA stores, 0 direct bounds-checked stores
// @autokernel tunable GROUP_M = 8 {1, 4, 8, 16} tier 4 when MMA=3 -- MMA=3: tile rows per group of the persistent tile order (B tiles reused from L2)
// @autokernel preset hopper sm_90 MMA=3 BLOCK_N=256 BLOCK_M=128 STAGES=4 TMA_STORE=1 -- wgmma m64n256, 128x256 tiles, 4-stage TMA ring, TMA-store epilogue: 0.99x cuBLAS at 4096^3 and 1.03x at 4096x11008x4096, fp16 and bf16, H200 (bench/2026-12-02-h200-compute.md)
// @autokernel preset hopper_narrow_n sm_90 MMA=3 BLOCK_N=128 BLOCK_M=128 STAGES=4 TMA_STORE=1 -- not measured as such: for N <= 1024, 128-wide tiles (8192x768: 384 tiles, 2.9 waves on 132 SMs) instead of 256 (192 tiles, 1.45 waves); the 128x256 preset ran 0.78-0.84x cuBLAS at N = 768 (bench/2026-12-03-h200-model.md)
#include <autokernel/contract.cuh>

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef BLOCK_K
#define BLOCK_K 16
#endif
#ifndef THREAD_M
#define THREAD_M 4
#endif
#ifndef THREAD_N
#define THREAD_N 4
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef MMA
#define MMA 0
#endif
#ifndef WARP_M
#define WARP_M 32
#endif
#ifndef WARP_N
#define WARP_N 32
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef TMA_STORE
#define TMA_STORE 1
#endif

static_assert(MMA == 0 || MMA == 1 || MMA == 3, "MMA must be 0 (FMA), 1 (wmma) or 3 (wgmma)");
static_assert(GROUP_M >= 1, "GROUP_M must be at least 1");
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER must be 1 or 2");
static_assert(TMA_STORE == 0 || TMA_STORE == 1, "TMA_STORE must be 0 or 1");

#if defined(AK_DTYPE_FP32)
#define MATMUL_PATH 0  // fp32 stays exact: CUDA cores
#else
#define MATMUL_PATH MMA
#endif

#if MATMUL_PATH == 1
#include <mma.h>
constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N;
constexpr int kThreads = (BLOCK_M / WARP_M) * (BLOCK_N / WARP_N) * 32;
static_assert(BLOCK_M % WARP_M == 0 && BLOCK_N % WARP_N == 0, "BLOCK_M/N must be multiples of WARP_M/N");
static_assert(WARP_M % 16 == 0 && WARP_N % 16 == 0 && BLOCK_K % 16 == 0, "WMMA fragments are 16x16x16");
static_assert(kThreads >= 32 && kThreads <= 1024, "threads per block must be within 32..1024");
#elif MATMUL_PATH == 0
#if MMA != 0
// fp32 data under a tensor-core variant: the FMA path in the starter's shape (the tunables describe
// tensor-core tiles, which the FMA path could not always hold).
constexpr int kBlockM = 64, kBlockN = 64, kBlockK = 16, kThreadM = 4, kThreadN = 4;
#else
constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N, kBlockK = BLOCK_K, kThreadM = THREAD_M, kThreadN = THREAD_N;
#endif
constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);
static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "BLOCK_M/N must be multiples of THREAD_M/N");
static_assert(kThreads >= 32 && kThreads <= 1024, "threads per block must be within 32..1024");
#endif

#if MATMUL_PATH <= 1
AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_TILES, /* rows_per_block */ 0,
    /* tile_m, tile_n */ kBlockM, kBlockN,
};
#endif

#if MATMUL_PATH == 0
// ------------------------------------------------------------------------------------- FMA path
// Thread (ty, tx) owns rows ty + i * (kBlockM / kThreadM) and columns tx + j * (kBlockN / kThreadN) of the
// tile: neighbouring threads touch neighbouring columns, so shared-memory reads are conflict-free and
// global stores are coalesced.
extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_matmul_args args) {
    constexpr int kRowStride = kBlockM / kThreadM;
    constexpr int kColStride = kBlockN / kThreadN;
    __shared__ float a_tile[kBlockK][kBlockM];  // transposed: a_tile[kk][row]
    __shared__ float b_tile[kBlockK][kBlockN];

    const int m = args.m, n = args.n, k = args.k;
    const int tile_row = blockIdx.y * kBlockM;
    const int tile_col = blockIdx.x * kBlockN;
    const int tid = threadIdx.x;
    const int tx = tid % kColStride, ty = tid / kColStride;

    float acc[kThreadM][kThreadN];
#pragma unroll
    for (int i = 0; i < kThreadM; ++i)
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = 0.f;

    for (int k0 = 0; k0 < k; k0 += kBlockK) {
        for (int idx = tid; idx < kBlockM * kBlockK; idx += kThreads) {
            const int r = idx / kBlockK, kk = idx % kBlockK;  // consecutive threads: consecutive k
            const int gr = tile_row + r, gk = k0 + kk;
            a_tile[kk][r] = (gr < m && gk < k) ? ak_to_float(args.a[(long long)gr * k + gk]) : 0.f;
        }
        for (int idx = tid; idx < kBlockK * kBlockN; idx += kThreads) {
            const int kk = idx / kBlockN, c = idx % kBlockN;  // consecutive threads: consecutive columns
            const int gk = k0 + kk, gc = tile_col + c;
            b_tile[kk][c] = (gk < k && gc < n) ? ak_to_float(args.b[(long long)gk * n + gc]) : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kBlockK; ++kk) {
            float a_frag[kThreadM], b_frag[kThreadN];
#pragma unroll
            for (int i = 0; i < kThreadM; ++i) a_frag[i] = a_tile[kk][ty + i * kRowStride];
#pragma unroll
            for (int j = 0; j < kThreadN; ++j) b_frag[j] = b_tile[kk][tx + j * kColStride];
#pragma unroll
            for (int i = 0; i < kThreadM; ++i)
#pragma unroll
                for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < kThreadM; ++i) {
        const int gr = tile_row + ty + i * kRowStride;
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) {
            const int gc = tile_col + tx + j * kColStride;
            if (gr < m && gc < n) args.c[(long long)gr * n + gc] = ak_from_float(acc[i][j]);
        }
    }
}

#elif MATMUL_PATH == 1
// ------------------------------------------------------------------------------------- WMMA path
// Shared tiles stay in ak_t (row-major, padded by 8 elements to spread banks; the padding keeps every
// fragment pointer 32-byte aligned as wmma requires). After the k loop each warp passes its fp32
// accumulators, one 16x16 fragment at a time, through a small per-warp scratch in shared memory (the
// fragment layout is opaque) and writes them out with bounds checks.
using namespace nvcuda;

constexpr int kPadAB = 8;  // elements
constexpr int kLdA = BLOCK_K + kPadAB;
constexpr int kLdB = BLOCK_N + kPadAB;
constexpr int kLdScratch = 16 + 4;  // floats
constexpr int kWarps = kThreads / 32;

struct WmmaSmem {
    union {
        struct {
            ak_t a[BLOCK_M][kLdA];
            ak_t b[BLOCK_K][kLdB];
        } ab;
        float scratch[kWarps][16][kLdScratch];  // reused after the k loop
    };
};
static_assert(sizeof(WmmaSmem) <= 48 * 1024, "WMMA tiles exceed 48 KB of static shared memory");

extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_matmul_args args) {
    constexpr int kFragM = WARP_M / 16, kFragN = WARP_N / 16;
    constexpr int kWarpsN = BLOCK_N / WARP_N;
    __shared__ __align__(128) WmmaSmem smem;

    const int m = args.m, n = args.n, k = args.k;
    const int tile_row = blockIdx.y * BLOCK_M;
    const int tile_col = blockIdx.x * BLOCK_N;
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = warp / kWarpsN * WARP_M;  // within the tile
    const int warp_col = warp % kWarpsN * WARP_N;
    const ak_t zero = ak_from_float(0.f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragM][kFragN];
#pragma unroll
    for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

    for (int k0 = 0; k0 < k; k0 += BLOCK_K) {
        for (int idx = tid; idx < BLOCK_M * BLOCK_K; idx += kThreads) {
            const int r = idx / BLOCK_K, kk = idx % BLOCK_K;
            const int gr = tile_row + r, gk = k0 + kk;
            smem.ab.a[r][kk] = (gr < m && gk < k) ? args.a[(long long)gr * k + gk] : zero;
        }
        for (int idx = tid; idx < BLOCK_K * BLOCK_N; idx += kThreads) {
            const int kk = idx / BLOCK_N, c = idx % BLOCK_N;
            const int gk = k0 + kk, gc = tile_col + c;
            smem.ab.b[kk][c] = (gk < k && gc < n) ? args.b[(long long)gk * n + gc] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BLOCK_K; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, ak_t, wmma::row_major> a_frag[kFragM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, ak_t, wmma::row_major> b_frag[kFragN];
#pragma unroll
            for (int i = 0; i < kFragM; ++i) wmma::load_matrix_sync(a_frag[i], &smem.ab.a[warp_row + i * 16][kk], kLdA);
#pragma unroll
            for (int j = 0; j < kFragN; ++j) wmma::load_matrix_sync(b_frag[j], &smem.ab.b[kk][warp_col + j * 16], kLdB);
#pragma unroll
            for (int i = 0; i < kFragM; ++i)
#pragma unroll
                for (int j = 0; j < kFragN; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
        }
        __syncthreads();  // also guards the union: the scratch overwrites a/b only after the last step
    }

    float(*scratch)[kLdScratch] = smem.scratch[warp];
#pragma unroll
    for (int i = 0; i < kFragM; ++i) {
#pragma unroll
        for (int j = 0; j < kFragN; ++j) {
            wmma::store_matrix_sync(&scratch[0][0], acc[i][j], kLdScratch, wmma::mem_row_major);
            __syncwarp();
            const int row0 = tile_row + warp_row + i * 16, col0 = tile_col + warp_col + j * 16;
            for (int e = lane; e < 16 * 16; e += 32) {
                const int gr = row0 + e / 16, gc = col0 + e % 16;
                if (gr < m && gc < n) args.c[(long long)gr * n + gc] = ak_from_float(scratch[e / 16][e % 16]);
            }
            __syncwarp();  // the next fragment reuses the scratch
        }
    }
}

#elif MATMUL_PATH == 3
// ------------------------------------------------------------------------------------- wgmma path (MMA = 3)
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(__CUDA_ARCH__ < 0, "MMA=3 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target (Hopper)");
#endif
#include <autokernel/hopper.cuh>

// Consumer warpgroups and their share of the tile: BLOCK_M = 64 one warpgroup of 64 rows; 128 and 256
// two warpgroups of 64 or 128 rows (one or two m64 wgmmas per k-step).
constexpr int kConsumers = BLOCK_M >= 128 ? 2 : 1;
constexpr int kWgRows = BLOCK_M / kConsumers;
constexpr int kMReps = kWgRows / 64;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kStageK = 64;  // k elements per stage: one 128-byte swizzled row of A
static_assert(BLOCK_M == 64 || BLOCK_M == 128 || BLOCK_M == 256,
              "MMA=3: consumer warpgroups take 64-row wgmmas, so BLOCK_M must be 64, 128 or 256");
static_assert(BLOCK_N % 64 == 0, "MMA=3: B arrives in 64-column TMA boxes, so BLOCK_N must be 64, 128 or 256");
static_assert(kMReps * BLOCK_N <= 256,
              "MMA=3: a consumer warpgroup's accumulators (BLOCK_M / warpgroups x BLOCK_N in fp32) exceed 128 registers "
              "per thread: at most 128 x 256 or 256 x 128");
static_assert(STAGES >= 2, "MMA=3: the TMA ring needs STAGES >= 2");

// Shared memory (after aligning the base to 1024 bytes, the swizzle atom): STAGES buffers of A
// [BLOCK_M][64] then B (BLOCK_N / 64 boxes of [64][64]), every row 128 bytes; then the mbarriers.
constexpr int kRowBytes = 128;
constexpr int kABytes = BLOCK_M * kRowBytes;
constexpr int kBBoxBytes = kStageK * kRowBytes;
constexpr int kBBytes = (BLOCK_N / 64) * kBBoxBytes;
constexpr int kStageBytes = kABytes + kBBytes;
constexpr int kOffStage = STAGES * kStageBytes;  // TMA_STORE: two 64 x 64 staging buffers per consumer warpgroup
constexpr int kStagingBytes = 64 * kRowBytes;
constexpr int kOffBar = kOffStage + (TMA_STORE ? 2 * kConsumers * kStagingBytes : 0);  // full[STAGES], empty[STAGES]
constexpr int kSmemBytes = 1024 + kOffBar + 16 * STAGES;
static_assert(kSmemBytes <= 227 * 1024,
              "MMA=3: STAGES buffers of (BLOCK_M + BLOCK_N) x 64 elements (and the TMA_STORE staging) exceed the 227 KB "
              "of shared memory a block may use: lower STAGES, BLOCK_M or BLOCK_N");
// Registers: the producer gives most of its share to two consumer warpgroups (setmaxnreg; one consumer
// warpgroup may use 255 anyway).
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
static_assert(kConsumers == 1 || 128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536,
              "MMA=3: the register split exceeds the register file");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    // CLUSTER = 1: persistent, one block per SM. CLUSTER = 2: one block per tile (a persistent grid would
    // need every cluster resident at once, which the SMs of a GPC do not always allow: measured 2x slower).
    /* grid */ CLUSTER > 1 ? AK_GRID_TILES : AK_GRID_PERSISTENT, /* rows_per_block */ 0,
    /* tile_m, tile_n */ CLUSTER > 1 ? BLOCK_M : 0, CLUSTER > 1 ? BLOCK_N : 0,
    /* grid_x (blocks per SM), grid_y, grid_z */ CLUSTER > 1 ? 0 : 1, 0, 0,
    /* dynamic_smem_bytes */ kSmemBytes,
    /* cluster */ CLUSTER > 1 ? CLUSTER : 0, 0, 0,
    /* tma_box_rows (A, B, C) */ {BLOCK_M / CLUSTER, kStageK, TMA_STORE ? 64 : 0},
    /* tma_box_cols */ {kStageK, 64, TMA_STORE ? 64 : 0},
    /* tma_swizzle */ AK_SWIZZLE_128B,
};

// The persistent tile order: units of CLUSTER horizontally adjacent tiles (one per block of a cluster), in
// groups of GROUP_M tile rows walked column by column inside a group, so the blocks running at one time
// share a few rows of A and columns of B in L2. A unit's tile right of n (odd tile counts) is computed
// from zeros and stale buffers but never stored.
struct TileCoord {
    int row0, col0;
};
__device__ __forceinline__ TileCoord tile_coord(int unit, int tiles_m, int units_n, int rank) {
    // CLUSTER = 2: the grid has one block per tile (x: tile columns, rounded up to whole clusters; y: tile
    // rows) and each block takes its own tile once; the cluster's blocks are x-neighbours sharing A rows.
    if constexpr (CLUSTER > 1) return {(int)blockIdx.y * BLOCK_M, (int)blockIdx.x * BLOCK_N};
    const int per_group = GROUP_M * units_n;
    const int group = unit / per_group;
    const int first_m = group * GROUP_M;
    const int rows_here = min(tiles_m - first_m, GROUP_M);
    const int in_group = unit - group * per_group;
    return {(first_m + in_group % rows_here) * BLOCK_M, (in_group / rows_here * CLUSTER + rank) * BLOCK_N};
}

__device__ __forceinline__ unsigned bar_full(unsigned sbase, int st) { return sbase + kOffBar + 8 * st; }
__device__ __forceinline__ unsigned bar_empty(unsigned sbase, int st) { return sbase + kOffBar + 8 * (STAGES + st); }

// One stage's wgmmas for this consumer warpgroup: 4 k-steps of 16, kMReps row blocks of 64. A K-major
// (16 elements = 32 bytes within a 128-byte row), B N-major (16 rows of K = 2048 bytes per k-step, the
// 64-column boxes 8 KB apart). first: D = A B at the first k-step (no zeroing pass).
__device__ __forceinline__ void consume_stage(float (&acc)[kMReps][BLOCK_N / 8][4], unsigned a_stage, unsigned b_stage,
                                              int wg, bool first) {
#pragma unroll
    for (int kk = 0; kk < kStageK / 16; ++kk) {
        const unsigned long long b = ak_wgmma_desc(b_stage + kk * 16 * kRowBytes, kBBoxBytes, 1024);
#pragma unroll
        for (int r = 0; r < kMReps; ++r) {
            const unsigned long long a = ak_wgmma_desc(a_stage + (wg * kWgRows + 64 * r) * kRowBytes + kk * 32, 16, 1024);
            ak_wgmma_ss<BLOCK_N, 1>(acc[r], a, b, (first && kk == 0) ? 0 : 1);
        }
    }
}

template <int R>
__device__ __forceinline__ void fence_acc(float (&acc)[R][BLOCK_N / 8][4]) {
#pragma unroll
    for (int r = 0; r < R; ++r) ak_fence_regs(acc[r]);
}

// The accumulators rounded to ak_t and written with bounds checks: element pairs as one 4-byte store
// where n is even and C is 4-byte aligned, single elements otherwise.
__device__ __forceinline__ void store_tile(const ak_matmul_args& args, const float (&acc)[kMReps][BLOCK_N / 8][4], int row0,
                                           int col0, int wg, int t128) {
    const int m = args.m, n = args.n;
    const int warp = t128 / 32, lane = t128 % 32;
    const bool pairs = n % 2 == 0 && reinterpret_cast<unsigned long long>(args.c) % 4 == 0;
#pragma unroll
    for (int r = 0; r < kMReps; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gr = row0 + wg * kWgRows + 64 * r + 16 * warp + lane / 4 + 8 * h;
            if (gr >= m) continue;
            ak_t* crow = args.c + (long long)gr * n;
#pragma unroll
            for (int j = 0; j < BLOCK_N / 8; ++j) {
                const int gc = col0 + 8 * j + 2 * (lane % 4);
                const ak_t v0 = ak_from_float(acc[r][j][2 * h]), v1 = ak_from_float(acc[r][j][2 * h + 1]);
                if (pairs && gc + 1 < n) {
                    ak_t pair[2] = {v0, v1};
                    *reinterpret_cast<unsigned*>(crow + gc) = *reinterpret_cast<const unsigned*>(pair);
                } else {
                    if (gc < n) crow[gc] = v0;
                    if (gc + 1 < n) crow[gc + 1] = v1;
                }
            }
        }
}

// TMA_STORE: the accumulators leave in 64 x 64 blocks through this warpgroup's two staging buffers (the
// one written now was last read by the store issued two blocks ago: wait for it first). Row rl of a
// block is 128 bytes; the quad's 4-byte pairs go to chunk (column / 8) ^ (rl % 8), the TMA's swizzle.
__device__ __forceinline__ void store_tile_tma(const ak_matmul_args& args, const float (&acc)[kMReps][BLOCK_N / 8][4],
                                               int row0, int col0, int wg, int t128, unsigned staging, unsigned char* staging_ptr,
                                               int& block_count) {
    const int warp = t128 / 32, lane = t128 % 32;
#pragma unroll
    for (int r = 0; r < kMReps; ++r)
#pragma unroll
        for (int cb = 0; cb < BLOCK_N / 64; ++cb) {
            const int buf = block_count & 1;
            if (t128 == 0) ak_bulk_wait_read<1>();
            ak_named_barrier<128>(1 + wg);
#pragma unroll
            for (int jj = 0; jj < 8; ++jj)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int rl = 16 * warp + lane / 4 + 8 * h;
                    ak_t pair[2] = {ak_from_float(acc[r][8 * cb + jj][2 * h]), ak_from_float(acc[r][8 * cb + jj][2 * h + 1])};
                    *reinterpret_cast<unsigned*>(staging_ptr + buf * kStagingBytes + rl * kRowBytes + ((jj ^ (rl % 8)) * 16) +
                                                 (lane % 4) * 4) = *reinterpret_cast<const unsigned*>(pair);
                }
            ak_fence_proxy_async();
            ak_named_barrier<128>(1 + wg);
            if (t128 == 0) {
                ak_tma_store_2d(&args.tma[2], col0 + 64 * cb, row0 + wg * kWgRows + 64 * r, staging + buf * kStagingBytes);
                ak_bulk_commit();
            }
            ++block_count;
        }
}

// The non-TMA path: one stage filled by every thread with bounds-checked loads in the TMA's swizzled
// layout (element (r, c) of a 64-column box at byte r * 128 + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2).
__device__ __forceinline__ void fill_stage(const ak_matmul_args& args, unsigned char* a_buf, unsigned char* b_buf, int row0,
                                           int col0, int k0) {
    const int m = args.m, n = args.n, k = args.k;
    const ak_t zero = ak_from_float(0.f);
    for (int idx = threadIdx.x; idx < BLOCK_M * kStageK; idx += kThreads) {
        const int r = idx / kStageK, c = idx % kStageK;
        const int gr = row0 + r, gk = k0 + c;
        const ak_t v = (gr < m && gk < k) ? args.a[(long long)gr * k + gk] : zero;
        *reinterpret_cast<ak_t*>(a_buf + r * kRowBytes + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2) = v;
    }
    for (int idx = threadIdx.x; idx < kStageK * BLOCK_N; idx += kThreads) {
        const int r = idx / BLOCK_N, cc = idx % BLOCK_N;  // consecutive threads: consecutive columns
        const int box = cc / 64, c = cc % 64;
        const int gk = k0 + r, gc = col0 + cc;
        const ak_t v = (gk < k && gc < n) ? args.b[(long long)gk * n + gc] : zero;
        *reinterpret_cast<ak_t*>(b_buf + box * kBBoxBytes + r * kRowBytes + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2) = v;
    }
}

// Releases a buffer: one arrival per consumer warp on its "empty" barrier, in every block of the cluster
// (CLUSTER = 2: the peer's producer also writes into this block's buffer).
__device__ __forceinline__ void release(unsigned sbase, int st, bool warp_leader) {
    __syncwarp();
    if constexpr (CLUSTER == 1) {
        ak_mbar_arrive_if(bar_empty(sbase, st), warp_leader);
    } else {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) ak_mbar_arrive_cluster_if(bar_empty(sbase, st), c, warp_leader);
    }
}

// A consumer warpgroup: for each of its tiles, k-slice 0, then each further slice issued while the
// previous one's wgmmas may still run; a buffer is released once the wgmmas that read it are complete
// (wait_group 1 after the next issue). Then the tile's epilogue, while the producer fills the ring ahead.
__device__ __forceinline__ void consume(const ak_matmul_args& args, unsigned char* smem, unsigned sbase, int wg, int t128, int rank,
                                        int first_unit, int unit_step, int n_units, int tiles_m, int units_n,
                                        int k_tiles) {
    if constexpr (kConsumers > 1) ak_setmaxnreg_inc<kConsumerRegs>();
    const bool warp_leader = t128 % 32 == 0;
    float acc[kMReps][BLOCK_N / 8][4];
    const bool tma_store = TMA_STORE && args.tma[2].opaque[0] != 0;
    const unsigned staging = sbase + kOffStage + wg * 2 * kStagingBytes;
    unsigned char* const staging_ptr = smem + kOffStage + wg * 2 * kStagingBytes;
    int block_count = 0;
    int it = 0;
    for (int unit = first_unit; unit < n_units; unit += unit_step) {
        const TileCoord tc = tile_coord(unit, tiles_m, units_n, rank);
        {
            const int st = it % STAGES;
            ak_mbar_wait(bar_full(sbase, st), (it / STAGES) & 1);
            fence_acc(acc);
            ak_wgmma_fence();
            consume_stage(acc, sbase + st * kStageBytes, sbase + st * kStageBytes + kABytes, wg, true);
            ak_wgmma_commit();
            ++it;
        }
        for (int kt = 1; kt < k_tiles; ++kt, ++it) {
            const int st = it % STAGES;
            ak_mbar_wait(bar_full(sbase, st), (it / STAGES) & 1);
            ak_wgmma_fence();
            consume_stage(acc, sbase + st * kStageBytes, sbase + st * kStageBytes + kABytes, wg, false);
            ak_wgmma_commit();
            ak_wgmma_wait<1>();
            release(sbase, (it - 1) % STAGES, warp_leader);
        }
        ak_wgmma_wait<0>();
        fence_acc(acc);
        release(sbase, (it - 1) % STAGES, warp_leader);
        if (TMA_STORE && tma_store)
            store_tile_tma(args, acc, tc.row0, tc.col0, wg, t128, staging, staging_ptr, block_count);
        else
            store_tile(args, acc, tc.row0, tc.col0, wg, t128);
    }
    if (TMA_STORE && t128 == 0) ak_bulk_wait<0>();  // the stores are complete before the block exits
}

extern "C" __global__ void __launch_bounds__(kThreads, 1) ak_kernel0(const __grid_constant__ ak_matmul_args args) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned raw = ak_smem_addr(smem_raw);
    const unsigned pad = (1024 - raw % 1024) % 1024;  // swizzle atoms need 1024-byte alignment
    unsigned char* smem = smem_raw + pad;
    const unsigned sbase = raw + pad;
    const int m = args.m, n = args.n, k = args.k;
    const int tiles_m = (m + BLOCK_M - 1) / BLOCK_M, tiles_n = (n + BLOCK_N - 1) / BLOCK_N;
    const int units_n = (tiles_n + CLUSTER - 1) / CLUSTER;
    const int n_units = CLUSTER > 1 ? 1 : tiles_m * units_n;
    const int k_tiles = (k + kStageK - 1) / kStageK;
    const int wg = (int)threadIdx.x / 128 - 1;  // consumer warpgroup, -1: the producer
    const int t128 = threadIdx.x % 128;
    // The launcher rounds the grid up to whole clusters; cluster c is blocks c * CLUSTER .. + CLUSTER - 1.
    const int rank = CLUSTER > 1 ? ak_cluster_rank() : 0;
    // CLUSTER = 1: the persistent walk; CLUSTER = 2: this block's one tile (tile_coord reads the block index).
    const int first_unit = CLUSTER > 1 ? 0 : (int)blockIdx.x, unit_step = CLUSTER > 1 ? 1 : (int)gridDim.x;

    if (args.tma[0].opaque[0] == 0 || args.tma[1].opaque[0] == 0) {
        // No tensor maps: the same wgmmas on one stage that every thread fills, synchronously (each block
        // on its own, the cluster unused).
        float acc[kMReps][BLOCK_N / 8][4];
        for (int unit = first_unit; unit < n_units; unit += unit_step) {
            const TileCoord tc = tile_coord(unit, tiles_m, units_n, rank);
            for (int kt = 0; kt < k_tiles; ++kt) {
                fill_stage(args, smem, smem + kABytes, tc.row0, tc.col0, kt * kStageK);
                ak_fence_proxy_async();
                __syncthreads();
                if (wg >= 0) {
                    fence_acc(acc);
                    ak_wgmma_fence();
                    consume_stage(acc, sbase, sbase + kABytes, wg, kt == 0);
                    ak_wgmma_commit();
                    ak_wgmma_wait<0>();
                    fence_acc(acc);
                }
                __syncthreads();  // the buffers are refilled next
            }
            if (wg >= 0) store_tile(args, acc, tc.row0, tc.col0, wg, t128);
        }
        return;
    }

    if (threadIdx.x == 0) {
        for (int st = 0; st < STAGES; ++st) {
            ak_mbar_init(bar_full(sbase, st), 1);                           // the producer's arrival + the TMA bytes
            ak_mbar_init(bar_empty(sbase, st), 4 * kConsumers * CLUSTER);  // one arrival per consumer warp of the cluster
        }
        ak_mbar_init_fence();
    }
    if constexpr (CLUSTER > 1)
        ak_cluster_sync();  // the peer's barriers are initialised before anything arrives on them
    else
        __syncthreads();

    if (wg < 0) {
        // Producer warpgroup: one thread issues every TMA load; the ring continues across tiles.
        if constexpr (kConsumers > 1) ak_setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0) {
            int it = 0;
            for (int unit = first_unit; unit < n_units; unit += unit_step) {
                const TileCoord tc = tile_coord(unit, tiles_m, units_n, rank);
                for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                    const int st = it % STAGES;
                    // The buffer's previous use (it - STAGES) must have been released by every consumer warp
                    // (of both blocks with CLUSTER = 2: the peer's producer writes half of A into it too).
                    if (it >= STAGES) ak_mbar_wait(bar_empty(sbase, st), (it / STAGES - 1) & 1);
                    const unsigned full = bar_full(sbase, st);
                    const unsigned a_dst = sbase + st * kStageBytes, b_dst = a_dst + kABytes;
                    // B boxes wholly right of n are not loaded: they would only feed accumulator columns
                    // that are never stored. (Partial boxes read zeros past the edges, k included.)
                    const int boxes = tc.col0 < n ? min(BLOCK_N / 64, (n - tc.col0 + 63) / 64) : 0;
                    ak_mbar_expect_tx(full, kABytes + boxes * kBBoxBytes);  // A: both halves with CLUSTER = 2
                    if constexpr (CLUSTER == 1) {
                        ak_tma_load_2d(a_dst, &args.tma[0], kt * kStageK, tc.row0, full);
                    } else {
                        constexpr int kHalf = BLOCK_M / CLUSTER;
                        ak_tma_load_2d_multicast(a_dst + rank * kHalf * kRowBytes, &args.tma[0], kt * kStageK,
                                                 tc.row0 + rank * kHalf, full, (unsigned short)((1u << CLUSTER) - 1));
                    }
#pragma unroll
                    for (int b = 0; b < BLOCK_N / 64; ++b)
                        if (b < boxes) ak_tma_load_2d(b_dst + b * kBBoxBytes, &args.tma[1], tc.col0 + 64 * b, kt * kStageK, full);
                }
            }
        }
    } else {
        consume(args, smem, sbase, wg, t128, rank, first_unit, unit_step, n_units, tiles_m, units_n, k_tiles);
    }
    // No block leaves while its peer may still arrive on its barriers or multicast into its buffers.
    if constexpr (CLUSTER > 1) ak_cluster_sync();
}
#endif
