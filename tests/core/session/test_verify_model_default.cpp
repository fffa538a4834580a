// The model `autokernel verify` runs without --model (session/verify_model_default.h): the session's
// profile origin, as `autokernel new --from-profile` writes it into session.json.
#include "session/verify_model_default.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace ak {
namespace {

TEST(VerifyModelDefault, ABuiltinModelWithItsBatchSeqAndDtype) {
    const auto d = verify_model_from_profile("builtin", "llama-160m", "batch 8, seq 1024, bf16, inference, 10 measured iterations");
    EXPECT_EQ(d.model.builtin, "llama-160m");
    EXPECT_TRUE(d.model.torchscript.empty());
    EXPECT_EQ(d.model.batch, 8);
    EXPECT_EQ(d.model.seq, 1024);
    EXPECT_EQ(d.model.dtype, DType::bf16);
    EXPECT_EQ(d.note, "model from the session's profile: llama-160m batch 8 seq 1024 bf16");
    // A training profile is verified in inference, and says so.
    const auto t = verify_model_from_profile("builtin", "gpt2", "batch 2, seq 256, fp16, training, 5 measured iterations");
    EXPECT_NE(t.note.find("profiled in training mode; verify runs inference"), std::string::npos) << t.note;
}

TEST(VerifyModelDefault, ATorchScriptModelWithItsInputs) {
    const auto d = verify_model_from_profile("torchscript", "/m/model.pt",
                                             "--input 8x1024:int64:0-50257 --input 8x64:fp16, 10 measured iterations");
    EXPECT_EQ(d.model.torchscript, "/m/model.pt");
    EXPECT_EQ(d.model.inputs, (std::vector<std::string>{"8x1024:int64:0-50257", "8x64:fp16"}));
}

void expect_refused(std::string_view kind, std::string_view model, std::string_view options, const std::string& message) {
    try {
        (void)verify_model_from_profile(kind, model, options);
        ADD_FAILURE() << "accepted " << kind << " " << model << " " << options;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
}

TEST(VerifyModelDefault, WhatCannotBeVerifiedIsRefusedNamingTheField) {
    expect_refused("command", "python train.py", "", "profiled from a command line (python train.py)");
    expect_refused("builtin", "gpt2", "fp16, inference", "profile.options: 'fp16, inference' has no batch and seq");
    expect_refused("builtin", "gpt2", "batch -3, seq 512, fp16", "'batch -3' is not a positive size");
    expect_refused("builtin", "", "batch 1, seq 2", "profile.model is empty");
    expect_refused("torchscript", "/m.pt", "10 measured iterations", "no --input specs");
    expect_refused("onnx", "m.onnx", "", "profile.kind 'onnx'");
}

}  // namespace
}  // namespace ak
