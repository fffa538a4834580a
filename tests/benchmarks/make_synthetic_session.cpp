// ak_make_synthetic_session: writes a large, clearly SYNTHETIC session for the GUI benchmark.
//
//   ak_make_synthetic_session DIR [--experiments N] [--seed S] [--no-fsync] [--force]
//
// Every experiment goes through ak::Session::record() (git blob/tree/commit, experiment ref,
// results.tsv row, branch update), exactly as the optimization loop writes them. The numbers are
// invented: a seeded random walk per kernel towards a plausible H200 floor, with the outcome mix of a
// long search (most candidates reverted, a quarter failing, improvements getting rarer). The session
// name, every row's tag and every description say "synthetic".
//
// --no-fsync: Session::record() fsyncs every object, ref and row (crash safety), which is what
// dominates 10,000 records on an ordinary disk. The fixture is throw-away, so this option turns
// fsync()/fdatasync() into no-ops for this process only (this executable defines both symbols, which
// take precedence over libc's for ak_util and libgit2). The written data is byte-for-byte the same.
//
// DIR is left alone when DIR.stamp records the same parameters (the fixture is generated once per
// build tree); --force regenerates it.
#include "session/session.h"
#include "session/session_info.h"
#include "util/error.h"

#include <unistd.h>
#include <sys/syscall.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool g_skipFsync = false;

}  // namespace

// Interposed for this process (see --no-fsync above). Without the option they do the real thing.
extern "C" int fsync(int fd)
{
    if (g_skipFsync)
        return 0;
    return int(::syscall(SYS_fsync, fd));
}

extern "C" int fdatasync(int fd)
{
    if (g_skipFsync)
        return 0;
    return int(::syscall(SYS_fdatasync, fd));
}

namespace {

namespace fs = std::filesystem;

constexpr int kGeneratorVersion = 1;

struct KernelModel {
    const char* name;
    const char* type;
    const char* shape;
    double bytes;          // minimal traffic (memory-bound) of the timed shape
    double flops;          // work of the timed shape
    double starterUs;      // AutoKernel starter latency (anchors.md, H200)
    double pytorchUs;      // strongest PyTorch baseline
    double floorUs;        // what a very good kernel reaches
    double weight;         // share of the experiments
    double modelFraction;
    bool computeBound;
};

// Sizes and starting points from anchors.md (AutoKernel's large sizes on the H200).
const KernelModel kKernels[] = {
    {"rmsnorm", "rmsnorm", "4096x8192", 134.2e6, 0.2e9, 39.5, 41.4, 36.8, 0.22, 0.08, false},
    {"softmax", "softmax", "4096x4096", 67.1e6, 0.1e9, 21.5, 44.2, 19.0, 0.16, 0.05, false},
    {"layernorm", "layernorm", "8192x4096", 134.2e6, 0.3e9, 40.1, 50.0, 37.0, 0.14, 0.06, false},
    {"cross_entropy", "cross_entropy", "4096x32000", 262.1e6, 0.6e9, 124.2, 186.5, 72.0, 0.14, 0.04, false},
    {"rotary_embedding", "rotary_embedding", "2x32x2048x128", 67.1e6, 0.1e9, 115.2, 31.9, 19.0, 0.10, 0.03, false},
    {"matmul", "matmul", "4096x11008x4096", 0.2e9, 369.4e12 / 1000.0, 1137.4, 554.0, 520.0, 0.14, 0.55, true},
    {"reduce", "reduce", "8192x8192", 134.2e6, 67.1e6, 63.2, 38.2, 30.0, 0.10, 0.02, false},
};

struct Params {
    int block = 256;
    int vec = 1;
    int unroll = 1;
    int rowsPerBlock = 1;
    bool warpShuffle = false;
    bool cacheHints = false;
};

std::string kernelSource(const KernelModel& k, const Params& p, const std::string& idea)
{
    std::ostringstream s;
    s << "// SYNTHETIC benchmark fixture - not real data. Kernel: " << k.name << " (" << k.shape << ")\n"
      << "// idea: " << idea << "\n"
      << "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n"
      << "#define BLOCK " << p.block << "\n"
      << "#define VEC " << p.vec << "\n"
      << "#define UNROLL " << p.unroll << "\n"
      << "#define ROWS_PER_BLOCK " << p.rowsPerBlock << "\n\n";
    if (p.warpShuffle)
        s << "__device__ __forceinline__ float warp_sum(float v) {\n"
             "    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
             "    return v;\n}\n\n";
    else
        s << "__device__ float block_sum(float v, float* scratch) {\n"
             "    scratch[threadIdx.x] = v;\n    __syncthreads();\n"
             "    for (int s = BLOCK / 2; s > 0; s >>= 1) {\n"
             "        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];\n"
             "        __syncthreads();\n    }\n    return scratch[0];\n}\n\n";
    s << "extern \"C\" __global__ void __launch_bounds__(BLOCK) " << k.name
      << "_kernel(const void* in, void* out, int rows, int cols) {\n"
         "    const int row0 = blockIdx.x * ROWS_PER_BLOCK;\n"
         "    for (int r = row0; r < min(rows, row0 + ROWS_PER_BLOCK); ++r) {\n"
         "        float acc = 0.0f;\n"
      << "#pragma unroll " << p.unroll << "\n"
      << "        for (int i = threadIdx.x * VEC; i < cols; i += BLOCK * VEC) {\n";
    if (p.cacheHints)
        s << "            const float4 v = __ldg(reinterpret_cast<const float4*>(in) + (r * (size_t)cols + i) / 8);\n";
    else
        s << "            const float4 v = reinterpret_cast<const float4*>(in)[(r * (size_t)cols + i) / 8];\n";
    s << "            acc += v.x + v.y + v.z + v.w;\n"
         "        }\n";
    if (p.warpShuffle)
        s << "        acc = warp_sum(acc);\n";
    else
        s << "        __shared__ float scratch[BLOCK];\n        acc = block_sum(acc, scratch);\n";
    s << "        if (threadIdx.x == 0) reinterpret_cast<float*>(out)[r] = acc;\n"
         "    }\n}\n";
    return s.str();
}

struct Generator {
    std::mt19937_64 rng;
    std::chrono::system_clock::time_point clock;

    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
    double normal(double mean, double sd) { return std::normal_distribution<double>(mean, sd)(rng); }
    template <typename T>
    const T& pick(const std::vector<T>& v) { return v[std::size_t(uniform() * double(v.size())) % v.size()]; }

    // Mutates one or two parameters; returns a one-line description of the idea.
    std::string mutate(Params& p)
    {
        const int changes = uniform() < 0.7 ? 1 : 2;
        std::string idea;
        for (int c = 0; c < changes; ++c) {
            const int what = int(uniform() * 6);
            std::string part;
            switch (what) {
            case 0: {
                const int old = p.block;
                p.block = pick(std::vector<int>{64, 128, 256, 512, 1024});
                part = "BLOCK " + std::to_string(old) + " -> " + std::to_string(p.block);
                break;
            }
            case 1: {
                const int old = p.vec;
                p.vec = pick(std::vector<int>{1, 2, 4, 8});
                part = "vector width " + std::to_string(old) + " -> " + std::to_string(p.vec);
                break;
            }
            case 2: {
                const int old = p.unroll;
                p.unroll = pick(std::vector<int>{1, 2, 4, 8});
                part = "unroll " + std::to_string(old) + " -> " + std::to_string(p.unroll);
                break;
            }
            case 3: {
                const int old = p.rowsPerBlock;
                p.rowsPerBlock = pick(std::vector<int>{1, 2, 4});
                part = "rows per block " + std::to_string(old) + " -> " + std::to_string(p.rowsPerBlock);
                break;
            }
            case 4:
                p.warpShuffle = !p.warpShuffle;
                part = p.warpShuffle ? "warp-shuffle reduction" : "shared-memory tree reduction";
                break;
            default:
                p.cacheHints = !p.cacheHints;
                part = p.cacheHints ? "read-only cache loads (__ldg)" : "plain loads";
                break;
            }
            idea += (idea.empty() ? "" : ", ") + part;
        }
        return idea;
    }
};

struct KernelState {
    Params best;
    double bestUs;
};

void usage()
{
    std::fprintf(stderr,
                 "usage: ak_make_synthetic_session DIR [--experiments N] [--seed S] [--no-fsync] [--force]\n");
}

}  // namespace

int main(int argc, char** argv)
{
    std::string dirArg;
    int total = 10000;
    unsigned long long seed = 20261129;
    bool force = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--experiments" && i + 1 < argc)
            total = std::atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--no-fsync")
            g_skipFsync = true;
        else if (a == "--force")
            force = true;
        else if (!a.empty() && a[0] != '-' && dirArg.empty())
            dirArg = a;
        else {
            usage();
            return 2;
        }
    }
    const int kernelCount = int(std::size(kKernels));
    if (dirArg.empty() || total < kernelCount) {
        usage();
        return 2;
    }
    const fs::path dir = fs::absolute(dirArg);
    const fs::path stamp = dir.string() + ".stamp";
    std::ostringstream wanted;
    wanted << "generator " << kGeneratorVersion << " experiments " << total << " seed " << seed << "\n";
    if (!force && fs::exists(stamp) && fs::exists(dir)) {
        std::ifstream in(stamp);
        std::stringstream have;
        have << in.rdbuf();
        if (have.str() == wanted.str()) {
            std::printf("%s is up to date (%d synthetic experiments)\n", dir.c_str(), total);
            return 0;
        }
    }
    std::error_code ec;
    if (fs::exists(dir)) {
        // Only ever delete what this program wrote.
        std::ifstream info(dir / "session.json");
        std::stringstream text;
        text << info.rdbuf();
        if (text.str().find("SYNTHETIC benchmark fixture") == std::string::npos && !fs::is_empty(dir)) {
            std::fprintf(stderr, "ak_make_synthetic_session: %s exists and is not a synthetic fixture; not touching it\n",
                         dir.c_str());
            return 1;
        }
        fs::remove_all(dir, ec);
    }
    fs::remove(stamp, ec);

    const auto started = std::chrono::steady_clock::now();
    try {
        Generator gen{std::mt19937_64(seed), std::chrono::system_clock::time_point(std::chrono::seconds(1795939200))};
        ak::SessionInfo info;
        info.name = "SYNTHETIC benchmark fixture – not real data";
        info.created_utc = "2026-11-29T00:00:00Z";
        info.gpu = "none (synthetic data, no GPU was used)";
        info.cuda_version = "synthetic";
        info.libtorch_version = "synthetic";
        std::vector<std::pair<ak::KernelEntry, std::string>> kernels;
        std::vector<ak::Experiment> baselines;
        std::vector<KernelState> states;
        for (const KernelModel& k : kKernels) {
            ak::KernelEntry entry{k.name, k.type, k.shape, k.modelFraction};
            info.kernels.push_back(entry);
            kernels.emplace_back(entry, kernelSource(k, Params{}, "AutoKernel-style starter (synthetic)"));
            ak::Experiment b;
            b.tag = "synthetic";
            b.kernel_type = k.type;
            b.latency_us = k.starterUs;
            b.speedup_vs_pytorch = k.pytorchUs / k.starterUs;
            b.throughput_tflops = k.flops / (k.starterUs * 1e-6) / 1e12;
            b.bandwidth_gb_s = k.bytes / (k.starterUs * 1e-6) / 1e9;
            b.pct_peak = k.computeBound ? *b.throughput_tflops / 989.0 * 100.0 : *b.bandwidth_gb_s / 4800.0 * 100.0;
            b.bound = k.computeBound ? ak::Bound::Compute : ak::Bound::Memory;
            b.peak_vram_mb = k.bytes / 1e6 * 1.5;
            b.description = "[synthetic] starter kernel";
            b.agent = "synthetic";
            b.duration_s = 6.5;
            baselines.push_back(b);
            states.push_back({Params{}, k.starterUs});
        }
        ak::Session session = ak::Session::create(dir, info, kernels, baselines);

        std::vector<double> cumulative;
        double sum = 0;
        for (const KernelModel& k : kKernels)
            cumulative.push_back(sum += k.weight);

        int kept = 0, reverted = 0, failed = 0;
        for (int n = kernelCount; n < total; ++n) {
            const double r = gen.uniform() * sum;
            int ki = 0;
            while (ki + 1 < kernelCount && r > cumulative[std::size_t(ki)])
                ++ki;
            const KernelModel& k = kKernels[ki];
            KernelState& state = states[std::size_t(ki)];
            Params candidate = state.best;
            const std::string idea = gen.mutate(candidate);

            ak::NewExperiment next;
            next.kernel_name = k.name;
            next.source = kernelSource(k, candidate, idea);
            ak::Experiment& e = next.metrics;
            e.tag = "synthetic";
            e.agent = gen.uniform() < 0.8 ? "search" : "llm:synthetic-model";
            gen.clock += std::chrono::milliseconds(int64_t(std::max(2.0, gen.normal(7.5, 2.0)) * 1000.0));
            const std::time_t t = std::chrono::system_clock::to_time_t(gen.clock);
            char when[32];
            std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
            e.started_utc = when;
            e.duration_s = std::round(std::max(1.0, gen.normal(6.8, 1.4)) * 10.0) / 10.0;

            const double dice = gen.uniform();
            if (dice < 0.24) {
                e.outcome = ak::Outcome::Failed;
                const double kind = gen.uniform();
                if (kind < 0.55) {
                    e.correctness = ak::Correctness::Fail;
                    e.detail = "stage 2: max |err| " + std::to_string(0.01 + gen.uniform() * 0.2).substr(0, 5) +
                               " > atol 1e-2 at " + k.shape + " bf16";
                } else if (kind < 0.75) {
                    e.correctness = ak::Correctness::Fail;
                    e.detail = "compile: error: identifier \"scratch\" is undefined (synthetic)";
                } else if (kind < 0.9) {
                    e.correctness = ak::Correctness::Timeout;
                    e.detail = "timed out after 10 s at " + std::string(k.shape);
                } else {
                    e.correctness = ak::Correctness::Crash;
                    e.detail = "CUDA error: an illegal memory access was encountered (synthetic)";
                }
                ++failed;
            } else {
                // Candidates scatter around the current best; the closer to the floor, the smaller the
                // possible gain, so improvements become rare as the search goes on.
                const double headroom = state.bestUs - k.floorUs;
                const double us = std::max(k.floorUs * 0.995,
                                           k.floorUs + headroom * std::exp(gen.normal(0.12, 0.22)) +
                                               gen.normal(0.0, 0.004) * state.bestUs);
                e.correctness = ak::Correctness::Pass;
                e.latency_us = std::round(us * 100.0) / 100.0;
                e.latency_iqr_us = std::round(us * std::abs(gen.normal(0.008, 0.003)) * 1000.0) / 1000.0;
                e.speedup_vs_pytorch = std::round(k.pytorchUs / us * 1000.0) / 1000.0;
                e.throughput_tflops = std::round(k.flops / (us * 1e-6) / 1e12 * 100.0) / 100.0;
                e.bandwidth_gb_s = std::round(k.bytes / (us * 1e-6) / 1e9);
                e.pct_peak = std::round((k.computeBound ? *e.throughput_tflops / 989.0 : *e.bandwidth_gb_s / 4800.0) *
                                        1000.0) / 10.0;
                e.bound = k.computeBound ? ak::Bound::Compute : ak::Bound::Memory;
                e.peak_vram_mb = std::round(k.bytes / 1e6 * 1.5);
                if (us < state.bestUs * 0.99) {
                    e.outcome = ak::Outcome::Kept;
                    state.best = candidate;
                    state.bestUs = us;
                    ++kept;
                } else {
                    e.outcome = ak::Outcome::Reverted;
                    ++reverted;
                }
            }
            e.description = "[synthetic] " + idea;
            session.record(next);
            if ((n + 1) % 1000 == 0) {
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                std::printf("%d/%d experiments, %.1f s\n", n + 1, total, s);
                std::fflush(stdout);
            }
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::printf("wrote %s: %d synthetic experiments (%d baselines, %d kept, %d reverted, %d failed) in %.1f s "
                    "(%.2f ms per record%s)\n",
                    dir.c_str(), total, kernelCount, kept, reverted, failed, seconds,
                    seconds * 1000.0 / double(total), g_skipFsync ? ", fsync off" : "");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "ak_make_synthetic_session: %s\n", error.what());
        return 1;
    }
    std::ofstream(stamp) << wanted.str();
    return 0;
}
