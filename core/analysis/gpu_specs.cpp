#include "analysis/gpu_specs.h"

#include "util/error.h"

#include <algorithm>
#include <cctype>

namespace ak {
namespace {

constexpr std::optional<double> none = std::nullopt;

// Sources (dense = the datasheet's sparsity figure halved where the datasheet prints only that):
//   [H100-WP]  NVIDIA H100 Tensor Core GPU Architecture whitepaper, table "Comparison of NVIDIA data
//              center GPUs" (H100 SXM5 / H100 PCIe columns, dense figures given there).
//   [H100-DS]  NVIDIA H100 Tensor Core GPU datasheet (SXM / NVL columns; TF32, BF16, FP16, FP8 are
//              printed with sparsity and halved here).
//   [H200-DS]  NVIDIA H200 Tensor Core GPU datasheet (H200 SXM / H200 NVL columns, sparse, halved).
//   [HGXB200]  NVIDIA HGX B200 datasheet (8-GPU totals, sparse; divided by 8 and halved).
//   [A100-DS]  NVIDIA A100 Tensor Core GPU datasheet (dense and sparse both printed).
//   [L40S-DS]  NVIDIA L40S datasheet (dense | sparse printed).
//   [L4-DS]    NVIDIA L4 Tensor Core GPU datasheet (sparse printed, halved).
//   [ADA-WP]   NVIDIA Ada GPU Architecture whitepaper, appendix table for GeForce RTX 4090 and
//              RTX 6000 Ada (FP32-accumulate tensor figures; GeForce runs FP16/BF16/FP8 with FP32
//              accumulation at half the FP16-accumulate rate).
//   [GA102-WP] NVIDIA Ampere GA102 GPU Architecture whitepaper (RTX 3090 and A10 columns,
//              FP32-accumulate tensor figures).
//   [A10-DS]   NVIDIA A10 Tensor Core GPU datasheet (dense | sparse printed).
//   [V100-WP]  NVIDIA Tesla V100 GPU Architecture whitepaper.
//   [ours]     cuDeviceGetAttribute on our own H200 (shared/anchors.md).
std::vector<GpuSpec> make_table() {
    std::vector<GpuSpec> t;
    auto add = [&](GpuSpec s) { t.push_back(std::move(s)); };

    // ---- Hopper (9.0) ----
    add({.name = "NVIDIA H100 80GB HBM3", .model = "H100 SXM5 80GB", .cc_major = 9, .cc_minor = 0,
         .sm_count = 132,                                         // [H100-WP]
         .memory = "HBM3", .memory_gb = 80, .bandwidth_gb_s = 3350,  // [H100-DS] 3.35 TB/s
         .l2_mb = 50,                                             // [H100-WP]
         .fp32_tflops = 66.9, .tf32_tflops = 494.7,               // [H100-WP] dense
         .fp16_tflops = 989.4, .bf16_tflops = 989.4, .fp8_tflops = 1978.9,  // [H100-WP] dense
         .source = "H100 architecture whitepaper (SXM5, dense); H100 datasheet (bandwidth)"});
    add({.name = "NVIDIA H100 PCIe", .model = "H100 PCIe 80GB", .cc_major = 9, .cc_minor = 0,
         .sm_count = 114,                                         // [H100-WP]
         .memory = "HBM2e", .memory_gb = 80, .bandwidth_gb_s = 2000,  // [H100-DS] 2 TB/s
         .l2_mb = 50,                                             // [H100-WP]
         .fp32_tflops = 51.2, .tf32_tflops = 378,                 // [H100-WP] dense
         .fp16_tflops = 756, .bf16_tflops = 756, .fp8_tflops = 1513,  // [H100-WP] dense
         .source = "H100 architecture whitepaper (PCIe, dense); H100 datasheet (bandwidth)"});
    add({.name = "NVIDIA H100 NVL", .model = "H100 NVL 94GB", .cc_major = 9, .cc_minor = 0,
         .sm_count = 132,                                         // [H100-DS] full GH100 config as SXM5
         .memory = "HBM3", .memory_gb = 94, .bandwidth_gb_s = 3900,  // [H100-DS] 3.9 TB/s
         .l2_mb = 50,                                             // [H100-WP] (GH100 product config)
         .fp32_tflops = 60, .tf32_tflops = 417.5,                 // [H100-DS] 60; 835 sparse / 2
         .fp16_tflops = 835.5, .bf16_tflops = 835.5, .fp8_tflops = 1670.5,  // [H100-DS] 1671, 3341 sparse / 2
         .source = "H100 datasheet (NVL column, sparse figures halved)"});
    add({.name = "NVIDIA H200", .model = "H200 SXM 141GB", .cc_major = 9, .cc_minor = 0,
         .sm_count = 132,                                         // [ours] 132 SMs
         .memory = "HBM3e", .memory_gb = 141, .bandwidth_gb_s = 4800,  // [H200-DS] 4.8 TB/s
         .l2_mb = 60,                                             // [ours] the driver reports 60 MB
         .fp32_tflops = 66.9, .tf32_tflops = 494.7,               // [H200-DS] 67; 989 sparse / 2 (= H100 SXM)
         .fp16_tflops = 989.4, .bf16_tflops = 989.4, .fp8_tflops = 1978.9,  // [H200-DS] 1979, 3958 sparse / 2
         .source = "H200 datasheet (SXM column, sparse figures halved; compute equals H100 SXM5); "
                   "SM count and L2 from our H200"});
    add({.name = "NVIDIA H200 NVL", .model = "H200 NVL 141GB", .cc_major = 9, .cc_minor = 0,
         .sm_count = 132,                                         // assumed as H200 SXM (same GH100 config)
         .memory = "HBM3e", .memory_gb = 141, .bandwidth_gb_s = 4800,  // [H200-DS] 4.8 TB/s
         .l2_mb = 60,                                             // assumed as H200 SXM
         .fp32_tflops = 60, .tf32_tflops = 417.5,                 // [H200-DS] 60; 835 sparse / 2
         .fp16_tflops = 835.5, .bf16_tflops = 835.5, .fp8_tflops = 1670.5,  // [H200-DS] 1671, 3341 sparse / 2
         .source = "H200 datasheet (NVL column, sparse figures halved); SM count and L2 assumed as H200 SXM"});

    // ---- Blackwell (10.0) ----
    add({.name = "NVIDIA B200", .model = "B200 180GB", .cc_major = 10, .cc_minor = 0,
         .sm_count = 148,                                         // publicly reported device query
         .memory = "HBM3e", .memory_gb = 180, .bandwidth_gb_s = 8000,  // [HGXB200] 64 TB/s / 8
         .l2_mb = 126,                                            // publicly reported device query
         .fp32_tflops = 75, .tf32_tflops = 1125,                  // [HGXB200] 600 TF / 8; 18 PF sparse / 8 / 2
         .fp16_tflops = 2250, .bf16_tflops = 2250, .fp8_tflops = 4500,  // [HGXB200] 36, 72 PF sparse / 8 / 2
         .source = "HGX B200 datasheet (8-GPU sparse totals, per GPU and halved); SM count and L2 from "
                   "public device queries"});

    // ---- Ampere data center (8.0) ----
    auto a100 = [&](const char* name, const char* model, const char* memory, double gb, double bw) {
        add({.name = name, .model = model, .cc_major = 8, .cc_minor = 0,
             .sm_count = 108,                                     // [A100-DS]
             .memory = memory, .memory_gb = gb, .bandwidth_gb_s = bw,  // [A100-DS]
             .l2_mb = 40,                                         // [A100-DS]
             .fp32_tflops = 19.5, .tf32_tflops = 156,             // [A100-DS] dense
             .fp16_tflops = 312, .bf16_tflops = 312, .fp8_tflops = none,  // [A100-DS] dense; no FP8
             .source = "A100 datasheet (dense figures)"});
    };
    a100("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB", "HBM2e", 80, 2039);
    a100("NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB", "HBM2", 40, 1555);
    a100("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB", "HBM2e", 80, 1935);
    a100("NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB", "HBM2", 40, 1555);

    // ---- Ada (8.9) ----
    add({.name = "NVIDIA L40S", .model = "L40S", .cc_major = 8, .cc_minor = 9,
         .sm_count = 142,                                         // [ADA-WP] AD102 config of L40S
         .memory = "GDDR6", .memory_gb = 48, .bandwidth_gb_s = 864,  // [L40S-DS]
         .l2_mb = 96,                                             // [ADA-WP]
         .fp32_tflops = 91.6, .tf32_tflops = 183,                 // [L40S-DS] dense
         .fp16_tflops = 362.05, .bf16_tflops = 362.05, .fp8_tflops = 733,  // [L40S-DS] dense
         .source = "L40S datasheet (dense figures)"});
    add({.name = "NVIDIA L4", .model = "L4", .cc_major = 8, .cc_minor = 9,
         .sm_count = 58,                                          // [ADA-WP] AD104 config of L4
         .memory = "GDDR6", .memory_gb = 24, .bandwidth_gb_s = 300,  // [L4-DS]
         .l2_mb = 48,                                             // [ADA-WP]
         .fp32_tflops = 30.3, .tf32_tflops = 60,                  // [L4-DS] 30.3; 120 sparse / 2
         .fp16_tflops = 121, .bf16_tflops = 121, .fp8_tflops = 242.5,  // [L4-DS] 242, 485 sparse / 2
         .source = "L4 datasheet (sparse figures halved)"});
    add({.name = "NVIDIA RTX 6000 Ada Generation", .model = "RTX 6000 Ada", .cc_major = 8, .cc_minor = 9,
         .sm_count = 142,                                         // [ADA-WP]
         .memory = "GDDR6", .memory_gb = 48, .bandwidth_gb_s = 960,  // [ADA-WP]
         .l2_mb = 96,                                             // [ADA-WP]
         .fp32_tflops = 91.1, .tf32_tflops = 182.1,               // [ADA-WP] dense
         .fp16_tflops = 364.2, .bf16_tflops = 364.2, .fp8_tflops = 728.5,  // [ADA-WP] dense, FP32 accumulate
         .source = "Ada architecture whitepaper (RTX 6000 Ada, dense)"});
    add({.name = "NVIDIA GeForce RTX 4090", .model = "GeForce RTX 4090", .cc_major = 8, .cc_minor = 9,
         .sm_count = 128,                                         // [ADA-WP]
         .memory = "GDDR6X", .memory_gb = 24, .bandwidth_gb_s = 1008,  // [ADA-WP]
         .l2_mb = 72,                                             // [ADA-WP]
         .fp32_tflops = 82.6, .tf32_tflops = 82.6,                // [ADA-WP] dense
         .fp16_tflops = 165.2, .bf16_tflops = 165.2, .fp8_tflops = 330.3,  // [ADA-WP] dense, FP32 accumulate
         .source = "Ada architecture whitepaper (GeForce RTX 4090, dense, FP32 accumulate)"});

    // ---- Ampere (8.6) ----
    add({.name = "NVIDIA GeForce RTX 3090", .model = "GeForce RTX 3090", .cc_major = 8, .cc_minor = 6,
         .sm_count = 82,                                          // [GA102-WP]
         .memory = "GDDR6X", .memory_gb = 24, .bandwidth_gb_s = 936,  // [GA102-WP]
         .l2_mb = 6,                                              // [GA102-WP]
         .fp32_tflops = 35.6, .tf32_tflops = 35.6,                // [GA102-WP] dense
         .fp16_tflops = 71, .bf16_tflops = 71, .fp8_tflops = none,  // [GA102-WP] dense, FP32 accumulate
         .source = "GA102 architecture whitepaper (GeForce RTX 3090, dense, FP32 accumulate)"});
    add({.name = "NVIDIA A10", .model = "A10", .cc_major = 8, .cc_minor = 6,
         .sm_count = 72,                                          // [GA102-WP]
         .memory = "GDDR6", .memory_gb = 24, .bandwidth_gb_s = 600,  // [A10-DS]
         .l2_mb = 6,                                              // [GA102-WP]
         .fp32_tflops = 31.2, .tf32_tflops = 62.5,                // [A10-DS] dense
         .fp16_tflops = 125, .bf16_tflops = 125, .fp8_tflops = none,  // [A10-DS] dense
         .source = "A10 datasheet (dense figures)"});

    // ---- Volta (7.0): NVRTC 13 no longer compiles for it, but its numbers still describe old results ----
    auto v100 = [&](const char* name, const char* model, double gb) {
        add({.name = name, .model = model, .cc_major = 7, .cc_minor = 0,
             .sm_count = 80,                                      // [V100-WP]
             .memory = "HBM2", .memory_gb = gb, .bandwidth_gb_s = 900,  // [V100-WP]
             .l2_mb = 6,                                          // [V100-WP]
             .fp32_tflops = 15.7, .tf32_tflops = none,            // [V100-WP]; no TF32
             .fp16_tflops = 125, .bf16_tflops = none, .fp8_tflops = none,  // [V100-WP] tensor FP16
             .source = "V100 architecture whitepaper (SXM2)"});
    };
    v100("Tesla V100-SXM2-32GB", "V100 SXM2 32GB", 32);
    v100("Tesla V100-SXM2-16GB", "V100 SXM2 16GB", 16);
    return t;
}

// Unknown names: the first rule whose words all appear in the name (as whole words) names the model.
// More specific rules come first ("H100 NVL" before "H100").
struct KeywordRule {
    std::vector<std::string_view> words;  // lowercase
    std::string_view spec_name;
};

const std::vector<KeywordRule>& keyword_rules() {
    static const std::vector<KeywordRule> rules{
        {{"h200", "nvl"}, "NVIDIA H200 NVL"},
        {{"h200"}, "NVIDIA H200"},
        {{"h100", "nvl"}, "NVIDIA H100 NVL"},
        {{"h100", "pcie"}, "NVIDIA H100 PCIe"},
        {{"h100"}, "NVIDIA H100 80GB HBM3"},
        {{"b200"}, "NVIDIA B200"},
        {{"a100", "pcie", "80gb"}, "NVIDIA A100 80GB PCIe"},
        {{"a100", "pcie"}, "NVIDIA A100-PCIE-40GB"},
        {{"a100", "40gb"}, "NVIDIA A100-SXM4-40GB"},
        {{"a100"}, "NVIDIA A100-SXM4-80GB"},
        {{"l40s"}, "NVIDIA L40S"},
        {{"l4"}, "NVIDIA L4"},
        {{"6000", "ada"}, "NVIDIA RTX 6000 Ada Generation"},
        {{"4090"}, "NVIDIA GeForce RTX 4090"},
        {{"3090"}, "NVIDIA GeForce RTX 3090"},
        {{"a10"}, "NVIDIA A10"},
        {{"v100", "16gb"}, "Tesla V100-SXM2-16GB"},
        {{"v100"}, "Tesla V100-SXM2-32GB"},
    };
    return rules;
}

// The GPU whose numbers stand in for an unknown one of the same compute capability.
struct CcRule {
    int major, minor;
    std::string_view spec_name;
};
constexpr CcRule kCcRules[] = {
    {9, 0, "NVIDIA H100 80GB HBM3"}, {10, 0, "NVIDIA B200"}, {8, 0, "NVIDIA A100-SXM4-80GB"},
    {8, 9, "NVIDIA L40S"},           {8, 6, "NVIDIA A10"},  {7, 0, "Tesla V100-SXM2-32GB"},
};

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// "NVIDIA A100-SXM4-80GB" -> {nvidia, a100, sxm4, 80gb}
std::vector<std::string> words_of(std::string_view name) {
    std::vector<std::string> words;
    std::string current;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!current.empty()) {
            words.push_back(std::move(current));
            current.clear();
        }
    }
    if (!current.empty()) words.push_back(std::move(current));
    return words;
}

const GpuSpec* entry(std::string_view spec_name) {
    for (const GpuSpec& s : known_gpu_specs())
        if (s.name == spec_name) return &s;
    return nullptr;
}

std::string cc_text(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }

}  // namespace

std::string_view to_string(GpuMatch m) {
    switch (m) {
    case GpuMatch::exact: return "exact";
    case GpuMatch::by_name_keyword: return "by name keyword";
    case GpuMatch::by_compute_capability: return "by compute capability";
    }
    return "?";
}

const std::vector<GpuSpec>& known_gpu_specs() {
    static const std::vector<GpuSpec> table = make_table();
    return table;
}

bool GpuSpec::supports(DType t) const {
    switch (t) {
    case DType::fp32: return fp32_tflops.has_value();
    case DType::tf32: return tf32_tflops.has_value();
    case DType::fp16: return fp16_tflops.has_value();
    case DType::bf16: return bf16_tflops.has_value();
    case DType::fp8: return fp8_tflops.has_value();
    }
    return false;
}

double GpuSpec::peak_tflops(DType t) const {
    std::optional<double> v;
    switch (t) {
    case DType::fp32: v = fp32_tflops; break;
    case DType::tf32: v = tf32_tflops; break;
    case DType::fp16: v = fp16_tflops; break;
    case DType::bf16: v = bf16_tflops; break;
    case DType::fp8: v = fp8_tflops; break;
    }
    if (!v)
        throw Error(ErrorKind::NotFound,
                    "the " + model + " has no " + std::string(to_string(t)) + " peak: it has no such unit");
    return *v;
}

std::optional<GpuSpec> find_gpu_spec(std::string_view device_name, int cc_major, int cc_minor) {
    const std::string_view name = trimmed(device_name);
    const std::string name_lower = lower(name);
    for (const GpuSpec& s : known_gpu_specs()) {
        if (lower(s.name) == name_lower) {
            GpuSpec found = s;
            found.match = GpuMatch::exact;
            found.queried_name = std::string(device_name);
            return found;
        }
    }

    const bool cc_known = cc_major > 0;
    const std::vector<std::string> words = words_of(name);
    for (const KeywordRule& rule : keyword_rules()) {
        const bool all = std::all_of(rule.words.begin(), rule.words.end(), [&](std::string_view w) {
            return std::find(words.begin(), words.end(), w) != words.end();
        });
        if (!all) continue;
        const GpuSpec* s = entry(rule.spec_name);
        // A name that says H100 but a compute capability that is not Hopper's is not an H100 we know.
        if (!s || (cc_known && (s->cc_major != cc_major || s->cc_minor != cc_minor))) continue;
        GpuSpec found = *s;
        found.match = GpuMatch::by_name_keyword;
        found.queried_name = std::string(device_name);
        found.match_note = "'" + std::string(name) + "' is not in the GPU table; its name points to the " +
                           s->model + " (" + s->name + "), whose datasheet numbers are used: treat them as approximate";
        return found;
    }

    if (cc_known) {
        for (const CcRule& rule : kCcRules) {
            if (rule.major != cc_major || rule.minor != cc_minor) continue;
            const GpuSpec* s = entry(rule.spec_name);
            if (!s) break;
            GpuSpec found = *s;
            found.match = GpuMatch::by_compute_capability;
            found.queried_name = std::string(device_name);
            found.match_note = "'" + std::string(name) + "' is not in the GPU table; using the " + s->model + " (" +
                               s->name + "), the closest known GPU with compute capability " +
                               cc_text(cc_major, cc_minor) + ": treat its numbers as approximate";
            return found;
        }
    }
    return std::nullopt;
}

}  // namespace ak
