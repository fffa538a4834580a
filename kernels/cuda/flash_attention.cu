// Flash-attention starter: o = softmax(q k^T * scale [+ causal mask]) v, [batch, heads, seq, head_dim].
//
// One block per (tile of BLOCK_M queries, batch * head) (AK_GRID_ATTENTION). The block keeps its
// queries in shared memory and walks the keys in tiles of BLOCK_N rows of K and V, staged in shared
// memory. Online softmax as in FlashAttention: per query row a running max m, a running sum l and fp32
// output accumulators, rescaled by exp(m_old - m_new) whenever the max grows; the output is divided by
// l once at the end. Causal: key j is masked for query i when j > i, and key tiles entirely after the
// query tile are skipped. Masked scores are -inf; a row whose keys are all masked so far keeps
// m = -inf without NaN (exp is taken against 0 then), and a row with l = 0 at the end writes 0.
// Each row's running state lives in shared memory between key tiles. Everything runs in a fixed order.
//
// Two variants:
//   USE_WMMA = 0  plain fp32 FMAs (every dtype), K/V staged as fp32. NUM_WARPS warps, each owning
//                 BLOCK_M / NUM_WARPS query rows, one row at a time: lane j computes the scores of keys
//                 j, j + 32, ... and accumulates output dimensions j, j + 32, ...
//   USE_WMMA = 1  fp16/bf16 only (fp32 data ignores it): tensor cores through nvcuda::wmma. Q, K, V
//                 stay in ak_t; a warp takes 16 query rows at a time, computes S = Q K^T with fp32
//                 accumulators, does the softmax step on S in a per-warp fp32 scratch, rounds the
//                 probabilities P to ak_t (as FlashAttention does) and computes P V with fp32
//                 accumulators, which it adds into the fp32 output rows.
//
// head_dim: any value up to MAX_HEAD_DIM (64 and 128 are the ones tested); a larger head_dim leaves
// the output unwritten, so the harness reports NaN (FAIL) rather than a wrong number.
// Dynamic shared memory (kSmemBytes below): 97 KB (FMA) or 106 KB (WMMA) with the defaults, so the
// launcher raises the 48 KB limit (cuFuncSetAttribute). Some tunable combinations exceed 227 KB and
// are rejected by a static_assert.
//
// @autokernel type flash_attention
// @autokernel tunable BLOCK_M = 64 {16, 32, 64, 128} tier 1 -- query rows per block
// @autokernel tunable BLOCK_N = 32 {32, 64} tier 1 -- key/value rows per shared-memory tile
// @autokernel tunable NUM_WARPS = 4 {1, 2, 4, 8, 16} tier 1 -- warps per block (query rows are shared out among them)
// @autokernel tunable USE_WMMA = 0 {0, 1} tier 3 -- tensor cores via nvcuda::wmma (fp16/bf16; fp32 ignores it)
// @autokernel tunable MAX_HEAD_DIM = 128 {64, 128} tier 4 -- largest head_dim the kernel handles (sizes shared memory)
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
#ifndef USE_WMMA
#define USE_WMMA 0
#endif
#ifndef MAX_HEAD_DIM
#define MAX_HEAD_DIM 128
#endif

#if USE_WMMA && !defined(AK_DTYPE_FP32)
#define FLASH_WMMA 1
#else
#define FLASH_WMMA 0
#endif

constexpr int kThreads = NUM_WARPS * 32;
static_assert(BLOCK_N % 32 == 0, "BLOCK_N must be a multiple of 32");
static_assert(MAX_HEAD_DIM % 32 == 0, "MAX_HEAD_DIM must be a multiple of 32");

#if !FLASH_WMMA
constexpr int kRowsPerWarp = BLOCK_M / NUM_WARPS;
constexpr int kKeysPerLane = BLOCK_N / 32;
constexpr int kDimsPerLane = MAX_HEAD_DIM / 32;
constexpr int kLdK = MAX_HEAD_DIM + 1;  // padding: lanes reading different keys hit different banks
// Q and the output accumulators [BLOCK_M][MAX_HEAD_DIM], K [BLOCK_N][kLdK], V [BLOCK_N][MAX_HEAD_DIM],
// running max and sum [BLOCK_M], all fp32.
constexpr int kSmemBytes = 4 * (2 * BLOCK_M * MAX_HEAD_DIM + BLOCK_N * kLdK + BLOCK_N * MAX_HEAD_DIM + 2 * BLOCK_M);
static_assert(BLOCK_M % NUM_WARPS == 0, "BLOCK_M must be a multiple of NUM_WARPS");
#else
#include <mma.h>
using namespace nvcuda;
constexpr int kGroups = BLOCK_M / 16;  // 16-row query groups, shared out among the warps
constexpr int kLdT = MAX_HEAD_DIM + 8;  // Q, K, V tiles in ak_t, [rows][kLdT]
constexpr int kLdS = (BLOCK_N > MAX_HEAD_DIM ? BLOCK_N : MAX_HEAD_DIM) + 4;  // per-warp fp32 scratch [16][kLdS]
constexpr int kLdP = BLOCK_N + 8;       // per-warp probabilities in ak_t [16][kLdP]
constexpr int kLdO = MAX_HEAD_DIM + 4;  // output accumulators, fp32 [BLOCK_M][kLdO]
// Byte offsets of the regions, each 128-byte aligned (wmma needs 32-byte aligned fragment pointers;
// the leading dimensions above keep every fragment's start 32-byte aligned within a region).
#define round128(bytes) ((int)(((bytes) + 127) / 128 * 128))
constexpr int kOffQ = 0;
constexpr int kOffK = kOffQ + round128((long)BLOCK_M * kLdT * sizeof(ak_t));
constexpr int kOffV = kOffK + round128((long)BLOCK_N * kLdT * sizeof(ak_t));
constexpr int kOffO = kOffV + round128((long)BLOCK_N * kLdT * sizeof(ak_t));
constexpr int kOffScratch = kOffO + round128((long)BLOCK_M * kLdO * 4);
constexpr int kOffP = kOffScratch + round128((long)NUM_WARPS * 16 * kLdS * 4);
constexpr int kOffStats = kOffP + round128((long)NUM_WARPS * 16 * kLdP * sizeof(ak_t));
constexpr int kSmemBytes = kOffStats + round128(3L * BLOCK_M * 4);  // running max, sum, rescale per row
static_assert(BLOCK_M % 16 == 0, "WMMA path: BLOCK_M must be a multiple of 16");
#endif
static_assert(kSmemBytes <= 227 * 1024, "tiles exceed the 227 KB of shared memory a block may use");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_ATTENTION, /* rows_per_block */ 0,
    /* tile_m, tile_n */ BLOCK_M, BLOCK_N,
    /* grid_x, grid_y, grid_z */ 0, 0, 0,
    /* dynamic_smem_bytes */ kSmemBytes,
};

#if !FLASH_WMMA
// ------------------------------------------------------------------------------------- FMA path
extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_flash_attention_args args) {
    extern __shared__ float smem[];
    float* q_tile = smem;                             // [BLOCK_M][MAX_HEAD_DIM]
    float* acc_tile = q_tile + BLOCK_M * MAX_HEAD_DIM;  // [BLOCK_M][MAX_HEAD_DIM] output accumulators
    float* k_tile = acc_tile + BLOCK_M * MAX_HEAD_DIM;  // [BLOCK_N][kLdK]
    float* v_tile = k_tile + BLOCK_N * kLdK;          // [BLOCK_N][MAX_HEAD_DIM]
    float* row_max = v_tile + BLOCK_N * MAX_HEAD_DIM; // [BLOCK_M] running max (m)
    float* row_sum = row_max + BLOCK_M;               // [BLOCK_M] running sum (l)

    const int seq = args.seq, dim = args.head_dim;
    if (dim <= 0 || dim > MAX_HEAD_DIM) return;  // unsupported: leave the output unwritten
    const int q0 = blockIdx.x * BLOCK_M;
    const long long base = (long long)blockIdx.y * seq * dim;  // this (batch, head)
    const ak_t* q = args.q + base;
    const ak_t* k = args.k + base;
    const ak_t* v = args.v + base;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

    for (int idx = tid; idx < BLOCK_M * MAX_HEAD_DIM; idx += kThreads) {
        const int r = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
        const bool valid = q0 + r < seq && d < dim;
        q_tile[idx] = valid ? ak_to_float(q[(long long)(q0 + r) * dim + d]) : 0.f;
        acc_tile[idx] = 0.f;
    }
    for (int r = tid; r < BLOCK_M; r += kThreads) {
        row_max[r] = AK_NEG_INF;
        row_sum[r] = 0.f;
    }

    const int kv_end = args.causal ? min(seq, q0 + BLOCK_M) : seq;
    for (int n0 = 0; n0 < kv_end; n0 += BLOCK_N) {
        __syncthreads();  // the previous tile is no longer read (and, the first time, Q is staged)
        for (int idx = tid; idx < BLOCK_N * MAX_HEAD_DIM; idx += kThreads) {
            const int n = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
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

            const float* q_row = q_tile + r * MAX_HEAD_DIM;
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
            float* acc_row = acc_tile + r * MAX_HEAD_DIM;
#pragma unroll
            for (int j = 0; j < kDimsPerLane; ++j) acc[j] = acc_row[lane + 32 * j] * rescale;
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
#pragma unroll
                for (int src = 0; src < 32; ++src) {  // key n = 32 t + src, its p held by lane src
                    const float pn = __shfl_sync(0xffffffffu, p[t], src);
                    const float* v_row = v_tile + (32 * t + src) * MAX_HEAD_DIM;
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

    for (int idx = tid; idx < BLOCK_M * MAX_HEAD_DIM; idx += kThreads) {
        const int r = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
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
    ak_t* q_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffQ);  // [BLOCK_M][kLdT]
    ak_t* k_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffK);  // [BLOCK_N][kLdT]
    ak_t* v_tile = reinterpret_cast<ak_t*>(smem_bytes + kOffV);  // [BLOCK_N][kLdT]
    float* o_tile = reinterpret_cast<float*>(smem_bytes + kOffO);  // [BLOCK_M][kLdO]
    float* row_max = reinterpret_cast<float*>(smem_bytes + kOffStats);  // [BLOCK_M]
    float* row_sum = row_max + BLOCK_M;                                 // [BLOCK_M]
    float* row_rescale = row_sum + BLOCK_M;                             // [BLOCK_M], of the last tile

    const int seq = args.seq, dim = args.head_dim;
    if (dim <= 0 || dim > MAX_HEAD_DIM) return;  // unsupported: leave the output unwritten
    const int q0 = blockIdx.x * BLOCK_M;
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

    for (int idx = tid; idx < BLOCK_M * MAX_HEAD_DIM; idx += kThreads) {
        const int r = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
        const bool valid = q0 + r < seq && d < dim;
        q_tile[r * kLdT + d] = valid ? q[(long long)(q0 + r) * dim + d] : zero;
        o_tile[r * kLdO + d] = 0.f;
    }
    for (int r = tid; r < BLOCK_M; r += kThreads) {
        row_max[r] = AK_NEG_INF;
        row_sum[r] = 0.f;
    }

    const int kv_end = args.causal ? min(seq, q0 + BLOCK_M) : seq;
    for (int n0 = 0; n0 < kv_end; n0 += BLOCK_N) {
        __syncthreads();  // the previous tile is no longer read (and, the first time, Q is staged)
        for (int idx = tid; idx < BLOCK_N * MAX_HEAD_DIM; idx += kThreads) {
            const int n = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
            const bool valid = n0 + n < seq && d < dim;  // zeros elsewhere: 0 * p never makes NaN
            const long long at = (long long)(n0 + n) * dim + d;
            k_tile[n * kLdT + d] = valid ? k[at] : zero;
            v_tile[n * kLdT + d] = valid ? v[at] : zero;
        }
        __syncthreads();

        for (int group = warp; group < kGroups; group += NUM_WARPS) {
            const int r0 = group * 16;  // first row of the group within the block's query tile
            // Warp-uniform skips: groups past the end, and causal groups that see no key of this tile.
            if (q0 + r0 >= seq || (args.causal && n0 > q0 + r0 + 15)) continue;

            // S = Q K^T (16 x BLOCK_N) into the scratch, fp32 accumulators.
            for (int nf = 0; nf < BLOCK_N / 16; ++nf) {
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
                constexpr int kHalf = BLOCK_N / 2;
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
                for (int kf = 0; kf < BLOCK_N / 16; ++kf) {
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

    for (int idx = tid; idx < BLOCK_M * MAX_HEAD_DIM; idx += kThreads) {
        const int r = idx / MAX_HEAD_DIM, d = idx % MAX_HEAD_DIM;
        const int qi = q0 + r;
        if (qi >= seq || d >= dim) continue;
        const float l = row_sum[r];
        const float inv = l > 0.f ? 1.0f / l : 0.f;  // a fully masked row writes 0
        args.o[base + (long long)qi * dim + d] = ak_from_float(o_tile[r * kLdO + d] * inv);
    }
}
#endif
