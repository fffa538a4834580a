// Cross-entropy starter: loss = mean over rows of (logsumexp(logits[r, :]) - logits[r, target[r]]).
//
// Two stages:
//   ak_kernel0: ROWS_PER_BLOCK rows per block; each row's loss (fp32) goes to workspace[r]
//               (workspace_bytes_per_row = 4). Two passes over the row: the max, then the sum of
//               exp(x - max); loss = log(sum) + max - x[target]. Subtracting the max keeps large logits finite.
//               A target outside [0, cols) gives a NaN loss rather than an out-of-bounds read.
//   ak_kernel1: ONE block sums the per-row losses in a fixed order and writes the mean to *loss.
// No atomics: the result is bitwise identical from run to run.
//
// Variants of the row stage:
//   PEEL = 1      (VEC > 1) rows whose length or start breaks VEC alignment (50257 columns) still take
//                 vector loads: a scalar head up to the alignment boundary, the vector body, a scalar tail.
//                 PEEL = 0: such rows take the scalar path.
//   UNROLL        batches UNROLL vector loads before using any, folded into the online statistics
//                 together (one rescale per batch).
//   SMEM_ROW > 0  stages each row in SMEM_ROW KiB of dynamic shared memory per block (split among its
//                 ROWS_PER_BLOCK rows) with 16-byte cp.async copies, all issued at once (the whole row in
//                 flight, no registers held), then the max and the sum of exp from shared memory. Rows
//                 that do not fit stream. One row, one pass over HBM, either way.
//   CLUSTER > 1   splits every row across a cluster of CLUSTER blocks (sm_90): each takes a contiguous
//                 share, the (max, sum) pairs are combined through distributed shared memory in rank
//                 order; rank 0 writes the row's loss.
//   ONLINE = 1    finds the max and the sum of exp(x - max) in ONE pass, rescaling the running sum when
//                 the running max grows: the row is read once instead of twice.
//   ROW_CACHE > 0 keeps the row in registers (up to ROW_CACHE elements per thread) when it fits, with
//                 every load issued before the first reduction.
//   LOAD          the cache hint of the row's HBM reads (helpers.cuh: ak_load_vec): 1 streaming
//                 (ld.global.cs), 2 read-only with an L2 evict-first policy and 256-byte prefetch (also on the
//                 SMEM_ROW copies). The logits are read once, so their lines go first and L2's other lines
//                 (dirty ones whose write-back would share HBM with this read) stay. The two-pass row
//                 (ONLINE = 0) hints only its second read; the first must stay in L2 for it.
//   PREFETCH = 1  (sm_90, streamed rows) the block first asks the copy engine to bring its whole share of
//                 the row into L2 (cp.async.bulk.prefetch.L2 in 4 KiB pieces, helpers.cuh: ak_prefetch_l2):
//                 the row is on its way at once, with no registers held, while the loads walk it.
//   PERSISTENT    1 or 2: a persistent grid (AK_GRID_PERSISTENT, that many blocks per SM) whose blocks loop
//                 over the rows, one streamed row at a time; with PREFETCH the next row is prefetched into
//                 L2 as each row starts. ROWS_PER_BLOCK = 1, CLUSTER = 1, no SMEM_ROW / ROW_CACHE.
//   FAST_EXP = 1  computes exp as the hardware ex2 of x * log2 e (helpers.cuh: ak_exp): fewer instructions for the
//                 nine exponentials the one-pass row spends on every eight elements. FAST_EXP = 2 folds the
//                 max into the scale: ex2(x * log2 e - max * log2 e), one FMA + MUFU.EX2 per element
//                 (ak_exp_shifted) instead of a subtraction, a multiply and MUFU.EX2.
//   MIN_BLOCKS    the blocks per SM that __launch_bounds__ must leave registers for (0: PERSISTENT's or
//                 SMEM_ROW's count, else 1, which lets the compiler take 64+ registers and halve the threads
//                 an SM holds). More resident threads: more loads in flight while others compute.
//   PIPE = 1      (ONLINE streamed rows) software pipelining in registers: each thread issues its next
//                 batch of UNROLL vector loads before it converts and folds the current one, so its loads
//                 stay in flight while it computes (the plain loop waits for every batch it uses).
//   RING > 0      (sm_90) a TMA ring: one extra producer warp streams the 16-byte-aligned body of each of
//                 the block's rows (PERSISTENT: its rows in turn; else its one row, the hardware scheduling
//                 blocks as they finish) into RING stages of RING_KB KiB of shared memory with bulk
//                 copies (cp.async.bulk, completing on a "full" mbarrier per stage, under the L2
//                 evict-first policy with LOAD = 2), while the BLOCK_THREADS consumer threads fold each
//                 stage from shared memory and release it on an "empty" mbarrier (one arrival per warp).
//                 Memory requests no longer wait on the exponentials: the copy engine keeps RING stages in
//                 flight per block whatever the consumers do. Bulk copies need 16-byte addresses and sizes,
//                 and a row of 50257 fp16 logits starts at any even address, so each row is peeled: its
//                 head (up to the first 16-byte boundary) and tail (past the last one), under 16 bytes
//                 each, are read by consumer threads with ordinary loads issued as the row starts. The ring
//                 always folds in one pass (running max and sum; ONLINE does not matter). Measured on the
//                 H200 (2026-12-03/04): one block per row (no PERSISTENT), 4 stages of 8 KiB, 256 consumers and
//                 plain bulk copies (LOAD = 0; the evict-first hint of LOAD = 2 costs 3 points) is the fastest
//                 cross_entropy (with FUSED_MEAN = 3, the preset `ring`: 96.5-97.5 % of copy at 8192x50257,
//                 90.0-90.9 % at 4096x50257); persistent rings, SPLIT, deeper or wider rings, the grid's last
//                 rows split into halves or quarters, stages prefetched into L2 ahead of the ring and a share
//                 of the lines evict-first were slower (bench/2026-12-04-h200-compute.md, calls 8-9; those
//                 variants were taken out again). Tier 1, so the search agent
//                 tries it from the starter. With CLUSTER > 1 (one row per cluster, PERSISTENT = 0) each block of
//                 the cluster streams a contiguous share of the row's stages through its own ring; rank 0 also
//                 folds the head and tail and reads the target's logit, and the blocks' (max, sum) are combined
//                 in rank order through distributed shared memory. Measured slower on the H200 (2026-12-04):
//                 CLUSTER=2 75 % of copy at 4096x50257 against 86.6 % for one block per row, 4 and 8 blocks
//                 54 % and 30 %, with a lower rate per row too, not only at the grid's tail (the cause was not
//                 isolated; bench/2026-12-04-h200-compute.md).
//   SPLIT = 1     (RING, PERSISTENT, FUSED_MEAN) balances the persistent blocks exactly: the rows x stages
//                 units of the tensor are cut into gridDim.x equal contiguous shares, so a block's first and
//                 last rows may be partial. A partial row's (max, sum) goes to the block's slot in the
//                 workspace; the last block (the fused mean) combines each split row's slots in block order
//                 (deterministic) before it averages. Without it, 8192 rows on 264 blocks leave 8 blocks a
//                 32nd row while the others idle, and 4096 rows on 264 half of them a 16th.
//   MAX2 = 1      (RING, FAST_EXP = 2; fp16 / bf16 rows) each stage's max on the packed values: max.f16x2 /
//                 max.bf16x2 take two lanes per instruction (7 + 3 instructions for a thread's 16 values of an
//                 8 KiB stage instead of 15 FMNMX); fp32 rows are unchanged.
//   EXP2X = 1     (FAST_EXP = 2, ONLINE) two exponentials per MUFU op: the two FMA-shifted arguments are packed
//                 into one f16x2 register (cvt.rn.f16x2.f32), ex2.approx.f16x2 gives both results, which are
//                 widened and added in fp32. Half the MUFU.EX2 issue for fp16 and bf16 rows (fp32 rows keep the
//                 fp32 ex2: EXP2X changes nothing there). The cost is accuracy: the argument t = (x - max) * log2 e
//                 is rounded to fp16 (error up to |t| * 2^-11, 0.07 % of a term at t = -3) and so is 2^t (2^-11
//                 relative). Both roundings are unbiased, so over a row of 50257 varied logits they average out
//                 (simulated: 6e-7 relative loss error for N(0, 2^2) logits), but rows of few distinct values
//                 keep them (the adversarial fp16 rows near 1000 with spacing 0.5: 2.1e-5, a fifth of the 1e-4
//                 tolerance, before the MUFU's own approximation error). Terms below 2^-24 of the row's max flush
//                 to zero (fp16 subnormals end there): a row whose mass lies 17..24 binades below its max
//                 would lose it all (up to 50257 * 2^-24 = 3e-3 of the sum) -- outside the harness's inputs,
//                 not outside every input, which is why EXP2X is an opt-in tunable and not the default.
//                 bf16x2 (ex2.approx.ftz.bf16x2) is not offered: its 8-bit results alone simulate to 5e-5.
//   POLY_EXP = n  (FAST_EXP = 2, ONLINE) n of every 8 exponentials on the FMA pipe (FlashAttention-4 style):
//                 Cody-Waite split t = rint(t) + f, 2^f by a degree-4 polynomial (relative error <= 2.7e-6),
//                 rint(t) added to the exponent bits. About ten FMA/ALU instructions instead of one MUFU
//                 op, for rows where MUFU.EX2 (16 per clock per SM) rather than issue is the limit.
// and one of the mean:
//   FUSED_MEAN = 1 drops ak_kernel1: every block of ak_kernel0 counts itself done on a counter in the
//                 workspace (zeroed before every launch), and the last one sums the row losses in the
//                 same fixed order as ak_kernel1 would: one launch instead of two, still deterministic
//                 (the atomic only elects the block; it never adds a loss).
//   FUSED_MEAN = 2 the same single launch with no count: each row's loss is stored together with a "done" flag
//                 in one 64-bit store (st.relaxed.gpu of an aligned 8-byte slot: single-copy atomic, so a set
//                 flag means the loss beside it is there; workspace_bytes_per_row = 8, zeroed before every
//                 launch), and the block exits at once: no fence, no atomic, no round trip. The grid's last
//                 block (the highest index, which the hardware dispatches last) does its own rows, then reads
//                 every slot in the same fixed order, reading again (with __nanosleep) any not yet flagged, and
//                 writes the mean. Measured on the H200 (2026-12-04): the fence and atomic at the end of every
//                 block were the ring's largest per-block cost (FUSED_MEAN = 0, a second launch without them,
//                 beat FUSED_MEAN = 1). The wait needs the other blocks to make progress while the last one is
//                 resident, which any two resident blocks guarantee. Not with SPLIT (its slots carry no flags).
//   FUSED_MEAN = 3 as 2, and the grid's last block zeroes every slot once it has read it, so the launch ends
//                 with its workspace all zero again: the stage declares AK_WORKSPACE_KEPT_ZERO, and the launcher
//                 leaves out the zeroing memset that otherwise runs in front of the kernel inside the timed launch
//                 (the harness zeroes the workspace outside the timed window and checks that every checked run
//                 left it zero). The zeroing's cost moves into the kernel: one 8-byte store per row by the last
//                 block, instead of a second kernel on the stream (a memset of rows x 8 bytes adds 1.4-2.0 us in
//                 front of a read of the logits on the H200, bench/2026-12-04-h200-compute.md). Measured with
//                 the ring (2026-12-04): 112.7-113.1 us at 4096x50257 (90.0-90.9 % of copy) against 114.8-115.1
//                 for FUSED_MEAN = 2, the fixed cost 2.1 us lower at every row count. (The mean by the grid's
//                 first block instead, waiting on the slots while the grid runs, measured 0.2-0.5 us slower.)
//
// @autokernel type cross_entropy
// @autokernel tunable LOAD = 0 {0, 1, 2} tier 1 -- cache hint of the logits' reads (0 plain, 1 streaming evict-first, 2 read-only L2 evict-first + 256 B prefetch)
// @autokernel tunable PREFETCH = 0 {0, 1} tier 1 -- streamed rows: the block's share of the row prefetched into L2 at the start (cp.async.bulk.prefetch.L2, sm_90)
// @autokernel tunable PERSISTENT = 0 {0, 1, 2, 3, 4} tier 1 -- 0: one block per row; 1..4: persistent blocks per SM looping over streamed rows (with PREFETCH: the next row prefetched)
// @autokernel tunable BLOCK_THREADS = 256 {32, 64, 128, 256, 512, 1024} tier 1 -- threads per block of the row stage
// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4, 8, 16, 32} tier 1 -- rows per block (threads per row = BLOCK_THREADS / ROWS_PER_BLOCK)
// @autokernel tunable MEAN_THREADS = 1024 {128, 256, 512, 1024} tier 1 -- threads of the single block that averages the row losses
// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per vector load when aligned
// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll factor of the per-thread column loops
// @autokernel tunable ONLINE = 0 {0, 1} tier 3 -- max and sum of exp in one pass (online rescaling)
// @autokernel tunable FAST_EXP = 0 {0, 1, 2} tier 3 -- exp as the hardware ex2 of x * log2 e (1: a multiply + MUFU.EX2; 2: the max folded in, one FMA + MUFU.EX2)
// @autokernel tunable ROW_CACHE = 0 {0, 8, 16, 32, 64} tier 3 -- elements per thread kept in registers (0: stream the row)
// @autokernel tunable FUSED_MEAN = 0 {0, 1, 2, 3} tier 3 -- the row stage averages the losses (no second launch): 1 the last block done (a fence and an atomic per block), 2 the grid's last block once every row's flagged loss is there (one 64-bit store per row, no fence), 3 as 2 with the workspace left zero by that block (AK_WORKSPACE_KEPT_ZERO: no zeroing in the launch)
// @autokernel tunable PEEL = 1 {0, 1} tier 3 -- rows that break VEC alignment: scalar head and tail around a vector body (0: scalar row)
// @autokernel tunable SMEM_ROW = 0 {0, 24, 52, 68, 100, 200} tier 3 -- KiB of shared memory per block staging its rows (cp.async; 0: none)
// @autokernel tunable CLUSTER = 1 {1, 2, 4, 8} tier 3 -- blocks of a cluster sharing each row (sm_90, distributed shared memory)
// @autokernel tunable MIN_BLOCKS = 0 {0, 1, 2, 3, 4, 5, 6, 8, 12, 16} tier 2 -- blocks per SM the registers must leave room for (__launch_bounds__; 0: what PERSISTENT / SMEM_ROW need)
// @autokernel tunable RING = 0 {0, 2, 3, 4, 6, 8} tier 1 -- rows streamed by a producer warp's bulk copies (TMA) through RING shared-memory stages (0: off; sm_90)
// @autokernel tunable RING_KB = 8 {4, 8, 16, 32} tier 2 -- KiB per RING stage
// @autokernel tunable SPLIT = 0 {0, 1} tier 2 -- RING + PERSISTENT: every block streams an equal share of all rows' stages (rows split across blocks, no tail of whole rows)
// @autokernel tunable EXP2X = 0 {0, 1} tier 3 -- FAST_EXP = 2, fp16 / bf16: exponentials two per MUFU op (ex2.approx.f16x2, arguments and results rounded to fp16)
// @autokernel tunable POLY_EXP = 0 {0, 1, 2, 3, 4} tier 3 -- FAST_EXP = 2: this many of every 8 exponentials by a degree-4 polynomial on the FMA pipe instead of MUFU.EX2
// @autokernel tunable MAX2 = 0 {0, 1} tier 3 -- RING + FAST_EXP = 2, fp16 / bf16: each stage's max over packed pairs (max.f16x2 / max.bf16x2) before widening
// @autokernel tunable PIPE = 0 {0, 1} tier 2 -- ONLINE streamed rows: the next batch's loads issued before the current batch is folded (register double buffer)
// @autokernel preset ring sm_90 RING=4 RING_KB=8 BLOCK_THREADS=256 VEC=8 ONLINE=1 FUSED_MEAN=3 LOAD=0 FAST_EXP=2 -- one block per row, a 4 x 8 KiB TMA ring, the mean by the grid's last block from flagged losses (no per-block fence), the workspace left zero by that block (no zeroing memset in the launch): H200 figures in bench/2026-12-04-h200-compute.md
// @autokernel preset ring_two_launch sm_90 RING=4 RING_KB=8 BLOCK_THREADS=256 VEC=8 ONLINE=1 FUSED_MEAN=0 LOAD=0 FAST_EXP=2 -- the same ring, the mean in a second launch: 87.0-89.0 % of a copy at 4096x50257 and 95.1-97.3 % at 8192x50257 fp16 in two runs, H200 (bench/2026-12-04-h200-compute.md)
// @autokernel preset long_rows sm_90 BLOCK_THREADS=512 VEC=8 UNROLL=4 ONLINE=1 FAST_EXP=1 FUSED_MEAN=1 LOAD=2 -- 77.8-83.2 % of a copy at 4096x50257 and 8192x50257 fp16, 2.3x at::cross_entropy_loss, H200 (bench/2026-12-02-h200-compute.md)
#include <autokernel/contract.cuh>
#include <autokernel/helpers.cuh>
#if RING > 0
#include <autokernel/hopper.cuh>
#endif

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 1
#endif
#ifndef MEAN_THREADS
#define MEAN_THREADS 1024
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef ONLINE
#define ONLINE 0
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif
#ifndef ROW_CACHE
#define ROW_CACHE 0
#endif
#ifndef FUSED_MEAN
#define FUSED_MEAN 0
#endif
#ifndef PEEL
#define PEEL 1
#endif
#ifndef CLUSTER
#define CLUSTER 1
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
#ifndef PERSISTENT
#define PERSISTENT 0
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0
#endif
#ifndef PIPE
#define PIPE 0
#endif
#ifndef RING
#define RING 0
#endif
#ifndef EXP2X
#define EXP2X 0
#endif
#ifndef SPLIT
#define SPLIT 0
#endif
#ifndef MAX2
#define MAX2 0
#endif
#ifndef POLY_EXP
#define POLY_EXP 0
#endif
#ifndef RING_KB
#define RING_KB 8
#endif

constexpr int kThreadsPerRow = BLOCK_THREADS / ROWS_PER_BLOCK;
constexpr int kUnroll = UNROLL;
constexpr int kVec = AK_VEC16(VEC);  // the peeled paths' vector: VEC elements, at most 16 bytes
constexpr bool kFastExp = FAST_EXP != 0;
static_assert(FAST_EXP >= 0 && FAST_EXP <= 2, "FAST_EXP: 0 (expf), 1 (ex2 of x * log2 e) or 2 (the max folded into an FMA)");

// exp(x - shift) the way FAST_EXP asks; shift_log2e = shift * log2 e (used by FAST_EXP = 2 only).
__device__ __forceinline__ float exp_shifted(float x, float shift, float shift_log2e) {
    if constexpr (FAST_EXP == 2) return ak_exp_shifted(x, shift_log2e);
    else return ak_exp<kFastExp>(x - shift);
}
static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: multiple of 32, at most 1024");
static_assert(BLOCK_THREADS % ROWS_PER_BLOCK == 0 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK_THREADS / ROWS_PER_BLOCK must be a power of two");
static_assert(ROW_CACHE % VEC == 0, "ROW_CACHE must be a multiple of VEC");
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER: 1, 2, 4 or 8 blocks per row (8 is the portable cluster maximum)");
static_assert(SMEM_ROW == 0 || ROW_CACHE == 0, "SMEM_ROW and ROW_CACHE both hold the row: choose one");
static_assert(SMEM_ROW == 0 || CLUSTER == 1, "SMEM_ROW stages whole rows: it needs CLUSTER = 1");
static_assert(SMEM_ROW <= 226, "SMEM_ROW: at most 226 KiB of shared memory per block (227 KB on Hopper)");
static_assert(SMEM_ROW == 0 || SMEM_ROW * 1024 / ROWS_PER_BLOCK >= 1024,
              "SMEM_ROW: at least 1 KiB of shared memory per row (SMEM_ROW * 1024 / ROWS_PER_BLOCK)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(SMEM_ROW == 0, "SMEM_ROW stages rows with cp.async: it needs sm_80 or newer");
#endif
constexpr int kStageBytesPerRow = SMEM_ROW * 1024 / ROWS_PER_BLOCK / 16 * 16;
// Blocks per SM that SMEM_ROW leaves room for (at most 1024 threads' registers; see softmax.cu).
constexpr int kStageBlocks = SMEM_ROW == 0 ? 1 : (228 / (SMEM_ROW + 1) < 1024 / BLOCK_THREADS ? 228 / (SMEM_ROW + 1) : 1024 / BLOCK_THREADS);
static_assert(CLUSTER == 1 || ROW_CACHE == 0,
              "CLUSTER splits a row across blocks, ROW_CACHE holds a whole row in one block's registers: choose one");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(CLUSTER == 1, "CLUSTER uses thread-block clusters and distributed shared memory: it needs sm_90 or newer");
#endif
static_assert(LOAD >= 0 && LOAD <= 2, "LOAD: 0 (plain), 1 (streaming) or 2 (read-only, L2 evict-first)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(LOAD != 2, "LOAD = 2 uses L2 cache policies (createpolicy): it needs sm_80 or newer");
#endif
static_assert(PREFETCH == 0 || PREFETCH == 1, "PREFETCH: 0 or 1");
static_assert(PERSISTENT >= 0 && PERSISTENT <= 4, "PERSISTENT: 0 (one block per row) or 1..4 blocks per SM");
static_assert(PERSISTENT == 0 || (ROWS_PER_BLOCK == 1 && CLUSTER == 1 && SMEM_ROW == 0 && ROW_CACHE == 0),
              "PERSISTENT loops one streamed row per block at a time: it needs ROWS_PER_BLOCK = 1, CLUSTER = 1, "
              "SMEM_ROW = 0 and ROW_CACHE = 0");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(PREFETCH == 0, "PREFETCH uses the bulk L2 prefetch (cp.async.bulk.prefetch.L2): it needs sm_90 or newer");
#endif
static_assert(MIN_BLOCKS >= 0 && MIN_BLOCKS * BLOCK_THREADS <= 2048,
              "MIN_BLOCKS: 0 or a number of blocks per SM whose threads fit in one SM (MIN_BLOCKS * BLOCK_THREADS <= 2048)");
static_assert(MIN_BLOCKS == 0 || MIN_BLOCKS >= PERSISTENT,
              "MIN_BLOCKS must leave room for the PERSISTENT blocks per SM that the grid launches at once");
static_assert(PIPE == 0 || PIPE == 1, "PIPE: 0 or 1");
static_assert(PIPE == 0 || ONLINE == 1, "PIPE double-buffers the one-pass row's loads: it needs ONLINE = 1");
static_assert(EXP2X == 0 || EXP2X == 1, "EXP2X: 0 or 1");
static_assert(POLY_EXP >= 0 && POLY_EXP <= 4, "POLY_EXP: 0..4 of every 8 exponentials");
static_assert((EXP2X == 0 && POLY_EXP == 0) || (FAST_EXP == 2 && (ONLINE == 1 || RING > 0)),
              "EXP2X and POLY_EXP change the one-pass row's FMA-folded exponentials: they need FAST_EXP = 2 and ONLINE = 1 "
              "(or RING, which always folds in one pass)");
static_assert(RING == 0 || RING == 2 || RING == 3 || RING == 4 || RING == 6 || RING == 8, "RING: 0, 2, 3, 4, 6 or 8 stages");
static_assert(RING_KB == 4 || RING_KB == 8 || RING_KB == 16 || RING_KB == 32, "RING_KB: 4, 8, 16 or 32 KiB per stage");
static_assert(SPLIT == 0 || SPLIT == 1, "SPLIT: 0 or 1");
static_assert(MAX2 == 0 || MAX2 == 1, "MAX2: 0 or 1");
static_assert(MAX2 == 0 || (RING > 0 && FAST_EXP == 2),
              "MAX2 takes each ring stage's max on the packed values: it needs RING > 0 and FAST_EXP = 2");
static_assert(FUSED_MEAN >= 0 && FUSED_MEAN <= 3,
              "FUSED_MEAN: 0 (a second launch), 1 (the last block done), 2 (the grid's last block) or 3 (2, the workspace kept zero)");
constexpr bool kFlagged = FUSED_MEAN >= 2;    // each loss in a flagged 64-bit slot, read by the grid's last block
constexpr bool kKeepZero = FUSED_MEAN == 3;  // that block zeroes every slot it read: the next launch finds them zero
static_assert(SPLIT == 0 || (RING > 0 && PERSISTENT > 0 && FUSED_MEAN == 1),
              "SPLIT shares the rows' stages among persistent ring blocks and finishes the split rows in the fused "
              "mean: it needs RING > 0, PERSISTENT > 0 and FUSED_MEAN = 1");
static_assert(RING == 0 || ROWS_PER_BLOCK == 1, "RING streams one row per block at a time: it needs ROWS_PER_BLOCK = 1");
static_assert(RING == 0 || RING * RING_KB <= 200, "RING * RING_KB: at most 200 KiB of shared memory per block");
static_assert(RING == 0 || PERSISTENT * RING * RING_KB <= 224,
              "RING: PERSISTENT blocks of RING * RING_KB KiB must fit in one SM's 228 KB of shared memory");
static_assert(RING == 0 || (BLOCK_THREADS >= 64 && BLOCK_THREADS <= 512),
              "RING adds a producer warp to the BLOCK_THREADS consumers: BLOCK_THREADS 64..512");
static_assert(RING == 0 || (RING_KB * 1024 / 16) % BLOCK_THREADS == 0,
              "RING: every consumer thread takes the same number of 16-byte vectors of a stage "
              "(RING_KB * 64 must be a multiple of BLOCK_THREADS)");
static_assert(RING == 0 || (PIPE == 0 && PREFETCH == 0 && SMEM_ROW == 0 && ROW_CACHE == 0),
              "RING replaces the streamed loads: PIPE, PREFETCH, SMEM_ROW and ROW_CACHE do not apply");
static_assert(RING == 0 || CLUSTER == 1 || (PERSISTENT == 0 && SPLIT == 0),
              "RING with CLUSTER splits each row's stages across the blocks of a cluster (one row per cluster): "
              "it needs PERSISTENT = 0 and SPLIT = 0");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(RING == 0, "RING uses bulk copies (cp.async.bulk) and mbarrier transaction counts: it needs sm_90 or newer");
#endif
static_assert(MEAN_THREADS % 32 == 0 && MEAN_THREADS <= 1024 && (MEAN_THREADS & (MEAN_THREADS - 1)) == 0,
              "MEAN_THREADS: power of two, 32..1024");

// SPLIT: the workspace holds slots for this many persistent blocks (PERSISTENT <= 4 per SM, 256 SMs); a larger
// grid traps rather than write past them.
constexpr int kSplitMaxBlocks = 1024;

AK_LAUNCH(0) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block (RING: + the producer warp) */ BLOCK_THREADS + (RING > 0 ? 32 : 0), 1, 1,
    /* grid */ PERSISTENT ? AK_GRID_PERSISTENT : AK_GRID_ROWS, /* rows_per_block */ ROWS_PER_BLOCK,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x (PERSISTENT: blocks per SM), grid_y, grid_z */ PERSISTENT, 0, 0,
    /* dynamic_smem_bytes (RING: the stages) */ SMEM_ROW * 1024 + RING * RING_KB * 1024,
    /* cluster: CLUSTER blocks along y share a row (grid.y = CLUSTER) */ 0, CLUSTER > 1 ? CLUSTER : 0, 0,
    /* tma_box_rows */ {0, 0, 0},
    /* tma_box_cols */ {0, 0, 0},
    /* tma_swizzle */ AK_SWIZZLE_NONE,
    /* workspace_bytes_per_row */ kFlagged ? 8 : 4,  // one fp32 loss per row (FUSED_MEAN = 2, 3: and its flag)
    /* workspace_bytes */ FUSED_MEAN == 1 ? 4 + (SPLIT ? kSplitMaxBlocks * 16 : 0) : 0,  // FUSED_MEAN = 1: the
    // blocks-done counter after the losses; SPLIT: then two (max, sum) slots per block
    /* workspace_init */ kKeepZero ? AK_WORKSPACE_KEPT_ZERO : AK_WORKSPACE_ZEROED,  // 3: the mean's block zeroes what it read
};

#if !FUSED_MEAN
AK_LAUNCH(1) = {
    AK_STAGE_KERNEL, AK_LIB_NONE,
    /* block */ MEAN_THREADS, 1, 1,
    /* grid */ AK_GRID_FIXED, /* rows_per_block */ 0,
    /* tile_m, tile_n */ 0, 0,
    /* grid_x, grid_y, grid_z */ 1, 1, 1,
};
#endif

// A flagged 8-byte workspace slot: a float in the low word, 1 in the high word once it is written. One
// st.relaxed.gpu of an aligned 8-byte slot is single-copy atomic, so no reader sees the flag without the value.
__device__ __forceinline__ void store_flagged(unsigned long long* slot, float v) {
    const unsigned long long w = (1ull << 32) | __float_as_uint(v);
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(slot), "l"(w) : "memory");
}

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}

// N flagged slots p, p + STRIDE, ...: all loads issued before any is used, then each slot read again (with
// __nanosleep) until its flag says the value is there; with CLEAR each slot is then zeroed (for the next launch).
template <int N, int STRIDE, bool CLEAR>
__device__ __forceinline__ void load_flagged(unsigned long long* p, float (&v)[N]) {
    unsigned long long w[N];
#pragma unroll
    for (int k = 0; k < N; ++k) w[k] = load_relaxed(p + k * STRIDE);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        while ((w[k] >> 32) == 0) {
            __nanosleep(128);
            w[k] = load_relaxed(p + k * STRIDE);
        }
        v[k] = __uint_as_float(unsigned(w[k]));
        if constexpr (CLEAR) p[k * STRIDE] = 0ull;
    }
}

// The loss of `row` into the workspace: a float, or (FUSED_MEAN = 2, 3) a flagged slot.
__device__ __forceinline__ void store_row_loss(const ak_cross_entropy_args& args, long long row, float loss) {
    if constexpr (kFlagged)
        store_flagged(static_cast<unsigned long long*>(args.workspace) + row, loss);
    else
        static_cast<float*>(args.workspace)[row] = loss;
}

// N row losses r, r + STRIDE, ... from the workspace, all loads issued before any is used. Loads bypass L1
// (with a fused mean the losses were written by other blocks); FUSED_MEAN = 2, 3 wait for each slot's flag
// (3 then zeroes the slot).
template <int N, int STRIDE>
__device__ __forceinline__ void load_row_losses(const ak_cross_entropy_args& args, int r, float (&v)[N]) {
    if constexpr (kFlagged) {
        load_flagged<N, STRIDE, kKeepZero>(static_cast<unsigned long long*>(args.workspace) + r, v);
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = __ldcg(static_cast<const float*>(args.workspace) + r + k * STRIDE);
    }
}

// *loss = the mean of the row losses in the workspace, by THREADS threads of one block: thread t sums rows
// t, t + THREADS, ... in order, then a fixed-order block reduction.
template <int THREADS>
__device__ __forceinline__ void write_mean_loss(const ak_cross_entropy_args& args, float* scratch) {
    float sum = 0.f;
    int r = threadIdx.x < THREADS ? threadIdx.x : args.rows;  // RING's producer warp adds nothing
    constexpr int kBatch = 8;  // eight independent L2 loads in flight, then added in row order
    for (; r + (kBatch - 1) * THREADS < args.rows; r += kBatch * THREADS) {
        float v[kBatch];
        load_row_losses<kBatch, THREADS>(args, r, v);
#pragma unroll
        for (int k = 0; k < kBatch; ++k) sum += v[k];
    }
    for (; r < args.rows; r += THREADS) {
        float v[1];
        load_row_losses<1, THREADS>(args, r, v);
        sum += v[0];
    }
    sum = ak_group_sum<THREADS>(sum, scratch);
    if (threadIdx.x == 0) *args.loss = sum / (float)args.rows;
}

// log(sum(exp(x - max))) + max - x[target] from the group's reduced max and sum; NaN for a target
// outside [0, cols) rather than an out-of-bounds read.
__device__ __forceinline__ float finish_loss(const ak_t* x, int cols, long long target, float row_max, float sum) {
    if (target < 0 || target >= cols) return __int_as_float(0x7fc00000);
    return logf(sum) + row_max - ak_to_float(x[target]);
}

// 2^t for t <= 0 on the FMA pipe (POLY_EXP): t = n + f with n = rint(t) (the 1.5 * 2^23 rounding trick) and
// f in [-0.5, 0.5]; 2^f by a degree-4 polynomial (coefficients fitted here to the relative error of 2^f,
// at most 2.7e-6 on [-0.5, 0.5]), then n added to the exponent field. t is clamped at -126 so the
// exponent cannot wrap (2^-126 of the row's max term is below what any sum here can notice).
__device__ __forceinline__ float exp2_poly(float t) {
    t = fmaxf(t, -126.f);
    const float r = t + 12582912.f;  // 1.5 * 2^23: the low mantissa bits of r hold rint(t)
    const float n = r - 12582912.f;
    const float f = t - n;
    float p = fmaf(0.00956051021f, f, 0.0559170392f);
    p = fmaf(p, f, 0.240249811f);
    p = fmaf(p, f, 0.693121968f);
    p = fmaf(p, f, 0.999999191f);
    return __int_as_float(__float_as_int(p) + (__float_as_int(r) << 23));
}

// EXP2X: 2^t0 and 2^t1 by one packed half-precision MUFU.EX2 (ex2.approx.f16x2; fp16 and bf16 rows): the
// arguments and results are rounded to fp16 (see the header for what that costs in accuracy).
__device__ __forceinline__ void exp2_x2(float t0, float t1, float& e0, float& e1) {
    asm("{\n.reg .b32 h;\n.reg .b16 lo, hi;\n"
        "cvt.rn.f16x2.f32 h, %3, %2;\n"  // t1 to the upper half, t0 to the lower
        "ex2.approx.f16x2 h, h;\n"
        "mov.b32 {lo, hi}, h;\n"
        "cvt.f32.f16 %0, lo;\n"
        "cvt.f32.f16 %1, hi;\n}"
        : "=f"(e0), "=f"(e1)
        : "f"(t0), "f"(t1));
}

// FAST_EXP = 2 with EXP2X and / or POLY_EXP: ak_online_add_fma's fold with some of the exponentials moved
// off the one-result-per-lane MUFU.EX2: value j goes to the polynomial when j % 8 < POLY_EXP, the others
// pairwise to the packed ex2 (EXP2X, fp16 / bf16) or one by one to MUFU.EX2. Sums in index order.
// chunk_max: the max of v (given by the caller that found it another way, MAX2).
template <int K>
__device__ __forceinline__ void online_add_mixed(const float (&v)[K], float chunk_max, float& run_max, float& run_sum) {
    const float new_max = fmaxf(run_max, chunk_max);
    run_sum *= ak_exp<true>(run_max - new_max);
    run_max = new_max;
    const float m_log2e = new_max * 1.4426950408889634f;
    constexpr bool kPacked = EXP2X != 0 && sizeof(ak_t) == 2;
    // value j: polynomial when j % 8 < POLY_EXP; the rest of each group of eight in pairs (j, j + 1) from
    // the group's first MUFU value on (EXP2X), a value left over alone
    auto poly = [](int j) { return j % 8 < POLY_EXP; };
    auto pair_first = [&](int j) {
        return kPacked && !poly(j) && (j % 8 - POLY_EXP) % 2 == 0 && j + 1 < K && (j + 1) % 8 != 0;
    };
    float e[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const float t = fmaf(v[j], 1.4426950408889634f, -m_log2e);
        if (poly(j)) {
            e[j] = exp2_poly(t);
        } else if (pair_first(j)) {
            exp2_x2(t, fmaf(v[j + 1], 1.4426950408889634f, -m_log2e), e[j], e[j + 1]);
        } else if (j == 0 || !pair_first(j - 1)) {
            asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e[j]) : "f"(t));
        }
    }
#pragma unroll
    for (int j = 0; j < K; ++j) run_sum += e[j];
}

template <int K>
__device__ __forceinline__ void online_fold(const float (&v)[K], float& run_max, float& run_sum) {
    if constexpr (FAST_EXP == 2 && (EXP2X != 0 || POLY_EXP != 0)) {
        float chunk_max = v[0];
#pragma unroll
        for (int j = 1; j < K; ++j) chunk_max = fmaxf(chunk_max, v[j]);
        online_add_mixed<K>(v, chunk_max, run_max, run_sum);
    } else if constexpr (FAST_EXP == 2) {
        ak_online_add_fma<K>(v, run_max, run_sum);
    } else {
        ak_online_add<K, kFastExp>(v, run_max, run_sum);
    }
}

// MAX2 (RING, fp16 / bf16): the max of N raw 16-byte vectors by packed max.f16x2 / max.bf16x2 (two lanes per
// instruction: 4 N - 1 of them and a final pair instead of 8 N - 1 scalar FMNMX), then widened. The widening
// is exact and monotone, so it is the same float as the max of the widened values.
template <int N, int V>
__device__ __forceinline__ float raw_max2(const ak_vec<V> (&raw)[N]) {
    const unsigned* w = reinterpret_cast<const unsigned*>(&raw[0]);
    unsigned m = w[0];
#pragma unroll
    for (int i = 1; i < N * 4; ++i) {
#if defined(AK_DTYPE_BF16)
        asm("max.bf16x2 %0, %0, %1;" : "+r"(m) : "r"(w[i]));
#else
        asm("max.f16x2 %0, %0, %1;" : "+r"(m) : "r"(w[i]));
#endif
    }
    const ak_t* h = reinterpret_cast<const ak_t*>(&m);
    return fmaxf(ak_to_float(h[0]), ak_to_float(h[1]));
}

// RING's fold of a full stage's raw vectors: MAX2 finds the chunk max on the packed values, then the
// FMA-folded exponentials (online_add_mixed, the same sums as online_fold's); otherwise online_fold.
template <int N, int V>
__device__ __forceinline__ void online_fold_raw(const ak_vec<V> (&raw)[N], float& run_max, float& run_sum) {
    float v[N * V];
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) v[j * V + e] = ak_to_float(raw[j].v[e]);
    if constexpr (MAX2 != 0 && sizeof(ak_t) == 2 && FAST_EXP == 2) online_add_mixed<N * V>(v, raw_max2<N, V>(raw), run_max, run_sum);
    else online_fold(v, run_max, run_sum);
}

// PREFETCH: part `p` of the row (split for V-element vectors) on its way into L2, issued by the group.
template <int V>
__device__ __forceinline__ void prefetch_part(const ak_t* x, const ak_row_part& p, int lane) {
    ak_prefetch_l2(x + p.begin, (long long)(p.head + p.chunks * V + p.tail) * (long long)sizeof(ak_t), lane,
                   kThreadsPerRow);
}

// PIPE: ak_part_fold's visit of this thread's elements of part `p` (the same elements, batches and order,
// so the same bits), with the body software-pipelined: batch b + 1's Unroll vector loads are issued
// before batch b is converted and folded, so every thread keeps loads in flight while it computes.
// The batches are held as raw vectors (half the registers of floats in fp16 / bf16).
template <int V, int STRIDE, int Unroll, int Hint, class Fold>
__device__ __forceinline__ void part_fold_pipelined(const ak_t* x, const ak_row_part& p, int lane, Fold&& fold) {
    for (int c = lane; c < p.head; c += STRIDE) {
        const float v[1] = {ak_to_float(x[p.begin + c])};
        fold(v);
    }
    const ak_t* body = x + p.begin + p.head;
    constexpr int kSpan = Unroll * STRIDE;  // chunks between a thread's consecutive batches
    int i = lane;
    if (i + (Unroll - 1) * STRIDE < p.chunks) {
        ak_vec<V> cur[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) cur[u] = ak_load_vec<V, Hint>(body + (i + u * STRIDE) * V);
        for (;;) {
            const bool more = i + kSpan + (Unroll - 1) * STRIDE < p.chunks;
            ak_vec<V> nxt[Unroll];
            if (more) {
#pragma unroll
                for (int u = 0; u < Unroll; ++u) nxt[u] = ak_load_vec<V, Hint>(body + (i + kSpan + u * STRIDE) * V);
            }
            float v[Unroll * V];
#pragma unroll
            for (int u = 0; u < Unroll; ++u)
#pragma unroll
                for (int j = 0; j < V; ++j) v[u * V + j] = ak_to_float(cur[u].v[j]);
            fold(v);
            i += kSpan;
            if (!more) break;
#pragma unroll
            for (int u = 0; u < Unroll; ++u) cur[u] = nxt[u];
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

// This thread's share of part `p` of the row (split for V-element vectors) folded into the row's max
// and sum of exp(x - max): one pass (ONLINE) or two, over the group, then over the cluster.
template <int V>
__device__ __forceinline__ void row_stats(const ak_t* x, const ak_row_part& p, int lane, float* scratch, float* xch,
                                          int slot, float& row_max, float& sum) {
    row_max = AK_NEG_INF;
    sum = 0.f;
    if constexpr (ONLINE != 0) {
        if constexpr (PIPE != 0)
            part_fold_pipelined<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) { online_fold(v, row_max, sum); });
        else
            ak_part_fold<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) { online_fold(v, row_max, sum); });
        ak_online_group<kThreadsPerRow, kFastExp>(row_max, sum, scratch);
        if constexpr (CLUSTER > 1) ak_cluster_online<CLUSTER, kFastExp>(row_max, sum, xch, slot, lane == 0);
    } else {
        ak_part_fold<V, kThreadsPerRow, kUnroll>(x, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
        row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
        if constexpr (CLUSTER > 1) {
            float unused = 0.f;
            ak_cluster_online<CLUSTER, kFastExp>(row_max, unused, xch, slot, lane == 0);
        }
        const float shift = row_max == AK_NEG_INF ? 0.f : row_max;  // empty groups: keep exps finite
        const float shift_log2e = shift * 1.4426950408889634f;
        ak_part_fold<V, kThreadsPerRow, kUnroll, LOAD>(x, p, lane, [&](const auto& v) {  // the last read: hinted
            constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
            for (int j = 0; j < K; ++j) sum += exp_shifted(v[j], shift, shift_log2e);
        });
        sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
        if constexpr (CLUSTER > 1) sum = ak_cluster_sum<CLUSTER>(sum, xch, slot, lane == 0);
    }
}

// The same loss with the thread's share of the row in registers: V-element chunks lane, lane + threads
// per row, ... (SLOTS of them; the caller checked they cover the row).
template <int V, int SLOTS>
__device__ __forceinline__ float row_loss_cached(const ak_t* x, int cols, long long target, int lane, bool active,
                                                 float* scratch) {
    const int chunks = active ? cols / V : 0;
    float v[SLOTS][V];
    ak_load_slots<V, SLOTS, kThreadsPerRow, LOAD>(x, chunks, lane, AK_NEG_INF, v);  // padding: exp(-inf - max) = 0
    float row_max = AK_NEG_INF;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) row_max = fmaxf(row_max, v[s][j]);
    row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
    const float shift = row_max == AK_NEG_INF ? 0.f : row_max;  // inactive groups: keep exps finite
    const float shift_log2e = shift * 1.4426950408889634f;

    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) sum += exp_shifted(v[s][j], shift, shift_log2e);
    sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
    return finish_loss(x, cols, target, row_max, sum);
}

// One block's rows (ROWS_PER_BLOCK of them, or its share of one under CLUSTER): each row's loss to the workspace.
__device__ __forceinline__ void block_rows(const ak_cross_entropy_args& args, float* scratch, float* xch) {
    const int group = threadIdx.x / kThreadsPerRow;
    const int lane = threadIdx.x % kThreadsPerRow;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < args.rows;  // inactive threads still join the block (and cluster) reductions
    const ak_t* x = args.logits + (active ? row * args.cols : 0);
    const long long target = active ? args.targets[row] : 0;
    const int rank = CLUSTER > 1 ? ak_cluster_rank() : 0;

    float loss = 0.f;
    bool done = false;
    if constexpr (SMEM_ROW > 0) {  // CLUSTER == 1 here; rows that do not fit stream below
        extern __shared__ __align__(16) unsigned char smem[];
        constexpr int kV = AK_STAGE_V;
        if (ak_stage_elems(args.cols + kV) * (int)sizeof(ak_t) <= kStageBytesPerRow) {  // the same in every block
            const ak_row_part p = ak_split_row<kV>(x, active ? args.cols : 0);
            const ak_t* st = ak_stage_part<kThreadsPerRow, LOAD>(x, p, reinterpret_cast<ak_t*>(smem + group * kStageBytesPerRow), lane);
            ak_stage_wait();
            float row_max = AK_NEG_INF, sum = 0.f;
            ak_part_fold<kV, kThreadsPerRow, 1>(st, p, lane, [&](const auto& v) { ak_max_add(v, row_max); });
            row_max = ak_group_max<kThreadsPerRow>(row_max, scratch);
            const float shift = row_max == AK_NEG_INF ? 0.f : row_max;
            const float shift_log2e = shift * 1.4426950408889634f;
            ak_part_fold<kV, kThreadsPerRow, 1>(st, p, lane, [&](const auto& v) {
                constexpr int K = sizeof(v) / sizeof(v[0]);
#pragma unroll
                for (int j = 0; j < K; ++j) sum += exp_shifted(v[j], shift, shift_log2e);
            });
            sum = ak_group_sum<kThreadsPerRow>(sum, scratch);
            loss = finish_loss(x, args.cols, target, row_max, sum);
            done = true;
        }
    }
    if constexpr (ROW_CACHE > 0) {  // CLUSTER == 1 here; rows that do not fit stream below
        const bool cache_vec = VEC > 1 && args.cols % VEC == 0 && ak_aligned<VEC>(args.logits);
        if (cache_vec && args.cols / VEC <= ROW_CACHE / VEC * kThreadsPerRow) {
            loss = row_loss_cached<VEC, ROW_CACHE / VEC>(x, args.cols, target, lane, active, scratch);
            done = true;
        } else if (!cache_vec && args.cols <= ROW_CACHE * kThreadsPerRow) {
            loss = row_loss_cached<1, ROW_CACHE>(x, args.cols, target, lane, active, scratch);
            done = true;
        }
    }
    if (!done) {
        const int cols = active ? args.cols : 0;
        float row_max, sum;
        if (kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.logits)))) {
            const ak_row_part p = ak_row_share<kVec>(ak_split_row<kVec>(x, cols), rank, CLUSTER);
            if constexpr (PREFETCH != 0) prefetch_part<kVec>(x, p, lane);
            row_stats<kVec>(x, p, lane, scratch, xch, group, row_max, sum);
        } else {
            const ak_row_part p = ak_row_share<1>(ak_split_row<1>(x, cols), rank, CLUSTER);
            if constexpr (PREFETCH != 0) prefetch_part<1>(x, p, lane);
            row_stats<1>(x, p, lane, scratch, xch, group, row_max, sum);
        }
        loss = finish_loss(x, args.cols, target, row_max, sum);
    }
    if (active && lane == 0 && rank == 0) store_row_loss(args, row, loss);
}

// PERSISTENT: blocks loop over rows blockIdx.x, + gridDim.x, ... (one row at a time, streamed); with
// PREFETCH each row's successor is handed to the copy engine (cp.async.bulk.prefetch.L2) when the row
// starts, so HBM keeps streaming into L2 while the loads walk this row and no block ends before the last
// rows: no tail of blocks that start late.
__device__ __forceinline__ void persistent_rows(const ak_cross_entropy_args& args, float* scratch, float* xch) {
    const int lane = threadIdx.x;
    const long long step = gridDim.x;
    const long long row_bytes = (long long)args.cols * (long long)sizeof(ak_t);
    if constexpr (PREFETCH != 0)
        if (blockIdx.x < args.rows) ak_prefetch_l2(args.logits + blockIdx.x * args.cols, row_bytes, lane, BLOCK_THREADS);
    for (long long row = blockIdx.x; row < args.rows; row += step) {
        const ak_t* x = args.logits + row * args.cols;
        if constexpr (PREFETCH != 0)
            if (row + step < args.rows) ak_prefetch_l2(x + step * args.cols, row_bytes, lane, BLOCK_THREADS);
        float row_max, sum;
        if (kVec > 1 && (PEEL != 0 || (args.cols % kVec == 0 && ak_aligned<kVec>(args.logits))))
            row_stats<kVec>(x, ak_split_row<kVec>(x, args.cols), lane, scratch, xch, 0, row_max, sum);
        else
            row_stats<1>(x, ak_split_row<1>(x, args.cols), lane, scratch, xch, 0, row_max, sum);
        const float loss = finish_loss(x, args.cols, args.targets[row], row_max, sum);
        if (lane == 0) store_row_loss(args, row, loss);
    }
}

#if RING > 0
// RING: the producer warp's bulk copy of `bytes` (a multiple of 16) from global `src` (16-byte aligned) into
// shared memory at `dst`, completing on mbarrier `bar`; LOAD = 2 marks the lines evict-first in L2.
__device__ __forceinline__ void ring_copy(unsigned dst, const void* src, unsigned bytes, unsigned bar,
                                          unsigned long long policy) {
    if constexpr (LOAD == 2)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;\n" ::"r"(dst),
            "l"(src), "r"(bytes), "r"(bar), "l"(policy)
            : "memory");
    else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                     "l"(src), "r"(bytes), "r"(bar)
                     : "memory");
}

// RING: the stages of a row, RING_KB KiB of its 16-byte-aligned body each (the same count for every row:
// the longest body a row of `cols` can have; a shorter body's last stage may be empty), at least one.
__device__ __forceinline__ int ring_stages_per_row(int cols) {
    const long long body = (long long)cols * (long long)sizeof(ak_t) / 16 * 16;
    const int stages = int((body + RING_KB * 1024 - 1) / (RING_KB * 1024));
    return stages > 0 ? stages : 1;  // a row under 16 bytes: one empty stage, its elements all head or tail
}

// RING: calls f(row, s0, s1, span) for each part of a row this block streams: stages [s0, s1) of `row`, the
// block's span-th part. Without SPLIT, whole rows blockIdx.x, + gridDim.x, ... (one row each without
// PERSISTENT); with SPLIT, the contiguous share [U * b / G, U * (b + 1) / G) of the U = rows * stages units of
// the whole tensor (row-major), so only the first and the last part of a block can be partial rows.
template <class F>
__device__ __forceinline__ void ring_for_each_part(const ak_cross_entropy_args& args, F&& f) {
    const int stages = ring_stages_per_row(args.cols);
    if constexpr (SPLIT != 0) {
        const long long units = (long long)args.rows * stages;
        long long u = units * blockIdx.x / gridDim.x;
        const long long end = units * (blockIdx.x + 1) / gridDim.x;
        for (int span = 0; u < end; ++span) {
            const long long row = u / stages;
            const int s0 = int(u - row * stages);
            const int s1 = end - row * stages < stages ? int(end - row * stages) : stages;
            f(row, s0, s1, span);
            u = row * stages + s1;
        }
    } else if constexpr (CLUSTER > 1) {
        const int rank = ak_cluster_rank();  // the cluster's row, this block's contiguous share of its stages
        f((long long)blockIdx.x, stages * rank / CLUSTER, stages * (rank + 1) / CLUSTER, 0);
    } else {
        for (long long row = blockIdx.x; row < args.rows; row += gridDim.x) f(row, 0, stages, 0);
    }
}

// SPLIT: block b's partial-row slots, (max, sum) of its first part (slot 0) and of its last (slot 1), after
// the losses and the blocks-done counter in the workspace.
__device__ __forceinline__ float* split_slot(const ak_cross_entropy_args& args, long long block, int slot) {
    return static_cast<float*>(args.workspace) + args.rows + 1 + 4 * block + 2 * slot;
}

// RING: the last warp copies each part's stages through the RING stages (stage use k: slot k % RING,
// phase (k / RING) & 1), and the BLOCK_THREADS consumers fold them: thread t takes the stage's 16-byte
// vectors t, t + BLOCK_THREADS, ... (a fixed assignment, so the sums are reproducible); the part holding
// stage 0 also folds the row's head and tail (at most one element per thread). The consumers' per-part
// reduction runs on named barrier 1 (the producer warp never joins it). A whole row's loss goes to the
// workspace; a partial row's (max, sum) to the block's SPLIT slot, combined by the last block; under CLUSTER,
// thread 0 leaves the block's (max, sum) and, in rank 0, the target's logit (NaN for a target out of range)
// in `part` for ring_cluster_finish. Rank 0 folds the head and tail whatever its share of the stages.
__device__ __forceinline__ void ring_rows(const ak_cross_entropy_args& args, float* red, float* part) {
    constexpr int kV = AK_STAGE_V;                      // elements per 16-byte vector
    constexpr int kStageBytes = RING_KB * 1024;
    constexpr int kPer = kStageBytes / 16 / BLOCK_THREADS;  // vectors per consumer thread of a full stage
    constexpr int kWarps = BLOCK_THREADS / 32;
    extern __shared__ __align__(16) unsigned char smem[];  // bulk copies: 16-byte aligned stages
    __shared__ __align__(8) unsigned long long bars[2 * RING];  // full[RING], then empty[RING]
    const unsigned full0 = ak_smem_addr(&bars[0]), empty0 = ak_smem_addr(&bars[RING]);
    const unsigned stage0 = ak_smem_addr(smem);
    if (threadIdx.x == 0) {
        for (int i = 0; i < RING; ++i) {
            ak_mbar_init(full0 + 8 * i, 1);             // the producer's arrival + the copy's bytes
            ak_mbar_init(empty0 + 8 * i, kWarps);       // one arrival per consumer warp
        }
        ak_mbar_init_fence();
    }
    __syncthreads();
    const int stages = ring_stages_per_row(args.cols);
    const int warp = threadIdx.x / 32, lane32 = threadIdx.x % 32;

    if (warp == kWarps) {  // the producer warp: one thread issues every copy
        if (lane32 == 0) {
            const unsigned long long policy = LOAD == 2 ? ak_evict_first_policy() : 0ull;
            unsigned k = 0;
            ring_for_each_part(args, [&](long long row, int s0, int s1, int) {
                const ak_t* x = args.logits + row * args.cols;
                const ak_row_part p = ak_split_row<kV>(x, args.cols);
                const char* body = reinterpret_cast<const char*>(x + p.head);
                const long long body_bytes = (long long)p.chunks * 16;
                for (int st = s0; st < s1; ++st) {
                    const long long off = (long long)st * kStageBytes;
                    if (off >= body_bytes) break;  // an empty last stage: nothing to copy, nothing to wait for
                    const unsigned slot = k % RING;
                    ak_mbar_wait(empty0 + 8 * slot, ((k / RING) + 1) & 1);  // first round: passes at once
                    const unsigned bytes = unsigned(body_bytes - off < kStageBytes ? body_bytes - off : kStageBytes);
                    ak_mbar_expect_tx(full0 + 8 * slot, bytes);
                    ring_copy(stage0 + slot * kStageBytes, body + off, bytes, full0 + 8 * slot, policy);
                    ++k;
                }
            });
        }
        __syncwarp();  // the warp reconverges before the fused mean's __syncthreads
        return;
    }

    const int t = threadIdx.x;
    unsigned k = 0;
    int parity = 0;  // red's half for this part: two parts' reductions never share it
    ring_for_each_part(args, [&](long long row, int s0, int s1, int span) {
        const ak_t* x = args.logits + row * args.cols;
        const ak_row_part p = ak_split_row<kV>(x, args.cols);
        const bool whole = CLUSTER == 1 && s0 == 0 && s1 == stages;
        // the peeled edges (with stage 0; CLUSTER: rank 0) and the target's logit (whole rows; CLUSTER: rank 0):
        // loads issued now, used at the end
        const bool edges = CLUSTER > 1 ? ak_cluster_rank() == 0 : s0 == 0;
        const bool has_head = edges && t < p.head, has_tail = edges && t < p.tail;
        const ak_t head_v = has_head ? x[t] : ak_t(0.f);
        const ak_t tail_v = has_tail ? x[p.head + p.chunks * kV + t] : ak_t(0.f);
        const bool owns_target = whole || (CLUSTER > 1 && edges);
        const long long target = owns_target ? args.targets[row] : 0;
        const bool target_ok = target >= 0 && target < args.cols;
        const ak_t target_v = owns_target && t == 0 && target_ok ? x[target] : ak_t(0.f);

        float run_max = AK_NEG_INF, run_sum = 0.f;
        const long long body_bytes = (long long)p.chunks * 16;
        for (int stg = s0; stg < s1; ++stg) {
            const long long off = (long long)stg * kStageBytes;
            if (off >= body_bytes) break;
            const unsigned slot = k % RING;
            ak_mbar_wait(full0 + 8 * slot, (k / RING) & 1);
            const ak_vec<kV>* st = reinterpret_cast<const ak_vec<kV>*>(smem + slot * kStageBytes);
            if (body_bytes - off >= kStageBytes) {  // a full stage: kPer vectors for every thread, folded at once
                ak_vec<kV> raw[kPer];
#pragma unroll
                for (int j = 0; j < kPer; ++j) raw[j] = st[t + j * BLOCK_THREADS];
                __syncwarp();
                if (lane32 == 0) ak_mbar_arrive(empty0 + 8 * slot);  // the loads above are done reading
                online_fold_raw<kPer, kV>(raw, run_max, run_sum);
            } else {  // the row's last, partial stage: the vectors below its end, one at a time
                const int n16 = int((body_bytes - off) / 16);
#pragma unroll
                for (int j = 0; j < kPer; ++j) {
                    if (t + j * BLOCK_THREADS < n16) {
                        const ak_vec<kV> raw = st[t + j * BLOCK_THREADS];
                        float v[kV];
#pragma unroll
                        for (int e = 0; e < kV; ++e) v[e] = ak_to_float(raw.v[e]);
                        online_fold(v, run_max, run_sum);
                    }
                }
                __syncwarp();
                if (lane32 == 0) ak_mbar_arrive(empty0 + 8 * slot);
            }
            ++k;
        }
        if (has_head) {
            const float v[1] = {ak_to_float(head_v)};
            online_fold(v, run_max, run_sum);
        }
        if (has_tail) {
            const float v[1] = {ak_to_float(tail_v)};
            online_fold(v, run_max, run_sum);
        }
        // the consumers' (max, sum) in a fixed order: warps by butterfly, then warp 0..kWarps-1
        float m = ak_warp_max<32>(run_max);
        float sum = run_max == AK_NEG_INF ? 0.f : run_sum * ak_exp<kFastExp>(run_max - m);
        sum = ak_warp_sum<32>(sum);
        float* r = red + parity * 2 * kWarps;
        if (lane32 == 0) {
            r[2 * warp] = m;
            r[2 * warp + 1] = sum;
        }
        ak_named_barrier<BLOCK_THREADS>(1);
        if (t == 0) {
            float row_max = r[0];
            for (int w = 1; w < kWarps; ++w) row_max = fmaxf(row_max, r[2 * w]);
            float row_sum = 0.f;
            for (int w = 0; w < kWarps; ++w)
                row_sum += r[2 * w] == AK_NEG_INF ? 0.f : r[2 * w + 1] * ak_exp<kFastExp>(r[2 * w] - row_max);
            if constexpr (CLUSTER > 1) {
                part[0] = row_max;
                part[1] = row_sum;
                part[2] = target_ok ? ak_to_float(target_v) : __int_as_float(0x7fc00000);
            } else if (whole) {
                store_row_loss(args, row,
                               target_ok ? logf(row_sum) + row_max - ak_to_float(target_v) : __int_as_float(0x7fc00000));
            } else if constexpr (SPLIT != 0) {
                float* slot = split_slot(args, blockIdx.x, span == 0 ? 0 : 1);
                slot[0] = row_max;
                slot[1] = row_sum;
            }
        }
        parity ^= 1;
    });
}

// RING with CLUSTER, every thread of the block (the cluster barriers): the blocks' (max, sum) combined in rank
// order through distributed shared memory (ak_cluster_online); rank 0 writes the row's loss.
__device__ __forceinline__ void ring_cluster_finish(const ak_cross_entropy_args& args, const float* part, float* xch) {
    float m = threadIdx.x == 0 ? part[0] : AK_NEG_INF, s = threadIdx.x == 0 ? part[1] : 0.f;
    ak_cluster_online<CLUSTER, kFastExp>(m, s, xch, 0, threadIdx.x == 0);
    if (threadIdx.x == 0 && ak_cluster_rank() == 0)
        store_row_loss(args, blockIdx.x, logf(s) + m - part[2]);  // part[2]: NaN for a bad target
}

// SPLIT, in the last block: the loss of every row split across blocks. The block whose share holds the
// row's stage 0 (the row is its last part) combines its slot with the first-part slots of the blocks after
// it, in block order, until the one whose share reaches the row's last stage; one thread per starting block.
__device__ __forceinline__ void split_finish(const ak_cross_entropy_args& args) {
    const int stages = ring_stages_per_row(args.cols);
    const long long units = (long long)args.rows * stages;
    const long long blocks = gridDim.x;
    for (long long b = threadIdx.x; b < blocks; b += blockDim.x) {
        const long long u0 = units * b / blocks, u1 = units * (b + 1) / blocks;
        if (u0 >= u1) continue;
        const long long row = (u1 - 1) / stages;  // the block's last part
        const long long row_begin = row * stages, row_end = row_begin + stages;
        if (u0 > row_begin || u1 >= row_end) continue;  // it does not start the row, or holds all of it
        const bool only_part = u0 == row_begin;          // then it is the block's first part too: slot 0
        float m = __ldcg(split_slot(args, b, only_part ? 0 : 1));
        float s = __ldcg(split_slot(args, b, only_part ? 0 : 1) + 1);
        for (long long c = b + 1; c < blocks; ++c) {
            const long long c0 = units * c / blocks, c1 = units * (c + 1) / blocks;
            if (c0 >= c1) continue;
            const float cm = __ldcg(split_slot(args, c, 0)), cs = __ldcg(split_slot(args, c, 0) + 1);
            const float nm = fmaxf(m, cm);
            s = (m == AK_NEG_INF ? 0.f : s * ak_exp<kFastExp>(m - nm)) + (cm == AK_NEG_INF ? 0.f : cs * ak_exp<kFastExp>(cm - nm));
            m = nm;
            if (c1 >= row_end) break;
        }
        const long long target = args.targets[row];
        const ak_t* x = args.logits + row * args.cols;
        static_cast<float*>(args.workspace)[row] =
            target >= 0 && target < args.cols ? logf(s) + m - ak_to_float(x[target]) : __int_as_float(0x7fc00000);
    }
}
#endif

// PERSISTENT blocks must all be resident at once (the grid is sized for it): the register budget allows it.
// MIN_BLOCKS > 0 asks for more: the compiler caps the registers at 65536 / (MIN_BLOCKS * BLOCK_THREADS).
constexpr int kMinBlocks = MIN_BLOCKS > 0 ? MIN_BLOCKS : PERSISTENT > 0 ? PERSISTENT : kStageBlocks;

constexpr int kBlockThreads = BLOCK_THREADS + (RING > 0 ? 32 : 0);

extern "C" __global__ void __launch_bounds__(kBlockThreads, kMinBlocks) ak_kernel0(ak_cross_entropy_args args) {
    // RING: the producer warp joins the fused mean's reduction too (its slot past the consumers' is unused)
    __shared__ float scratch[RING > 0 ? 2 * kBlockThreads / 32 : BLOCK_THREADS / 32];
#if RING > 0
    __shared__ float red[4 * (BLOCK_THREADS / 32)];  // two rows' (max, sum) per consumer warp
    __shared__ float part[3];                         // CLUSTER: this block's (max, sum), rank 0's target logit
    if (SPLIT != 0 && gridDim.x > kSplitMaxBlocks) __trap();
    ring_rows(args, red, part);
    if constexpr (CLUSTER > 1) {
        __shared__ float xch[2];  // read by the cluster's other blocks
        ring_cluster_finish(args, part, xch);
    }
#else
    __shared__ float xch[2 * ROWS_PER_BLOCK];  // CLUSTER: this block's (max, sum) per row, read by the cluster
    if constexpr (PERSISTENT > 0)
        persistent_rows(args, scratch, xch);
    else
        block_rows(args, scratch, xch);
#endif

    if constexpr (kFlagged) {
        if (blockIdx.x == gridDim.x - 1 && blockIdx.y == gridDim.y - 1) {  // every other block just exits
            __syncthreads();  // scratch is free again
            write_mean_loss<BLOCK_THREADS>(args, scratch);
        }
    } else if constexpr (FUSED_MEAN == 1) {
        __shared__ bool last_block;
        // this block's losses are visible to every block before it counts itself done. RING: thread 0 wrote
        // every one of them (ring_rows, ring_cluster_finish), so its own fence orders them before its count
        // and the other threads go straight to the barrier; otherwise every thread (the groups' writers among
        // them) fences before the barrier.
        if (RING == 0 || threadIdx.x == 0) __threadfence();
        if constexpr (RING == 0) __syncthreads();
        if (threadIdx.x == 0) {
            unsigned* blocks_done = reinterpret_cast<unsigned*>(static_cast<float*>(args.workspace) + args.rows);
            last_block = atomicAdd(blocks_done, 1u) == gridDim.x * gridDim.y - 1;
        }
        __syncthreads();
        if (last_block) {
            __threadfence();
#if RING > 0 && SPLIT != 0
            split_finish(args);  // the split rows' losses, before the mean reads them
            __threadfence();
            __syncthreads();
#endif
            write_mean_loss<BLOCK_THREADS>(args, scratch);
        }
    }
}

#if !FUSED_MEAN
// One block averages the row losses.
extern "C" __global__ void __launch_bounds__(MEAN_THREADS) ak_kernel1(ak_cross_entropy_args args) {
    __shared__ float scratch[MEAN_THREADS / 32];
    write_mean_loss<MEAN_THREADS>(args, scratch);
}
#endif
