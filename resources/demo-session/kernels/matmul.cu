// Matmul starter: C[m, n] = A[m, k] @ B[k, n], row-major, fp32 accumulation.
//
// One block per BLOCK_M x BLOCK_N tile of C (AK_GRID_TILES). Each step stages a BLOCK_M x BLOCK_K slice
// of A and a BLOCK_K x BLOCK_N slice of B in shared memory (zero-filled past the matrix edges, so any
// m, n, k work) and accumulates in fp32. Two variants:
//   USE_WMMA = 0  FMA path: every thread computes THREAD_M x THREAD_N outputs with fp32 FMAs. fp32 data
//                 always takes this path: no TF32, so fp32 results meet an fp32 tolerance.
//   USE_WMMA = 1  fp16/bf16 only: tensor cores through nvcuda::wmma 16x16x16 fragments with fp32
//                 accumulators; each warp computes a WARP_M x WARP_N sub-tile. Accumulators go through
//                 shared memory so the edge tiles can be written with bounds checks.
// Every output element is computed by exactly one thread, summing over k in a fixed order.
//
// @autokernel type matmul
// @autokernel tunable BLOCK_M = 128 {32, 64, 128} tier 1 -- rows of C per block
// @autokernel tunable BLOCK_N = 128 {32, 64, 128} tier 1 -- columns of C per block
// @autokernel tunable BLOCK_K = 32 {16, 32, 64} tier 1 -- k-slice staged in shared memory per step
// @autokernel tunable THREAD_M = 8 {2, 4, 8} tier 2 -- FMA path: rows of C per thread
// @autokernel tunable THREAD_N = 4 {2, 4, 8} tier 2 -- FMA path: columns of C per thread
// @autokernel tunable USE_WMMA = 1 {0, 1} tier 3 -- tensor cores via nvcuda::wmma (fp16/bf16; fp32 ignores it)
// @autokernel tunable WARP_M = 32 {16, 32, 64} tier 3 -- WMMA path: rows of C per warp
// @autokernel tunable WARP_N = 32 {16, 32, 64} tier 3 -- WMMA path: columns of C per warp
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
#ifndef USE_WMMA
#define USE_WMMA 0
#endif
#ifndef WARP_M
#define WARP_M 32
#endif
#ifndef WARP_N
#define WARP_N 32
#endif

#if USE_WMMA && !defined(AK_DTYPE_FP32)
#define MATMUL_WMMA 1
#include <mma.h>
constexpr int kThreads = (BLOCK_M / WARP_M) * (BLOCK_N / WARP_N) * 32;
static_assert(BLOCK_M % WARP_M == 0 && BLOCK_N % WARP_N == 0, "BLOCK_M/N must be multiples of WARP_M/N");
static_assert(WARP_M % 16 == 0 && WARP_N % 16 == 0 && BLOCK_K % 16 == 0, "WMMA fragments are 16x16x16");
#else
#define MATMUL_WMMA 0
constexpr int kThreads = (BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N);
static_assert(BLOCK_M % THREAD_M == 0 && BLOCK_N % THREAD_N == 0, "BLOCK_M/N must be multiples of THREAD_M/N");
#endif
static_assert(kThreads >= 32 && kThreads <= 1024, "threads per block must be within 32..1024");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ kThreads, 1, 1,
    /* grid */ AK_GRID_TILES, /* rows_per_block */ 0,
    /* tile_m, tile_n */ BLOCK_M, BLOCK_N,
};

#if !MATMUL_WMMA
// ------------------------------------------------------------------------------------- FMA path
// Thread (ty, tx) owns rows ty + i * (BLOCK_M / THREAD_M) and columns tx + j * (BLOCK_N / THREAD_N) of the
// tile: neighbouring threads touch neighbouring columns, so shared-memory reads are conflict-free and
// global stores are coalesced.
extern "C" __global__ void __launch_bounds__(kThreads) ak_kernel0(ak_matmul_args args) {
    constexpr int kRowStride = BLOCK_M / THREAD_M;
    constexpr int kColStride = BLOCK_N / THREAD_N;
    __shared__ float a_tile[BLOCK_K][BLOCK_M];  // transposed: a_tile[kk][row]
    __shared__ float b_tile[BLOCK_K][BLOCK_N];

    const int m = args.m, n = args.n, k = args.k;
    const int tile_row = blockIdx.y * BLOCK_M;
    const int tile_col = blockIdx.x * BLOCK_N;
    const int tid = threadIdx.x;
    const int tx = tid % kColStride, ty = tid / kColStride;

    float acc[THREAD_M][THREAD_N];
#pragma unroll
    for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.f;

    for (int k0 = 0; k0 < k; k0 += BLOCK_K) {
        for (int idx = tid; idx < BLOCK_M * BLOCK_K; idx += kThreads) {
            const int r = idx / BLOCK_K, kk = idx % BLOCK_K;  // consecutive threads: consecutive k
            const int gr = tile_row + r, gk = k0 + kk;
            a_tile[kk][r] = (gr < m && gk < k) ? ak_to_float(args.a[(long long)gr * k + gk]) : 0.f;
        }
        for (int idx = tid; idx < BLOCK_K * BLOCK_N; idx += kThreads) {
            const int kk = idx / BLOCK_N, c = idx % BLOCK_N;  // consecutive threads: consecutive columns
            const int gk = k0 + kk, gc = tile_col + c;
            b_tile[kk][c] = (gk < k && gc < n) ? ak_to_float(args.b[(long long)gk * n + gc]) : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BLOCK_K; ++kk) {
            float a_frag[THREAD_M], b_frag[THREAD_N];
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i) a_frag[i] = a_tile[kk][ty + i * kRowStride];
#pragma unroll
            for (int j = 0; j < THREAD_N; ++j) b_frag[j] = b_tile[kk][tx + j * kColStride];
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
                for (int j = 0; j < THREAD_N; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < THREAD_M; ++i) {
        const int gr = tile_row + ty + i * kRowStride;
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) {
            const int gc = tile_col + tx + j * kColStride;
            if (gr < m && gc < n) args.c[(long long)gr * n + gc] = ak_from_float(acc[i][j]);
        }
    }
}

#else
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
#endif
