// Small device helpers shared by the starter kernels (see kernels/README.md). Candidates may include
// this header; it needs contract.cuh first (for ak_t and the float conversions).
//
// Every reduction here runs in a fixed order, so results are bitwise identical from run to run.
#ifndef AUTOKERNEL_HELPERS_CUH
#define AUTOKERNEL_HELPERS_CUH

#ifndef AUTOKERNEL_CONTRACT_CUH
#error "include <autokernel/contract.cuh> before <autokernel/helpers.cuh>"
#endif

#define AK_NEG_INF (-__int_as_float(0x7f800000))

// ---- reductions ------------------------------------------------------------------------------------

// Sum / max over aligned groups of WIDTH lanes of a warp (WIDTH a power of two, 1..32). Butterfly
// exchange: every lane of a group ends with the same value (float + is commutative bit for bit).
// All 32 lanes of the warp must call it.
template <int WIDTH = 32>
__device__ __forceinline__ float ak_warp_sum(float v) {
    static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "WIDTH: power of two <= 32");
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

template <int WIDTH = 32>
__device__ __forceinline__ float ak_warp_max(float v) {
    static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "WIDTH: power of two <= 32");
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// Sum / max over groups of GROUP consecutive threads of a 1D block (GROUP a power of two; above 32 a
// multiple of 32). Every thread of the block must call it (it may __syncthreads). `scratch` is shared
// memory of at least blockDim.x / 32 floats; it is free again when the call returns. Every thread of a
// group gets the same value.
template <int GROUP, bool IS_MAX>
__device__ __forceinline__ float ak_group_reduce(float v, float* scratch) {
    static_assert(GROUP >= 1 && (GROUP & (GROUP - 1)) == 0, "GROUP must be a power of two");
    if constexpr (GROUP <= 32) {
        return IS_MAX ? ak_warp_max<GROUP>(v) : ak_warp_sum<GROUP>(v);
    } else {
        constexpr int WARPS = GROUP / 32;
        v = IS_MAX ? ak_warp_max<32>(v) : ak_warp_sum<32>(v);
        const int warp = threadIdx.x / 32;
        if (threadIdx.x % 32 == 0) scratch[warp] = v;
        __syncthreads();
        const int first = warp / WARPS * WARPS;  // first warp of this thread's group
        float r = scratch[first];
#pragma unroll
        for (int i = 1; i < WARPS; ++i) r = IS_MAX ? fmaxf(r, scratch[first + i]) : r + scratch[first + i];
        __syncthreads();  // scratch may be reused right after
        return r;
    }
}

template <int GROUP>
__device__ __forceinline__ float ak_group_sum(float v, float* scratch) {
    return ak_group_reduce<GROUP, false>(v, scratch);
}

template <int GROUP>
__device__ __forceinline__ float ak_group_max(float v, float* scratch) {
    return ak_group_reduce<GROUP, true>(v, scratch);
}

// Sums a and b over groups of GROUP threads in one exchange (see ak_group_reduce; same order, so the
// same bits as two ak_group_sum calls). `scratch` holds at least 2 * blockDim.x / 32 floats.
template <int GROUP>
__device__ __forceinline__ void ak_group_sum2(float& a, float& b, float* scratch) {
    static_assert(GROUP >= 1 && (GROUP & (GROUP - 1)) == 0, "GROUP must be a power of two");
    a = ak_warp_sum<(GROUP < 32 ? GROUP : 32)>(a);
    b = ak_warp_sum<(GROUP < 32 ? GROUP : 32)>(b);
    if constexpr (GROUP > 32) {
        constexpr int WARPS = GROUP / 32;
        const int warp = threadIdx.x / 32;
        if (threadIdx.x % 32 == 0) {
            scratch[2 * warp] = a;
            scratch[2 * warp + 1] = b;
        }
        __syncthreads();
        const int first = warp / WARPS * WARPS;
        a = scratch[2 * first];
        b = scratch[2 * first + 1];
#pragma unroll
        for (int i = 1; i < WARPS; ++i) {
            a += scratch[2 * (first + i)];
            b += scratch[2 * (first + i) + 1];
        }
        __syncthreads();
    }
}

// ---- exponentials -----------------------------------------------------------------------------------

// exp(x): expf, or with FAST = true the hardware ex2 (MUFU.EX2, flush to zero) of x * log2(e): two
// instructions instead of expf's range reduction. The multiply's rounding gives a relative error that
// grows like |x| * 6e-8 (1.2e-6 at x = -20), far inside every tolerance for the x <= 0 of a softmax;
// results below 2^-126 (x < -87) flush to 0, which no sum of a softmax row can notice.
template <bool FAST>
__device__ __forceinline__ float ak_exp(float x) {
    if constexpr (FAST) {
        float y;
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
        return y;
    } else {
        return expf(x);
    }
}

// exp(x - m) as the hardware ex2 of x * log2(e) - m * log2(e), given m_log2e = m * log2(e): one FMA and
// MUFU.EX2 (ak_exp<true> of x - m spends a subtraction and a multiply). The rounding of m * log2(e) shifts
// every exponent by the same |m| * 6e-8 at most (relative 1e-6 at |m| = 20); flushes to 0 like ak_exp.
__device__ __forceinline__ float ak_exp_shifted(float x, float m_log2e) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaf(x, 1.4426950408889634f, -m_log2e)));
    return y;
}

// ---- online softmax statistics ----------------------------------------------------------------------

// Folds V values into a running (max, sum of exp(x - max)), rescaling the sum when the max grows. Start
// from max = AK_NEG_INF, sum = 0 (the first fold multiplies 0 by exp(-inf) = 0). Inputs must be finite.
template <int V, bool FastExp = false>
__device__ __forceinline__ void ak_online_add(const float (&v)[V], float& run_max, float& run_sum) {
    float chunk_max = v[0];
#pragma unroll
    for (int j = 1; j < V; ++j) chunk_max = fmaxf(chunk_max, v[j]);
    const float new_max = fmaxf(run_max, chunk_max);
    run_sum *= ak_exp<FastExp>(run_max - new_max);
    run_max = new_max;
#pragma unroll
    for (int j = 0; j < V; ++j) run_sum += ak_exp<FastExp>(v[j] - run_max);
}

// ak_online_add with the fast exponentials of ak_exp_shifted (one FMA + MUFU.EX2 per value). The new max
// is finite after every fold (finite inputs), so max * log2(e) is too.
template <int V>
__device__ __forceinline__ void ak_online_add_fma(const float (&v)[V], float& run_max, float& run_sum) {
    float chunk_max = v[0];
#pragma unroll
    for (int j = 1; j < V; ++j) chunk_max = fmaxf(chunk_max, v[j]);
    const float new_max = fmaxf(run_max, chunk_max);
    run_sum *= ak_exp<true>(run_max - new_max);
    run_max = new_max;
    const float m_log2e = new_max * 1.4426950408889634f;
#pragma unroll
    for (int j = 0; j < V; ++j) run_sum += ak_exp_shifted(v[j], m_log2e);
}

// Combines every thread's running (max, sum) over groups of GROUP threads (see ak_group_reduce): each
// thread of a group ends with the group's max and its sum of exp(x - max). A thread that folded nothing
// (max -inf) contributes 0.
template <int GROUP, bool FastExp = false>
__device__ __forceinline__ void ak_online_group(float& run_max, float& run_sum, float* scratch) {
    const float thread_max = run_max;
    run_max = ak_group_max<GROUP>(run_max, scratch);
    run_sum = thread_max == AK_NEG_INF ? 0.f : run_sum * ak_exp<FastExp>(thread_max - run_max);
    run_sum = ak_group_sum<GROUP>(run_sum, scratch);
}

// ---- vector loads and stores ------------------------------------------------------------------------

// N consecutive elements moved as one load/store (N * sizeof(ak_t) bytes, which must be the alignment
// of the address: check with ak_aligned before taking a vector path).
template <int N>
struct __align__(N * sizeof(ak_t)) ak_vec {
    ak_t v[N];
};

// True when `p` may be read or written as ak_vec<N>.
template <int N>
__device__ __forceinline__ bool ak_aligned(const void* p) {
    return reinterpret_cast<unsigned long long>(p) % (N * sizeof(ak_t)) == 0;
}

// ---- cache hints of read-once loads (the LOAD tunable of the row starters) ---------------------------
//
// How the vector loads of a stream that is read once treat the caches (the values are the same bits):
//   0  a plain load (ld.global);
//   1  ld.global.cs, "streaming": its lines are the first that L1 and L2 evict, so the stream does not
//      push out lines still wanted, such as dirty lines that would have to be written back to HBM first;
//   2  ld.global.nc.L1::no_allocate under an L2 evict-first cache policy, with a 256-byte L2 prefetch:
//      the read-only path, nothing kept in L1, whole 256-byte sectors fetched from HBM per miss (sm_80+);
//   3  (not a LOAD value: the first read of a row that is read again) the same under an L2 evict-last
//      policy, so the lines are still in L2 for the second read (sm_80+).
// Global memory only: a row staged in shared memory is read with plain loads.

// An L2 cache policy that marks the lines it brings in evict-first (sm_80+).
__device__ __forceinline__ unsigned long long ak_evict_first_policy() {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

// An L2 cache policy that marks the lines it brings in evict-last (sm_80+).
__device__ __forceinline__ unsigned long long ak_evict_last_policy() {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

// N elements at p (aligned as ak_vec<N>, global memory) loaded with cache hint Hint (see above).
template <int N, int Hint = 0>
__device__ __forceinline__ ak_vec<N> ak_load_vec(const ak_t* p) {
    static_assert(Hint >= 0 && Hint <= 3, "load hints: 0 plain, 1 streaming, 2 read-only evict-first, 3 evict-last");
    constexpr int kBytes = N * int(sizeof(ak_t));
    if constexpr (Hint == 0) {
        return *reinterpret_cast<const ak_vec<N>*>(p);
    } else if constexpr (kBytes > 16) {  // wider than one load (fp32 with VEC = 8): 16-byte pieces
        constexpr int kPiece = 16 / int(sizeof(ak_t));
        ak_vec<N> v;
#pragma unroll
        for (int k = 0; k < N / kPiece; ++k) {
            const ak_vec<kPiece> piece = ak_load_vec<kPiece, Hint>(p + k * kPiece);
#pragma unroll
            for (int j = 0; j < kPiece; ++j) v.v[k * kPiece + j] = piece.v[j];
        }
        return v;
    } else {
        static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "vector loads of 2 to 16 bytes");
        ak_vec<N> v;
        unsigned* w = reinterpret_cast<unsigned*>(&v);
        if constexpr (Hint == 1) {
            if constexpr (kBytes == 16) *reinterpret_cast<uint4*>(&v) = __ldcs(reinterpret_cast<const uint4*>(p));
            if constexpr (kBytes == 8) *reinterpret_cast<uint2*>(&v) = __ldcs(reinterpret_cast<const uint2*>(p));
            if constexpr (kBytes == 4) w[0] = __ldcs(reinterpret_cast<const unsigned*>(p));
            if constexpr (kBytes == 2)
                *reinterpret_cast<unsigned short*>(&v) = __ldcs(reinterpret_cast<const unsigned short*>(p));
        } else {
            const unsigned long long policy = Hint == 3 ? ak_evict_last_policy() : ak_evict_first_policy();
            if constexpr (kBytes == 16)
                asm("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                    : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                    : "l"(p), "l"(policy));
            if constexpr (kBytes == 8)
                asm("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v2.u32 {%0, %1}, [%2], %3;"
                    : "=r"(w[0]), "=r"(w[1])
                    : "l"(p), "l"(policy));
            if constexpr (kBytes == 4)
                asm("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.u32 %0, [%1], %2;"
                    : "=r"(w[0])
                    : "l"(p), "l"(policy));
            if constexpr (kBytes == 2) {
                unsigned short h;
                asm("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.u16 %0, [%1], %2;"
                    : "=h"(h)
                    : "l"(p), "l"(policy));
                *reinterpret_cast<unsigned short*>(&v) = h;
            }
        }
        return v;
    }
}

// Loads N elements at p (aligned as ak_vec<N>) as floats, with cache hint Hint (global memory when > 0).
template <int N, int Hint = 0>
__device__ __forceinline__ void ak_load(const ak_t* p, float (&out)[N]) {
    const ak_vec<N> v = ak_load_vec<N, Hint>(p);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = ak_to_float(v.v[i]);
}

// Stores N floats at p (aligned as ak_vec<N>), rounding to ak_t.
template <int N>
__device__ __forceinline__ void ak_store(ak_t* p, const float (&in)[N]) {
    ak_vec<N> v;
#pragma unroll
    for (int i = 0; i < N; ++i) v.v[i] = ak_from_float(in[i]);
    *reinterpret_cast<ak_vec<N>*>(p) = v;
}

// ---- rows ------------------------------------------------------------------------------------------

// The row's max and sum of exp(x - max) over this thread's V-element chunks lane, lane + STRIDE, ...
// (`chunks` of them from x, each V * sizeof(ak_t)-aligned), reduced over groups of STRIDE threads (see
// ak_group_reduce): every thread of a group ends with its row's values. Online: one pass with the
// running rescaled sum (ak_online_add); otherwise two passes, the max and then the sum. Unroll unrolls
// the per-thread loops. A row of finite values gives sum >= 1 (its max contributes exp(0)).
template <int V, int STRIDE, int Unroll, bool Online, bool FastExp>
__device__ __forceinline__ void ak_row_max_sumexp(const ak_t* x, int chunks, int lane, float* scratch,
                                                  float& row_max, float& sum) {
    row_max = AK_NEG_INF;
    sum = 0.f;
    if constexpr (Online) {
#pragma unroll Unroll
        for (int i = lane; i < chunks; i += STRIDE) {
            float v[V];
            ak_load<V>(x + i * V, v);
            ak_online_add<V, FastExp>(v, row_max, sum);
        }
        ak_online_group<STRIDE, FastExp>(row_max, sum, scratch);
    } else {
#pragma unroll Unroll
        for (int i = lane; i < chunks; i += STRIDE) {
            float v[V];
            ak_load<V>(x + i * V, v);
#pragma unroll
            for (int j = 0; j < V; ++j) row_max = fmaxf(row_max, v[j]);
        }
        row_max = ak_group_max<STRIDE>(row_max, scratch);
#pragma unroll Unroll
        for (int i = lane; i < chunks; i += STRIDE) {
            float v[V];
            ak_load<V>(x + i * V, v);
#pragma unroll
            for (int j = 0; j < V; ++j) sum += ak_exp<FastExp>(v[j] - row_max);
        }
        sum = ak_group_sum<STRIDE>(sum, scratch);
    }
}

// Loads this thread's share of a row into registers: slot s holds chunk lane + s * STRIDE (V elements
// from x) when that chunk is below `chunks`, else V copies of `pad`. Every load is issued before any use.
template <int V, int SLOTS, int STRIDE, int Hint = 0>
__device__ __forceinline__ void ak_load_slots(const ak_t* x, int chunks, int lane, float pad, float (&v)[SLOTS][V]) {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int i = lane + s * STRIDE;
        if (i < chunks) {
            ak_load<V, Hint>(x + i * V, v[s]);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) v[s][j] = pad;
        }
    }
}

// ---- rows that break alignment: a scalar head, a vector body, a scalar tail ---------------------------

// Loads / stores V elements at p (aligned as ak_vec<V>) from / to a float array given by pointer (the
// load with cache hint Hint: global memory when > 0).
template <int V, int Hint = 0>
__device__ __forceinline__ void ak_load_to(const ak_t* p, float* out) {
    const ak_vec<V> v = ak_load_vec<V, Hint>(p);
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = ak_to_float(v.v[i]);
}
// Streaming = true stores with st.global.cs (evict-first: the written lines leave L2 before lines that are
// still to be read again), in 16-byte pieces at most.
template <int V, bool Streaming = false>
__device__ __forceinline__ void ak_store_from(ak_t* p, const float* in) {
    ak_vec<V> v;
#pragma unroll
    for (int i = 0; i < V; ++i) v.v[i] = ak_from_float(in[i]);
    constexpr int kBytes = V * int(sizeof(ak_t));
    if constexpr (!Streaming) {
        *reinterpret_cast<ak_vec<V>*>(p) = v;
    } else if constexpr (kBytes >= 16) {
#pragma unroll
        for (int k = 0; k < kBytes / 16; ++k)
            __stcs(reinterpret_cast<uint4*>(p) + k, reinterpret_cast<const uint4*>(&v)[k]);
    } else if constexpr (kBytes == 8) {
        __stcs(reinterpret_cast<uint2*>(p), *reinterpret_cast<const uint2*>(&v));
    } else if constexpr (kBytes == 4) {
        __stcs(reinterpret_cast<unsigned*>(p), *reinterpret_cast<const unsigned*>(&v));
    } else {
        __stcs(reinterpret_cast<unsigned short*>(p), *reinterpret_cast<const unsigned short*>(&v));
    }
}

// ---- bulk L2 prefetch (sm_90) ------------------------------------------------------------------------

// Asks the copy engine to bring the 16-byte-aligned interior of bytes [p, p + bytes) of global memory into
// L2 (cp.async.bulk.prefetch.L2), in pieces of 4 KiB issued by `threads` threads (this one is `lane`):
// no registers held, nothing to wait for, so a whole row can be on its way while the loads that use it
// start. A hint only; the edges (< 16 bytes) are left to the ordinary loads. Nothing before sm_90.
__device__ __forceinline__ void ak_prefetch_l2(const void* p, long long bytes, int lane, int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr unsigned long long kPiece = 4096;
    const unsigned long long first = (reinterpret_cast<unsigned long long>(p) + 15) & ~15ull;
    const unsigned long long end = (reinterpret_cast<unsigned long long>(p) + (unsigned long long)bytes) & ~15ull;
    for (unsigned long long a = first + (unsigned long long)lane * kPiece; a < end;
         a += (unsigned long long)threads * kPiece) {
        const unsigned size = unsigned(end - a < kPiece ? end - a : kPiece);
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(size) : "memory");
    }
#endif
}

// A part of a row (all of it, or one block's share of it under a cluster split): columns
// [begin, begin + head + chunks * V + tail) of the row, where column begin + head is the first one whose
// address is aligned for ak_vec<V>. A row of odd length in fp16 starts at a different element offset in
// every row, so the head (0 .. V-1 elements) differs per row.
struct ak_row_part {
    int begin;   // first column of the part
    int head;    // scalar columns before the vector body
    int chunks;  // V-element vector chunks of the body
    int tail;    // scalar columns after it
};

// The whole row of `cols` elements at `row` (any ak_t-aligned address) split for V-element vectors.
template <int V>
__device__ __forceinline__ ak_row_part ak_split_row(const ak_t* row, int cols) {
    const int misalign = int((reinterpret_cast<unsigned long long>(row) / sizeof(ak_t)) % V);
    int head = misalign == 0 ? 0 : V - misalign;
    if (head > cols) head = cols;
    const int chunks = (cols - head) / V;
    return {0, head, chunks, cols - head - chunks * V};
}

// Share `rank` of `parts` of a split row: the body's chunks divided into contiguous ranges of
// ceil(chunks / parts), the head going with the first share and the tail with the last. Shares past
// the chunks are empty (a short row under a wide cluster).
template <int V>
__device__ __forceinline__ ak_row_part ak_row_share(const ak_row_part& whole, int rank, int parts) {
    if (parts <= 1) return whole;
    const int per = (whole.chunks + parts - 1) / parts;
    int first = rank * per;
    if (first > whole.chunks) first = whole.chunks;
    int last = first + per;
    if (last > whole.chunks) last = whole.chunks;
    ak_row_part p;
    p.head = rank == 0 ? whole.head : 0;
    p.begin = rank == 0 ? 0 : whole.head + first * V;
    p.chunks = last - first;
    p.tail = rank == parts - 1 ? whole.tail : 0;
    return p;
}

// True when `other` (a row of another tensor with the same length) is aligned where `row` is, so one
// split serves both (the usual case: both bases 16-byte aligned).
template <int V>
__device__ __forceinline__ bool ak_coaligned(const void* row, const void* other) {
    return (reinterpret_cast<unsigned long long>(other) - reinterpret_cast<unsigned long long>(row)) %
               (V * sizeof(ak_t)) == 0;
}

// Visits this thread's elements of part `p` of the row `x`: head columns lane, lane + STRIDE, ... one
// at a time; body chunks lane, lane + STRIDE, ... in batches of Unroll chunks whose loads are all issued
// first; tail columns like the head. `fold(v)` gets a float array (1, V or Unroll * V elements; use
// sizeof(v) / sizeof(float)). The order is fixed by the shape, so results are bitwise reproducible.
// Hint: the body's cache hint (ak_load_vec; > 0 only when x is global memory).
template <int V, int STRIDE, int Unroll, int Hint = 0, class Fold>
__device__ __forceinline__ void ak_part_fold(const ak_t* x, const ak_row_part& p, int lane, Fold&& fold) {
    for (int c = lane; c < p.head; c += STRIDE) {
        const float v[1] = {ak_to_float(x[p.begin + c])};
        fold(v);
    }
    const ak_t* body = x + p.begin + p.head;
    int i = lane;
    if constexpr (Unroll > 1) {
        for (; i + (Unroll - 1) * STRIDE < p.chunks; i += Unroll * STRIDE) {
            float v[Unroll * V];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) ak_load_to<V, Hint>(body + (i + u * STRIDE) * V, v + u * V);
            fold(v);
        }
    }
    for (; i < p.chunks; i += STRIDE) {
        float v[V];
        ak_load_to<V, Hint>(body + i * V, v);
        fold(v);
    }
    const ak_t* tail = body + p.chunks * V;
    for (int c = lane; c < p.tail; c += STRIDE) {
        const float v[1] = {ak_to_float(tail[c])};
        fold(v);
    }
}

// y[c] = fn(x[c], w[c]) over this thread's elements of part `p` (same visiting order as ak_part_fold),
// reading x from `src` (the row itself, or its staged copy: any pointer whose element c is column c) and,
// with SIDE, w from `side` (a per-column input such as a norm's weight; without it w = 0). `y_vec` /
// `side_vec`: y / side are aligned where x is (ak_coaligned), so body chunks move as vectors; otherwise
// element by element. Hint: the cache hint of the body's src loads (ak_load_vec; > 0 only when src is
// global memory); StreamStore: the body's y stores are st.global.cs (ak_store_from).
template <int V, int STRIDE, int Unroll, bool SIDE, int Hint = 0, bool StreamStore = false, class Fn>
__device__ __forceinline__ void ak_part_map(const ak_t* src, const ak_t* side, ak_t* y, const ak_row_part& p,
                                            bool y_vec, bool side_vec, int lane, Fn&& fn) {
    for (int c = lane; c < p.head; c += STRIDE) {
        const int col = p.begin + c;
        y[col] = ak_from_float(fn(ak_to_float(src[col]), SIDE ? ak_to_float(side[col]) : 0.f));
    }
    const int body_col = p.begin + p.head;
    auto body_store = [&](int col, float* v) {
        float w[V];
#pragma unroll
        for (int j = 0; j < V; ++j) w[j] = 0.f;
        if constexpr (SIDE) {
            if (side_vec) {
                ak_load_to<V>(side + col, w);
            } else {
#pragma unroll
                for (int j = 0; j < V; ++j) w[j] = ak_to_float(side[col + j]);
            }
        }
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = fn(v[j], w[j]);
        if (y_vec) {
            ak_store_from<V, StreamStore>(y + col, v);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) y[col + j] = ak_from_float(v[j]);
        }
    };
    int i = lane;
    if constexpr (Unroll > 1) {
        for (; i + (Unroll - 1) * STRIDE < p.chunks; i += Unroll * STRIDE) {
            float v[Unroll][V];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) ak_load_to<V, Hint>(src + body_col + (i + u * STRIDE) * V, v[u]);
#pragma unroll
            for (int u = 0; u < Unroll; ++u) body_store(body_col + (i + u * STRIDE) * V, v[u]);
        }
    }
    for (; i < p.chunks; i += STRIDE) {
        float v[V];
        ak_load_to<V, Hint>(src + body_col + i * V, v);
        body_store(body_col + i * V, v);
    }
    const int tail_col = body_col + p.chunks * V;
    for (int c = lane; c < p.tail; c += STRIDE) {
        const int col = tail_col + c;
        y[col] = ak_from_float(fn(ak_to_float(src[col]), SIDE ? ak_to_float(side[col]) : 0.f));
    }
}

// Folds V values into a running max (the max pass of a two-pass softmax).
template <int V>
__device__ __forceinline__ void ak_max_add(const float (&v)[V], float& run_max) {
#pragma unroll
    for (int j = 0; j < V; ++j) run_max = fmaxf(run_max, v[j]);
}

// ---- a row part staged in shared memory (cp.async, sm_80+) -------------------------------------------

// The vector width the peeled paths use for a VEC tunable: VEC elements, at most 16 bytes (the widest load
// of sm_90; a 32-byte fp32 "vector" would be two loads and costs registers, or spills).
#define AK_VEC16(v) ((v) * int(sizeof(ak_t)) > 16 ? 16 / int(sizeof(ak_t)) : (v))

// Elements per 16-byte cp.async copy.
#define AK_STAGE_V (16 / int(sizeof(ak_t)))

// Shared-memory elements that stage a part of at most `cols` columns (ak_stage_part's layout).
__host__ __device__ constexpr int ak_stage_elems(int cols) { return cols + 2 * (16 / int(sizeof(ak_t))); }

// Copies this thread's elements of part `p` (split for AK_STAGE_V) of row `x` into `stage` (16-byte
// aligned, at least ak_stage_elems(part columns) elements): the body with 16-byte cp.async (L1
// bypassed, nothing through registers), head and tail with plain loads. Returns the pointer whose
// element c is column c of the row (element begin + head lands on stage + AK_STAGE_V, 16-byte aligned).
// Call ak_stage_wait before reading it; each thread's share is the one ak_part_fold / ak_part_map give it.
// Hint > 0: the copies bring their lines into L2 evict-first, with a 256-byte prefetch (the LOAD tunable's
// read-once stream, see ak_load_vec; sm_80+).
template <int STRIDE, int Hint = 0>
__device__ __forceinline__ const ak_t* ak_stage_part(const ak_t* x, const ak_row_part& p, ak_t* stage, int lane) {
    constexpr int kV = AK_STAGE_V;
    ak_t* body = stage + kV;
    const int body_col = p.begin + p.head;
    for (int c = lane; c < p.head; c += STRIDE) body[c - p.head] = x[p.begin + c];
    const unsigned body_smem = unsigned(__cvta_generic_to_shared(body));
    if constexpr (Hint > 0) {
        const unsigned long long policy = ak_evict_first_policy();
        for (int i = lane; i < p.chunks; i += STRIDE)
            asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2;" ::"r"(
                             body_smem + unsigned(i) * 16u),
                         "l"(x + body_col + i * kV), "l"(policy)
                         : "memory");
    } else {
        for (int i = lane; i < p.chunks; i += STRIDE)
            asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(body_smem + unsigned(i) * 16u),
                         "l"(x + body_col + i * kV)
                         : "memory");
    }
    for (int c = lane; c < p.tail; c += STRIDE) body[p.chunks * kV + c] = x[body_col + p.chunks * kV + c];
    asm volatile("cp.async.commit_group;" ::: "memory");
    return reinterpret_cast<const ak_t*>(reinterpret_cast<unsigned long long>(body) -
                                         (unsigned long long)body_col * sizeof(ak_t));
}

// Waits for this thread's cp.async copies, then for the block's (every thread must call it).
__device__ __forceinline__ void ak_stage_wait() {
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
}

// ---- thread-block clusters (sm_90): distributed shared memory ----------------------------------------

__device__ __forceinline__ int ak_cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return int(r);
}

// Every thread of every block of the cluster must call it; shared-memory writes before it are visible
// to the cluster after it.
__device__ __forceinline__ void ak_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Reads the float at `p` (this block's shared memory) in the shared memory of cluster block `rank`.
__device__ __forceinline__ float ak_cluster_load(const float* p, int rank) {
    unsigned local = unsigned(__cvta_generic_to_shared(p)), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    return v;
}

// Combines (max, sum of exp(x - max)) of slot `slot` over the PARTS blocks of the cluster, in rank order,
// so every block gets the same bits. `xch` is shared memory of 2 floats per slot; `writer` is one thread
// per slot. Every thread of the block must call it (two cluster barriers).
template <int PARTS, bool FastExp = false>
__device__ __forceinline__ void ak_cluster_online(float& run_max, float& run_sum, float* xch, int slot, bool writer) {
    if (writer) {
        xch[2 * slot] = run_max;
        xch[2 * slot + 1] = run_sum;
    }
    ak_cluster_sync();
    float m[PARTS], s[PARTS];
    float total_max = AK_NEG_INF;
#pragma unroll
    for (int k = 0; k < PARTS; ++k) {
        m[k] = ak_cluster_load(xch + 2 * slot, k);
        s[k] = ak_cluster_load(xch + 2 * slot + 1, k);
        total_max = fmaxf(total_max, m[k]);
    }
    float total = 0.f;
#pragma unroll
    for (int k = 0; k < PARTS; ++k)
        total += m[k] == AK_NEG_INF ? 0.f : s[k] * ak_exp<FastExp>(m[k] - total_max);
    ak_cluster_sync();  // no block leaves (or reuses xch) while another still reads it
    run_max = total_max;
    run_sum = total;
}

// Sums v of slot `slot` over the PARTS blocks of the cluster in rank order (see ak_cluster_online).
template <int PARTS>
__device__ __forceinline__ float ak_cluster_sum(float v, float* xch, int slot, bool writer) {
    if (writer) xch[slot] = v;
    ak_cluster_sync();
    float total = 0.f;
#pragma unroll
    for (int k = 0; k < PARTS; ++k) total += ak_cluster_load(xch + slot, k);
    ak_cluster_sync();
    return total;
}

#endif  // AUTOKERNEL_HELPERS_CUH
