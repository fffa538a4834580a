// Hopper (sm_90a) building blocks for candidates: mbarriers, TMA loads (multicast too), cluster barriers,
// wgmma with shared-memory matrix descriptors, setmaxnreg. Thin PTX wrappers, nothing more: the pipeline
// that uses them (who waits on which barrier with which parity) stays in the candidate, where an agent
// can read and rewrite it.
// Include after contract.cuh, in fp16/bf16 code only (wgmma has no exact fp32 path).
//
// Conventions (the matmul and flash_attention starters' MMA=3 paths and fused_mlp's FUSE=1 use them; see
// kernels/README.md):
//   - addresses of shared memory are 32-bit shared-window addresses (ak_smem_addr);
//   - an mbarrier counts its phases from 0; a fresh barrier's phase "-1" (parity 1) counts as completed,
//     so a producer may wait for "buffer empty" with parity ((use / STAGES) - 1) & 1 from the second
//     round on;
//   - tiles are 128-byte swizzled boxes (AK_SWIZZLE_128B): every box row is 128 bytes and its 16-byte
//     chunk c sits at chunk c ^ (row % 8); boxes start on 1024-byte boundaries (the swizzle atom).
#include <autokernel/helpers.cuh>
#ifndef AUTOKERNEL_HOPPER_CUH
#define AUTOKERNEL_HOPPER_CUH

#if defined(AK_DTYPE_BF16)
#define AK_WGMMA_TYPE "bf16"
#else
#define AK_WGMMA_TYPE "f16"
#endif

__device__ __forceinline__ unsigned ak_smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- mbarriers -------------------------------------------------------------------------------------------
__device__ __forceinline__ void ak_mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the TMA unit (the async proxy); then __syncthreads.
__device__ __forceinline__ void ak_mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also announces `bytes` of TMA transactions for the current phase.
__device__ __forceinline__ void ak_mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void ak_mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// One arrival when `pred` holds (a predicated instruction, no branch: keeps wgmma loops straight).
__device__ __forceinline__ void ak_mbar_arrive_if(unsigned bar, bool pred) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n" ::"r"(bar),
                 "r"((int)pred)
                 : "memory");
}
// True once the phase with this parity has completed.
__device__ __forceinline__ bool ak_mbar_test(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}
__device__ __forceinline__ void ak_mbar_wait(unsigned bar, unsigned parity) {
    while (!ak_mbar_test(bar, parity)) {
    }
}

// ---- TMA and the async proxy -----------------------------------------------------------------------------
// A box (the map's box shape) at (column, row) of a 2D tensor map into shared memory at `dst`, its bytes
// completing on `bar`. Elements outside the tensor read as zero (and still count as transferred bytes).
// `map` must point into parameter space (a __grid_constant__ kernel parameter).
__device__ __forceinline__ void ak_tma_load_2d(unsigned dst, const void* map, int col, int row, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(col), "r"(row), "r"(bar)
        : "memory");
}
// A box of shared memory at `src` (the map's box shape, in the map's swizzle) to (column, row) of a 2D
// tensor; elements outside the tensor are not written. Part of this thread's bulk group: commit it, and
// wait (ak_bulk_wait_read) before `src` is written again or the block exits.
__device__ __forceinline__ void ak_tma_store_2d(const void* map, int col, int row, unsigned src) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(col), "r"(row), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void ak_bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's committed bulk groups still read their shared memory.
template <int N>
__device__ __forceinline__ void ak_bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
// Waits until at most N of this thread's committed bulk groups are incomplete (writes done).
template <int N>
__device__ __forceinline__ void ak_bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
// A barrier of `Threads` threads (a multiple of 32) on hardware barrier `id` (1..15; 0 is __syncthreads).
template <int Threads>
__device__ __forceinline__ void ak_named_barrier(int id) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
// Arrives at hardware barrier `id` without waiting: the other threads of the `Threads` wait there with
// ak_named_barrier (a one-way signal from one warpgroup to another).
template <int Threads>
__device__ __forceinline__ void ak_named_barrier_arrive(int id) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
// Ordinary stores to shared memory that wgmma or a TMA store (the async proxy) reads next: every writing
// thread fences, then the threads synchronise.
__device__ __forceinline__ void ak_fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- thread-block clusters ----------------------------------------------------------------------------------
// The cluster rank and the cluster-wide barrier are helpers.cuh's ak_cluster_rank and ak_cluster_sync.
// One arrival, when `pred` holds, on the mbarrier at the same shared-memory offset in block `cta` of the
// cluster (this block's own rank included).
__device__ __forceinline__ void ak_mbar_arrive_cluster_if(unsigned bar, unsigned cta, bool pred) {
    asm volatile(
        "{\n.reg .pred p;\n.reg .b32 remote;\nsetp.ne.b32 p, %2, 0;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "@p mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
        "r"(cta), "r"((int)pred)
        : "memory");
}
// ak_tma_load_2d into the same shared-memory offset of every block in `cta_mask` (bit i: rank i), each
// block's bytes completing on its own mbarrier at the offset of `bar`.
__device__ __forceinline__ void ak_tma_load_2d_multicast(unsigned dst, const void* map, int col, int row, unsigned bar,
                                                         unsigned short cta_mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(col), "r"(row), "r"(bar), "h"(cta_mask)
        : "memory");
}

// ---- register reallocation (warp specialization) ------------------------------------------------------------
// Needs a register cap at entry: __launch_bounds__(threads, 1). Every warp of a warpgroup executes it.
template <int Regs>
__device__ __forceinline__ void ak_setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void ak_setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

// ---- wgmma -----------------------------------------------------------------------------------------------
__device__ __forceinline__ void ak_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void ak_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N committed groups are still running.
template <int N>
__device__ __forceinline__ void ak_wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Ties accumulator registers to this point of the instruction stream (around wgmma.fence and
// wgmma.wait_group): values written before it are not moved after it, reads after it not before it.
template <int N>
__device__ __forceinline__ void ak_fence_regs(float (&r)[N][4]) {
#pragma unroll
    for (int i = 0; i < N; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(r[i][e])::"memory");
}

template <int N>
__device__ __forceinline__ void ak_fence_regs(unsigned (&r)[N][4]) {
#pragma unroll
    for (int i = 0; i < N; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[i][e])::"memory");
}

// Shared-memory matrix descriptor for a 128-byte-swizzled operand: start address, leading and stride byte
// offsets (each >> 4 into 14 bits), layout type 1 (128-byte swizzle) in bits 62-63, base offset 0.
//   K-major (A, or a B stored [n][k]): 16 elements of K are 32 bytes of one 128-byte row; the leading
//     offset is unused (pass 16), the stride offset is the 1024 bytes between groups of 8 rows.
//   MN-major (a B stored [k][n]): boxes of 64 columns (128 bytes) by K rows; the stride offset is the
//     1024 bytes between groups of 8 rows of K, the leading offset the distance between 64-column boxes.
__device__ __forceinline__ unsigned long long ak_wgmma_desc(unsigned addr, unsigned leading, unsigned stride) {
    return (unsigned long long)((addr >> 4) & 0x3FFF) | ((unsigned long long)((leading >> 4) & 0x3FFF) << 16) |
           ((unsigned long long)((stride >> 4) & 0x3FFF) << 32) | (1ull << 62);
}

// wgmma.mma_async m64nNk16 with f32 accumulators, A and B from shared memory: D = A B (scale_d = 0) or
// D += A B (scale_d != 0). TransB = 0: B is K-major; 1: B is MN-major. Accumulator layout (m64nN): warp w
// of the warpgroup holds rows 16w + lane / 4 (d[j][0..1]) and 16w + lane / 4 + 8 (d[j][2..3]), columns
// 8j + 2 (lane % 4) and + 1. Operand lists written out per N.
template <int TransB>
__device__ __forceinline__ void ak_wgmma_ss_n32(float (&d)[4][4], unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32." AK_WGMMA_TYPE "." AK_WGMMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, %16, %17, p, 1, 1, 0, %19;\n}\n"
        :
          "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3])
        : "l"(a), "l"(b), "r"(scale_d), "n"(TransB));
}

template <int TransB>
__device__ __forceinline__ void ak_wgmma_ss_n64(float (&d)[8][4], unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." AK_WGMMA_TYPE "." AK_WGMMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
        :
          "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
          "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
          "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
        : "l"(a), "l"(b), "r"(scale_d), "n"(TransB));
}

template <int TransB>
__device__ __forceinline__ void ak_wgmma_ss_n128(float (&d)[16][4], unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." AK_WGMMA_TYPE "." AK_WGMMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
        :
          "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
          "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
          "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
          "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
          "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
          "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
          "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
        : "l"(a), "l"(b), "r"(scale_d), "n"(TransB));
}

template <int TransB>
__device__ __forceinline__ void ak_wgmma_ss_n256(float (&d)[32][4], unsigned long long a, unsigned long long b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32." AK_WGMMA_TYPE "." AK_WGMMA_TYPE " {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, %131;\n}\n"
        :
          "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
          "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
          "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
          "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
          "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
          "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
          "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3]),
          "+f"(d[16][0]), "+f"(d[16][1]), "+f"(d[16][2]), "+f"(d[16][3]), "+f"(d[17][0]), "+f"(d[17][1]), "+f"(d[17][2]), "+f"(d[17][3]),
          "+f"(d[18][0]), "+f"(d[18][1]), "+f"(d[18][2]), "+f"(d[18][3]), "+f"(d[19][0]), "+f"(d[19][1]), "+f"(d[19][2]), "+f"(d[19][3]),
          "+f"(d[20][0]), "+f"(d[20][1]), "+f"(d[20][2]), "+f"(d[20][3]), "+f"(d[21][0]), "+f"(d[21][1]), "+f"(d[21][2]), "+f"(d[21][3]),
          "+f"(d[22][0]), "+f"(d[22][1]), "+f"(d[22][2]), "+f"(d[22][3]), "+f"(d[23][0]), "+f"(d[23][1]), "+f"(d[23][2]), "+f"(d[23][3]),
          "+f"(d[24][0]), "+f"(d[24][1]), "+f"(d[24][2]), "+f"(d[24][3]), "+f"(d[25][0]), "+f"(d[25][1]), "+f"(d[25][2]), "+f"(d[25][3]),
          "+f"(d[26][0]), "+f"(d[26][1]), "+f"(d[26][2]), "+f"(d[26][3]), "+f"(d[27][0]), "+f"(d[27][1]), "+f"(d[27][2]), "+f"(d[27][3]),
          "+f"(d[28][0]), "+f"(d[28][1]), "+f"(d[28][2]), "+f"(d[28][3]), "+f"(d[29][0]), "+f"(d[29][1]), "+f"(d[29][2]), "+f"(d[29][3]),
          "+f"(d[30][0]), "+f"(d[30][1]), "+f"(d[30][2]), "+f"(d[30][3]), "+f"(d[31][0]), "+f"(d[31][1]), "+f"(d[31][2]), "+f"(d[31][3])
        : "l"(a), "l"(b), "r"(scale_d), "n"(TransB));
}

template <int N, int TransB>
__device__ __forceinline__ void ak_wgmma_ss(float (&d)[N / 8][4], unsigned long long a, unsigned long long b, int scale_d) {
    if constexpr (N == 32)
        ak_wgmma_ss_n32<TransB>(d, a, b, scale_d);
    else if constexpr (N == 64)
        ak_wgmma_ss_n64<TransB>(d, a, b, scale_d);
    else if constexpr (N == 128)
        ak_wgmma_ss_n128<TransB>(d, a, b, scale_d);
    else {
        static_assert(N == 256, "ak_wgmma_ss: N must be 32, 64, 128 or 256");
        ak_wgmma_ss_n256<TransB>(d, a, b, scale_d);
    }
}

#endif  // AUTOKERNEL_HOPPER_CUH
