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

// Loads N elements at p (aligned as ak_vec<N>) as floats.
template <int N>
__device__ __forceinline__ void ak_load(const ak_t* p, float (&out)[N]) {
    const ak_vec<N> v = *reinterpret_cast<const ak_vec<N>*>(p);
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
template <int V, int SLOTS, int STRIDE>
__device__ __forceinline__ void ak_load_slots(const ak_t* x, int chunks, int lane, float pad, float (&v)[SLOTS][V]) {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int i = lane + s * STRIDE;
        if (i < chunks) {
            ak_load<V>(x + i * V, v[s]);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) v[s][j] = pad;
        }
    }
}

#endif  // AUTOKERNEL_HELPERS_CUH
