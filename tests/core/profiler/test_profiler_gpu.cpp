// autokernel-profiler on a real GPU, run as `autokernel profile` runs it: every built-in model profiles
// (inference and training), with >= 95 % of GPU time attributed to ops; kernel time agrees with CUDA
// events around the same iterations; the TorchScript route (and its rejected-shapes message); the
// injection route on a small CUDA program with NVTX ranges and on a Python torch script; the bad-input
// paths that need a GPU (rejected shapes, failing and kernel-less commands, no visible device). Every test
// skips, with the reason, on a machine without a GPU (or without nvcc / a python with torch).
#include "gpu/cuda_driver.h"
#include "profile/profile_json.h"
#include "profiler/profile_assembly.h"
#include "profiler_process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>

namespace ak::profiler {
namespace {

using test_support::ProcessResult;
namespace fs = std::filesystem;

std::string no_gpu_reason() {
    const auto& cu = cuda_driver();
    if (!cu.loaded()) return cu.status().error;
    int count = 0;
    if (cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) return "the driver reports no device";
    return {};
}

#define SKIP_WITHOUT_GPU()                                                                            \
    do {                                                                                              \
        if (const std::string why = no_gpu_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why; \
    } while (0)

double ms(std::uint64_t a, std::uint64_t b) { return double(b - a) / 1e6; }

// GPU busy time (union of kernel and memory intervals) of one iteration, in ms.
double busy_ms(const profile::Profile& p, int iteration) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const auto& k : p.kernels)
        if (k.iteration == iteration) spans.emplace_back(k.start_ns, k.end_ns);
    for (const auto& m : p.memory)
        if (m.iteration == iteration) spans.emplace_back(m.start_ns, m.end_ns);
    std::sort(spans.begin(), spans.end());
    double total = 0;
    std::uint64_t s = 0, e = 0;
    bool open = false;
    for (const auto& [a, b] : spans) {
        if (!open || a > e) {
            if (open) total += ms(s, e);
            s = a;
            e = b;
            open = true;
        } else {
            e = std::max(e, b);
        }
    }
    if (open) total += ms(s, e);
    return total;
}

// Share of kernel time whose op has a module path.
double module_fraction(const profile::Profile& p) {
    std::map<std::uint64_t, const profile::OpCall*> ops;
    for (const auto& o : p.ops) ops[o.id] = &o;
    double total = 0, with = 0;
    for (const auto& k : p.kernels) {
        const double d = ms(k.start_ns, k.end_ns);
        total += d;
        if (k.op_id && ops.count(*k.op_id) && !ops[*k.op_id]->module_path.empty()) with += d;
    }
    return total > 0 ? with / total : 0;
}

bool any_stack_has(const profile::Profile& p, const std::string& name) {
    for (const auto& o : p.ops)
        if (std::find(o.stack.begin(), o.stack.end(), name) != o.stack.end()) return true;
    return false;
}

class ProfilerGpu : public test_support::TempFolderTest {
protected:
    ProcessResult profiler(std::vector<std::string> args) {
        args.insert(args.begin(), {AK_PROFILER_PATH, "--out", out_file()});
        return run(args);
    }
    std::string out_file() const { return (dir / "profile.json").string(); }
};

struct ModelCase {
    std::string model, dtype, mode;
    int batch, seq;
};

class BuiltinModel : public ProfilerGpu, public ::testing::WithParamInterface<ModelCase> {};

TEST_P(BuiltinModel, ProfilesWithAttributedKernels) {
    SKIP_WITHOUT_GPU();
    const ModelCase c = GetParam();
    const ProcessResult r = profiler({"--model", c.model, "--batch", std::to_string(c.batch), "--seq", std::to_string(c.seq),
                                      "--dtype", c.dtype, "--mode", c.mode, "--warmup", "2", "--iterations", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    EXPECT_EQ(p.origin.kind, profile::SourceKind::BuiltinModel);
    EXPECT_EQ(p.origin.model, c.model);
    EXPECT_EQ(p.origin.mode, c.mode);
    EXPECT_FALSE(p.origin.gpu_name.empty());
    ASSERT_FALSE(p.kernels.empty());
    ASSERT_EQ(p.iterations.size(), 3u);
    for (const auto& it : p.iterations) {
        EXPECT_GT(it.event_ms, 0) << it.index;
        EXPECT_GT(it.gpu_end_ns, it.gpu_start_ns) << it.index;
        EXPECT_GE(it.wall_ms, it.event_ms * 0.9) << it.index;
    }
    // Every iteration launches the same kernels.
    std::map<int, int> per_iteration;
    for (const auto& k : p.kernels) per_iteration[k.iteration]++;
    ASSERT_EQ(per_iteration.size(), 3u);
    EXPECT_EQ(per_iteration[0], per_iteration[2]);
    const double attributed = attributed_fraction(p), modules = module_fraction(p);
    std::cout << "[profile] " << c.model << " " << c.dtype << " " << c.mode << ": " << p.kernels.size() / 3 << " kernels/iteration, "
              << busy_ms(p, 1) << " ms busy, " << p.iterations[1].event_ms << " ms events, attributed " << 100 * attributed
              << " %, module path " << 100 * modules << " %, overhead " << p.overhead->profiled_iteration_ms << " vs "
              << p.overhead->unprofiled_iteration_ms << " ms\n";
    EXPECT_GE(attributed, 0.95);
    EXPECT_GE(modules, 0.90);
    ASSERT_TRUE(p.overhead.has_value());
    EXPECT_GT(p.overhead->unprofiled_iteration_ms, 0);
    bool block_path = false;
    for (const auto& o : p.ops) block_path = block_path || o.module_path.rfind("blocks.0.", 0) == 0;
    EXPECT_TRUE(block_path);
    if (c.model.rfind("llama", 0) == 0) {
        EXPECT_TRUE(any_stack_has(p, "autokernel::fused_mlp"));
        EXPECT_TRUE(any_stack_has(p, "autokernel::rotary_embedding"));
    }
    if (c.mode == "training") {
        bool backward_in_module = false;
        for (const auto& o : p.ops)
            for (const auto& s : o.stack)
                backward_in_module = backward_in_module || (s.find("Backward") != std::string::npos && o.module_path.rfind("blocks.", 0) == 0);
        EXPECT_TRUE(backward_in_module) << "backward ops inherit their forward op's module path";
    }
}

INSTANTIATE_TEST_SUITE_P(Models, BuiltinModel,
                         ::testing::Values(ModelCase{"gpt2", "fp16", "inference", 2, 256}, ModelCase{"gpt2", "bf16", "training", 2, 256},
                                           ModelCase{"llama-160m", "bf16", "training", 2, 256},
                                           ModelCase{"llama-7b-layers", "fp16", "inference", 2, 256},
                                           ModelCase{"bert-base", "fp32", "training", 2, 128}),
                         [](const auto& info) {
                             std::string n = info.param.model + "_" + info.param.dtype + "_" + info.param.mode;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

TEST_F(ProfilerGpu, KernelTimeAgreesWithCudaEvents) {
    SKIP_WITHOUT_GPU();
    // The CUDA events bracket the iteration on its stream, so they also time the GPU's idle moments: the
    // lead-in (the host launching the first kernel after the begin event) and the host-side gaps between
    // kernels. On the H200 at batch 8 these were 0.2-0.3 ms and 0.26-0.3 ms of a 13.6-15 ms iteration,
    // which put busy/events at 94.7-98 % and made a 95 % bound flaky. At batch 32 the GEMMs take four times
    // as long while the host gaps stay, so idle time is under 2 % and a 97 % bound is strict and stable.
    const ProcessResult r = profiler({"--model", "llama-7b-layers", "--batch", "32", "--seq", "1024", "--warmup", "2", "--iterations", "5"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    ASSERT_EQ(p.iterations.size(), 5u);
    for (const auto& it : p.iterations) {
        const double busy = busy_ms(p, it.index);
        double sum = 0;
        for (const auto& k : p.kernels)
            if (k.iteration == it.index) sum += ms(k.start_ns, k.end_ns);
        const double span = ms(it.gpu_start_ns, it.gpu_end_ns);  // first GPU activity to the end of the last
        std::cout << "[events] iteration " << it.index << ": busy " << busy << " ms, kernel sum " << sum << " ms, span "
                  << span << " ms, events " << it.event_ms << " ms, wall " << it.wall_ms << " ms\n";
        // Exact relations, up to the events' resolution (0.5 us) and CUPTI's timestamps (1 us):
        EXPECT_LE(sum, busy * 1.001 + 0.001) << "one stream: the kernels do not overlap";
        EXPECT_LE(busy, span + 0.001) << "busy time is a union of intervals inside the span";
        EXPECT_LE(span, it.event_ms * 1.001 + 0.005) << "CUPTI's activity lies between the two events";
        // What the events add is idle time only: the lead-in, the host-side gaps and the tail (see above).
        EXPECT_GE(busy, it.event_ms * 0.97);
    }
}

TEST_F(ProfilerGpu, TorchScriptFile) {
    SKIP_WITHOUT_GPU();
    const ProcessResult r = profiler({"--torchscript", AK_TINY_MLP_PT, "--input", "64x16:fp32", "--warmup", "3", "--iterations", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    EXPECT_EQ(p.origin.kind, profile::SourceKind::TorchScript);
    EXPECT_EQ(p.origin.inputs, std::vector<std::string>{"64x16:fp32"});
    ASSERT_FALSE(p.kernels.empty());
    EXPECT_GE(attributed_fraction(p), 0.95);
    bool linear = false;
    for (const auto& o : p.ops) {
        linear = linear || any_of(o.stack.begin(), o.stack.end(), [](const std::string& s) { return s == "aten::linear" || s == "aten::addmm"; });
        std::cout << "[torchscript] op " << o.name << " module '" << o.module_path << "'\n";
    }
    EXPECT_TRUE(linear);
}

TEST_F(ProfilerGpu, TorchScriptRejectedShapesGiveTheModelsOwnError) {
    SKIP_WITHOUT_GPU();
    const ProcessResult r = profiler({"--torchscript", AK_TINY_MLP_PT, "--input", "4x15:fp32"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("rejected the inputs 4x15:fp32"), std::string::npos) << r.describe();
    EXPECT_NE(r.err.find("cannot be multiplied"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
}

TEST_F(ProfilerGpu, CommandThatFailsOrLaunchesNothing) {
    SKIP_WITHOUT_GPU();
    ProcessResult r = profiler({"--", "sh", "-c", "exit 3"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("exited with status 3"), std::string::npos) << r.describe();
    r = profiler({"--", "true"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("never initialised CUDA"), std::string::npos) << r.describe();
    r = profiler({"--", (dir / "does-not-exist").string()});
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("cannot run"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
}

std::string find_nvcc() {
    for (const char* c : {static_cast<const char*>(std::getenv("AK_NVCC")), "/usr/local/cuda/bin/nvcc"})
        if (c && *c && fs::exists(c)) return c;
    return {};
}

TEST_F(ProfilerGpu, InjectionRouteOnACudaProgramWithNvtxRanges) {
    SKIP_WITHOUT_GPU();
    const std::string nvcc = find_nvcc();
    if (nvcc.empty()) GTEST_SKIP() << "no nvcc (set AK_NVCC) to build the small CUDA program";
    const fs::path src = write("add_one.cu", R"(#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
__global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
int main() {
    const int n = 1 << 20;
    float* d = nullptr;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 1;
    static float h[1 << 20];
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    nvtxRangePushA("phase-a");
    for (int r = 0; r < 5; ++r) add_one<<<(n + 255) / 256, 256>>>(d, n);
    nvtxRangePop();
    cudaMemset(d, 0, n * sizeof(float));
    add_one<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    std::printf("h[0] = %g\n", h[0]);
    return h[0] == 1.0f ? 0 : 2;
}
)");
    const std::string exe = (dir / "add_one").string();
    const ProcessResult build = run({nvcc, "-O2", "-o", exe, src.string()});
    ASSERT_EQ(build.exit_code, 0) << build.describe();
    const ProcessResult r = profiler({"--", exe});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("h[0] = 1"), std::string::npos) << "the program's own output passes through: " << r.describe();
    EXPECT_NE(r.err.find("only one CUPTI client"), std::string::npos) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    EXPECT_EQ(p.origin.kind, profile::SourceKind::Command);
    EXPECT_EQ(p.origin.command, std::vector<std::string>{exe});
    int in_range = 0, outside = 0;
    for (const auto& k : p.kernels) {
        EXPECT_NE(k.name.find("add_one"), std::string::npos) << k.name;
        EXPECT_EQ(k.grid[0], (1u << 20) / 256);
        EXPECT_EQ(k.block[0], 256u);
        (k.nvtx_range == "phase-a" ? in_range : outside)++;
    }
    EXPECT_EQ(in_range, 5);
    EXPECT_EQ(outside, 1);
    int htod = 0, dtoh = 0, memset = 0;
    for (const auto& m : p.memory) {
        htod += m.kind == profile::MemoryKind::MemcpyHtoD;
        dtoh += m.kind == profile::MemoryKind::MemcpyDtoH;
        memset += m.kind == profile::MemoryKind::Memset;
    }
    EXPECT_EQ(htod, 1);
    EXPECT_EQ(dtoh, 1);
    EXPECT_EQ(memset, 1);
    ASSERT_EQ(p.iterations.size(), 1u);
    EXPECT_GT(p.iterations[0].wall_ms, 0);
}

// A CUDA program that initialises CUDA (the injection library writes its profile) but launches no kernel.
TEST_F(ProfilerGpu, CudaProgramThatLaunchesNoKernel) {
    SKIP_WITHOUT_GPU();
    const std::string nvcc = find_nvcc();
    if (nvcc.empty()) GTEST_SKIP() << "no nvcc (set AK_NVCC) to build the small CUDA program";
    const fs::path src = write("no_kernel.cu", R"(#include <cuda_runtime.h>
int main() {
    void* d = nullptr;
    if (cudaMalloc(&d, 1 << 20) != cudaSuccess) return 1;
    return cudaFree(d) == cudaSuccess ? 0 : 1;
}
)");
    const std::string exe = (dir / "no_kernel").string();
    const ProcessResult build = run({nvcc, "-O2", "-o", exe, src.string()});
    ASSERT_EQ(build.exit_code, 0) << build.describe();
    const ProcessResult r = profiler({"--", exe});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("the command '" + exe + "' launched no CUDA kernel"), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(out_file()));
}

// No GPU on a machine with one: CUDA_VISIBLE_DEVICES hides the device from the real driver, and every route
// says so plainly (the CPU test covers a machine without a driver).
TEST_F(ProfilerGpu, NoVisibleGpuIsSaidPlainlyOnEveryRoute) {
    SKIP_WITHOUT_GPU();
    const std::vector<std::vector<std::string>> routes = {
        {"--model", "gpt2", "--batch", "1", "--seq", "8"},
        {"--torchscript", AK_TINY_MLP_PT, "--input", "4x16:fp32"},
        {"--", "true"},
    };
    for (const auto& route : routes) {
        std::vector<std::string> args = {AK_PROFILER_PATH, "--out", out_file()};
        args.insert(args.end(), route.begin(), route.end());
        const ProcessResult r = run(args, {"CUDA_VISIBLE_DEVICES="});
        EXPECT_EQ(r.exit_code, 1) << route[0] << ": " << r.describe();
        EXPECT_NE(r.err.find("no GPU: "), std::string::npos) << route[0] << ": " << r.describe();
        EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.describe();
        EXPECT_FALSE(fs::exists(out_file()));
    }
}

std::string find_torch_python() {
    for (const char* c : {static_cast<const char*>(std::getenv("AK_TEST_PYTHON")), "/opt/torch/.venv/bin/python3"})
        if (c && *c && fs::exists(c)) return c;
    return {};
}

TEST_F(ProfilerGpu, InjectionRouteOnAPythonTorchScript) {
    SKIP_WITHOUT_GPU();
    const std::string python = find_torch_python();
    if (python.empty()) GTEST_SKIP() << "no python with torch (set AK_TEST_PYTHON)";
    const fs::path script = write("train.py", R"(import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 512)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")
for step in range(5):
    torch.cuda.nvtx.range_push("train_step")
    loss = model(x).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("loss", float(loss))
)");
    const ProcessResult r = profiler({"--", python, script.string()});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("loss "), std::string::npos) << r.describe();
    const profile::Profile p = profile::read_profile_json(out_file());
    ASSERT_GE(p.kernels.size(), 5u * 6);
    int in_step = 0;
    for (const auto& k : p.kernels) in_step += k.nvtx_range == "train_step";
    std::cout << "[python] " << p.kernels.size() << " kernels, " << in_step << " in NVTX range train_step\n";
    EXPECT_GE(in_step, 5 * 6);
}

}  // namespace
}  // namespace ak::profiler
