// Flash-attention starter: o = softmax(q k^T * scale [+ causal mask]) v, [batch, heads, seq, head_dim].
//
// One block per (tile of BLOCK_M queries, batch * head) (AK_GRID_ATTENTION). The block walks the keys
// in tiles of BLOCK_N rows of K and V staged in shared memory, with the online softmax of FlashAttention:
// per query row a running max m, a running sum l and fp32 output accumulators, rescaled by
// exp(m_old - m_new) whenever the max grows; the output is divided by l once at the end. Causal: key j
// is masked for query i when j > i, and key tiles entirely after the query tile are skipped. Masked
// scores are -inf; a row whose keys are all masked so far keeps m = -inf without NaN (the exponentials
// are taken against 0 then), and a row with l = 0 at the end writes 0. Everything runs in a fixed order,
// so every variant is bitwise deterministic.
//
// Four variants (MMA, the first tier-1 tunable). fp32 data always takes MMA = 0 (exact fp32 on CUDA cores,
// no TF32). Search order: the search sweeps tier 1 in declaration order and starts again from the top after
// every kept change, so the tunables are declared in the order that pays at the target rows: the structure
// (MMA), the query tile (BLOCK_M, which PINGPONG needs at 128 or 192), then MMA=3's schedule (PERSISTENT,
// PINGPONG, HEAD_DIM, OVERLAP) before the key tile and the ring depth; LAZY_RESCALE (a loss at most rows
// measured) is tier 2. Knobs of one structure are declared `when MMA=...`, so none is evaluated under
// another (and a kept change of one does not make the other structures worth evaluating again).
//   MMA = 0  plain fp32 FMAs (every dtype), K/V staged as fp32. NUM_WARPS warps, each owning
//            BLOCK_M / NUM_WARPS query rows, one row at a time: lane j computes the scores of keys
//            j, j + 32, ... and accumulates output dimensions j, j + 32, ... Running state in shared memory.
//   MMA = 1  nvcuda::wmma for Q K^T and P V with fp32 accumulators; the softmax step goes through a
//            per-warp fp32 scratch in shared memory.
//   MMA = 2  FlashAttention-2 structure on mma.sync.m16n8k16 (sm_80+): every warp owns 16 or 32 query
//            rows (BLOCK_M / NUM_WARPS); its Q fragments stay in registers for the whole key loop
//            (ldmatrix once; at 32 rows of head_dim 128, re-read from shared memory), S = Q K^T and O += P V run on the tensor cores with the fp32 accumulators,
//            the online softmax in registers (exp2 with the scale folded in, a row's max and sum over the
//            four lanes that hold it), and P goes from the S accumulators straight into the A operand of
//            P V (the m16n8 accumulator layout of two adjacent key blocks is the m16n8k16 A layout).
//            K/V tiles are multi-buffered through cp.async (STAGES deep, zero-filled past the end), read
//            with ldmatrix (.trans for V) from rows padded by 16 bytes (conflict-free). Only tiles that
//            cross the diagonal or the end of the sequence take the masked code; tiles above a warp's
//            rows are skipped. The output goes through shared memory as 16-byte stores.
//   MMA = 3  FlashAttention-3 structure on wgmma (sm_90a): warp specialization with one producer
//            warpgroup (one thread issues the TMA loads: Q once, K and V tiles into a ring of STAGES
//            buffers, each completing on an mbarrier with its byte count) and BLOCK_M / 64 consumer
//            warpgroups of 64 query rows each (setmaxnreg moves registers from the producer to them).
//            S = Q K^T is wgmma m64nBLOCK_Nk16 with Q and K from 128-byte-swizzled shared memory (the
//            TMA's own layout, K-major); P stays in registers as the A operand of O += P V (wgmma
//            m64n64k16 or, for head_dim 128, m64n128k16 over both 64-column boxes; V from shared
//            memory, N-major). A consumer releases a
//            K buffer on its "K empty" mbarrier as soon as S is computed and a V buffer when P V has
//            read it, so the next K tiles load early; K is requested one tile ahead of V. OVERLAP = 1
//            issues the next tile's Q K^T before this tile's P V, so the softmax runs while the tensor
//            cores do P V (intra-warpgroup pipelining; needs STAGES >= 2). PINGPONG = 1 (two or three
//            consumer warpgroups) makes them take turns on the tensor cores through named barriers:
//            one warpgroup's softmax runs while the next one's wgmmas do. Inputs a TMA map cannot
//            describe (misaligned, or a row pitch that is not a multiple of 16 bytes) run the MMA = 2
//            code on the consumer warps instead.
//
// head_dim: MMA = 2 and 3 take any head_dim up to 128 (compiled for 64 and for 128 and chosen at run
// time; smaller ones are zero-padded); MMA = 0 and 1 any up to MAX_HEAD_DIM. A larger head_dim leaves the
// output unwritten, so the harness reports NaN (FAIL) rather than a wrong number. Pointers and sizes
// that do not allow 16-byte accesses take element-wise loads and stores in the same kernels.
// Tunable combinations that a variant cannot run (rows per warp, shared memory above 227 KB, the
// architecture) are rejected by a static_assert whose message names the rule.
//
// @autokernel type flash_attention
// @autokernel tunable MMA = 0 {0, 1, 2, 3} tier 1 -- 0 fp32 FMA, 1 nvcuda::wmma, 2 mma.sync FA2-class, 3 wgmma+TMA warp-specialized FA3-class (sm_90a)
// @autokernel tunable BLOCK_M = 64 {16, 32, 64, 128, 192} tier 1 -- query rows per block (MMA=3: 64 per consumer warpgroup)
// @autokernel tunable PERSISTENT = 0 {0, 1} tier 1 when MMA=3 -- MMA=3: one block per SM walks the work items (query tile, batch * head; causal: longest first), the next item's K/V and Q load during this one's epilogue
// @autokernel tunable PINGPONG = 0 {0, 1} tier 1 when MMA=3 -- MMA=3, BLOCK_M 128 or 192: the consumer warpgroups take turns on the tensor cores (one's softmax during the other's GEMMs)
// @autokernel tunable HEAD_DIM = 0 {0, 64, 128} tier 1 when MMA=3 -- MMA=3: 0 compiles the wgmma path for head_dim 64 and 128 (chosen at run time); 64 only for head_dim <= 64 (shared memory sized for it; larger ones run the mma.sync block), 128 for every head_dim (zero-padded)
// @autokernel tunable OVERLAP = 0 {0, 1} tier 1 when MMA=3 -- MMA=3: the next tile's Q K^T runs on the tensor cores during this tile's softmax (intra-warpgroup pipelining)
// @autokernel tunable BLOCK_N = 32 {32, 64, 128} tier 1 -- key/value rows per tile
// @autokernel tunable STAGES = 2 {1, 2, 3} tier 1 when MMA=2|3 -- K/V tiles in flight (MMA=2: cp.async buffers, MMA=3: TMA ring; MMA=0/1 ignore it)
// @autokernel tunable NUM_WARPS = 4 {1, 2, 4, 8, 12, 16} tier 1 when MMA=0|1|2 -- warps per block (MMA=2: 16 or 32 query rows each; MMA=3 ignores it)
// @autokernel tunable LAZY_RESCALE = 0 {0, 1} tier 2 when MMA=3 -- MMA=3: the running max moves only when a tile's max exceeds it by 2^8, so the output is rescaled only in the tiles where it moved
// @autokernel tunable MAX_HEAD_DIM = 128 {64, 128} tier 4 when MMA=0|1 -- largest head_dim of MMA=0/1 (sizes their shared memory)
// @autokernel preset hopper sm_90 MMA=3 BLOCK_M=128 BLOCK_N=128 STAGES=2 OVERLAP=1 PINGPONG=1 PERSISTENT=1 HEAD_DIM=0 LAZY_RESCALE=1 -- FA3-class, both head_dims: 0.85-1.09x SDPA (cuDNN) fp16 at head_dim 64 and 128, H200 (config B, bench/2026-12-02-h200-compute.md)
// @autokernel preset hopper_head_dim_64 sm_90 MMA=3 BLOCK_M=128 BLOCK_N=128 STAGES=3 OVERLAP=1 PINGPONG=1 PERSISTENT=1 HEAD_DIM=64 LAZY_RESCALE=0 -- head_dim 64 only: 0.92-1.08x SDPA in bf16, H200 (config A, bench/2026-12-02-h200-compute.md)
#include <autokernel/contract.cuh>
#include <autokernel/helpers.cuh>

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 32
#endif
#ifndef NUM_WARPS
#define NUM_WARPS 4
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef MMA
#define MMA 0
#endif
#ifndef OVERLAP
#define OVERLAP 0
#endif
#ifndef PINGPONG
#define PINGPONG 0
#endif
#ifndef PERSISTENT
#define PERSISTENT 0
#endif
#ifndef LAZY_RESCALE
#define LAZY_RESCALE 0
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 0
#endif
#ifndef MAX_HEAD_DIM
#define MAX_HEAD_DIM 128
#endif

// ---- rules of the tunables (checked in every dtype's compile, so all three agree) -------------------
static_assert(MMA >= 0 && MMA <= 3, "MMA must be 0 (FMA), 1 (wmma), 2 (mma.sync) or 3 (wgmma)");
static_assert(STAGES >= 1 && STAGES <= 3, "STAGES must be 1, 2 or 3");
static_assert(OVERLAP == 0 || OVERLAP == 1, "OVERLAP must be 0 or 1");
static_assert(PINGPONG == 0 || PINGPONG == 1, "PINGPONG must be 0 or 1");
static_assert(PERSISTENT == 0 || PERSISTENT == 1, "PERSISTENT must be 0 or 1");
static_assert(LAZY_RESCALE == 0 || LAZY_RESCALE == 1, "LAZY_RESCALE must be 0 or 1");
static_assert(HEAD_DIM == 0 || HEAD_DIM == 64 || HEAD_DIM == 128, "HEAD_DIM must be 0 (both), 64 or 128");
static_assert(BLOCK_N % 32 == 0, "BLOCK_N must be a multiple of 32");
#if MMA == 2
static_assert(BLOCK_M % NUM_WARPS == 0 && (BLOCK_M / NUM_WARPS == 16 || BLOCK_M / NUM_WARPS == 32),
              "MMA=2: every warp takes 16 or 32 query rows, so BLOCK_M / NUM_WARPS must be 16 or 32");
#endif
#if MMA == 3
static_assert(BLOCK_M == 64 || BLOCK_M == 128 || BLOCK_M == 192,
              "MMA=3: one consumer warpgroup per 64 query rows, so BLOCK_M must be 64, 128 or 192");
static_assert(OVERLAP == 0 || STAGES >= 2,
              "MMA=3 with OVERLAP=1 needs STAGES >= 2: the next tile's K is awaited before this tile's buffer is released");
static_assert(PINGPONG == 0 || BLOCK_M >= 128,
              "MMA=3 with PINGPONG=1 needs two or three consumer warpgroups to take turns: BLOCK_M 128 or 192");
#endif

#if defined(AK_DTYPE_FP32)
#define FLASH_PATH 0  // fp32 stays exact: CUDA cores
#else
#define FLASH_PATH MMA
#endif

#if FLASH_PATH <= 1
// ================================================================================ MMA = 0 and 1
#if MMA >= 2
// fp32 data under a tensor-core variant: the FMA path in the starter's shape (the tunables describe the
// tensor-core tiles, which the FMA path could not always hold).
constexpr int kBlockM = 64, kBlockN = 32, kWarps = 4, kMaxHeadDim = 128;
#else
constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N, kWarps = NUM_WARPS, kMaxHeadDim = MAX_HEAD_DIM;
#endif
#if FLASH_PATH == 1
#define FLASH_WMMA 1
#else
#define FLASH_WMMA 0
#endif

constexpr int kThreads = kWarps * 32;
static_assert(kMaxHeadDim % 32 == 0, "MAX_HEAD_DIM must be a multiple of 32");

#if !FLASH_WMMA
constexpr int kRowsPerWarp = kBlockM / kWarps;
constexpr int kKeysPerLane = kBlockN / 32;
constexpr int kDimsPerLane = kMaxHeadDim / 32;
constexpr int kLdK = kMaxHeadDim + 1;  // padding: lanes reading different keys hit different banks
// Q and the output accumulators [kBlockM][kMaxHeadDim], K [kBlockN][kLdK], V [kBlockN][kMaxHeadDim],
// running max and sum [kBlockM], all fp32.
constexpr int kSmemBytes = 4 * (2 * kBlockM * kMaxHeadDim + kBlockN * kLdK + kBlockN * kMaxHeadDim + 2 * kBlockM);
static_assert(kBlockM % kWarps == 0, "BLOCK_M must be a multiple of NUM_WARPS");
#else
#include <mma.h>
using namespace nvcuda;
constexpr int kGroups = kBlockM / 16;  // 16-row query groups, shared out among the warps
constexpr int kLdT = kMaxHeadDim + 8;  // Q, K, V tiles in ak_t, [rows][kLdT]
constexpr int kLdS = (kBlockN > kMaxHeadDim ? kBlockN : kMaxHeadDim) + 4;  // per-warp fp32 scratch [16][kLdS]
constexpr int kLdP = kBlockN + 8;       // per-warp probabilities in ak_t [16][kLdP]
constexpr int kLdO = kMaxHeadDim + 4;  // output accumulators, fp32 [kBlockM][kLdO]
// Byte offsets of the regions, each 128-byte aligned (wmma needs 32-byte aligned fragment pointers;
// the leading dimensions above keep every fragment's start 32-byte aligned within a region).
#define round128(bytes) ((int)(((bytes) + 127) / 128 * 128))
constexpr int kOffQ = 0;
constexpr int kOffK = kOffQ + round128((long)kBlockM * kLdT * sizeof(ak_t));
constexpr int kOffV = kOffK + round128((long)kBlockN * kLdT * sizeof(ak_t));
constexpr int kOffO = kOffV + round128((long)kBlockN * kLdT * sizeof(ak_t));
constexpr int kOffScratch = kOffO + round128((long)kBlockM * kLdO * 4);
constexpr int kOffP = kOffScratch + round128((long)kWarps * 16 * kLdS * 4);
constexpr int kOffStats = kOffP + round128((long)kWarps * 16 * kLdP * sizeof(ak_t));
constexpr int kSmemBytes = kOffStats + round128(3L * kBlockM * 4);  // running max, sum, rescale per row
static_assert(kBlockM % 16 == 0, "MMA=1: BLOCK_M must be a multiple of 16");
#endif
static_assert(kSmemBytes <= 227 * 1024, "tiles exceed the 227 KB of shared memory a block may use");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_ATTENTION, /* rows_per_block */ 0,
    /* tile_m, tile_n */ kBlockM, kBlockN,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
    /* dynamic_smem_bytes */ kSmemBytes,
};

#if !FLASH_WMMA
// ------------------------------------------------------------------------------------- FMA path
extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_flash_attention_args args) {
    extern __shared__ float smem[];
    float* q_tile = smem;                               // [kBlockM][kMaxHeadDim]
    float* acc_tile = q_tile + kBlockM * kMaxHeadDim;   // [kBlockM][kMaxHeadDim] output accumulators
    float* k_tile = acc_tile + kBlockM * kMaxHeadDim;   // [kBlockN][kLdK]
    float* v_tile = k_tile + kBlockN * kLdK;            // [kBlockN][kMaxHeadDim]
    float* row_max = v_tile + kBlockN * kMaxHeadDim;    // [kBlockM] running max (m)
    float* row_sum = row_max + kBlockM;                 // [kBlockM] running sum (l)

    const int seq = args.seq, dim = args.head_dim;
    if (dim <= 0 || dim > kMaxHeadDim) return;  // unsupported: leave the output unwritten
    const int q0 = blockIdx.x * kBlockM;
    const long long base = (long long)blockIdx.y * seq * dim;  // this (batch, head)
    const ak_t* q = args.q + base;
    const ak_t* k = args.k + base;
    const ak_t* v = args.v + base;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

    for (int idx = tid; idx < kBlockM * kMaxHeadDim; idx += kThreads) {
        const int r = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
        const bool valid = q0 + r < seq && d < dim;
        q_tile[idx] = valid ? ak_to_float(q[(long long)(q0 + r) * dim + d]) : 0.f;
        acc_tile[idx] = 0.f;
    }
    for (int r = tid; r < kBlockM; r += kThreads) {
        row_max[r] = AK_NEG_INF;
        row_sum[r] = 0.f;
    }

    const int kv_end = args.causal ? min(seq, q0 + kBlockM) : seq;
    for (int n0 = 0; n0 < kv_end; n0 += kBlockN) {
        __syncthreads();  // the previous tile is no longer read (and, the first time, Q is staged)
        for (int idx = tid; idx < kBlockN * kMaxHeadDim; idx += kThreads) {
            const int n = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
            const bool valid = n0 + n < seq && d < dim;  // zeros elsewhere: 0 * p never makes NaN
            const long long at = (long long)(n0 + n) * dim + d;
            k_tile[n * kLdK + d] = valid ? ak_to_float(k[at]) : 0.f;
            v_tile[idx] = valid ? ak_to_float(v[at]) : 0.f;
        }
        __syncthreads();

#pragma unroll 1
        for (int rr = 0; rr < kRowsPerWarp; ++rr) {
            const int r = warp * kRowsPerWarp + rr;
            const int qi = q0 + r;
            // Warp-uniform skips: rows past the end, and causal rows that see no key of this tile.
            if (qi >= seq || (args.causal && n0 > qi)) continue;

            const float* q_row = q_tile + r * kMaxHeadDim;
            float score[kKeysPerLane];
            float tile_max = AK_NEG_INF;
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
                const int key = n0 + lane + 32 * t;
                const float* k_row = k_tile + (lane + 32 * t) * kLdK;
                float dot = 0.f;
                for (int d = 0; d < dim; ++d) dot = fmaf(q_row[d], k_row[d], dot);
                const bool masked = key >= seq || (args.causal && key > qi);
                score[t] = masked ? AK_NEG_INF : dot * args.scale;
                tile_max = fmaxf(tile_max, score[t]);
            }
            tile_max = ak_warp_max(tile_max);

            const float old_max = row_max[r];
            const float new_max = fmaxf(old_max, tile_max);
            const float ref = new_max == AK_NEG_INF ? 0.f : new_max;  // all masked so far: avoid -inf - -inf
            const float rescale = expf(old_max - ref);               // 0 when old_max was -inf
            float p[kKeysPerLane];
            float tile_sum = 0.f;
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
                p[t] = expf(score[t] - ref);  // masked: exp(-inf) = 0
                tile_sum += p[t];
            }
            tile_sum = ak_warp_sum(tile_sum);

            float acc[kDimsPerLane];
            float* acc_row = acc_tile + r * kMaxHeadDim;
#pragma unroll
            for (int j = 0; j < kDimsPerLane; ++j) acc[j] = acc_row[lane + 32 * j] * rescale;
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
#pragma unroll
                for (int src = 0; src < 32; ++src) {  // key n = 32 t + src, its p held by lane src
                    const float pn = __shfl_sync(0xffffffffu, p[t], src);
                    const float* v_row = v_tile + (32 * t + src) * kMaxHeadDim;
#pragma unroll
                    for (int j = 0; j < kDimsPerLane; ++j)
                        if (32 * j < dim) acc[j] = fmaf(pn, v_row[lane + 32 * j], acc[j]);  // warp-uniform
                }
            }
#pragma unroll
            for (int j = 0; j < kDimsPerLane; ++j) acc_row[lane + 32 * j] = acc[j];
            __syncwarp();  // every lane has read row_max / row_sum before lane 0 updates them
            if (lane == 0) {
                row_sum[r] = row_sum[r] * rescale + tile_sum;
                row_max[r] = new_max;
            }
            __syncwarp();
        }
    }
    __syncthreads();  // also covers the case of no key tile at all

    for (int idx = tid; idx < kBlockM * kMaxHeadDim; idx += kThreads) {
        const int r = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
        const int qi = q0 + r;
        if (qi >= seq || d >= dim) continue;
        const float l = row_sum[r];
        const float inv = l > 0.f ? 1.0f / l : 0.f;  // a fully masked row writes 0
        args.o[base + (long long)qi * dim + d] = ak_from_float(acc_tile[idx] * inv);
    }
}

#else
// ------------------------------------------------------------------------------------- WMMA path
extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_flash_attention_args args) {
    extern __shared__ __align__(128) unsigned char smem_bytes[];
    ak_t* q_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffQ);  // [kBlockM][kLdT]
    ak_t* k_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffK);  // [kBlockN][kLdT]
    ak_t* v_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffV);  // [kBlockN][kLdT]
    float* o_tile = reinterpret_cast<float*>(smem_bytes + kOffO);  // [kBlockM][kLdO]
    float* row_max = reinterpret_cast<float*>(smem_bytes + kOffStats);  // [kBlockM]
    float* row_sum = row_max + kBlockM;                                 // [kBlockM]
    float* row_rescale = row_sum + kBlockM;                             // [kBlockM], of the last tile

    const int seq = args.seq, dim = args.head_dim;
    if (dim <= 0 || dim > kMaxHeadDim) return;  // unsupported: leave the output unwritten
    const int q0 = blockIdx.x * kBlockM;
    const long long base = (long long)blockIdx.y * seq * dim;  // this (batch, head)
    const ak_t* q = args.q + base;
    const ak_t* k = args.k + base;
    const ak_t* v = args.v + base;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    float* scratch = reinterpret_cast<float*>(smem_bytes + kOffScratch) + warp * 16 * kLdS;  // [16][kLdS]
    ak_t* p_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffP) + warp * 16 * kLdP;          // [16][kLdP]
    const int dim_frags = (dim + 15) / 16;  // head_dim in 16-wide fragments; the padding is zero
    const int dim_padded = dim_frags * 16;
    const ak_t zero = ak_from_float(0.f);

    for (int idx = tid; idx < kBlockM * kMaxHeadDim; idx += kThreads) {
        const int r = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
        const bool valid = q0 + r < seq && d < dim;
        q_tile[r * kLdT + d] = valid ? q[(long long)(q0 + r) * dim + d] : zero;
        o_tile[r * kLdO + d] = 0.f;
    }
    for (int r = tid; r < kBlockM; r += kThreads) {
        row_max[r] = AK_NEG_INF;
        row_sum[r] = 0.f;
    }

    const int kv_end = args.causal ? min(seq, q0 + kBlockM) : seq;
    for (int n0 = 0; n0 < kv_end; n0 += kBlockN) {
        __syncthreads();  // the previous tile is no longer read (and, the first time, Q is staged)
        for (int idx = tid; idx < kBlockN * kMaxHeadDim; idx += kThreads) {
            const int n = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
            const bool valid = n0 + n < seq && d < dim;  // zeros elsewhere: 0 * p never makes NaN
            const long long at = (long long)(n0 + n) * dim + d;
            k_tile[n * kLdT + d] = valid ? k[at] : zero;
            v_tile[n * kLdT + d] = valid ? v[at] : zero;
        }
        __syncthreads();

        for (int group = warp; group < kGroups; group += kWarps) {
            const int r0 = group * 16;  // first row of the group within the block's query tile
            // Warp-uniform skips: groups past the end, and causal groups that see no key of this tile.
            if (q0 + r0 >= seq || (args.causal && n0 > q0 + r0 + 15)) continue;

            // S = Q K^T (16 x kBlockN) into the scratch, fp32 accumulators.
            for (int nf = 0; nf < kBlockN / 16; ++nf) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_frag;
                wmma::fill_fragment(s_frag, 0.f);
                for (int df = 0; df < dim_frags; ++df) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, ak_t, wmma::row_major> q_frag;
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, ak_t, wmma::col_major> k_frag;  // K^T
                    wmma::load_matrix_sync(q_frag, q_tile + r0 * kLdT + df * 16, kLdT);
                    wmma::load_matrix_sync(k_frag, k_tile + nf * 16 * kLdT + df * 16, kLdT);
                    wmma::mma_sync(s_frag, q_frag, k_frag, s_frag);
                }
                wmma::store_matrix_sync(scratch + nf * 16, s_frag, kLdS, wmma::mem_row_major);
            }
            __syncwarp();

            // Online softmax step: two lanes per row, each over half of the tile's keys.
            {
                constexpr int kHalf = kBlockN / 2;
                const int r = lane / 2, c_begin = lane % 2 * kHalf;
                const int qi = q0 + r0 + r;
                float* s_row = scratch + r * kLdS;
                float tile_max = AK_NEG_INF;
                for (int c = c_begin; c < c_begin + kHalf; ++c) {
                    const int key = n0 + c;
                    const bool masked = key >= seq || (args.causal && key > qi);
                    const float score = masked ? AK_NEG_INF : s_row[c] * args.scale;
                    s_row[c] = score;
                    tile_max = fmaxf(tile_max, score);
                }
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
                const float old_max = row_max[r0 + r];
                const float new_max = fmaxf(old_max, tile_max);
                const float ref = new_max == AK_NEG_INF ? 0.f : new_max;  // all masked so far: avoid -inf - -inf
                const float rescale = expf(old_max - ref);               // 0 when old_max was -inf
                float tile_sum = 0.f;
                for (int c = c_begin; c < c_begin + kHalf; ++c) {
                    const float p = expf(s_row[c] - ref);  // masked: exp(-inf) = 0
                    p_tile[r * kLdP + c] = ak_from_float(p);
                    tile_sum += p;
                }
                tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
                __syncwarp();  // both lanes of the row have read row_max before it changes
                if (lane % 2 == 0) {
                    row_sum[r0 + r] = row_sum[r0 + r] * rescale + tile_sum;
                    row_max[r0 + r] = new_max;
                    row_rescale[r0 + r] = rescale;
                }
            }
            __syncwarp();

            // P V (16 x head_dim) into the scratch, then O = O * rescale + P V.
            for (int df = 0; df < dim_frags; ++df) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> pv_frag;
                wmma::fill_fragment(pv_frag, 0.f);
                for (int kf = 0; kf < kBlockN / 16; ++kf) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, ak_t, wmma::row_major> p_frag;
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, ak_t, wmma::row_major> v_frag;
                    wmma::load_matrix_sync(p_frag, p_tile + kf * 16, kLdP);
                    wmma::load_matrix_sync(v_frag, v_tile + kf * 16 * kLdT + df * 16, kLdT);
                    wmma::mma_sync(pv_frag, p_frag, v_frag, pv_frag);
                }
                wmma::store_matrix_sync(scratch + df * 16, pv_frag, kLdS, wmma::mem_row_major);
            }
            __syncwarp();
            for (int e = lane; e < 16 * dim_padded; e += 32) {
                const int r = e / dim_padded, d = e % dim_padded;
                float* o = o_tile + (r0 + r) * kLdO + d;
                *o = *o * row_rescale[r0 + r] + scratch[r * kLdS + d];
            }
            __syncwarp();  // the scratch and p_tile are reused by the next group
        }
    }
    __syncthreads();  // also covers the case of no key tile at all

    for (int idx = tid; idx < kBlockM * kMaxHeadDim; idx += kThreads) {
        const int r = idx / kMaxHeadDim, d = idx % kMaxHeadDim;
        const int qi = q0 + r;
        if (qi >= seq || d >= dim) continue;
        const float l = row_sum[r];
        const float inv = l > 0.f ? 1.0f / l : 0.f;  // a fully masked row writes 0
        args.o[base + (long long)qi * dim + d] = ak_from_float(o_tile[r * kLdO + d] * inv);
    }
}
#endif  // FLASH_WMMA

#else
// ================================================================================ MMA = 2 and 3
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(__CUDA_ARCH__ >= 800, "MMA=2 and MMA=3 use mma.sync, ldmatrix and cp.async: they need sm_80 or newer");
#endif

#if defined(AK_DTYPE_BF16)
#define FA_MMA_TYPE "bf16"
#else
#define FA_MMA_TYPE "f16"
#endif

constexpr float kLog2e = 1.4426950408889634f;

// ---- small PTX wrappers --------------------------------------------------------------------------------

__device__ __forceinline__ unsigned fa_smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ bool fa_aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

// 16 bytes global -> shared without registers; valid = false writes 16 zero bytes (src-size 0 reads nothing).
__device__ __forceinline__ void fa_cp_async16(unsigned dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void fa_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void fa_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Barrier 1 over the first THREADS threads that reach it (the MMA=3 fallback runs without its producer
// warpgroup); orders shared memory like __syncthreads.
template <int THREADS>
__device__ __forceinline__ void fa_bar() {
    asm volatile("bar.sync 1, %0;\n" ::"n"(THREADS) : "memory");
}

// Four 8x8 matrices of 16-bit elements: lanes 8i..8i+7 give the row addresses of matrix i, and lane l
// receives in r[i] the elements (l / 4, 2 (l % 4) and 2 (l % 4) + 1) of matrix i (with .trans: the
// elements (2 (l % 4) and 2 (l % 4) + 1, l / 4), i.e. of the transposed matrix).
__device__ __forceinline__ void fa_ldmatrix_x4(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}
__device__ __forceinline__ void fa_ldmatrix_x4_trans(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// d (16x8, fp32) += a (16x16, row) * b (16x8, col). Per lane l (g = l / 4, t = l % 4): a[0] = row g, cols
// 2t, 2t+1; a[1] = row g + 8, same cols; a[2], a[3] = the same rows at cols 2t + 8, 2t + 9. b0 = rows
// (k) 2t, 2t+1 of col g; b1 = rows 2t + 8, 2t + 9. d[0], d[1] = row g, cols 2t, 2t+1; d[2], d[3] = row g + 8.
__device__ __forceinline__ void fa_mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32." FA_MMA_TYPE "." FA_MMA_TYPE ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 2^x (MUFU.EX2, flush to zero); 2^-inf = 0.
__device__ __forceinline__ float fa_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// Two floats rounded to ak_t and packed, `lo` in the low half (the lower column of a fragment pair).
__device__ __forceinline__ unsigned fa_pack(float lo, float hi) {
#if defined(AK_DTYPE_BF16)
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
#else
    const __half2 v = __floats2half2_rn(lo, hi);
#endif
    return *reinterpret_cast<const unsigned*>(&v);
}

// ---- the online softmax on accumulator fragments ----------------------------------------------------------
// A tile of S for 16 query rows in the m16n8 accumulator layout, NB blocks of 8 keys: s[nb][e] is row
// g + 8 (e / 2), key 8 nb + 2t + e % 2 (g = lane / 4, t = lane % 4). mma.sync's 16 x 8 blocks and each
// warp's 16 rows of a wgmma m64nN accumulator have exactly this layout. The output accumulators o have
// it too (NO blocks of 8 columns), so a row's state lives in the four lanes of one quad.

// Masks keys at or past `seq` and, causal, keys after the query (-inf). `row` is the query of e < 2.
template <int NB>
__device__ __forceinline__ void fa_mask(float (&s)[NB][4], int lane, int row, int n0, int seq, bool causal) {
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int key = n0 + 8 * nb + 2 * (lane % 4) + e % 2;
            if (key >= seq || (causal && key > row + 8 * (e / 2))) s[nb][e] = AK_NEG_INF;
        }
}

// One online-softmax step on the rows' statistics: the rows' max over this tile (four lanes), the new
// running max m (kept in the log2 domain: scores times scale * log2 e), p = 2^(s * scale_log2 - m)
// written over s, the running sums l (this lane's share; the quad is summed once at the end) and the
// factor 2^(m_old - m_new) by which the output rows must be rescaled. A row whose keys are all masked so
// far keeps m = -inf and takes its exponentials against 0.
// LAZY (MMA=3, LAZY_RESCALE=1): the running max only moves when the tile's max exceeds it by more than
// 8 (log2 domain), so p stays <= 2^8 (exact enough in fp16 and bf16, whose precision is relative) and the
// output rows are rescaled only in the rare tiles where some row's max moved (a warp-wide vote).
constexpr float kLazyRescaleLog2 = 8.f;

template <int NB, bool LAZY = false>
__device__ __forceinline__ void fa_softmax_stats(float (&s)[NB][4], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                                 float scale_log2) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float mx = AK_NEG_INF;
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) mx = fmaxf(mx, fmaxf(s[nb][2 * r], s[nb][2 * r + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        float m_new;
        if constexpr (LAZY)
            m_new = mx * scale_log2 > m[r] + kLazyRescaleLog2 ? mx * scale_log2 : m[r];  // -inf + 8 = -inf
        else
            m_new = fmaxf(m[r], mx * scale_log2);
        const float m_use = m_new == AK_NEG_INF ? 0.f : m_new;
        alpha[r] = fa_exp2(m[r] - m_use);  // 0 while m[r] is -inf
        if constexpr (LAZY) alpha[r] = m_new == m[r] ? 1.f : alpha[r];  // exactly 1 where the max stayed
        m[r] = m_new;
        float sum = 0.f;
#pragma unroll
        for (int nb = 0; nb < NB; ++nb)
#pragma unroll
            for (int e = 2 * r; e < 2 * r + 2; ++e) {
                const float p = fa_exp2(fmaf(s[nb][e], scale_log2, -m_use));  // masked: 2^-inf = 0
                s[nb][e] = p;
                sum += p;
            }
        l[r] = l[r] * alpha[r] + sum;
    }
}

template <int NO>
__device__ __forceinline__ void fa_rescale(float (&o)[NO][4], const float (&alpha)[2]) {
#pragma unroll
    for (int j = 0; j < NO; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[j][e] *= alpha[e / 2];
}

// LAZY: only when some row of the warp moved its max (alpha != 1); the others' alpha is 1 exactly.
template <int NO, bool LAZY>
__device__ __forceinline__ void fa_rescale_if(float (&o)[NO][4], const float (&alpha)[2]) {
    if (!LAZY || __any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) fa_rescale(o, alpha);
}

template <int NB, int NO, bool LAZY = false>
__device__ __forceinline__ void fa_softmax_step(float (&s)[NB][4], float (&o)[NO][4], float (&m)[2], float (&l)[2],
                                                float scale_log2) {
    float alpha[2];
    fa_softmax_stats<NB, LAZY>(s, m, l, alpha, scale_log2);
    fa_rescale_if<NO, LAZY>(o, alpha);
}

// P (in s) as the A operand of P V, 16 keys per step: the accumulators of key blocks 2kk and 2kk + 1 are
// exactly the m16n8k16 (and wgmma m64nNk16) A fragment of keys 16kk .. 16kk + 15.
template <int NB>
__device__ __forceinline__ void fa_pack_p(const float (&s)[NB][4], unsigned (&p)[NB / 2][4]) {
#pragma unroll
    for (int kk = 0; kk < NB / 2; ++kk) {
        p[kk][0] = fa_pack(s[2 * kk][0], s[2 * kk][1]);
        p[kk][1] = fa_pack(s[2 * kk][2], s[2 * kk][3]);
        p[kk][2] = fa_pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
        p[kk][3] = fa_pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }
}

// 1 / l of the lane's two rows, l summed over the quad first (fixed order: same bits in all four lanes).
// A row with l = 0 (no key at all) writes 0.
__device__ __forceinline__ void fa_row_inverse(const float (&l)[2], float (&inv)[2]) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float sum = l[r];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        inv[r] = sum > 0.f ? 1.0f / sum : 0.f;
    }
}

// Copies a 16-byte chunk (8 elements from shared memory) to `dst`, or its first `count` elements one
// by one when the vector store is not allowed.
__device__ __forceinline__ void fa_store_chunk(ak_t* dst, const unsigned char* src, int count, bool vec) {
    if (vec && count >= 8) {
        *reinterpret_cast<ak_vec<8>*>(dst) = *reinterpret_cast<const ak_vec<8>*>(src);
    } else {
        const ak_t* s = reinterpret_cast<const ak_t*>(src);
        for (int e = 0; e < 8 && e < count; ++e) dst[e] = s[e];
    }
}

// ---- FlashAttention-2 block on mma.sync ------------------------------------------------------------------
// Shared memory: Q [BM][HD + 8], then NST stages of K [BN][HD + 8] and V [BN][HD + 8] (rows padded by 16
// bytes: the eight rows of an ldmatrix matrix land in different banks).
template <int HD, int BM, int BN, int NST>
struct Fa2Layout {
    static constexpr int kLd = HD + 8;
    static constexpr int kQBytes = BM * kLd * 2;
    static constexpr int kTileBytes = BN * kLd * 2;
    static constexpr int kStageBytes = 2 * kTileBytes;
    static constexpr int kBytes = kQBytes + NST * kStageBytes;
};

// ROWS x HD elements from `src` (row pitch `dim`) into a [ROWS][HD + 8] tile; rows at or past `rows` and
// columns at or past `dim` become zero. vec: 16-byte cp.async (asynchronous: commit and wait), otherwise
// element-wise loads and 16-byte shared stores.
template <int ROWS, int HD, int THREADS>
__device__ __forceinline__ void fa2_load_tile(unsigned dst, unsigned char* dst_generic, const ak_t* src, int rows,
                                              int dim, bool vec, int tid) {
    constexpr int kChunks = HD / 8, kLd = HD + 8, kTotal = ROWS * kChunks;
    constexpr int kIters = (kTotal + THREADS - 1) / THREADS;
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
        const int c = tid + i * THREADS;
        if (kTotal % THREADS != 0 && c >= kTotal) break;
        const int r = c / kChunks, col = c % kChunks * 8;
        const int offset = (r * kLd + col) * 2;
        if (vec) {
            const bool ok = r < rows && col < dim;
            fa_cp_async16(dst + offset, ok ? src + (long long)r * dim + col : src, ok);
        } else {
            ak_vec<8> chunk;
#pragma unroll
            for (int e = 0; e < 8; ++e)
                chunk.v[e] = r < rows && col + e < dim ? src[(long long)r * dim + col + e] : ak_from_float(0.f);
            *reinterpret_cast<ak_vec<8>*>(dst_generic + offset) = chunk;
        }
    }
}

// Whether a warp keeps its Q fragments in registers for the whole key loop: always, except with 32 rows
// of head_dim 128 (64 registers that O's 128 and S need), where they are re-read from the Q tile in
// shared memory for every key tile (a quarter more shared-memory reads than K and V alone), and the
// tile's keys are taken 32 at a time (S in 32 registers instead of BLOCK_N).
template <int HD, int MT>
struct Fa2QInRegisters {
    static constexpr bool value = !(HD == 128 && MT == 2);
};
template <int HD, int MT, int BN>
struct Fa2StepKeys {
    static constexpr int value = Fa2QInRegisters<HD, MT>::value ? BN : 32;
};

// Q fragments (mt, kc) of a warp from the Q tile at q_warp (its first row): matrices (rows +0..7, d +0..7),
// (rows +8..15, d +0..7), (rows +0..7, d +8..15), (rows +8..15, d +8..15) are a[0..3] of m16n8k16.
template <int HD>
__device__ __forceinline__ void fa2_load_q(unsigned q_warp, int lane, int mt, int kc, unsigned (&a)[4]) {
    constexpr int kLd = HD + 8;
    const int mi = lane / 8, lr = lane % 8;
    fa_ldmatrix_x4(q_warp + ((16 * mt + mi % 2 * 8 + lr) * kLd + kc * 16 + mi / 2 * 8) * 2, a);
}

// One K/V tile for MT m16 row tiles of one warp: S = Q K^T on the tensor cores, the masked keys (only
// for a tile that crosses the diagonal or the end of the sequence), the online softmax step and O += P V.
// Q comes from qf (Fa2QInRegisters) or from the Q tile at q_warp.
template <int HD, int MT, int BN>
__device__ __forceinline__ void fa2_tile(unsigned k_tile, unsigned v_tile, unsigned q_warp,
                                         const unsigned (&qf)[Fa2QInRegisters<HD, MT>::value ? MT : 1][HD / 16][4],
                                         float (&o)[MT][HD / 8][4], float (&m)[MT][2], float (&l)[MT][2], int lane,
                                         int row0, int n0, int seq, bool causal, bool mask, float scale_log2) {
    constexpr bool kQRegs = Fa2QInRegisters<HD, MT>::value;
    constexpr int kLd = HD + 8;
    constexpr int kNB = BN / 8;
    float s[MT][kNB][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nb = 0; nb < kNB; ++nb)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[mt][nb][e] = 0.f;

    // B = K^T: matrices (keys +0..7, d +0..7), (keys +0..7, d +8..15), (keys +8..15, d +0..7), (keys +8..15,
    // d +8..15) of a 16-key, 16-dim block are the b0 b1 fragments of key blocks 2np and 2np + 1.
    const int mi = lane / 8, lr = lane % 8;
    const unsigned k_lane = k_tile + ((mi / 2 * 8 + lr) * kLd + mi % 2 * 8) * 2;
    // (With Q from shared memory the loop over head_dim stays rolled: fewer live addresses.)
#pragma unroll kQRegs ? HD / 16 : 1
    for (int kc = 0; kc < HD / 16; ++kc) {
        unsigned qs[kQRegs ? 1 : MT][4];
        if constexpr (!kQRegs)
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) fa2_load_q<HD>(q_warp, lane, mt, kc, qs[mt]);
#pragma unroll
        for (int np = 0; np < BN / 16; ++np) {
            unsigned b[4];
            fa_ldmatrix_x4(k_lane + (np * 16 * kLd + kc * 16) * 2, b);
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                if constexpr (kQRegs) {
                    fa_mma(s[mt][2 * np], qf[mt][kc], b[0], b[1]);
                    fa_mma(s[mt][2 * np + 1], qf[mt][kc], b[2], b[3]);
                } else {
                    fa_mma(s[mt][2 * np], qs[mt], b[0], b[1]);
                    fa_mma(s[mt][2 * np + 1], qs[mt], b[2], b[3]);
                }
            }
        }
    }

#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        if (mask) fa_mask(s[mt], lane, row0 + 16 * mt + lane / 4, n0, seq, causal);
        fa_softmax_step(s[mt], o[mt], m[mt], l[mt], scale_log2);
    }

    // B = V (keys x d, row-major in shared memory) through ldmatrix.trans: matrices (keys +0..7, d +0..7),
    // (keys +8..15, d +0..7), (keys +0..7, d +8..15), (keys +8..15, d +8..15) are b0 b1 of output column
    // blocks 2dp and 2dp + 1.
    const unsigned v_lane = v_tile + ((mi % 2 * 8 + lr) * kLd + mi / 2 * 8) * 2;
    unsigned p[MT][kNB / 2][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) fa_pack_p(s[mt], p[mt]);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
        for (int dp = 0; dp < HD / 16; ++dp) {
            unsigned b[4];
            fa_ldmatrix_x4_trans(v_lane + (kk * 16 * kLd + dp * 16) * 2, b);
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                fa_mma(o[mt][2 * dp], p[mt][kk], b[0], b[1]);
                fa_mma(o[mt][2 * dp + 1], p[mt][kk], b[2], b[3]);
            }
        }
}

// The whole block: THREADS threads (tid 0 .. THREADS - 1), RPW query rows per warp, query tile q_tile of
// the (batch, head) pair bh. Shared memory as Fa2Layout at `smem` (16-byte aligned).
template <int HD, int RPW, int THREADS, int BM, int BN, int NST>
__device__ __forceinline__ void fa2_block(const ak_flash_attention_args& args, unsigned char* smem, int tid, int q_tile,
                                          int bh) {
    using L = Fa2Layout<HD, BM, BN, NST>;
    constexpr int kMT = RPW / 16;
    static_assert(RPW % 16 == 0 && THREADS / 32 * RPW == BM, "fa2_block: the warps must cover BM rows of 16");
    const int seq = args.seq, dim = args.head_dim;
    const bool causal = args.causal != 0;
    const int q0 = q_tile * BM;
    const long long base = (long long)bh * seq * dim;
    const ak_t* q = args.q + base;
    const ak_t* k = args.k + base;
    const ak_t* v = args.v + base;
    const bool vec = dim % 8 == 0 && fa_aligned16(args.q) && fa_aligned16(args.k) && fa_aligned16(args.v);
    const unsigned s_q = fa_smem_addr(smem);
    const int warp = tid / 32, lane = tid % 32;
    const int wrow = warp * RPW;  // the warp's first row within the tile
    const int row0 = q0 + wrow;   // and its query
    const int kv_end = causal ? min(seq, q0 + BM) : seq;
    const int n_tiles = (kv_end + BN - 1) / BN;
    const float scale_log2 = args.scale * kLog2e;

    auto load_kv = [&](int t, int buf) {
        const int offset = L::kQBytes + buf * L::kStageBytes;
        const long long at = (long long)t * BN * dim;
        fa2_load_tile<BN, HD, THREADS>(s_q + offset, smem + offset, k + at, seq - t * BN, dim, vec, tid);
        fa2_load_tile<BN, HD, THREADS>(s_q + offset + L::kTileBytes, smem + offset + L::kTileBytes, v + at,
                                       seq - t * BN, dim, vec, tid);
    };

    // Prologue: Q (its own group), then the first NST - 1 K/V tiles.
    fa2_load_tile<BM, HD, THREADS>(s_q, smem, q + (long long)q0 * dim, seq - q0, dim, vec, tid);
    fa_cp_async_commit();
#pragma unroll
    for (int st = 0; st < NST - 1; ++st) {
        if (st < n_tiles) load_kv(st, st);
        fa_cp_async_commit();
    }
    fa_cp_async_wait<NST - 1>();  // Q has landed (the NST - 1 younger groups may be in flight)
    fa_bar<THREADS>();

    // The warp's Q fragments, for the whole key loop (or re-read per tile, Fa2QInRegisters).
    constexpr bool kQRegs = Fa2QInRegisters<HD, kMT>::value;
    const unsigned q_warp = s_q + wrow * L::kLd * 2;
    unsigned qf[kQRegs ? kMT : 1][HD / 16][4];
    if constexpr (kQRegs)
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
            for (int kc = 0; kc < HD / 16; ++kc) fa2_load_q<HD>(q_warp, lane, mt, kc, qf[mt][kc]);
    float o[kMT][HD / 8][4];
    float m[kMT][2], l[kMT][2];
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
        for (int j = 0; j < HD / 8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) o[mt][j][e] = 0.f;
        m[mt][0] = m[mt][1] = AK_NEG_INF;
        l[mt][0] = l[mt][1] = 0.f;
    }

    for (int t = 0; t < n_tiles; ++t) {
        int buf;
        if constexpr (NST == 1) {
            fa_bar<THREADS>();  // every warp is done with the previous tile
            load_kv(t, 0);
            fa_cp_async_commit();
            fa_cp_async_wait<0>();
            fa_bar<THREADS>();
            buf = 0;
        } else {
            fa_cp_async_wait<NST - 2>();  // tile t has landed (this thread's part)
            fa_bar<THREADS>();            // everyone's part, and tile t - 1 is no longer read
            const int next = t + NST - 1;
            if (next < n_tiles) load_kv(next, next % NST);  // into the buffer of tile t - 1
            fa_cp_async_commit();
            buf = t % NST;
        }
        const int n0 = t * BN;
        // Warp-uniform: rows past the end, or (causal) a tile entirely after the warp's last row.
        if (row0 >= seq || (causal && n0 > row0 + RPW - 1)) continue;
        const unsigned kt = s_q + L::kQBytes + buf * L::kStageBytes;
        const unsigned vt = kt + L::kTileBytes;
        constexpr int kStep = Fa2StepKeys<HD, kMT, BN>::value;  // keys per online-softmax step
#pragma unroll
        for (int h = 0; h < BN / kStep; ++h) {
            const int n = n0 + h * kStep;
            if (n >= seq || (causal && n > row0 + RPW - 1)) break;  // the rest of the tile is masked for the warp
            const bool mask = n + kStep > seq || (causal && n + kStep - 1 > row0);
            const unsigned offset = h * kStep * L::kLd * 2;
            fa2_tile<HD, kMT, kStep>(kt + offset, vt + offset, q_warp, qf, o, m, l, lane, row0, n, seq, causal, mask,
                                     scale_log2);
        }
    }

    // Epilogue: O / l rounded to ak_t, staged in the warp's own rows of the Q tile (no other warp reads
    // them, and this warp is done with them), then written as 16-byte rows.
    unsigned char* stage = smem + wrow * L::kLd * 2;
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
        float inv[2];
        fa_row_inverse(l[mt], inv);
#pragma unroll
        for (int j = 0; j < HD / 8; ++j)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int rr = 16 * mt + lane / 4 + 8 * r, cc = 8 * j + 2 * (lane % 4);
                *reinterpret_cast<unsigned*>(stage + (rr * L::kLd + cc) * 2) =
                    fa_pack(o[mt][j][2 * r] * inv[r], o[mt][j][2 * r + 1] * inv[r]);
            }
    }
    __syncwarp();
    const bool out_vec = dim % 8 == 0 && fa_aligned16(args.o);
    ak_t* out = args.o + base;
    for (int idx = lane; idx < RPW * (HD / 8); idx += 32) {
        const int rr = idx / (HD / 8), col = idx % (HD / 8) * 8;
        const int qi = row0 + rr;
        if (qi >= seq || col >= dim) continue;
        fa_store_chunk(out + (long long)qi * dim + col, stage + (rr * L::kLd + col) * 2, dim - col, out_vec);
    }
}

#if FLASH_PATH == 2
// ------------------------------------------------------------------------------------- MMA = 2 kernel
// (Written so that an invalid BLOCK_M / NUM_WARPS stops at the static_assert above and nowhere else.)
constexpr int kRowsPerWarp = BLOCK_M / NUM_WARPS == 32 ? 32 : 16;
constexpr int kThreads = BLOCK_M / kRowsPerWarp * 32;  // NUM_WARPS * 32
constexpr int kSmemBytes = Fa2Layout<128, BLOCK_M, BLOCK_N, STAGES>::kBytes;
static_assert(kSmemBytes <= 227 * 1024,
              "MMA=2: the Q tile and STAGES K/V tiles exceed the 227 KB of shared memory a block may use: "
              "lower BLOCK_M, BLOCK_N or STAGES");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_ATTENTION, /* rows_per_block */ 0,
    /* tile_m, tile_n */ BLOCK_M, BLOCK_N,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
    /* dynamic_smem_bytes */ kSmemBytes,
};

extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_flash_attention_args args) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int dim = args.head_dim;
    if (dim <= 0 || dim > 128) return;  // unsupported: leave the output unwritten
    // Causal: the longest query tiles (the last ones) first, so the short ones fill the tail.
    const int q_tile = args.causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x;
    if (dim <= 64)
        fa2_block<64, kRowsPerWarp, kThreads, BLOCK_M, BLOCK_N, STAGES>(args, smem, threadIdx.x, q_tile, blockIdx.y);
    else
        fa2_block<128, kRowsPerWarp, kThreads, BLOCK_M, BLOCK_N, STAGES>(args, smem, threadIdx.x, q_tile, blockIdx.y);
}

#else
// ------------------------------------------------------------------------------------- MMA = 3 kernel
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(__CUDA_ARCH__ < 0, "MMA=3 uses wgmma, TMA and setmaxnreg: it needs an sm_90a target (Hopper)");
#endif
#include <autokernel/hopper.cuh>

constexpr int kConsumers = BLOCK_M / 64;           // consumer warpgroups, 64 query rows each
constexpr int kThreads = 128 * (kConsumers + 1);   // warpgroup 0 is the producer
// Shared memory (from a 1024-byte aligned base; sized for head_dim 128, or 64 under HEAD_DIM = 64: one box
// per tile): Q as two TMA boxes of
// [BLOCK_M][64] (columns 0-63, then 64-127), then STAGES K tiles and STAGES V tiles, each two boxes of
// [BLOCK_N][64]; every box row is 128 bytes, 128-byte swizzled by the TMA (the 16-byte chunk c of row r
// sits at chunk c ^ (r % 8)), which is the wgmma's SWIZZLE_128B layout. Then the mbarriers.
constexpr int kBoxRowBytes = 128;
// HEAD_DIM 64: sized for head_dim 64 only (one box per tile).
constexpr int kSmemHeadDim = HEAD_DIM == 64 ? 64 : 128;
constexpr int kQBytes = BLOCK_M * kSmemHeadDim * 2;
constexpr int kKVBytes = BLOCK_N * kSmemHeadDim * 2;
// PERSISTENT: two Q buffers, item k in buffer k % 2, so the next item's Q loads while this one runs
// (each item's epilogue stages its output in its own Q buffer).
constexpr int kQBuffers = PERSISTENT ? 2 : 1;
constexpr int kOffQ = 0;
constexpr int kOffK = kOffQ + kQBuffers * kQBytes;
constexpr int kOffV = kOffK + STAGES * kKVBytes;
constexpr int kOffBar = kOffV + STAGES * kKVBytes;  // q_full[], k_full[], v_full[], k_empty[], v_empty[], q_empty[]
constexpr int kBarBytes = 8 * (2 * kQBuffers + 4 * STAGES);
// Without tensor maps the consumer warps run the MMA=2 block instead, in 32-key tiles (it runs under the
// entry register cap, without the setmaxnreg share).
constexpr int kFallbackBlockN = 32;
constexpr int kFallbackBytes = Fa2Layout<128, BLOCK_M, kFallbackBlockN, STAGES>::kBytes;
constexpr int kSmemBytes = 1024 + (kOffBar + kBarBytes > kFallbackBytes ? kOffBar + kBarBytes : kFallbackBytes);
static_assert(kSmemBytes <= 227 * 1024,
              "MMA=3: the Q tile and STAGES K/V tiles exceed the 227 KB of shared memory a block may use: "
              "lower BLOCK_M, BLOCK_N or STAGES");
// Registers: the producer gives most of its share to the consumers (setmaxnreg; with one consumer
// warpgroup every thread may use 255 anyway).
constexpr int kProducerRegs = kConsumers == 3 ? 24 : 40;
constexpr int kConsumerRegs = kConsumers == 2 ? 232 : 160;
static_assert(kConsumers == 1 || 128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536,
              "MMA=3: the register split exceeds the register file");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
#if PERSISTENT
    /* grid */ AK_GRID_PERSISTENT, /* rows_per_block */ 0,
    /* tile_m, tile_n */ BLOCK_M, BLOCK_N,
    /* grid_x (blocks per SM), grid_y, grid_z */ 1, 0, 0,
#else
    /* grid */ AK_GRID_ATTENTION, /* rows_per_block */ 0,
    /* tile_m, tile_n */ BLOCK_M, BLOCK_N,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
#endif
    /* dynamic_smem_bytes */ kSmemBytes,
    /* cluster */ 0, 0, 0,
    /* tma_box_rows (Q, K, V) */ {BLOCK_M, BLOCK_N, BLOCK_N},
    /* tma_box_cols */ {64, 64, 64},
    /* tma_swizzle */ AK_SWIZZLE_128B,
};

// ---- mbarrier, TMA, wgmma: autokernel/hopper.cuh; the wgmma forms this kernel uses ---------------------

template <int V>
struct fa_int {  // a compile-time int as a value (the head_dim of a generic lambda)
    static constexpr int value = V;
};

// Calls f(fa_int<64>) or f(fa_int<128>): the head_dim path HEAD_DIM builds, or with HEAD_DIM=0 the one
// `dim` needs (both compiled). The choice stays outside f's loops: a loop around both paths made ptxas
// serialize the wgmmas.
template <class F>
__device__ __forceinline__ void fa_with_head_dim(int dim, F&& f) {
    if constexpr (HEAD_DIM == 0) {
        if (dim <= 64)
            f(fa_int<64>{});
        else
            f(fa_int<128>{});
    } else {
        f(fa_int<HEAD_DIM == 0 ? 128 : HEAD_DIM>{});  // (the kernel is no template: both branches compile)
    }
}


// wgmma.mma_async m64nNk16, f32 accumulators (m64nN layout: warp w of the warpgroup holds rows 16w ..
// 16w + 15 as in fa_mask), A and B from shared memory (K-major, no transpose), D = A B (ScaleD 0) or
// D += A B (1). Operand lists written out per N; n64 and n128 are hopper.cuh's ak_wgmma_ss_n64/n128.
template <int ScaleD>
__device__ __forceinline__ void fa_wgmma_ss_n32(float (&d)[4][4], unsigned long long a, unsigned long long b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32." FA_MMA_TYPE "." FA_MMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, %16, %17, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3])
        : "l"(a), "l"(b), "r"(ScaleD));
}



__device__ __forceinline__ void fa_wgmma_rs_n64(float (&d)[8][4], const unsigned (&a)[4], unsigned long long b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." FA_MMA_TYPE "." FA_MMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
          "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
          "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}

__device__ __forceinline__ void fa_wgmma_rs_n128(float (&d)[16][4], const unsigned (&a)[4], unsigned long long b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." FA_MMA_TYPE "." FA_MMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
          "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
          "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
          "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
          "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
          "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
          "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}

template <int ScaleD, int NB>
__device__ __forceinline__ void fa_wgmma_ss(float (&d)[NB][4], unsigned long long a, unsigned long long b) {
    if constexpr (NB == 4)
        fa_wgmma_ss_n32<ScaleD>(d, a, b);
    else if constexpr (NB == 8)
        ak_wgmma_ss_n64<0>(d, a, b, ScaleD);  // hopper.cuh
    else {
        static_assert(NB == 16, "wgmma S tile: BLOCK_N must be 32, 64 or 128");
        ak_wgmma_ss_n128<0>(d, a, b, ScaleD);  // hopper.cuh
    }
}

// ---- producer: one thread issues every TMA load of the block -------------------------------------------
// Barriers (8 bytes each from kOffBar): per Q buffer Q landed; per stage K landed, V landed, K released,
// V released; per Q buffer Q's region released (PERSISTENT: the consumers' epilogue is done with it).
// K and V have their own "released" barriers: a consumer is done with K(t) as soon as S(t) is computed,
// long before P V(t) has read V(t), so K(t + STAGES) is fetched while tile t is still in use. K runs one
// tile ahead of V: K(t + 1) is requested before V(t).
__device__ __forceinline__ unsigned fa3_bar_q_full(unsigned sbase, int k) { return sbase + kOffBar + 8 * (k % kQBuffers); }
__device__ __forceinline__ unsigned fa3_bar_k_full(unsigned sbase, int t) { return sbase + kOffBar + 8 * (kQBuffers + t % STAGES); }
__device__ __forceinline__ unsigned fa3_bar_v_full(unsigned sbase, int t) { return sbase + kOffBar + 8 * (kQBuffers + STAGES + t % STAGES); }
__device__ __forceinline__ unsigned fa3_bar_k_empty(unsigned sbase, int t) { return sbase + kOffBar + 8 * (kQBuffers + 2 * STAGES + t % STAGES); }
__device__ __forceinline__ unsigned fa3_bar_v_empty(unsigned sbase, int t) { return sbase + kOffBar + 8 * (kQBuffers + 3 * STAGES + t % STAGES); }
__device__ __forceinline__ unsigned fa3_bar_q_empty(unsigned sbase, int k) { return sbase + kOffBar + 8 * (kQBuffers + 4 * STAGES + k % kQBuffers); }
// The byte offset of item k's Q buffer.
__device__ __forceinline__ int fa3_q_offset(int k) { return kOffQ + k % kQBuffers * kQBytes; }

// One work item (a query tile of one batch * head): K(0) first, then Q once the consumers are done with
// the item's Q buffer (the epilogue of item - kQBuffers staged its output there; PERSISTENT), then
// K(t + 1) and V(t). `base`: the ring index of the item's first tile (the ring's stages and phases run on across items).
template <int HD>
__device__ __forceinline__ void fa3_producer(const ak_flash_attention_args& args, unsigned sbase, int q0, int bh,
                                             int n_tiles, int base, int item) {
    constexpr int kBoxes = HD / 64;
    const int seq = args.seq;
    // Tile t of K (which = 0, map 1) or V (which = 1, map 2) into its stage, once the stage's previous tile
    // (g - STAGES) has been released by every consumer warp.
    auto load = [&](int t, int which) {
        const int g = base + t;
        const unsigned full = which == 0 ? fa3_bar_k_full(sbase, g) : fa3_bar_v_full(sbase, g);
        const unsigned empty = which == 0 ? fa3_bar_k_empty(sbase, g) : fa3_bar_v_empty(sbase, g);
        if (g >= STAGES) ak_mbar_wait(empty, (g / STAGES - 1) & 1);
        const unsigned dst = sbase + (which == 0 ? kOffK : kOffV) + g % STAGES * kKVBytes;
        ak_mbar_expect_tx(full, kBoxes * BLOCK_N * kBoxRowBytes);
#pragma unroll
        for (int b = 0; b < kBoxes; ++b)
            ak_tma_load_2d(dst + b * BLOCK_N * kBoxRowBytes, &args.tma[1 + which], 64 * b, bh * seq + t * BLOCK_N, full);
    };
    load(0, 0);
    // The buffer's previous item (item - kQBuffers) must be done with it.
    if (item >= kQBuffers) ak_mbar_wait(fa3_bar_q_empty(sbase, item), unsigned(item / kQBuffers - 1) & 1u);
    const unsigned bar_q = fa3_bar_q_full(sbase, item);
    ak_mbar_expect_tx(bar_q, kBoxes * BLOCK_M * kBoxRowBytes);
#pragma unroll
    for (int b = 0; b < kBoxes; ++b)
        ak_tma_load_2d(sbase + fa3_q_offset(item) + b * BLOCK_M * kBoxRowBytes, &args.tma[0], 64 * b, bh * seq + q0, bar_q);
    for (int t = 0; t < n_tiles; ++t) {
        if (t + 1 < n_tiles) load(t + 1, 0);
        load(t, 1);
    }
}

// ---- consumer: one warpgroup, 64 query rows ---------------------------------------------------------------
// OVERLAP = 0: per tile S = Q K^T, wait, softmax, O += P V, wait. OVERLAP = 1 (intra-warpgroup pipelining):
// S of tile t + 1 is issued before P V of tile t, and its softmax runs on the CUDA cores while the
// tensor cores do that P V; the rescale of O by the new max waits for P V to finish.
// PINGPONG = 1 (inter-warpgroup scheduling): the consumer warpgroups take turns on the tensor cores. A
// warpgroup issues its wgmmas of a round (OVERLAP = 0: P V(t) and S(t + 1) together; OVERLAP = 1: S(t + 1)
// and P V(t)) only when the previous warpgroup has issued its own (named barrier 2 + wg, 256 threads: the
// 128 waiting and the 128 of the warpgroup before it, which arrives), so one warpgroup's softmax runs
// while the other's matrix products do. Every warpgroup then runs all n_tiles tiles (a tile entirely
// masked for its rows gives p = 0), so all take the same number of turns; warpgroup 0 takes the last token.
template <int HD>
__device__ __forceinline__ void fa3_consumer(const ak_flash_attention_args& args, unsigned char* smem, unsigned sbase,
                                             int wg, int t128, int q0, int bh, int n_tiles, int base, int q_off) {
    constexpr int kBoxes = HD / 64;
    constexpr int kNB = BLOCK_N / 8;
    constexpr bool kLazy = LAZY_RESCALE == 1;
    const int seq = args.seq, dim = args.head_dim;
    const bool causal = args.causal != 0;
    const int warp = t128 / 32, lane = t128 % 32;
    const int wg_row0 = q0 + 64 * wg;                   // the warpgroup's first query
    const int my_row = wg_row0 + 16 * warp + lane / 4;  // this lane's rows: my_row and my_row + 8
    const float scale_log2 = args.scale * kLog2e;
    const unsigned q_rows = sbase + q_off + 64 * wg * kBoxRowBytes;  // this warpgroup's rows of box 0
    // Tiles with a key this warpgroup sees (causal: the keys up to its last row); the rest (a suffix) is
    // only waited for and released. Warpgroup-uniform, as every wgmma must be. PINGPONG: all of them.
    int n_mine = n_tiles;
    if constexpr (PINGPONG == 0) {
        if (wg_row0 >= seq) n_mine = 0;
        if (causal && n_mine > 0) n_mine = min(n_tiles, (wg_row0 + 63) / BLOCK_N + 1);
    }

    float o[8 * kBoxes][4];
#pragma unroll
    for (int j = 0; j < 8 * kBoxes; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[j][e] = 0.f;
    float m[2] = {AK_NEG_INF, AK_NEG_INF}, l[2] = {0.f, 0.f};
    float s[kNB][4];
    unsigned p[kNB / 2][4];

    // Tile t of this block's work is tile base + t of the ring (PERSISTENT: the ring runs on across work).
    auto wait_k = [&](int t) { ak_mbar_wait(fa3_bar_k_full(sbase, base + t), unsigned((base + t) / STAGES) & 1u); };
    auto wait_v = [&](int t) { ak_mbar_wait(fa3_bar_v_full(sbase, base + t), unsigned((base + t) / STAGES) & 1u); };
    // Every wgmma of this warp that read the buffer has completed.
    auto release_k = [&](int t) {
        __syncwarp();
        if (lane == 0) ak_mbar_arrive(fa3_bar_k_empty(sbase, base + t));
    };
    auto release_v = [&](int t) {
        __syncwarp();
        if (lane == 0) ak_mbar_arrive(fa3_bar_v_empty(sbase, base + t));
    };
    // The pingpong turn: wait for this warpgroup's token, pass it on to the next one.
    auto turn_wait = [&]() {
        if constexpr (PINGPONG == 1) asm volatile("bar.sync %0, 256;\n" ::"r"(2 + wg) : "memory");
    };
    auto turn_pass = [&]() {
        if constexpr (PINGPONG == 1) asm volatile("bar.arrive %0, 256;\n" ::"r"(2 + (wg + 1) % kConsumers) : "memory");
    };
    // S = Q K^T of tile t into s (K landed): HD / 16 steps of 16 columns (32 bytes within a 128-byte box
    // row). Committed.
    auto issue_s = [&](int t) {
        const unsigned k_tile = sbase + kOffK + (base + t) % STAGES * kKVBytes;
        ak_fence_regs(s);
        ak_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < HD / 16; ++kk) {
            const unsigned long long a = ak_wgmma_desc(q_rows + kk / 4 * BLOCK_M * kBoxRowBytes + kk % 4 * 32, 16, 1024);
            const unsigned long long b = ak_wgmma_desc(k_tile + kk / 4 * BLOCK_N * kBoxRowBytes + kk % 4 * 32, 16, 1024);
            if (kk == 0)
                fa_wgmma_ss<0>(s, a, b);
            else
                fa_wgmma_ss<1>(s, a, b);
        }
        ak_wgmma_commit();
    };
    // O += P V of tile t (V landed): P from registers, V (keys x 64 columns per box, N-major) from shared
    // memory; 16 keys = 2 groups of 8 rows = 2048 bytes per step. Committed.
    auto issue_pv = [&](int t) {
        ak_fence_regs(o);
        ak_fence_regs(p);
        const unsigned v_tile = sbase + kOffV + (base + t) % STAGES * kKVBytes;
        ak_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BLOCK_N / 16; ++kk) {
            // MN-major B: the leading offset is the distance between the 64-column boxes.
            const unsigned long long b = ak_wgmma_desc(v_tile + kk * 16 * kBoxRowBytes, BLOCK_N * kBoxRowBytes, 1024);
            if constexpr (kBoxes == 1)
                fa_wgmma_rs_n64(o, p[kk], b);
            else
                fa_wgmma_rs_n128(o, p[kk], b);  // both boxes: all 128 output columns in one wgmma
        }
        ak_wgmma_commit();
    };
    auto mask = [&](int t) {
        const int n0 = t * BLOCK_N;
        if (n0 + BLOCK_N > seq || (causal && n0 + BLOCK_N - 1 > wg_row0)) fa_mask(s, lane, my_row, n0, seq, causal);
    };

    if constexpr (OVERLAP == 0 && PINGPONG == 0) {
        for (int t = 0; t < n_mine; ++t) {
            wait_k(t);
            issue_s(t);
            ak_wgmma_wait<0>();
            ak_fence_regs(s);
            release_k(t);
            mask(t);
            fa_softmax_step<kNB, 8 * kBoxes, kLazy>(s, o, m, l, scale_log2);
            fa_pack_p(s, p);
            wait_v(t);
            issue_pv(t);
            ak_wgmma_wait<0>();
            ak_fence_regs(o);
            ak_fence_regs(p);
            release_v(t);
        }
    } else {
        // (No branch inside the loop: ptxas tracks the two wgmma groups in flight only through straight code.)
        if (n_mine > 0) {
            wait_k(0);
            turn_wait();
            issue_s(0);
            turn_pass();
            ak_wgmma_wait<0>();
            ak_fence_regs(s);
            release_k(0);
            mask(0);
            fa_softmax_step<kNB, 8 * kBoxes, kLazy>(s, o, m, l, scale_log2);
            fa_pack_p(s, p);
            for (int t = 0; t + 1 < n_mine; ++t) {
                wait_k(t + 1);
                wait_v(t);
                if constexpr (OVERLAP == 1) {
                    turn_wait();
                    issue_s(t + 1);  // s was packed into p: free for the next tile
                    issue_pv(t);
                    turn_pass();
                    ak_wgmma_wait<1>();  // S of tile t + 1 is done; P V of tile t may still run
                    ak_fence_regs(s);
                    release_k(t + 1);
                    mask(t + 1);
                    float alpha[2];
                    fa_softmax_stats<kNB, kLazy>(s, m, l, alpha, scale_log2);
                    ak_wgmma_wait<0>();
                    ak_fence_regs(o);
                    ak_fence_regs(p);
                    release_v(t);
                    fa_rescale_if<8 * kBoxes, kLazy>(o, alpha);
                    fa_pack_p(s, p);
                } else {
                    // One turn issues P V(t) and S(t + 1); the softmax of t + 1 runs during the other
                    // warpgroup's turn.
                    turn_wait();
                    issue_pv(t);
                    issue_s(t + 1);
                    turn_pass();
                    ak_wgmma_wait<1>();  // P V of tile t is done
                    ak_fence_regs(o);
                    ak_fence_regs(p);
                    release_v(t);
                    ak_wgmma_wait<0>();
                    ak_fence_regs(s);
                    release_k(t + 1);
                    mask(t + 1);
                    fa_softmax_step<kNB, 8 * kBoxes, kLazy>(s, o, m, l, scale_log2);
                    fa_pack_p(s, p);
                }
            }
            wait_v(n_mine - 1);
            turn_wait();
            issue_pv(n_mine - 1);
            turn_pass();
            ak_wgmma_wait<0>();
            ak_fence_regs(o);
            ak_fence_regs(p);
            release_v(n_mine - 1);
        }
    }
    for (int t = n_mine; t < n_tiles; ++t) {
        wait_k(t);
        wait_v(t);
        release_k(t);
        release_v(t);
    }

    // Epilogue: O / l rounded to ak_t, staged in this warp's 16 rows of the Q tile (its wgmmas are done
    // with them; same swizzle, so the quad's 4-byte writes and the 16-byte reads avoid bank conflicts),
    // then written as 16-byte rows.
    float inv[2];
    fa_row_inverse(l, inv);
#pragma unroll
    for (int b = 0; b < kBoxes; ++b)
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int rl = 16 * warp + lane / 4 + 8 * r;  // row within the warpgroup
                unsigned char* row = smem + q_off + b * BLOCK_M * kBoxRowBytes + (64 * wg + rl) * kBoxRowBytes;
                *reinterpret_cast<unsigned*>(row + (j ^ (rl % 8)) * 16 + lane % 4 * 4) =
                    fa_pack(o[8 * b + j][2 * r] * inv[r], o[8 * b + j][2 * r + 1] * inv[r]);
            }
    __syncwarp();
    const bool out_vec = dim % 8 == 0 && fa_aligned16(args.o);
    ak_t* out = args.o + (long long)bh * seq * dim;
    for (int idx = lane; idx < 16 * (HD / 8); idx += 32) {
        const int rl = 16 * warp + idx / (HD / 8), c = idx % (HD / 8), col = 8 * c;
        const int qi = wg_row0 + rl;
        if (qi >= seq || col >= dim) continue;
        const unsigned char* src =
            smem + q_off + c / 8 * BLOCK_M * kBoxRowBytes + (64 * wg + rl) * kBoxRowBytes + (c % 8 ^ rl % 8) * 16;
        fa_store_chunk(out + (long long)qi * dim + col, src, dim - col, out_vec);
    }
}

extern "C" __global__ void __launch_bounds__(kThreads, 1) ak_kernel0(const __grid_constant__ ak_flash_attention_args args) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned raw = fa_smem_addr(smem_raw);
    const unsigned pad = (1024 - raw % 1024) % 1024;  // swizzle atoms need 1024-byte alignment
    unsigned char* smem = smem_raw + pad;
    const unsigned sbase = raw + pad;
    const int dim = args.head_dim, seq = args.seq;
    if (dim <= 0 || dim > 128) return;  // unsupported: leave the output unwritten
    // Work items (a query tile of one batch * head bh). One per block: w = bh * n_q + r, query tile r
    // (causal: n_q - 1 - r, the longest first, so the short ones fill the tail). PERSISTENT: block c takes
    // in round k the item at position c (k even) or gridDim.x - 1 - c (k odd) of round k; causal items
    // are ordered longest first over all batch * heads (w = r * BH + bh: query tile n_q - 1 - r), so the
    // rounds pair long with short items; non-causal ones as without PERSISTENT (a round's blocks share
    // batch * heads, and so their K and V in L2).
    const int n_q = (seq + BLOCK_M - 1) / BLOCK_M;
    const int n_bh = args.batch * args.heads;
#if PERSISTENT
    const int n_work = n_q * n_bh;
    auto item_of = [&](int k) {  // the block's k-th item, or n_work when it has no more
        const int w = k * (int)gridDim.x + ((k & 1) ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x);
        return w < n_work ? w : n_work;
    };
#endif
    auto decode = [&](int w, int& q0, int& bh, int& n_tiles) {
        int r;
        if (PERSISTENT && args.causal) {
            bh = w % n_bh;
            r = w / n_bh;
        } else {
            bh = w / n_q;
            r = w % n_q;
        }
        q0 = (args.causal ? n_q - 1 - r : r) * BLOCK_M;
        const int kv_end = args.causal ? min(seq, q0 + BLOCK_M) : seq;
        n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;
    };

    if (args.tma[0].opaque[0] == 0 || args.tma[1].opaque[0] == 0 || args.tma[2].opaque[0] == 0 ||
        (HEAD_DIM == 64 && dim > 64)) {
        // No tensor maps (misaligned tensors or a row pitch that is not a multiple of 16 bytes), or a
        // head_dim that HEAD_DIM leaves out: the mma.sync block on the consumer warps, 16 rows per warp,
        // 32-key tiles, compiled for head_dim 128 only (smaller ones are zero-padded); the producer
        // warpgroup has nothing to do.
        if (threadIdx.x < 128) return;
#if PERSISTENT
        for (int k = 0; item_of(k) < n_work; ++k) {
            int q0, bh, n_tiles;
            decode(item_of(k), q0, bh, n_tiles);
            if (k > 0) fa_bar<128 * kConsumers>();  // the previous item is done with shared memory
            fa2_block<128, 16, 128 * kConsumers, BLOCK_M, kFallbackBlockN, STAGES>(args, smem, threadIdx.x - 128, q0 / BLOCK_M, bh);
        }
#else
        int q0, bh, n_tiles;
        decode(blockIdx.y * n_q + blockIdx.x, q0, bh, n_tiles);
        fa2_block<128, 16, 128 * kConsumers, BLOCK_M, kFallbackBlockN, STAGES>(args, smem, threadIdx.x - 128, q0 / BLOCK_M, bh);
#endif
        return;
    }

    if (threadIdx.x == 0) {
        for (int k = 0; k < kQBuffers; ++k) {
            ak_mbar_init(fa3_bar_q_full(sbase, k), 1);                 // Q landed
            ak_mbar_init(fa3_bar_q_empty(sbase, k), 4 * kConsumers);  // Q's buffer released
        }
        for (int st = 0; st < STAGES; ++st) {
            ak_mbar_init(fa3_bar_k_full(sbase, st), 1);                 // K landed
            ak_mbar_init(fa3_bar_v_full(sbase, st), 1);                 // V landed
            ak_mbar_init(fa3_bar_k_empty(sbase, st), 4 * kConsumers);  // K released, one arrival per warp
            ak_mbar_init(fa3_bar_v_empty(sbase, st), 4 * kConsumers);  // V released
        }
        ak_mbar_init_fence();  // visible to the TMA unit
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        // Producer warpgroup.
        if constexpr (kConsumers > 1) ak_setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0) {
            // The head_dim is chosen outside the loop over work items: each loop has one wgmma path.
            auto loop = [&](auto hd) {
                constexpr int HD = decltype(hd)::value;
                auto run = [&](int w, int base, int item) {  // -> the item's tile count
                    int q0, bh, n_tiles;
                    decode(w, q0, bh, n_tiles);
                    fa3_producer<HD>(args, sbase, q0, bh, n_tiles, base, item);
                    return n_tiles;
                };
#if PERSISTENT
                for (int k = 0, base = 0; item_of(k) < n_work; ++k) base += run(item_of(k), base, k);
#else
                run(blockIdx.y * n_q + blockIdx.x, 0, 0);
#endif
            };
            fa_with_head_dim(dim, loop);
        }
    } else {
        // Consumer warpgroups.
        if constexpr (kConsumers > 1) ak_setmaxnreg_inc<kConsumerRegs>();
        const int wg = threadIdx.x / 128 - 1, t128 = threadIdx.x % 128;
        // PINGPONG: the first token goes to warpgroup 0; the turns then run on across the work items
        // (every warpgroup takes n_tiles + 1 turns per item), and warpgroup 0 takes the last token.
        if constexpr (PINGPONG == 1)
            if (wg == kConsumers - 1) asm volatile("bar.arrive 2, 256;\n" ::: "memory");
        auto loop = [&](auto hd) {
            constexpr int HD = decltype(hd)::value;
            auto run = [&](int w, int base, int item) {  // -> the item's tile count
                int q0, bh, n_tiles;
                decode(w, q0, bh, n_tiles);
                ak_mbar_wait(fa3_bar_q_full(sbase, item), unsigned(item / kQBuffers) & 1u);  // Q
                fa3_consumer<HD>(args, smem, sbase, wg, t128, q0, bh, n_tiles, base, fa3_q_offset(item));
                return n_tiles;
            };
#if PERSISTENT
            for (int k = 0, base = 0; item_of(k) < n_work; ++k) {
                base += run(item_of(k), base, k);
                // The epilogue's shared-memory writes and reads are done before the next Q lands there.
                ak_fence_proxy_async();
                __syncwarp();
                if (t128 % 32 == 0) ak_mbar_arrive(fa3_bar_q_empty(sbase, k));
            }
#else
            run(blockIdx.y * n_q + blockIdx.x, 0, 0);
#endif
        };
        fa_with_head_dim(dim, loop);
        if constexpr (PINGPONG == 1)
            if (wg == 0) asm volatile("bar.sync 2, 256;\n" ::: "memory");
    }
}
#endif  // FLASH_PATH == 2 / 3
#endif  // FLASH_PATH <= 1 / >= 2
