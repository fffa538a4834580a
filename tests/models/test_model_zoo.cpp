// The built-in models on the CPU in fp32, shrunk to two layers where a full model would be slow: logits of
// the right shape and finite, the same seed gives the same model, a training step gives a finite loss
// near ln(vocab) and a gradient for every parameter, GPT-2's parameter count is the published 124,439,808,
// and bad options are refused with a message naming the problem.
#include "engine/builtin_models.h"
#include "models/model_zoo.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

namespace ak::models {
namespace {

ModelOptions cpu_options(Mode mode = Mode::Inference) {
    ModelOptions o;
    o.batch = 2;
    o.seq = 16;
    o.dtype = at::kFloat;
    o.mode = mode;
    o.seed = 7;
    o.device = c10::Device(c10::kCPU);
    return o;
}

ModelConfig small(const std::string& name) {
    ModelConfig c = model_config(name);
    c.layers = 2;
    if (c.hidden > 1024) {  // llama-7b-layers: keep the head structure (32 heads, 8 KV heads), shrink the widths
        c.hidden = 512;
        c.intermediate = 1376;
    }
    return c;
}

TEST(ModelZoo, NamesAndConfigurations) {
    EXPECT_EQ(model_names(), (std::vector<std::string>{"gpt2", "llama-160m", "llama-7b-layers", "bert-base"}));
    // The CLI's list (it does not link LibTorch) is the same.
    EXPECT_EQ(model_names(), builtin_model_names());
    const ModelConfig l7 = model_config("llama-7b-layers");
    EXPECT_EQ(l7.hidden, 4096);
    EXPECT_EQ(l7.heads, 32);
    EXPECT_EQ(l7.kv_heads, 8);
    EXPECT_EQ(l7.intermediate, 11008);
    EXPECT_EQ(l7.layers, 2);
    try {
        model_config("gpt-2");
        FAIL() << "unknown model accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("unknown model 'gpt-2'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("bert-base"), std::string::npos);
    }
}

class EachModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EachModel, InferenceLogitsAreFiniteAndSeeded) {
    const ModelConfig c = small(GetParam());
    auto a = make_model(c, cpu_options());
    const Batch batch = a->example_batch();
    EXPECT_EQ(batch.input_ids.sizes(), (at::IntArrayRef{2, 16}));
    EXPECT_LT(batch.input_ids.max().item<int64_t>(), c.vocab);
    const at::Tensor logits = a->run_iteration(batch);
    EXPECT_EQ(logits.sizes(), (at::IntArrayRef{2, 16, c.vocab}));
    EXPECT_TRUE(at::isfinite(logits).all().item<bool>());
    auto b = make_model(c, cpu_options());
    EXPECT_TRUE(at::equal(logits, b->run_iteration(b->example_batch()))) << "same seed, same weights and inputs";
    ModelOptions other = cpu_options();
    other.seed = 8;
    auto d = make_model(c, other);
    EXPECT_FALSE(at::equal(logits, d->run_iteration(d->example_batch())));
}

TEST_P(EachModel, TrainingStepGivesALossAndEveryGradient) {
    const ModelConfig c = small(GetParam());
    auto m = make_model(c, cpu_options(Mode::Training));
    const at::Tensor loss = m->run_iteration(m->example_batch());
    ASSERT_EQ(loss.dim(), 0);
    const double l = loss.item<double>();
    EXPECT_TRUE(std::isfinite(l));
    EXPECT_NEAR(l, std::log(double(c.vocab)), 1.0) << "random weights predict close to uniformly";
    for (const auto& [name, p] : m->named_parameters()) {
        ASSERT_TRUE(p.grad().defined()) << name;
        EXPECT_TRUE(at::isfinite(p.grad()).all().item<bool>()) << name;
    }
    // A second step starts from cleared gradients (same loss, same gradient).
    const at::Tensor g0 = m->named_parameters().front().second.grad().clone();
    EXPECT_DOUBLE_EQ(m->run_iteration(m->example_batch()).item<double>(), l);
    EXPECT_TRUE(at::allclose(m->named_parameters().front().second.grad(), g0));
}

INSTANTIATE_TEST_SUITE_P(Models, EachModel, ::testing::Values("gpt2", "llama-160m", "llama-7b-layers", "bert-base"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

TEST(ModelZoo, Gpt2HasThePublishedParameterCount) {
    ModelOptions o = cpu_options();
    o.batch = 1;
    o.seq = 4;
    EXPECT_EQ(make_model("gpt2", o)->parameter_count(), 124439808);
}

TEST(ModelZoo, BadOptionsAreRefused) {
    ModelOptions o = cpu_options();
    o.seq = 1025;
    try {
        make_model("gpt2", o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("1024 positions"), std::string::npos) << e.what();
    }
    o = cpu_options();
    o.dtype = at::kDouble;
    EXPECT_THROW(make_model("bert-base", o), Error);
    o = cpu_options();
    o.batch = 0;
    EXPECT_THROW(make_model("llama-160m", o), Error);
}

}  // namespace
}  // namespace ak::models
