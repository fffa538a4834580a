#pragma once
// The GEMM starters' tensor-core variants that the tests hold to account (kernels/cuda/matmul.cu, tier-3
// switch MMA; kernels/cuda/fused_mlp.cu, tier-3 switch FUSE), one list per type for two suites: each
// compiles through NVRTC for sm_90a (test_engine, test_gemm_variants.cpp, no GPU needed) and passes all
// five correctness stages in every dtype on a GPU (test_evaluator_gpu, StarterVariantPasses/GpuMatmul and
// GpuFusedMlp).
#include "flash_attention_variants.h"  // TunableSettings, setting()

#include <vector>

namespace ak::test {

// Together they cover every path: wmma; wgmma + TMA (warp-specialized, persistent) with one consumer
// warpgroup (BLOCK_M 64) and two (128, 256 rows: one and two m64 wgmmas per k-step), wgmma N of 64, 128
// and 256, two to four TMA stages, grouped and plain tile orders, and clusters of two blocks multicasting
// their shared A tile, the epilogue through TMA stores (the default) and through direct stores. The first
// wgmma one is what the search reaches from the starter in one step; the
// 128 x 256 ones are the hand-picked fastest.
inline const std::vector<TunableSettings>& matmul_variants() {
    static const std::vector<TunableSettings> variants = {
        {{"MMA", "1"}},
        {{"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "256"}, {"MMA", "3"}},
        {{"BLOCK_M", "256"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}},
        {{"BLOCK_N", "256"}, {"STAGES", "2"}, {"MMA", "3"}, {"GROUP_M", "1"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "256"}, {"CLUSTER", "2"}, {"MMA", "3"}},
        {{"CLUSTER", "2"}, {"STAGES", "3"}, {"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "256"}, {"MMA", "3"}, {"TMA_STORE", "0"}},
        {{"BLOCK_M", "256"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"CLUSTER", "2"}, {"MMA", "3"}},
    };
    return variants;
}

// The fused gate/up GEMM with the SwiGLU epilogue (wgmma + TMA, warp-specialized, persistent) before the
// library down GEMM: two consumer warpgroups with 128-column gate and up accumulators (the default tile),
// one consumer warpgroup with 64-column ones, a plain tile order, and hidden leaving through shared memory
// in 16-byte stores (STAGED_STORE) with two and with one consumer warpgroup; the last partial wave split
// along F (SPLIT_TAIL: units of 32 and 64 columns beside whole tiles; every shape below 132 tiles is all
// units), with the fast silu (FAST_SILU) and with staged whole tiles beside directly stored units; one
// wgmma over the gate and up rows (ONE_WGMMA: m64n256, and m64n64 for the 32-column units; m64n128 with
// one consumer warpgroup of 64-column tiles); the second consumer warpgroup two k-slices behind the first
// (STAGGER).
inline const std::vector<TunableSettings>& fused_mlp_variants() {
    static const std::vector<TunableSettings> variants = {
        {{"FUSE", "1"}},
        {{"BLOCK_M", "64"}, {"BLOCK_F", "64"}, {"STAGES", "2"}, {"FUSE", "1"}},
        {{"BLOCK_F", "64"}, {"STAGES", "3"}, {"FUSE", "1"}, {"GROUP_M", "1"}},
        {{"FUSE", "1"}, {"STAGED_STORE", "1"}},
        {{"BLOCK_M", "64"}, {"BLOCK_F", "64"}, {"FUSE", "1"}, {"STAGED_STORE", "1"}},
        {{"SPLIT_TAIL", "4"}, {"FUSE", "1"}},
        {{"SPLIT_TAIL", "2"}, {"FUSE", "1"}, {"FAST_SILU", "1"}},
        {{"BLOCK_M", "64"}, {"SPLIT_TAIL", "2"}, {"FUSE", "1"}, {"STAGED_STORE", "1"}},
        {{"SPLIT_TAIL", "4"}, {"ONE_WGMMA", "1"}, {"FUSE", "1"}, {"FAST_SILU", "1"}},
        {{"BLOCK_M", "64"}, {"BLOCK_F", "64"}, {"ONE_WGMMA", "1"}, {"FUSE", "1"}},
        {{"SPLIT_TAIL", "4"}, {"ONE_WGMMA", "1"}, {"FAST_SILU", "1"}, {"STAGGER", "2"}, {"FUSE", "1"}},
    };
    return variants;
}

}  // namespace ak::test
