// Rotary embedding starter (rotate-half convention, see ak_rotary_args in contract.cuh):
//   y[.., i]        = x[.., i] * cos[s, i] - x[.., i + d/2] * sin[s, i]
//   y[.., i + d/2]  = x[.., i + d/2] * cos[s, i] + x[.., i] * sin[s, i]        for i < d/2
// x, y [batch, heads, seq, head_dim], cos/sin [seq, head_dim/2]; a row is one (b, h, s) vector.
//
// One thread per (row, group of VEC pairs): block b handles rows [b*ROWS_PER_BLOCK, ...), its threads
// walk the (row, pair) index space of those rows. Each thread writes both halves of its pairs, so every
// output element is written exactly once. head_dim must be even. Vector loads of VEC pairs only when
// (head_dim/2) % VEC == 0 and every pointer is aligned for them (run-time check).
//
// @autokernel type rotary_embedding
// @autokernel tunable BLOCK_THREADS = 64 {64, 128, 256, 512, 1024} tier 1 -- threads per block
// @autokernel tunable ROWS_PER_BLOCK = 4 {1, 2, 4, 8, 16, 32} tier 1 -- rows (head vectors) per block
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- pairs per thread, loaded as vectors when aligned
#include <autokernel/contract.cuh>
#include <autokernel/helpers.cuh>

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 4
#endif
#ifndef VEC
#define VEC 1
#endif

static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ BLOCK_THREADS, 1, 1,
    /* grid */ AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
};

template <int V>
__device__ __forceinline__ void rotate(const ak_rotary_args& args, long long first_row, int rows_here, int half) {
    const int groups = half / V;  // V divides half on the vector path
    for (int idx = threadIdx.x; idx < rows_here * groups; idx += BLOCK_THREADS) {
        const long long row = first_row + idx / groups;
        const int i = idx % groups * V;  // first pair index of this thread
        const int s = (int)(row % args.seq);
        const ak_t* x = args.x + row * args.head_dim;
        ak_t* y = args.y + row * args.head_dim;
        float x1[V], x2[V], c[V], sn[V], y1[V], y2[V];
        ak_load<V>(x + i, x1);
        ak_load<V>(x + half + i, x2);
        ak_load<V>(args.cos + (long long)s * half + i, c);
        ak_load<V>(args.sin + (long long)s * half + i, sn);
#pragma unroll
        for (int j = 0; j < V; ++j) {
            y1[j] = x1[j] * c[j] - x2[j] * sn[j];
            y2[j] = x2[j] * c[j] + x1[j] * sn[j];
        }
        ak_store<V>(y + i, y1);
        ak_store<V>(y + half + i, y2);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ak_kernel0(ak_rotary_args args) {
    const long long first_row = (long long)blockIdx.x * ROWS_PER_BLOCK;
    if (first_row >= args.rows) return;
    const int rows_here = (int)min((long long)ROWS_PER_BLOCK, args.rows - first_row);
    const int half = args.head_dim / 2;
    const bool vector_ok = VEC > 1 && half % VEC == 0 && ak_aligned<VEC>(args.x) && ak_aligned<VEC>(args.y) &&
                           ak_aligned<VEC>(args.cos) && ak_aligned<VEC>(args.sin);
    if (vector_ok)
        rotate<VEC>(args, first_row, rows_here, half);
    else
        rotate<1>(args, first_row, rows_here, half);
}
