// profile.json: the round trip keeps every field, and every schema error names the file and the field.
#include "profile/profile_json.h"
#include "util/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ak::profile {
namespace {

namespace fs = std::filesystem;

Profile sample() {
    Profile p;
    p.origin.kind = SourceKind::BuiltinModel;
    p.origin.model = "llama-160m";
    p.origin.batch = 4;
    p.origin.seq = 512;
    p.origin.dtype = "bf16";
    p.origin.mode = "inference";
    p.origin.warmup_iterations = 3;
    p.origin.measured_iterations = 2;
    p.origin.gpu_name = "NVIDIA H200";
    p.origin.driver_version = "580.65";
    p.origin.cuda_version = "13.0";
    p.origin.torch_version = "2.11.0";
    p.origin.tool_version = "autokernel 0.1.0";
    p.origin.recorded_utc = "2026-12-02T04:00:00Z";
    p.origin.inputs = {"8x1024:int64"};
    p.origin.command = {"python", "train.py", "--name=\"x\""};

    OpCall linear;
    linear.id = 7;
    linear.name = "aten::linear";
    linear.stack = {"aten::linear"};
    linear.module_path = "layers.0.attn.q_proj";
    linear.iteration = 0;
    linear.inputs = {{{2048, 768}, {768, 1}, "bf16", {}}, {{768, 768}, {768, 1}, "bf16", {}}, {{}, {}, "", {}}};
    OpCall addmm;
    addmm.id = 8;
    addmm.name = "aten::addmm";
    addmm.stack = {"aten::linear", "aten::addmm"};
    addmm.module_path = "layers.0.attn.q_proj";
    addmm.iteration = 0;
    addmm.inputs = {{{768}, {1}, "bf16", {}}, {{2048, 768}, {768, 1}, "bf16", {}}, {{768, 768}, {1, 768}, "bf16", {}}};
    OpCall sdpa;
    sdpa.id = 9;
    sdpa.name = "aten::scaled_dot_product_attention";
    sdpa.stack = {sdpa.name};
    sdpa.iteration = 1;
    sdpa.inputs = {{{4, 12, 512, 64}, {}, "bf16", {}}, {{}, {}, "", {0.0}}, {{}, {}, "", {1}}, {{}, {}, "", {-1, 2}}};
    p.ops = {linear, addmm, sdpa};

    KernelRecord k;
    k.name = "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopB_TNT";
    k.start_ns = 1764648000000000000ULL;
    k.end_ns = k.start_ns + 12345;
    k.device = 0;
    k.stream = 7;
    k.grid = {132, 1, 1};
    k.block = {384, 1, 1};
    k.cluster = {2, 1, 1};
    k.registers_per_thread = 168;
    k.static_smem_bytes = 0;
    k.dynamic_smem_bytes = 232448;
    k.correlation_id = 4242;
    k.op_id = 8;
    k.iteration = 0;
    KernelRecord k2;
    k2.name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float*)";
    k2.start_ns = k.end_ns + 1000;
    k2.end_ns = k2.start_ns + 800;
    k2.stream = 7;
    k2.grid = {64, 1, 1};
    k2.block = {128, 1, 1};
    k2.nvtx_range = "forward";
    k2.graph_id = 3;
    k2.iteration = 1;
    p.kernels = {k, k2};

    MemoryRecord m;
    m.kind = MemoryKind::MemcpyHtoD;
    m.bytes = 65536;
    m.start_ns = k.start_ns - 5000;
    m.end_ns = k.start_ns - 1000;
    m.stream = 7;
    m.op_id = 9;
    m.iteration = 0;
    MemoryRecord set;
    set.kind = MemoryKind::Memset;
    set.bytes = 4;
    set.start_ns = set.end_ns = k2.end_ns + 10;
    p.memory = {m, set};

    p.iterations = {{0, 1.25, 1.2, k.start_ns - 5000, k.end_ns}, {1, 1.5, 0, k2.start_ns, k2.end_ns + 10}};
    p.overhead = Overhead{1.4, 1.3};
    MeasuredCeilings c;
    c.device_name = "NVIDIA H200";
    c.measured_utc = "2026-12-01T10:00:00Z";
    c.copy_gb_s = {{1 << 20, 1800.5}, {1ULL << 30, 4100.25}};
    c.gemm_tflops = {{DType::bf16, 650.0}, {DType::fp16, 672.0}};
    p.ceilings = c;
    p.warnings = {"CUPTI dropped 12 records"};
    return p;
}

std::string error_of(const std::string& text) {
    try {
        profile_from_json(text, "p.json");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadFormat);
        return e.what();
    }
    return "(no error)";
}

// Replaces the first occurrence of `from` in `text` (the test fails when it is absent).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

TEST(ProfileJson, RoundTripKeepsEveryField) {
    const Profile p = sample();
    const std::string text = to_json(p);
    const Profile q = profile_from_json(text, "p.json");
    EXPECT_EQ(to_json(q), text);

    EXPECT_EQ(q.origin.kind, SourceKind::BuiltinModel);
    EXPECT_EQ(q.origin.model, "llama-160m");
    EXPECT_EQ(q.origin.batch, 4);
    EXPECT_EQ(q.origin.seq, 512);
    EXPECT_EQ(q.origin.command, p.origin.command);
    EXPECT_EQ(q.origin.inputs, p.origin.inputs);
    EXPECT_EQ(q.origin.recorded_utc, p.origin.recorded_utc);
    ASSERT_EQ(q.ops.size(), 3u);
    EXPECT_EQ(q.ops[1].stack, (std::vector<std::string>{"aten::linear", "aten::addmm"}));
    EXPECT_EQ(q.ops[1].inputs[2].strides, (std::vector<std::int64_t>{1, 768}));
    EXPECT_EQ(q.ops[0].module_path, "layers.0.attn.q_proj");
    EXPECT_FALSE(q.ops[0].inputs[2].is_tensor());
    EXPECT_EQ(q.ops[2].inputs[2].values, (std::vector<double>{1}));
    EXPECT_EQ(q.ops[2].inputs[3].values, (std::vector<double>{-1, 2}));
    EXPECT_EQ(q.ops[2].iteration, 1);
    ASSERT_EQ(q.kernels.size(), 2u);
    EXPECT_EQ(q.kernels[0].name, p.kernels[0].name);
    EXPECT_EQ(q.kernels[0].start_ns, 1764648000000000000ULL);
    EXPECT_EQ(q.kernels[0].end_ns, 1764648000000012345ULL);
    EXPECT_EQ(q.kernels[0].cluster, (std::array<std::uint32_t, 3>{2, 1, 1}));
    EXPECT_EQ(q.kernels[0].dynamic_smem_bytes, 232448);
    EXPECT_EQ(q.kernels[0].registers_per_thread, 168);
    EXPECT_EQ(q.kernels[0].correlation_id, 4242u);
    EXPECT_EQ(q.kernels[0].op_id, std::optional<std::uint64_t>(8));
    EXPECT_FALSE(q.kernels[1].op_id.has_value());
    EXPECT_EQ(q.kernels[1].nvtx_range, "forward");
    EXPECT_EQ(q.kernels[1].graph_id, 3u);
    ASSERT_EQ(q.memory.size(), 2u);
    EXPECT_EQ(q.memory[0].kind, MemoryKind::MemcpyHtoD);
    EXPECT_EQ(q.memory[0].op_id, std::optional<std::uint64_t>(9));
    EXPECT_EQ(q.memory[1].kind, MemoryKind::Memset);
    EXPECT_EQ(q.memory[1].iteration, -1);
    ASSERT_EQ(q.iterations.size(), 2u);
    EXPECT_DOUBLE_EQ(q.iterations[0].wall_ms, 1.25);
    ASSERT_TRUE(q.overhead);
    EXPECT_DOUBLE_EQ(q.overhead->unprofiled_iteration_ms, 1.3);
    ASSERT_TRUE(q.ceilings);
    EXPECT_DOUBLE_EQ(q.ceilings->copy_gb_s.at(1ULL << 30), 4100.25);
    EXPECT_DOUBLE_EQ(q.ceilings->gemm_tflops.at(DType::fp16), 672.0);
    EXPECT_EQ(q.warnings, p.warnings);
}

TEST(ProfileJson, EmptyProfileRoundTrips) {
    Profile p;
    p.origin.kind = SourceKind::Command;
    p.origin.measured_iterations = 1;
    const std::string text = to_json(p);
    const Profile q = profile_from_json(text, "p.json");
    EXPECT_EQ(q.origin.kind, SourceKind::Command);
    EXPECT_TRUE(q.kernels.empty());
    EXPECT_FALSE(q.overhead);
    EXPECT_FALSE(q.ceilings);
    EXPECT_EQ(to_json(q), text);
}

TEST(ProfileJson, OneRecordALineAndStringsInterned) {
    const std::string text = to_json(sample());
    // The kernel name appears once (in "strings"), however many kernels carry it.
    Profile p = sample();
    for (int i = 0; i < 50; ++i) p.kernels.push_back(p.kernels[0]);
    const std::string many = to_json(p);
    std::size_t count = 0;
    for (auto pos = many.find("nvjet_sm90_tst"); pos != std::string::npos; pos = many.find("nvjet_sm90_tst", pos + 1))
        ++count;
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(std::count(many.begin(), many.end(), '\n') - std::count(text.begin(), text.end(), '\n'), 50);
}

TEST(ProfileJson, InvalidUtf8IsReplacedNotFatal) {
    Profile p = sample();
    p.kernels[0].name = "bad\xff name";
    const Profile q = profile_from_json(to_json(p), "p.json");
    EXPECT_EQ(q.kernels[0].name, "bad\xEF\xBF\xBD name");
}

// The sample's JSON, changed by `edit`, then read: the error message.
template <class Edit>
std::string error_after(Edit edit) {
    nlohmann::json j = nlohmann::json::parse(to_json(sample()));
    edit(j);
    return error_of(j.dump());
}

TEST(ProfileJson, ErrorsNameTheFileAndTheField) {
    using nlohmann::json;
    EXPECT_NE(error_of("{").find("p.json: not valid JSON"), std::string::npos);
    EXPECT_NE(error_of("[]").find("p.json: the document: must be an object"), std::string::npos);
    EXPECT_NE(error_after([](json& j) { j.erase("format_version"); }).find("p.json: format_version: missing"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["format_version"] = 2; }).find("format_version: 2 is not supported"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["format"] = "chrome-trace"; }).find("p.json: format: must be"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["origin"]["kind"] = "python"; }).find("origin.kind: must be"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["origin"].erase("measured_iterations"); })
                  .find("origin.measured_iterations: missing"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["origin"]["batch"] = "four"; }).find("origin.batch: must be a whole number, found a JSON string"),
              std::string::npos);
    // end before start, named by the kernel's index and the column's name
    EXPECT_NE(error_after([](json& j) { j["kernels"][1][2] = j["kernels"][1][1].get<std::uint64_t>() - 1; })
                  .find("p.json: kernels[1].end_ns: "),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0][1] = -5; }).find("kernels[0].start_ns: must not be negative"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0][14] = 1.5; }).find("kernels[0].registers: must be a whole number"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0].erase(3); }).find("kernels[0]: must have 22 elements, found 21"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0][0] = 9999; }).find("kernels[0].name: string index 9999 is outside"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0][18] = 12345; }).find("kernels[0].op_id: names op 12345, which is not in"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernels"][0][5] = 1ULL << 33; }).find("kernels[0].grid_x: is out of range"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["ops"][1][0] = 7; }).find("ops[1].id: op id 7 appears twice"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["ops"][1][6][0][1] = json::array({-3}); }).find("ops[1].inputs[0].sizes[0]: must not be negative"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["ops"][1][6][0][2] = json::array({1, 1}); }).find("ops[1].inputs[0].strides: has 2 entries for 1 sizes"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["ops"][0][5] = -2; }).find("ops[0].iteration: must be at least -1"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["memory"][0][0] = "memmove"; }).find("memory[0].kind: must be"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["memory"][0][3] = 0; }).find("memory[0].end_ns: 0 is before start_ns"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["iterations"][0].erase("wall_ms"); }).find("iterations[0].wall_ms: missing"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["ceilings"]["gemm_tflops"]["fp4"] = 1; }).find("ceilings.gemm_tflops.fp4: unknown dtype"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["kernel_columns"][0] = "kernel"; }).find("kernel_columns: does not match"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j.erase("kernels"); }).find("p.json: kernels: missing (required)"),
              std::string::npos);
    EXPECT_NE(error_after([](json& j) { j["strings"][0] = 3; }).find("strings[0]: must be a string, found an integer"),
              std::string::npos);
}

TEST(ProfileJson, FileReadingAndWriting) {
    const fs::path dir = fs::temp_directory_path() / ("ak-profile-json-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "profile.json";
    write_profile_json(sample(), file);
    EXPECT_EQ(read_profile_json(file).kernels.size(), 2u);
    try {
        read_profile_json(dir / "missing.json");
        ADD_FAILURE() << "no error for a missing file";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
    }
    try {
        read_profile_json(dir);
        ADD_FAILURE() << "no error for a folder";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos);
    }
    { std::ofstream(dir / "bad.json") << "{\"format_version\": 1}"; }
    try {
        read_profile_json(dir / "bad.json");
        ADD_FAILURE() << "no error for a bad file";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find((dir / "bad.json").string() + ": origin: missing"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ak::profile
