#pragma once
// The memory-bound row starters' long-row variants (kernels/cuda/softmax.cu, cross_entropy.cu, rmsnorm.cu,
// reduce.cu: PEEL, SMEM_ROW, CLUSTER, ONLINE with batched loads) that the tests hold to account, one list
// for two suites: each compiles through NVRTC for sm_90a in every dtype (test_engine,
// test_row_kernel_variants.cpp, no GPU needed) and passes all five correctness stages in every dtype on a
// GPU (test_evaluator_gpu, StarterVariantPasses/GpuRowVariants).
#include <string>
#include <utility>
#include <vector>

namespace ak::test {

struct RowKernelVariant {
    std::string type;  // the starter: kernels/cuda/<type>.cu
    std::vector<std::pair<std::string, std::string>> tunables;
};

// Together they cover every path: the peeled vector body (head, body, tail; y stored as vectors) with
// batched loads, one-pass (online) and two-pass statistics; rows staged in shared memory by cp.async
// (one and several rows per block, rows too long for the stage falling back to streaming), also double
// buffered by persistent blocks (PIPELINE: 200 KiB holds two fp16 rows of 50257; 52 KiB streams them); rows split
// across clusters of 2, 4 and 8 blocks with distributed shared memory reductions, streamed and staged;
// the fused mean of cross_entropy under a cluster; the LOAD cache hints (streaming, read-only L2 evict-first)
// on the streamed, staged and register-cached rows (rmsnorm's two passes: evict-last, then evict-first);
// cross_entropy's FMA-folded exponentials (FAST_EXP = 2); the bulk L2 prefetch of a streamed row (PREFETCH);
// cross_entropy's persistent blocks (PERSISTENT, with and without the next row prefetched, one- and two-pass);
// cross_entropy's software-pipelined one-pass row (PIPE) under a register cap (MIN_BLOCKS), also persistent;
// cross_entropy's TMA ring (RING: a producer warp's bulk copies through shared-memory stages; peeled rows), with
// the fused mean, small stages with 64 consumer threads, large stages with 512; cross_entropy's exponentials
// two per packed f16x2 MUFU op (EXP2X) and partly on the FMA pipe (POLY_EXP), streamed and ring-fed; the ring with
// one block per row, and with the rows' stages shared equally among persistent blocks (SPLIT: split rows combined
// by the fused mean), its stage max on packed pairs (MAX2); the ring with each row's stages split across a cluster
// of 2, 4 and 8 blocks (short edge rows leave some ranks no stage at all); the mean by the grid's last block
// from the rows' flagged losses (FUSED_MEAN = 2) on the ring, several rows per block, streamed and ring
// clusters, persistent rings and persistent streamed rows; the flagged-loss mean that leaves the workspace zero
// (FUSED_MEAN = 3: AK_WORKSPACE_KEPT_ZERO) on the ring, a small ring with 64 consumers, streamed rows and clusters.
inline const std::vector<RowKernelVariant>& row_kernel_variants() {
    static const std::vector<RowKernelVariant> variants = {
        {"softmax", {{"VEC", "8"}}},
        {"softmax", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "4"}, {"ONLINE", "1"}, {"FAST_EXP", "1"}}},
        {"softmax", {{"BLOCK_THREADS", "1024"}, {"VEC", "8"}, {"SMEM_ROW", "100"}}},
        {"softmax", {{"BLOCK_THREADS", "512"}, {"ROWS_PER_BLOCK", "4"}, {"VEC", "8"}, {"SMEM_ROW", "52"}, {"FAST_EXP", "1"}}},
        {"softmax", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "2"}, {"ONLINE", "1"}, {"CLUSTER", "4"}}},
        {"softmax", {{"VEC", "8"}, {"FAST_EXP", "1"}, {"SMEM_ROW", "52"}, {"CLUSTER", "2"}}},  // 256 threads
        {"softmax", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"FAST_EXP", "1"}, {"SMEM_ROW", "100"}}},
        {"softmax", {{"BLOCK_THREADS", "1024"}, {"VEC", "8"}, {"FAST_EXP", "1"}, {"SMEM_ROW", "200"}, {"PIPELINE", "1"}}},
        {"softmax", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"SMEM_ROW", "52"}, {"PIPELINE", "1"}}},
        {"softmax", {{"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"FAST_EXP", "1"}, {"SMEM_ROW", "100"}}},
        {"softmax", {{"LOAD", "1"}, {"VEC", "8"}, {"ROW_CACHE", "32"}}},
        {"cross_entropy", {{"VEC", "8"}, {"UNROLL", "4"}, {"ONLINE", "1"}, {"FAST_EXP", "1"}}},
        {"cross_entropy", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "2"}}},
        {"cross_entropy", {{"VEC", "8"}, {"UNROLL", "2"}, {"ONLINE", "1"}, {"FUSED_MEAN", "1"}, {"CLUSTER", "8"}}},
        {"cross_entropy", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"FAST_EXP", "1"}, {"SMEM_ROW", "100"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"ROWS_PER_BLOCK", "2"}, {"VEC", "8"}, {"SMEM_ROW", "68"}}},
        {"cross_entropy", {{"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "4"}, {"ONLINE", "1"},
                           {"FAST_EXP", "1"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"LOAD", "1"}, {"VEC", "8"}, {"UNROLL", "2"}}},
        {"cross_entropy", {{"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"SMEM_ROW", "100"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "4"}, {"ONLINE", "1"},
                           {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"VEC", "8"}, {"ROW_CACHE", "32"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"PREFETCH", "1"}, {"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "4"},
                           {"ONLINE", "1"}, {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"PREFETCH", "1"}, {"VEC", "8"}, {"UNROLL", "2"}, {"CLUSTER", "2"}}},
        {"cross_entropy", {{"PERSISTENT", "2"}, {"PREFETCH", "1"}, {"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"},
                           {"UNROLL", "4"}, {"ONLINE", "1"}, {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"PERSISTENT", "1"}, {"BLOCK_THREADS", "1024"}, {"VEC", "8"}, {"UNROLL", "2"}}},
        {"cross_entropy", {{"PIPE", "1"}, {"MIN_BLOCKS", "2"}, {"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"},
                           {"UNROLL", "2"}, {"ONLINE", "1"}, {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"PIPE", "1"}, {"MIN_BLOCKS", "12"}, {"BLOCK_THREADS", "128"}, {"VEC", "8"}, {"UNROLL", "2"},
                           {"ONLINE", "1"}, {"FAST_EXP", "2"}, {"LOAD", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"PIPE", "1"}, {"PERSISTENT", "2"}, {"VEC", "8"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"RING", "4"}, {"PERSISTENT", "2"}, {"LOAD", "2"}, {"ONLINE", "1"}, {"FAST_EXP", "2"},
                           {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"RING", "2"}, {"RING_KB", "4"}, {"PERSISTENT", "4"}, {"BLOCK_THREADS", "64"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"EXP2X", "1"}, {"PIPE", "1"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "2"},
                           {"ONLINE", "1"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"POLY_EXP", "3"}, {"EXP2X", "1"}, {"RING", "4"}, {"PERSISTENT", "2"}, {"ONLINE", "1"},
                           {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"POLY_EXP", "2"}, {"VEC", "4"}, {"UNROLL", "2"}, {"ONLINE", "1"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"RING", "3"}, {"FAST_EXP", "2"}, {"LOAD", "2"}}},  // one block per row, ONLINE unset
        {"cross_entropy", {{"RING", "4"}, {"FAST_EXP", "2"}, {"LOAD", "2"}, {"FUSED_MEAN", "1"}, {"EXP2X", "1"}}},
        {"cross_entropy", {{"SPLIT", "1"}, {"RING", "4"}, {"PERSISTENT", "2"}, {"ONLINE", "1"}, {"FAST_EXP", "2"},
                           {"LOAD", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"MAX2", "1"}, {"EXP2X", "1"}, {"SPLIT", "1"}, {"RING", "4"}, {"PERSISTENT", "2"}, {"ONLINE", "1"},
                           {"FAST_EXP", "2"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"SPLIT", "1"}, {"RING", "2"}, {"RING_KB", "4"}, {"PERSISTENT", "3"}, {"BLOCK_THREADS", "128"},
                           {"ONLINE", "1"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"RING", "6"}, {"RING_KB", "16"}, {"PERSISTENT", "1"}, {"BLOCK_THREADS", "512"}, {"ONLINE", "1"}, {"FAST_EXP", "1"}}},
        {"cross_entropy", {{"CLUSTER", "2"}, {"RING", "4"}, {"VEC", "8"}, {"ONLINE", "1"},
                           {"FUSED_MEAN", "1"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"CLUSTER", "4"}, {"RING", "4"}, {"RING_KB", "4"}, {"BLOCK_THREADS", "128"}, {"LOAD", "2"}}},
        {"cross_entropy", {{"CLUSTER", "8"}, {"RING", "2"}, {"RING_KB", "16"}, {"BLOCK_THREADS", "64"}, {"FAST_EXP", "2"},
                           {"MAX2", "1"}, {"FUSED_MEAN", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"RING", "4"}, {"VEC", "8"}, {"ONLINE", "1"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"ROWS_PER_BLOCK", "4"}, {"VEC", "4"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"CLUSTER", "2"}, {"VEC", "8"}, {"UNROLL", "2"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"RING", "4"}, {"PERSISTENT", "2"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"PERSISTENT", "2"}, {"VEC", "8"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "2"}, {"CLUSTER", "4"}, {"RING", "4"}, {"RING_KB", "4"}, {"BLOCK_THREADS", "128"}}},
        {"cross_entropy", {{"FUSED_MEAN", "3"}, {"RING", "4"}, {"VEC", "8"}, {"ONLINE", "1"}, {"FAST_EXP", "2"}}},
        {"cross_entropy", {{"FUSED_MEAN", "3"}, {"RING", "2"}, {"RING_KB", "4"}, {"BLOCK_THREADS", "64"}, {"FAST_EXP", "2"},
                           {"MAX2", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "3"}, {"VEC", "8"}, {"UNROLL", "2"}, {"ONLINE", "1"}}},
        {"cross_entropy", {{"FUSED_MEAN", "3"}, {"CLUSTER", "2"}, {"VEC", "4"}}},
        {"rmsnorm", {{"VEC", "8"}, {"UNROLL", "4"}}},
        {"rmsnorm", {{"VEC", "8"}, {"SMEM_ROW", "68"}}},
        {"rmsnorm", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"SMEM_ROW", "100"}}},
        {"rmsnorm", {{"ROWS_PER_BLOCK", "2"}, {"VEC", "8"}, {"SMEM_ROW", "52"}}},
        {"rmsnorm", {{"LOAD", "2"}, {"VEC", "8"}, {"SMEM_ROW", "68"}}},
        {"rmsnorm", {{"LOAD", "1"}, {"VEC", "8"}, {"UNROLL", "2"}, {"ROW_CACHE", "32"}}},
        {"rmsnorm", {{"PREFETCH", "1"}, {"LOAD", "2"}, {"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "2"}}},
        {"rmsnorm", {{"PREFETCH", "1"}, {"LOAD", "1"}, {"BLOCK_THREADS", "1024"}, {"VEC", "8"}}},
        {"rmsnorm", {{"PREFETCH", "1"}, {"LOAD", "2"}, {"VEC", "8"}, {"UNROLL", "2"}, {"ROW_CACHE", "32"}}},
        {"reduce", {{"VEC", "8"}, {"UNROLL", "4"}}},
        {"reduce", {{"BLOCK_THREADS", "512"}, {"VEC", "8"}, {"UNROLL", "8"}, {"CLUSTER", "2"}}},
        {"reduce", {{"ROWS_PER_BLOCK", "4"}, {"VEC", "4"}, {"UNROLL", "2"}, {"CLUSTER", "4"}}},
        {"reduce", {{"LOAD", "2"}, {"BLOCK_THREADS", "128"}, {"VEC", "8"}, {"UNROLL", "8"}}},
        {"reduce", {{"LOAD", "1"}, {"VEC", "8"}, {"UNROLL", "4"}}},
    };
    return variants;
}

// "softmax_VEC8_SMEM_ROW100": a name for test listings.
inline std::string row_variant_name(const RowKernelVariant& v) {
    std::string name = v.type;
    for (const auto& [k, value] : v.tunables) name += "_" + k + value;
    return name;
}

}  // namespace ak::test
