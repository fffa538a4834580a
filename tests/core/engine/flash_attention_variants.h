#pragma once
// The flash_attention starter's variants (kernels/cuda/flash_attention.cu) that the tests hold to account,
// one list for two suites: each compiles through NVRTC for sm_90a (test_engine,
// test_flash_attention_variants.cpp, no GPU needed) and passes all five correctness stages in every dtype
// on a GPU (test_evaluator_gpu, StarterVariantPasses/GpuFlashAttention).
#include <string>
#include <utility>
#include <vector>

namespace ak::test {

using TunableSettings = std::vector<std::pair<std::string, std::string>>;

// Together they cover every path: wmma; mma.sync (FA2 class) with 16 and 32 rows per warp (Q fragments in
// registers, and re-read from shared memory at 32 rows of head_dim 128) and one to three cp.async stages;
// wgmma + TMA (FA3 class) with one, two and three consumer warpgroups, with and without the
// intra-warpgroup overlap, and with the warpgroups taking turns (PINGPONG, two and three consumer
// warpgroups, with and without the overlap; with 64-key tiles a causal block's warpgroups need different
// numbers of tiles, and under PINGPONG all run all of them), the lazy rescale, the persistent grid and
// the wgmma path compiled for one head_dim (the other one runs the mma.sync block, or zero-padded). The
// first of each is what the search reaches from the starter in one step.
inline const std::vector<TunableSettings>& flash_attention_variants() {
    static const std::vector<TunableSettings> variants = {
        {{"MMA", "1"}},
        {{"MMA", "2"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"MMA", "2"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"NUM_WARPS", "8"}, {"STAGES", "3"}, {"MMA", "2"}},
        {{"BLOCK_N", "64"}, {"STAGES", "1"}, {"MMA", "2"}},
        {{"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}, {"OVERLAP", "1"}},
        {{"BLOCK_M", "192"}, {"BLOCK_N", "64"}, {"STAGES", "3"}, {"MMA", "3"}, {"OVERLAP", "1"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}, {"PINGPONG", "1"}},
        {{"BLOCK_M", "192"}, {"BLOCK_N", "64"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"},
         {"LAZY_RESCALE", "1"}, {"PERSISTENT", "1"}, {"HEAD_DIM", "64"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"}, {"PERSISTENT", "1"},
         {"HEAD_DIM", "128"}},
        {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"}, {"PERSISTENT", "1"}},
        {{"BLOCK_M", "192"}, {"BLOCK_N", "128"}, {"STAGES", "3"}, {"MMA", "3"}, {"OVERLAP", "1"}, {"PINGPONG", "1"},
         {"HEAD_DIM", "64"}},
    };
    return variants;
}

// The value of tunable `name` in `settings`, or `fallback` when it keeps the starter's default.
inline std::string setting(const TunableSettings& settings, const std::string& name, const std::string& fallback) {
    for (const auto& [n, v] : settings)
        if (n == name) return v;
    return fallback;
}

}  // namespace ak::test
