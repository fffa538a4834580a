#pragma once
// A synthetic but realistic profile of GPT-2 124M (batch 4, seq 512, fp16 inference, 2 measured
// iterations on an H200): the ops, shapes, module paths and kernel names the built-in model launches,
// with durations from the H200's measured rates (about 500 TFLOP/s for the GEMMs, about 3.5 TB/s for
// the memory-bound kernels) and a little deterministic jitter. tests/fixtures/profile/gpt2-synthetic.json
// is this profile (make_profile_fixture writes it; a test checks they agree).
#include "profile/profile.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ak::profile::testing {

inline Profile synthetic_gpt2_profile() {
    Profile p;
    Origin& o = p.origin;
    o.kind = SourceKind::BuiltinModel;
    o.model = "gpt2";
    o.batch = 4;
    o.seq = 512;
    o.dtype = "fp16";
    o.mode = "inference";
    o.warmup_iterations = 3;
    o.measured_iterations = 2;
    o.gpu_name = "NVIDIA H200";
    o.driver_version = "580.95.05";
    o.cuda_version = "13.0";
    o.torch_version = "2.11.0";
    o.tool_version = "autokernel 0.1.0 (synthetic fixture)";
    o.recorded_utc = "2026-12-02T04:00:00Z";

    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.measured_utc = "2026-12-01T10:00:00Z";
    c.copy_gb_s = {{1ULL << 20, 1900.0}, {1ULL << 24, 3900.0}, {1ULL << 28, 4300.0}};
    c.gemm_tflops = {{DType::fp16, 672.0}, {DType::bf16, 650.0}};
    p.ceilings = c;
    p.overhead = Overhead{2.71, 2.58};

    std::uint64_t now = 1764648000000000000ULL;
    std::uint64_t next_op = 1, correlation = 100;
    std::uint32_t jitter_state = 12345;
    const auto jitter = [&](double ns) {  // +-3 %, deterministic
        jitter_state = jitter_state * 1664525u + 1013904223u;
        const double r = double(jitter_state >> 8) / double(1u << 24);
        return static_cast<std::uint64_t>(ns * (0.97 + 0.06 * r));
    };
    const auto t = [](std::vector<std::int64_t> sizes, const char* dtype = "fp16") {
        return TensorArg{std::move(sizes), {}, dtype, {}};
    };
    const auto v = [](std::vector<double> values) { return TensorArg{{}, {}, "", std::move(values)}; };
    const TensorArg none{};
    int iteration = 0;

    // One op launching one kernel of `ns` nanoseconds, 2 us after the previous one.
    const auto launch = [&](std::vector<std::string> stack, std::string module, std::vector<TensorArg> inputs,
                            std::string kernel, double ns, std::array<std::uint32_t, 3> grid,
                            std::array<std::uint32_t, 3> block, int regs, int smem) {
        OpCall op;
        op.id = next_op++;
        op.name = stack.back();
        op.stack = std::move(stack);
        op.module_path = std::move(module);
        op.inputs = std::move(inputs);
        op.iteration = iteration;
        KernelRecord k;
        k.name = std::move(kernel);
        now += 2000;
        k.start_ns = now;
        k.end_ns = now + jitter(ns);
        now = k.end_ns;
        k.stream = 7;
        k.grid = grid;
        k.block = block;
        k.registers_per_thread = regs;
        k.dynamic_smem_bytes = smem;
        k.correlation_id = correlation++;
        k.op_id = op.id;
        k.iteration = iteration;
        p.ops.push_back(std::move(op));
        p.kernels.push_back(std::move(k));
    };

    const std::string nvjet = "nvjet_sm90_tst_256x128_64x4_2x1_v_bz_coopA_TNT";
    const std::string nvjet_small = "nvjet_sm90_tst_128x64_64x8_1x1_h_bz_TNT";
    const std::string layer_norm =
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float, false>(int, float, "
        "c10::Half const*, c10::Half const*, c10::Half const*, float*, float*, c10::Half*)";
    const std::string flash =
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t, "
        "Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t> >, false, true, false, false, true, true, false>"
        "(Flash_fwd_params)";
    const std::string add =
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, "
        "3ul> >(int, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul>)";
    const std::string gelu =
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
        "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::Half)"
        "#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
        "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::Half)"
        "#1}, std::array<char*, 2ul>)";
    const std::string embedding =
        "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::Half, long, unsigned int, 2, 2, -2, true>"
        "(at::cuda::detail::TensorInfo<c10::Half, unsigned int>, at::cuda::detail::TensorInfo<c10::Half const, "
        "unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, "
        "long)";

    const std::int64_t B = 4, S = 512, H = 768, heads = 12, V = 50257, rows = B * S;
    const auto gemm_ns = [](double m, double n, double k) { return 2.0 * m * n * k / 500e12 * 1e9; };
    const auto bytes_ns = [](double bytes) { return bytes / 3.5e12 * 1e9; };

    for (iteration = 0; iteration < 2; ++iteration) {
        const std::uint64_t iteration_start = now + 1000;
        MemoryRecord ids;
        ids.kind = MemoryKind::MemcpyHtoD;
        ids.bytes = rows * 8;
        ids.start_ns = iteration_start;
        ids.end_ns = iteration_start + 3000;
        ids.stream = 7;
        ids.iteration = iteration;
        p.memory.push_back(ids);
        now = ids.end_ns;
        launch({"aten::embedding", "aten::index_select"}, "wte", {t({V, H}), v({0}), t({rows}, "int64")}, embedding,
               bytes_ns(rows * H * 2.0 * 2), {2048, 1, 1}, {128, 4, 1}, 32, 0);
        launch({"aten::embedding", "aten::index_select"}, "wpe", {t({1024, H}), v({0}), t({S}, "int64")}, embedding,
               bytes_ns(S * H * 2.0 * 2), {512, 1, 1}, {128, 4, 1}, 32, 0);
        launch({"aten::add"}, "", {t({B, S, H}), t({1, S, H}), v({1})}, add, bytes_ns(rows * H * 2.0 * 3), {768, 1, 1},
               {128, 1, 1}, 20, 0);
        for (int layer = 0; layer < 12; ++layer) {
            const std::string h = "h." + std::to_string(layer);
            const auto ln = [&](const std::string& name) {
                launch({"aten::layer_norm", "aten::native_layer_norm"}, h + "." + name,
                       {t({B, S, H}), v({double(H)}), t({H}), t({H}), v({1e-5})}, layer_norm,
                       bytes_ns(rows * H * 2.0 * 2) * 1.6, {unsigned(rows), 1, 1}, {128, 1, 1}, 26, 0);
            };
            const auto linear = [&](const std::string& module, std::int64_t in, std::int64_t out,
                                    const std::string& kernel) {
                launch({"aten::linear", "aten::addmm"}, h + "." + module,
                       {t({out}), t({rows, in}), t({in, out}), v({1}), v({1})}, kernel, gemm_ns(rows, out, in) * 1.15,
                       {132, 1, 1}, {384, 1, 1}, 168, 200704);
            };
            ln("ln_1");
            linear("attn.c_attn", H, 3 * H, nvjet);
            launch({"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
                    "aten::_flash_attention_forward"},
                   h + ".attn",
                   {t({B, S, heads, 64}), t({B, S, heads, 64}), t({B, S, heads, 64}), none, none, v({double(S)}),
                    v({double(S)}), v({0}), v({1}), v({0}), v({0.125})},
                   flash, 4.0 * B * heads * S * S * 64 / 2 / 300e12 * 1e9, {8, 4, 12}, {128, 1, 1}, 255, 49152);
            linear("attn.c_proj", H, H, nvjet_small);
            launch({"aten::add"}, h, {t({B, S, H}), t({B, S, H}), v({1})}, add, bytes_ns(rows * H * 2.0 * 3),
                   {768, 1, 1}, {128, 1, 1}, 20, 0);
            ln("ln_2");
            linear("mlp.c_fc", H, 4 * H, nvjet);
            launch({"aten::gelu"}, h + ".mlp.act", {t({B, S, 4 * H}), none}, gelu, bytes_ns(rows * 4 * H * 2.0 * 2) * 1.3,
                   {3072, 1, 1}, {128, 1, 1}, 24, 0);
            linear("mlp.c_proj", 4 * H, H, nvjet_small);
            launch({"aten::add"}, h, {t({B, S, H}), t({B, S, H}), v({1})}, add, bytes_ns(rows * H * 2.0 * 3),
                   {768, 1, 1}, {128, 1, 1}, 20, 0);
        }
        launch({"aten::layer_norm", "aten::native_layer_norm"}, "ln_f",
               {t({B, S, H}), v({double(H)}), t({H}), t({H}), v({1e-5})}, layer_norm, bytes_ns(rows * H * 2.0 * 2) * 1.6,
               {unsigned(rows), 1, 1}, {128, 1, 1}, 26, 0);
        launch({"aten::linear", "aten::matmul", "aten::mm"}, "lm_head", {t({rows, H}), t({H, V})}, nvjet,
               gemm_ns(rows, V, H) * 1.1, {132, 1, 1}, {384, 1, 1}, 168, 200704);
        MemoryRecord out;
        out.kind = MemoryKind::MemcpyDtoH;
        out.bytes = 4;
        out.start_ns = now + 2000;
        out.end_ns = out.start_ns + 1500;
        out.stream = 7;
        out.iteration = iteration;
        p.memory.push_back(out);
        now = out.end_ns;
        IterationRecord it;
        it.index = iteration;
        it.gpu_start_ns = iteration_start;
        it.gpu_end_ns = now;
        it.event_ms = double(now - iteration_start) / 1e6 + 0.004;
        it.wall_ms = it.event_ms + 0.035;
        p.iterations.push_back(it);
        now += 400000;  // the host synchronises between iterations
    }
    return p;
}

}  // namespace ak::profile::testing
