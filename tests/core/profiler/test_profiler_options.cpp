// The profiler's command line: the three routes, defaults, and every usage error naming the option.
#include "profiler/profiler_options.h"
#include "engine/builtin_models.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak::profiler {
namespace {

std::string error_of(const std::vector<std::string>& args) {
    try {
        parse_profiler_args(args);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        return e.what();
    }
    return "";
}

TEST(ProfilerOptions, ModelRouteWithDefaults) {
    const auto o = parse_profiler_args({"--out", "p.json", "--model", "gpt2"});
    EXPECT_EQ(o.route, Route::Model);
    EXPECT_EQ(o.model, "gpt2");
    EXPECT_EQ(o.out, "p.json");
    EXPECT_EQ(o.warmup, 5);
    EXPECT_EQ(o.iterations, 10);
    EXPECT_EQ(o.batch, 8);
    EXPECT_EQ(o.seq, 1024);
    EXPECT_EQ(o.dtype, "fp16");
    EXPECT_EQ(o.mode, "inference");
}

TEST(ProfilerOptions, ModelRouteWithEveryOption) {
    const auto o = parse_profiler_args({"--out", "p.json", "--warmup", "0", "--iterations", "3", "--model", "llama-7b-layers",
                                        "--batch", "2", "--seq", "512", "--dtype", "bf16", "--mode", "training"});
    EXPECT_EQ(o.warmup, 0);
    EXPECT_EQ(o.iterations, 3);
    EXPECT_EQ(o.batch, 2);
    EXPECT_EQ(o.seq, 512);
    EXPECT_EQ(o.dtype, "bf16");
    EXPECT_EQ(o.mode, "training");
}

// The profiler takes its model names from the one list (engine/builtin_models, which
// tests/models/test_model_zoo.cpp checks against the model zoo): every name is accepted, the usage and
// the unknown-model message name them all, and a name one character off is refused.
TEST(ProfilerOptions, ModelNamesComeFromTheBuiltinList) {
    ASSERT_FALSE(builtin_model_names().empty());
    const std::string unknown = error_of({"--out", "p.json", "--model", "no-such-model"});
    std::string alternatives;
    for (const auto& name : builtin_model_names()) {
        alternatives += (alternatives.empty() ? "" : "|") + name;
        EXPECT_EQ(parse_profiler_args({"--out", "p.json", "--model", name}).model, name);
        EXPECT_NE(profiler_usage().find(name), std::string::npos) << name;
        EXPECT_NE(unknown.find(name), std::string::npos) << name;
        EXPECT_NE(error_of({"--out", "p.json", "--model", name + "x"}).find("unknown model '" + name + "x'"), std::string::npos);
    }
    EXPECT_NE(profiler_usage().find("--model " + alternatives + " "), std::string::npos) << profiler_usage();
}

TEST(ProfilerOptions, TorchScriptRoute) {
    const auto o = parse_profiler_args({"--out", "p.json", "--torchscript", "m.pt", "--input", "8x1024:int64", "--input", "2x3:fp16"});
    EXPECT_EQ(o.route, Route::TorchScript);
    EXPECT_EQ(o.torchscript, "m.pt");
    ASSERT_EQ(o.inputs.size(), 2u);
    EXPECT_EQ(o.inputs[1].dtype, "fp16");
    EXPECT_FALSE(o.dtype_given);
}

TEST(ProfilerOptions, CommandRouteKeepsEverythingAfterTheDashes) {
    const auto o = parse_profiler_args({"--out", "p.json", "--", "python3", "train.py", "--out", "x", "--model", "y"});
    EXPECT_EQ(o.route, Route::Command);
    EXPECT_EQ(o.command, (std::vector<std::string>{"python3", "train.py", "--out", "x", "--model", "y"}));
    EXPECT_TRUE(o.model.empty());
}

TEST(ProfilerOptions, UsageErrors) {
    EXPECT_NE(error_of({"--out", "p.json"}).find("nothing to profile"), std::string::npos);
    EXPECT_NE(error_of({"--model", "gpt2"}).find("--out"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt3"}).find("unknown model 'gpt3'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt3"}).find("llama-7b-layers"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--torchscript", "m.pt"}).find("only one"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--", "ls"}).find("only one"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--iterations", "0"}).find("--iterations '0'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--warmup", "-1"}).find("--warmup '-1'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--batch", "two"}).find("--batch 'two'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--dtype", "fp8"}).find("--dtype 'fp8'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--mode", "train"}).find("--mode 'train'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model", "gpt2", "--input", "2:fp16"}).find("--input belongs to --torchscript"),
              std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--torchscript", "m.pt"}).find("at least one --input"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--torchscript", "m.pt", "--input", "2:fp16", "--seq", "4"}).find("belong to --model"),
              std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--dtype", "bf16", "--", "ls"}).find("do not apply to a command"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--"}).find("followed by the command"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--model"}).find("--model needs a value"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--modle", "gpt2"}).find("unknown option '--modle'"), std::string::npos);
    EXPECT_NE(error_of({"--out", "a", "--out", "b", "--model", "gpt2"}).find("given twice"), std::string::npos);
    EXPECT_NE(error_of({"--out", "p.json", "--torchscript", "m.pt", "--input", "2:float"}).find("unknown dtype"), std::string::npos);
}

TEST(ProfilerOptions, Help) { EXPECT_TRUE(parse_profiler_args({"--help"}).show_help); }

}  // namespace
}  // namespace ak::profiler
