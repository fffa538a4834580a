#include "sample_session.h"

#include "session/results_table.h"
#include "session/session.h"
#include "session/session_info.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <git2.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace ak::test {

std::string rmsnormSource(int block, int vec, bool unroll)
{
    std::ostringstream s;
    s << "// RMSNorm over the last dimension, bf16 in and out.\n"
         "#include <cuda_bf16.h>\n"
         "\n"
         "#define BLOCK "
      << block << "\n#define VEC " << vec
      << "\n"
         "\n"
         "extern \"C\" __global__ void rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* w,\n"
         "                                     __nv_bfloat16* y, int cols, float eps) {\n"
         "    const __nv_bfloat16* row = x + blockIdx.x * (size_t)cols;\n"
         "    float sum = 0.0f;\n";
    if (unroll)
        s << "#pragma unroll 4\n";
    s << "    for (int i = threadIdx.x * VEC; i < cols; i += BLOCK * VEC) {\n"
         "        float v = __bfloat162float(row[i]);\n"
         "        sum += v * v;\n"
         "    }\n"
         "    sum = block_reduce_sum(sum);\n"
         "    const float scale = rsqrtf(sum / cols + eps);\n"
         "    for (int i = threadIdx.x; i < cols; i += BLOCK)\n"
         "        y[blockIdx.x * (size_t)cols + i] = __float2bfloat16(__bfloat162float(row[i]) * scale *\n"
         "                                                             __bfloat162float(w[i]));\n"
         "}\n";
    return s.str();
}

std::string softmaxSource(bool online)
{
    std::string s =
        "// Row softmax, fp16.\n"
        "#include <cuda_fp16.h>\n"
        "\n"
        "extern \"C\" __global__ void softmax(const half* x, half* y, int cols) {\n";
    if (online)
        s += "    // one pass: running max and rescaled sum\n"
             "    float m = -INFINITY, d = 0.0f;\n"
             "    for (int i = threadIdx.x; i < cols; i += blockDim.x) {\n"
             "        float v = __half2float(x[blockIdx.x * cols + i]);\n"
             "        float m2 = fmaxf(m, v);\n"
             "        d = d * __expf(m - m2) + __expf(v - m2);\n"
             "        m = m2;\n"
             "    }\n";
    else
        s += "    float m = -INFINITY;\n"
             "    for (int i = threadIdx.x; i < cols; i += blockDim.x)\n"
             "        m = fmaxf(m, __half2float(x[blockIdx.x * cols + i]));\n"
             "    float d = 0.0f;\n"
             "    for (int i = threadIdx.x; i < cols; i += blockDim.x)\n"
             "        d += __expf(__half2float(x[blockIdx.x * cols + i]) - m);\n";
    s += "    for (int i = threadIdx.x; i < cols; i += blockDim.x)\n"
         "        y[blockIdx.x * cols + i] = __float2half(__expf(__half2float(x[blockIdx.x * cols + i]) - m) / d);\n"
         "}\n";
    return s;
}

namespace {

ak::Experiment metrics(ak::Outcome outcome, ak::Correctness correctness, double latency, double speedup,
                       const std::string& description)
{
    ak::Experiment e;
    e.tag = "app-test";
    e.outcome = outcome;
    e.correctness = correctness;
    e.description = description;
    e.agent = "test";
    if (correctness == ak::Correctness::Pass) {
        e.latency_us = latency;
        e.speedup_vs_pytorch = speedup;
        e.bandwidth_gb_s = 134.2e6 / (latency * 1e-6) / 1e9;
        e.pct_peak = *e.bandwidth_gb_s / 4800.0 * 100.0;
        e.throughput_tflops = 0.1;
        e.latency_iqr_us = latency * 0.01;
        e.bound = ak::Bound::Memory;
    } else {
        e.detail = "correctness: max |err| 3.1e-2 > atol 1e-2 at shape 4096x4096 fp16";
    }
    e.duration_s = 6.5;
    return e;
}

ak::NewExperiment candidate(const std::string& kernel, std::string source, ak::Experiment m)
{
    ak::NewExperiment n;
    n.kernel_name = kernel;
    n.source = std::move(source);
    n.metrics = std::move(m);
    return n;
}

// The evaluator's two timing shapes for an rmsnorm candidate at `latency` µs (the larger one takes
// twice as long), against a 84 µs / 168 µs baseline.
std::vector<ak::ShapeTiming> rmsnormTimings(double latency)
{
    std::vector<ak::ShapeTiming> out;
    for (const int scale : {1, 2}) {
        ak::ShapeTiming t;
        t.shape = scale == 1 ? "4096x4096" : "4096x8192";
        t.dtype = "bf16";
        t.median_us = latency * scale;
        t.iqr_us = latency * scale * 0.01;
        t.samples = 100;
        t.baseline_name = "at::rms_norm";
        t.baseline_median_us = 84.0 * scale;
        t.speedup = *t.baseline_median_us / *t.median_us;
        t.gb_s = 134.2e6 * scale / (*t.median_us * 1e-6) / 1e9;
        t.pct_peak = *t.gb_s / 4800.0 * 100.0;
        t.bound = "memory";
        out.push_back(t);
    }
    return out;
}

}  // namespace

void createSampleSession(const std::filesystem::path& dir)
{
    ak::SessionInfo info;
    info.name = "app-test session";
    info.created_utc = "2026-11-29T08:00:00Z";
    info.gpu = "none";
    ak::KernelEntry rmsnorm{"rmsnorm", "rmsnorm", "", 0.4};
    ak::KernelEntry softmax{"softmax", "softmax", "", 0.2};
    info.kernels = {rmsnorm, softmax};

    ak::Experiment base0 = metrics(ak::Outcome::Baseline, ak::Correctness::Pass, 84.0, 1.0, "starter kernel");
    ak::Experiment base1 = metrics(ak::Outcome::Baseline, ak::Correctness::Pass, 60.0, 1.0, "starter kernel");
    ak::Session session = ak::Session::create(dir, info,
                                              {{rmsnorm, rmsnormSource(256, 1, false)}, {softmax, softmaxSource(false)}},
                                              {base0, base1});
    ak::NewExperiment block512 = candidate("rmsnorm", rmsnormSource(512, 1, false),
                                           metrics(ak::Outcome::Kept, ak::Correctness::Pass, 60.0, 1.40, "BLOCK 256 -> 512"));
    block512.timings = rmsnormTimings(60.0);
    session.record(block512);
    session.record(candidate("rmsnorm", rmsnormSource(512, 1, true),
                             metrics(ak::Outcome::Reverted, ak::Correctness::Pass, 62.2, 1.35, "unroll the sum loop by 4")));
    session.record(candidate("softmax", softmaxSource(true),
                             metrics(ak::Outcome::Failed, ak::Correctness::Fail, 0, 0, "online softmax, first try")));
    ak::NewExperiment vec4 = candidate("rmsnorm", rmsnormSource(512, 4, false),
                                       metrics(ak::Outcome::Kept, ak::Correctness::Pass, 40.0, 2.10, "vector loads VEC 1 -> 4"));
    vec4.timings = rmsnormTimings(40.0);
    session.record(vec4);
    session.record(candidate("softmax", softmaxSource(true),
                             metrics(ak::Outcome::Kept, ak::Correctness::Pass, 50.0, 1.20, "online softmax")));
}

ak::Experiment recordExtra(const std::filesystem::path& dir, int k)
{
    ak::Session session = ak::Session::open(dir);
    return session.record(candidate("rmsnorm", rmsnormSource(1024, 4, k % 2 == 1),
                                    metrics(ak::Outcome::Reverted, ak::Correctness::Pass, 41.0 + k, 2.0,
                                            "live: BLOCK 1024 try " + std::to_string(k))));
}

void createEmptySession(const std::filesystem::path& dir)
{
    // What `git init` + a first commit of session.json leave: a valid session branch, a results.tsv
    // with only its header, and no experiment at all.
    std::filesystem::create_directories(dir);
    ak::SessionInfo info;
    info.name = "empty";
    info.created_utc = "2026-11-29T08:00:00Z";
    info.gpu = "none";
    ak::replace_durably(dir / "session.json", ak::format_session_info(info));
    ak::replace_durably(dir / "results.tsv", ak::results_header_line() + "\n");

    git_libgit2_init();
    git_repository* repo = nullptr;
    git_index* index = nullptr;
    git_signature* who = nullptr;
    git_tree* tree = nullptr;
    git_oid treeId, commitId;
    int rc = git_repository_init(&repo, dir.c_str(), 0);
    if (rc == 0)
        rc = git_repository_index(&index, repo);
    if (rc == 0)
        rc = git_index_add_bypath(index, "session.json");
    if (rc == 0)
        rc = git_index_write(index);
    if (rc == 0)
        rc = git_index_write_tree(&treeId, index);
    if (rc == 0)
        rc = git_tree_lookup(&tree, repo, &treeId);
    if (rc == 0)
        rc = git_signature_now(&who, "test", "test@example.invalid");
    if (rc == 0)
        rc = git_commit_create(&commitId, repo, "refs/heads/main", who, who, nullptr, "empty session\n", tree, 0,
                               nullptr);
    const std::string problem = rc == 0 ? std::string() : std::string(git_error_last() ? git_error_last()->message : "?");
    git_signature_free(who);
    git_tree_free(tree);
    git_index_free(index);
    git_repository_free(repo);
    git_libgit2_shutdown();
    if (rc != 0)
        throw std::runtime_error("cannot create the empty session " + dir.string() + ": " + problem);
}

void setResultsField(const std::filesystem::path& dir, int lineNumber, int field, const std::string& value)
{
    const std::filesystem::path path = dir / "results.tsv";
    const std::string all = ak::read_file(path);
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < all.size()) {
        const std::size_t end = all.find('\n', start);
        lines.push_back(all.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    if (lineNumber < 1 || lineNumber > int(lines.size()))
        throw std::runtime_error("results.tsv has no line " + std::to_string(lineNumber));
    std::string& line = lines[std::size_t(lineNumber - 1)];
    std::vector<std::string> fields;
    std::size_t from = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', from);
        fields.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
        if (tab == std::string::npos)
            break;
        from = tab + 1;
    }
    if (field < 0 || field >= int(fields.size()))
        throw std::runtime_error("results.tsv line " + std::to_string(lineNumber) + " has no field " + std::to_string(field));
    fields[std::size_t(field)] = value;
    line.clear();
    for (std::size_t i = 0; i < fields.size(); ++i)
        line += (i ? "\t" : "") + fields[i];
    std::string joined;
    for (const std::string& l : lines)
        joined += l + '\n';
    ak::replace_durably(path, joined);
}

}  // namespace ak::test
