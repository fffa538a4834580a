// Fused-MLP (SwiGLU) starter: out = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T.
//
// FUSE = 0 (the starter): three stages around vendor GEMMs:
//   stage 0  library AK_LIB_MLP_GATE_UP_GEMM: gate_up[M, 2F] = x @ [w_gate; w_up]^T (gate columns first)
//   stage 1  ak_kernel1: hidden[m, f] = silu(gate_up[m, f]) * gate_up[m, F + f], in fp32, stored as ak_t
//   stage 2  library AK_LIB_MLP_DOWN_GEMM: out[M, D] = hidden @ w_down^T
// Stages 0 and 2 have no kernel (there is no ak_kernel0 or ak_kernel2).
// Stage 1 runs ROWS_PER_BLOCK rows of M per block and walks the F columns with VEC elements per access
// when F % VEC == 0 and the pointers are aligned (run-time check).
//
// FUSE = 1 (fp16/bf16, Hopper sm_90a; fp32 keeps FUSE = 0; tier 1 and declared first, so the search tries
// the structural change before the activation stage's block shape): the gate/up GEMM and SwiGLU in one kernel,
// so gate_up never reaches memory:
//   stage 0  ak_kernel0: for a BLOCK_M x BLOCK_F tile of hidden, the gate and up accumulators of the same
//            rows and columns side by side (wgmma m64nBLOCK_Fk16 twice per k-step, x as A, the gate and
//            up rows of [w_gate; w_up] as K-major B), then hidden = silu(gate) * up from the fp32
//            accumulators, rounded once to ak_t. The matmul starter's MMA = 3 structure: a persistent
//            grid over GROUP_M-grouped tiles, one producer warpgroup issuing TMA loads (x box
//            BLOCK_M x 64, gate and up boxes BLOCK_F x 64, 128-byte swizzled) into a STAGES-deep ring with
//            full/empty mbarriers, one or two consumer warpgroups (BLOCK_M 64: one, 128: two) with
//            setmaxnreg. Without tensor maps (D not a multiple of 8 in fp16/bf16, misaligned tensors)
//            every thread fills one stage with bounds-checked loads in the swizzled layout instead.
//            SPLIT_TAIL = 2 or 4: the tiles of the last, partial wave (n_tiles % grid of them; 2048 x 5504
//            in 128 x 128 tiles is 688 = 5 x 132 + 28) are split along F into up to SPLIT_TAIL units of
//            BLOCK_F / split columns (wgmma N 64 or 32), the split chosen at run time as the largest power
//            of two <= SPLIT_TAIL whose units still fit one round of the grid (28 tiles: 112 units of 32
//            columns), so the last wave takes a quarter or half of a tile's time on more SMs instead of a
//            whole tile's on a fifth of them. The [w_gate; w_up] TMA box is BLOCK_F / SPLIT_TAIL rows: a
//            whole tile loads SPLIT_TAIL boxes each of gate and up into the same contiguous rows. Units
//            store hidden directly (STAGED_STORE applies to whole tiles); the non-TMA path keeps whole tiles.
//   stage 1  library AK_LIB_MLP_DOWN_GEMM: out = hidden @ w_down^T
//
// Search order: FUSE first (the structure), then SPLIT_TAIL (a shape with a partial last wave gains most
// there; one with whole waves runs the same kernel), the activation stage's and the tile's shape; in tier 2
// ONE_WGMMA and FAST_SILU before STAGES. The knobs of one variant are declared `when FUSE=...`.
//
// Workspace: args.gate_up ([M, 2F]) and args.hidden ([M, F], right after it) live in the workspace,
// M * 3F * sizeof(ak_t) bytes that the fused_mlp launcher always allocates, whatever the stages declare
// (F is a run-time size, so a compile-time declaration cannot express it; see kernels/README.md).
// Every output element is written once by one thread, sums run in a fixed order (bitwise deterministic);
// tunable combinations a variant cannot run are a static_assert naming the rule.
//
// @autokernel type fused_mlp
// @autokernel tunable FUSE = 0 {0, 1} tier 1 -- 1: gate/up GEMM with the SwiGLU epilogue in one wgmma+TMA kernel (fp16/bf16, sm_90a), then the library down GEMM
// @autokernel tunable SPLIT_TAIL = 1 {1, 2, 4} tier 1 when FUSE=1 -- FUSE=1: the last, partial wave's tiles split along F into up to this many units of BLOCK_F / split columns, so it spreads over the idle SMs
// @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512, 1024} tier 1 when FUSE=0 -- threads per block of the activation stage (FUSE=0)
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8} tier 1 when FUSE=0 -- rows of M per block of the activation stage (FUSE=0)
// @autokernel tunable BLOCK_M = 128 {64, 128} tier 1 when FUSE=1 -- FUSE=1: rows of hidden per tile (64 per consumer warpgroup)
// @autokernel tunable BLOCK_F = 128 {64, 128} tier 1 when FUSE=1 -- FUSE=1: columns of hidden per tile (gate and up accumulators each)
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 when FUSE=0 -- elements per vector load when aligned (FUSE=0)
// @autokernel tunable ONE_WGMMA = 0 {0, 1} tier 2 when FUSE=1 -- FUSE=1: 1 one wgmma m64n(2 BLOCK_F)k16 over the gate and up rows (contiguous in shared memory, x read once per k-step), 0 a gate and an up m64nBLOCK_Fk16
// @autokernel tunable FAST_SILU = 0 {0, 1} tier 2 when FUSE=1 -- FUSE=1: 1 the epilogue's silu through __expf and __fdividef (ex2.approx, rcp.approx) instead of expf and an IEEE division
// @autokernel tunable STAGES = 4 {2, 3, 4} tier 2 when FUSE=1 -- FUSE=1: TMA ring depth (k-slices of 64 in flight)
// @autokernel tunable STAGGER = 0 {0, 1, 2} tier 3 when FUSE=1 -- FUSE=1, BLOCK_M=128: the second consumer warpgroup starts this many k-slices behind the first, so one's epilogue runs while the other's wgmmas finish (the ring keeps the lag)
// @autokernel tunable STAGED_STORE = 0 {0, 1} tier 3 when FUSE=1 -- FUSE=1: 1 hidden leaves each consumer warpgroup through a swizzled shared-memory tile in coalesced 16-byte stores, 0 4-byte stores straight from the accumulators
// @autokernel tunable GROUP_M = 8 {1, 4, 8, 16} tier 4 when FUSE=1 -- FUSE=1: tile rows per group of the persistent tile order
// @autokernel preset hopper sm_90 FUSE=1 BLOCK_M=128 BLOCK_F=128 STAGES=4 SPLIT_TAIL=4 ONE_WGMMA=1 FAST_SILU=1 -- gate/up wgmma GEMM with the SwiGLU epilogue, the last partial wave split along F, one m64n256 wgmma over gate and up: 1.089x the composed eager MLP at 2048x2048->5504 and 1.095-1.100x at 4096x4096->11008, fp16 and bf16, H200 (bench/2026-12-03-h200-mlp.md)
// @autokernel preset library_gemms VEC=8 -- library GEMMs around our SwiGLU with 16-byte loads: 0.996-1.053x the composed eager MLP, H200 (bench/2026-12-02-h200-compute.md)
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
#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_F
#define BLOCK_F 128
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef FUSE
#define FUSE 0
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef STAGED_STORE
#define STAGED_STORE 0
#endif
#ifndef SPLIT_TAIL
#define SPLIT_TAIL 1
#endif
#ifndef FAST_SILU
#define FAST_SILU 0
#endif
#ifndef ONE_WGMMA
#define ONE_WGMMA 0
#endif
#ifndef STAGGER
#define STAGGER 0
#endif

static_assert(FUSE == 0 || FUSE == 1, "FUSE must be 0 or 1");
static_assert(STAGED_STORE == 0 || STAGED_STORE == 1, "STAGED_STORE must be 0 or 1");
static_assert(SPLIT_TAIL == 1 || SPLIT_TAIL == 2 || SPLIT_TAIL == 4, "SPLIT_TAIL must be 1, 2 or 4");
static_assert(FAST_SILU == 0 || FAST_SILU == 1, "FAST_SILU must be 0 or 1");
static_assert(ONE_WGMMA == 0 || ONE_WGMMA == 1, "ONE_WGMMA must be 0 or 1");
static_assert(STAGGER >= 0 && STAGGER <= 2, "STAGGER must be 0, 1 or 2");
#if FUSE && !defined(AK_DTYPE_FP32)
#define MLP_FUSED 1  // fp32 keeps the library GEMMs (no TF32)
#else
#define MLP_FUSED 0
#endif

static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");

__device__ __forceinline__ float silu(float g) { return g / (1.0f + expf(-g)); }  // g -> -inf: -0, no NaN

#if !MLP_FUSED
AK_LAUNCH(0) = {AK_STAGE_LIBRARY, AK_LIB_MLP_GATE_UP_GEMM};

AK_LAUNCH(1) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
};

AK_LAUNCH(2) = {AK_STAGE_LIBRARY, AK_LIB_MLP_DOWN_GEMM};

template <int V>
__device__ __forceinline__ void swiglu_rows(const ak_fused_mlp_args& args, long long first_row, int rows_here) {
    const int f = args.f;
    const int groups = f / V;  // V divides f on the vector path
    for (int idx = threadIdx.x; idx < rows_here * groups; idx += BLOCK_THREADS) {
        const long long row = first_row + idx / groups;
        const int col = idx % groups * V;
        const ak_t* gate = args.gate_up + row * 2 * f + col;
        float g[V], u[V], h[V];
        ak_load<V>(gate, g);
        ak_load<V>(gate + f, u);
#pragma unroll
        for (int j = 0; j < V; ++j) h[j] = silu(g[j]) * u[j];
        ak_store<V>(args.hidden + row * f + col, h);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel1(ak_fused_mlp_args args) {
    const long long first_row = (long long)blockIdx.x * ROWS_PER_BLOCK;
    if (first_row >= args.m) return;
    const int rows_here = (int)min((long long)ROWS_PER_BLOCK, args.m - first_row);
    const bool vector_ok = VEC > 1 && args.f % VEC == 0 && ak_aligned<VEC>(args.gate_up) && ak_aligned<VEC>(args.hidden);
    if (vector_ok)
        swiglu_rows<VEC>(args, first_row, rows_here);
    else
        swiglu_rows<1>(args, first_row, rows_here);
}
#endif  // !MLP_FUSED

#if MLP_FUSED
// ================================================================================ FUSE = 1
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(__CUDA_ARCH__ < 0, "FUSE=1 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target (Hopper)");
#endif
#include <autokernel/hopper.cuh>

constexpr int kConsumers = BLOCK_M / 64;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kStageK = 64;  // k elements (of D) per stage: one 128-byte swizzled row
static_assert(BLOCK_M == 64 || BLOCK_M == 128, "FUSE=1: one consumer warpgroup per 64 rows, so BLOCK_M must be 64 or 128");
static_assert(BLOCK_F == 64 || BLOCK_F == 128,
              "FUSE=1: gate and up take BLOCK_F fp32 accumulators each per 64 rows, so BLOCK_F must be 64 or 128");
static_assert(STAGES >= 2, "FUSE=1: the TMA ring needs STAGES >= 2");
static_assert(STAGGER == 0 || BLOCK_M == 128, "FUSE=1: STAGGER offsets the second consumer warpgroup: it needs BLOCK_M = 128");
static_assert(STAGGER < STAGES,
              "FUSE=1: STAGGER k-slices of lead must fit the TMA ring before the second warpgroup releases any: STAGGER < STAGES");
constexpr int kBoxF = BLOCK_F / SPLIT_TAIL;  // rows of a [w_gate; w_up] TMA box: the narrowest unit's columns
static_assert(kBoxF >= 32,
              "FUSE=1: SPLIT_TAIL units of BLOCK_F / SPLIT_TAIL columns take wgmma N >= 32: lower SPLIT_TAIL or raise BLOCK_F");

// Shared memory (base aligned to 1024 bytes): STAGES buffers of x [BLOCK_M][64], gate rows [BLOCK_F][64]
// and up rows [BLOCK_F][64], every row 128 bytes (a SPLIT_TAIL unit of W columns: its W gate rows, then
// its W up rows right after them); with STAGED_STORE one 64 x BLOCK_F tile of hidden per consumer
// warpgroup; then the mbarriers.
constexpr int kRowBytes = 128;
constexpr int kXBytes = BLOCK_M * kRowBytes;
constexpr int kWBytes = BLOCK_F * kRowBytes;
constexpr int kStageBytes = kXBytes + 2 * kWBytes;
constexpr int kHiddenRowBytes = BLOCK_F * 2;                 // one row of a consumer's hidden tile (16-bit ak_t)
constexpr int kStagingBytes = 64 * kHiddenRowBytes;           // per consumer warpgroup
constexpr int kOffStaging = STAGES * kStageBytes;
constexpr int kOffBar = kOffStaging + (STAGED_STORE ? kConsumers * kStagingBytes : 0);  // full[STAGES], empty[STAGES]
constexpr int kSmemBytes = 1024 + kOffBar + 16 * STAGES;
static_assert(kSmemBytes <= 227 * 1024,
              "FUSE=1: STAGES buffers of (BLOCK_M + 2 BLOCK_F) x 64 elements (and the STAGED_STORE tiles) exceed the "
              "227 KB of shared memory a block may use: lower STAGES, BLOCK_M or BLOCK_F");
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
static_assert(kConsumers == 1 || 128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536,
              "FUSE=1: the register split exceeds the register file");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_PERSISTENT, /* rows_per_block */ 0,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x (blocks per SM), grid_y, grid_z */ 1, 0, 0,
    /* dynamic_smem_bytes */ kSmemBytes,
    /* cluster */ 0, 0, 0,
    /* tma_box_rows (x, w_gate_up, w_down) */ {BLOCK_M, kBoxF, 0},
    /* tma_box_cols */ {kStageK, kStageK, 0},
    /* tma_swizzle */ AK_SWIZZLE_128B,
};

AK_LAUNCH(1) = {AK_STAGE_LIBRARY, AK_LIB_MLP_DOWN_GEMM};

// hidden's value from the fp32 accumulators. FAST_SILU: exp through ex2.approx and the division through
// rcp.approx, a few ulp in fp32 (far below hidden's one rounding to fp16/bf16), and the same limits:
// g -> -inf gives exp(-g) = inf, 1 / inf = 0, so -0 and never NaN; g -> +inf gives g.
__device__ __forceinline__ float swiglu(float g, float u) {
    if constexpr (FAST_SILU)
        return __fdividef(g, 1.0f + __expf(-g)) * u;
    else
        return silu(g) * u;
}

struct TileCoord {
    int row0, col0;  // first row of M, first column of F
};
__device__ __forceinline__ TileCoord tile_coord(int tile, int tiles_m, int tiles_f) {
    const int per_group = GROUP_M * tiles_f;
    const int group = tile / per_group;
    const int first_m = group * GROUP_M;
    const int rows_here = min(tiles_m - first_m, GROUP_M);
    const int in_group = tile - group * per_group;
    return {(first_m + in_group % rows_here) * BLOCK_M, in_group / rows_here * BLOCK_F};
}

// The persistent walk's work units: the tiles of the full waves whole, then (SPLIT_TAIL > 1) the last,
// partial wave's tiles in `split` units each, unit v of a tile covering columns v * BLOCK_F / split on.
struct Schedule {
    int whole;    // tiles taken whole
    int split;    // units per tile after them (1: no split)
    int n_units;
};
__device__ __forceinline__ Schedule make_schedule(int n_tiles, int grid) {
    Schedule s{n_tiles, 1, n_tiles};
    if constexpr (SPLIT_TAIL > 1) {
        const int tail = n_tiles % grid;
        int split = 1;
        while (split < SPLIT_TAIL && tail * split * 2 <= grid) split *= 2;
        if (tail != 0 && split > 1) s = {n_tiles - tail, split, n_tiles - tail + tail * split};
    }
    return s;
}
struct Unit {
    int row0, col0, split;  // columns col0 .. col0 + BLOCK_F / split - 1
};
__device__ __forceinline__ Unit unit_coord(int unit, const Schedule& s, int tiles_m, int tiles_f) {
    if (unit < s.whole) {
        const TileCoord tc = tile_coord(unit, tiles_m, tiles_f);
        return {tc.row0, tc.col0, 1};
    }
    const int v = unit - s.whole;
    const TileCoord tc = tile_coord(s.whole + v / s.split, tiles_m, tiles_f);
    return {tc.row0, tc.col0 + v % s.split * (BLOCK_F / s.split), s.split};
}

__device__ __forceinline__ unsigned bar_full(unsigned sbase, int st) { return sbase + kOffBar + 8 * st; }
__device__ __forceinline__ unsigned bar_empty(unsigned sbase, int st) { return sbase + kOffBar + 8 * (STAGES + st); }

// A consumer warpgroup's accumulators for a unit of W columns (W = BLOCK_F, or a SPLIT_TAIL unit's):
// the gate columns, then the up columns, as one m64n(2W) accumulator set.
template <int W>
using Acc = float[W / 4][4];
template <int W>
using Half = float[W / 8][4];
template <int W>
__device__ __forceinline__ Half<W>& gate_of(Acc<W>& acc) {
    return *reinterpret_cast<Half<W>*>(&acc[0]);
}
template <int W>
__device__ __forceinline__ Half<W>& up_of(Acc<W>& acc) {
    return *reinterpret_cast<Half<W>*>(&acc[W / 8]);
}

// One stage's wgmmas for this consumer warpgroup's 64 rows: 4 k-steps of 16. The unit's W gate rows
// and W up rows lie one after the other in the stage (the producer puts them so), so ONE_WGMMA issues one
// wgmma m64n(2W)k16 over both (A read once); otherwise a gate and an up m64nWk16 with the same A.
// Everything K-major (16 elements = 32 bytes within a 128-byte row).
template <int W>
__device__ __forceinline__ void consume_stage(Acc<W>& acc, unsigned stage, int wg, bool first) {
#pragma unroll
    for (int kk = 0; kk < kStageK / 16; ++kk) {
        const unsigned long long a = ak_wgmma_desc(stage + wg * 64 * kRowBytes + kk * 32, 16, 1024);
        const unsigned long long bg = ak_wgmma_desc(stage + kXBytes + kk * 32, 16, 1024);
        if constexpr (ONE_WGMMA) {
            ak_wgmma_ss<2 * W, 0>(acc, a, bg, (first && kk == 0) ? 0 : 1);
        } else {
            const unsigned long long bu = ak_wgmma_desc(stage + kXBytes + W * kRowBytes + kk * 32, 16, 1024);
            ak_wgmma_ss<W, 0>(gate_of<W>(acc), a, bg, (first && kk == 0) ? 0 : 1);
            ak_wgmma_ss<W, 0>(up_of<W>(acc), a, bu, (first && kk == 0) ? 0 : 1);
        }
    }
}

// hidden = silu(gate) * up from the fp32 accumulators, rounded once, written with bounds checks (element
// pairs as one 4-byte store where F is even and hidden 4-byte aligned).
template <int W>
__device__ __forceinline__ void store_tile(const ak_fused_mlp_args& args, const float (&gate)[W / 8][4],
                                           const float (&up)[W / 8][4], int row0, int col0, int wg, int t128) {
    const int m = args.m, f = args.f;
    const int warp = t128 / 32, lane = t128 % 32;
    const bool pairs = f % 2 == 0 && reinterpret_cast<unsigned long long>(args.hidden) % 4 == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int gr = row0 + wg * 64 + 16 * warp + lane / 4 + 8 * h;
        if (gr >= m) continue;
        ak_t* hrow = args.hidden + (long long)gr * f;
#pragma unroll
        for (int j = 0; j < W / 8; ++j) {
            const int gc = col0 + 8 * j + 2 * (lane % 4);
            const ak_t v0 = ak_from_float(swiglu(gate[j][2 * h], up[j][2 * h]));
            const ak_t v1 = ak_from_float(swiglu(gate[j][2 * h + 1], up[j][2 * h + 1]));
            if (pairs && gc + 1 < f) {
                ak_t pair[2] = {v0, v1};
                *reinterpret_cast<unsigned*>(hrow + gc) = *reinterpret_cast<const unsigned*>(pair);
            } else {
                if (gc < f) hrow[gc] = v0;
                if (gc + 1 < f) hrow[gc + 1] = v1;
            }
        }
    }
}

// STAGED_STORE: the same values, rounded once, go to this warpgroup's 64 x BLOCK_F tile in shared memory
// (16-byte chunk c of row r at chunk c ^ (r % 8): the quads' 4-byte writes hit 32 distinct banks), and the
// warpgroup then writes whole rows: each thread 16-byte chunks, a warp two 256-byte row segments (4-byte
// stores from the accumulator layout touch 8 rows per warp instruction, half of each 32-byte sector).
// Chunks past F, rows past M and an F or a hidden pointer that rules out 16-byte stores take element stores.
__device__ __forceinline__ void store_tile_staged(const ak_fused_mlp_args& args, const float (&gate)[BLOCK_F / 8][4],
                                                  const float (&up)[BLOCK_F / 8][4], int row0, int col0, int wg, int t128,
                                                  unsigned char* staging) {
    const int m = args.m, f = args.f;
    const int warp = t128 / 32, lane = t128 % 32;
    ak_named_barrier<128>(1 + wg);  // this warpgroup's reads of the previous tile are done
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int rl = 16 * warp + lane / 4 + 8 * h;
#pragma unroll
        for (int j = 0; j < BLOCK_F / 8; ++j) {
            ak_t pair[2] = {ak_from_float(swiglu(gate[j][2 * h], up[j][2 * h])),
                            ak_from_float(swiglu(gate[j][2 * h + 1], up[j][2 * h + 1]))};
            *reinterpret_cast<unsigned*>(staging + rl * kHiddenRowBytes + ((j ^ (rl % 8)) * 16) + (lane % 4) * 4) =
                *reinterpret_cast<const unsigned*>(pair);
        }
    }
    ak_named_barrier<128>(1 + wg);
    const bool vec = f % 8 == 0 && reinterpret_cast<unsigned long long>(args.hidden) % 16 == 0;
    constexpr int kChunks = BLOCK_F / 8;  // 16-byte chunks per row
#pragma unroll
    for (int i = 0; i < 64 * kChunks / 128; ++i) {
        const int idx = t128 + 128 * i;
        const int r = idx / kChunks, c = idx % kChunks;
        const int gr = row0 + wg * 64 + r, gc = col0 + 8 * c;
        if (gr >= m || gc >= f) continue;
        const uint4 v = *reinterpret_cast<const uint4*>(staging + r * kHiddenRowBytes + ((c ^ (r % 8)) * 16));
        ak_t* dst = args.hidden + (long long)gr * f + gc;
        if (vec && gc + 8 <= f) {
            *reinterpret_cast<uint4*>(dst) = v;
        } else {
            const ak_t* e = reinterpret_cast<const ak_t*>(&v);
            for (int q = 0; q < 8 && gc + q < f; ++q) dst[q] = e[q];
        }
    }
}

// The non-TMA path: one stage filled by every thread with bounds-checked loads in the TMA's swizzled
// layout (element (r, c) of a box at byte r * 128 + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2).
__device__ __forceinline__ void fill_rows(unsigned char* buf, const ak_t* src, int rows, int first_row, int row_limit,
                                          int d, int k0) {
    const ak_t zero = ak_from_float(0.f);
    for (int idx = threadIdx.x; idx < rows * kStageK; idx += kThreads) {
        const int r = idx / kStageK, c = idx % kStageK;
        const int gr = first_row + r, gk = k0 + c;
        const ak_t v = (gr < row_limit && gk < d) ? src[(long long)gr * d + gk] : zero;
        *reinterpret_cast<ak_t*>(buf + r * kRowBytes + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2) = v;
    }
}

// A consumer warpgroup's share of one unit of W columns: k-slice 0, then each further slice issued while
// the previous one's wgmmas may still run; a buffer is released once the wgmmas that read it are complete
// (wait_group 1 after the next issue). Then the epilogue, while the producer fills the ring ahead. `it`
// counts this block's uses of the ring.
// STAGGER: on the block's first unit the second warpgroup waits (named barrier 3) until the first has
// completed STAGGER k-slices; from then on nothing brings them back into step but the ring, so each one's
// epilogue overlaps the other's last wgmmas.
template <int W>
__device__ __forceinline__ void consume_slice(Acc<W>& acc, unsigned sbase, int wg, int it, bool warp_leader) {
    const int st = it % STAGES;
    ak_mbar_wait(bar_full(sbase, st), (it / STAGES) & 1);
    ak_wgmma_fence();
    consume_stage<W>(acc, sbase + st * kStageBytes, wg, false);
    ak_wgmma_commit();
    ak_wgmma_wait<1>();
    __syncwarp();
    ak_mbar_arrive_if(bar_empty(sbase, (it - 1) % STAGES), warp_leader);
}

template <int W>
__device__ __forceinline__ void consume_unit(const ak_fused_mlp_args& args, unsigned sbase, unsigned char* staging, int wg,
                                             int t128, int& it, int k_tiles, int row0, int col0, bool first_unit) {
    const bool warp_leader = t128 % 32 == 0;
    Acc<W> acc;
    if constexpr (STAGGER > 0)
        if (first_unit && wg == 1) ak_named_barrier<256>(3);  // the first warpgroup is STAGGER slices ahead
    {
        const int st = it % STAGES;
        ak_mbar_wait(bar_full(sbase, st), (it / STAGES) & 1);
        ak_fence_regs(acc);
        ak_wgmma_fence();
        consume_stage<W>(acc, sbase + st * kStageBytes, wg, true);
        ak_wgmma_commit();
        ++it;
    }
    int kt = 1;
    if constexpr (STAGGER > 0) {
        if (first_unit && wg == 0) {
            for (; kt < k_tiles && kt <= STAGGER; ++kt, ++it) consume_slice<W>(acc, sbase, wg, it, warp_leader);
            ak_named_barrier_arrive<256>(3);  // slices 0 .. STAGGER - 1 are complete
        }
    }
    for (; kt < k_tiles; ++kt, ++it) consume_slice<W>(acc, sbase, wg, it, warp_leader);
    ak_wgmma_wait<0>();
    ak_fence_regs(acc);
    __syncwarp();
    ak_mbar_arrive_if(bar_empty(sbase, (it - 1) % STAGES), warp_leader);
    if constexpr (STAGED_STORE && W == BLOCK_F)
        store_tile_staged(args, gate_of<W>(acc), up_of<W>(acc), row0, col0, wg, t128, staging);
    else
        store_tile<W>(args, gate_of<W>(acc), up_of<W>(acc), row0, col0, wg, t128);
}

extern "C" __global__ void __launch_bounds__(kThreads, 1) ak_kernel0(const __grid_constant__ ak_fused_mlp_args args) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned raw = ak_smem_addr(smem_raw);
    const unsigned pad = (1024 - raw % 1024) % 1024;  // swizzle atoms need 1024-byte alignment
    unsigned char* smem = smem_raw + pad;
    const unsigned sbase = raw + pad;
    const int m = args.m, d = args.d, f = args.f;
    const int tiles_m = (m + BLOCK_M - 1) / BLOCK_M, tiles_f = (f + BLOCK_F - 1) / BLOCK_F;
    const int n_tiles = tiles_m * tiles_f;
    const Schedule sched = make_schedule(n_tiles, (int)gridDim.x);
    const int k_tiles = (d + kStageK - 1) / kStageK;
    const int wg = (int)threadIdx.x / 128 - 1;  // consumer warpgroup, -1: the producer
    const int t128 = threadIdx.x % 128;

    if (args.tma[0].opaque[0] == 0 || args.tma[1].opaque[0] == 0) {
        // No tensor maps: the same wgmmas on one stage that every thread fills, synchronously.
        Acc<BLOCK_F> acc;
        for (int tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
            const TileCoord tc = tile_coord(tile, tiles_m, tiles_f);
            for (int kt = 0; kt < k_tiles; ++kt) {
                fill_rows(smem, args.x, BLOCK_M, tc.row0, m, d, kt * kStageK);
                fill_rows(smem + kXBytes, args.w_gate, BLOCK_F, tc.col0, f, d, kt * kStageK);
                fill_rows(smem + kXBytes + kWBytes, args.w_up, BLOCK_F, tc.col0, f, d, kt * kStageK);
                ak_fence_proxy_async();
                __syncthreads();
                if (wg >= 0) {
                    ak_fence_regs(acc);
                    ak_wgmma_fence();
                    consume_stage<BLOCK_F>(acc, sbase, wg, kt == 0);
                    ak_wgmma_commit();
                    ak_wgmma_wait<0>();
                    ak_fence_regs(acc);
                }
                __syncthreads();  // the buffers are refilled next
            }
            if (wg >= 0) store_tile<BLOCK_F>(args, gate_of<BLOCK_F>(acc), up_of<BLOCK_F>(acc), tc.row0, tc.col0, wg, t128);
        }
        return;
    }

    if (threadIdx.x == 0) {
        for (int st = 0; st < STAGES; ++st) {
            ak_mbar_init(bar_full(sbase, st), 1);                // the producer's arrival + the TMA bytes
            ak_mbar_init(bar_empty(sbase, st), 4 * kConsumers);  // one arrival per consumer warp
        }
        ak_mbar_init_fence();
    }
    __syncthreads();

    if (wg < 0) {
        // Producer warpgroup: one thread issues every TMA load; the ring continues across tiles. The gate
        // rows of a tile are rows col0.. of [w_gate; w_up], its up rows F + col0..; rows of a partial tile
        // past F read the next block's rows (or zeros past 2F) and only feed columns that are not stored.
        if constexpr (kConsumers > 1) ak_setmaxnreg_dec<kProducerRegs>();
        // A unit of W = BLOCK_F / split columns loads SPLIT_TAIL / split boxes of kBoxF rows each of gate and
        // up: its W gate rows, then right after them its W up rows (whole tiles: the up rows at kWBytes).
        if (threadIdx.x == 0) {
            int it = 0;
            for (int unit = blockIdx.x; unit < sched.n_units; unit += gridDim.x) {
                const Unit uc = unit_coord(unit, sched, tiles_m, tiles_f);
                if (uc.col0 >= f) continue;  // a split unit wholly right of F (the consumers skip it too)
                const int boxes = SPLIT_TAIL / uc.split;
                for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                    const int st = it % STAGES;
                    if (it >= STAGES) ak_mbar_wait(bar_empty(sbase, st), (it / STAGES - 1) & 1);
                    const unsigned full = bar_full(sbase, st);
                    const unsigned dst = sbase + st * kStageBytes;
                    ak_mbar_expect_tx(full, kXBytes + 2 * boxes * kBoxF * kRowBytes);
                    ak_tma_load_2d(dst, &args.tma[0], kt * kStageK, uc.row0, full);
#pragma unroll
                    for (int b = 0; b < SPLIT_TAIL; ++b) {
                        if (b >= boxes) break;
                        const unsigned off = b * kBoxF * kRowBytes;
                        ak_tma_load_2d(dst + kXBytes + off, &args.tma[1], kt * kStageK, uc.col0 + b * kBoxF, full);
                        ak_tma_load_2d(dst + kXBytes + boxes * kBoxF * kRowBytes + off, &args.tma[1], kt * kStageK,
                                       f + uc.col0 + b * kBoxF, full);
                    }
                }
            }
        }
        return;
    }

    // Consumer warpgroups.
    if constexpr (kConsumers > 1) ak_setmaxnreg_inc<kConsumerRegs>();
    int it = 0;
    bool first = true;
    for (int unit = blockIdx.x; unit < sched.n_units; unit += gridDim.x) {
        const Unit uc = unit_coord(unit, sched, tiles_m, tiles_f);
        if (uc.col0 >= f) continue;
        unsigned char* const staging = smem + kOffStaging + wg * kStagingBytes;
        if (uc.split == 1) {
            consume_unit<BLOCK_F>(args, sbase, staging, wg, t128, it, k_tiles, uc.row0, uc.col0, first);
        } else if (uc.split == 2) {
            if constexpr (SPLIT_TAIL >= 2)
                consume_unit<BLOCK_F / 2>(args, sbase, staging, wg, t128, it, k_tiles, uc.row0, uc.col0, first);
        } else {
            if constexpr (SPLIT_TAIL >= 4)
                consume_unit<BLOCK_F / 4>(args, sbase, staging, wg, t128, it, k_tiles, uc.row0, uc.col0, first);
        }
        first = false;
    }
}
#endif  // MLP_FUSED
