// The op recorder (RecordFunction callbacks) on the built-in models, on the CPU: every op of a recorded
// iteration gets a unique id, its inputs' shapes, the op stack and the innermost module scope; the
// fused-pattern scopes appear in the stack; backward ops inherit their forward op's module path and
// patterns; nothing is recorded outside the measured iterations or while disabled. (Without a GPU,
// CUPTI's push/pop of the external ids fails quietly.)
#include "models/model_zoo.h"
#include "profiler/op_recorder.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

namespace ak::profiler {
namespace {

models::ModelOptions cpu_options(models::Mode mode) {
    models::ModelOptions o;
    o.batch = 2;
    o.seq = 8;
    o.dtype = at::kFloat;
    o.mode = mode;
    o.device = c10::Device(c10::kCPU);
    return o;
}

std::vector<profile::OpCall> record(models::Model& m, int iteration) {
    const models::Batch batch = m.example_batch();
    OpRecorder::install(false);
    (void)OpRecorder::take();
    OpRecorder::enable(true);
    OpRecorder::set_iteration(iteration);
    m.run_iteration(batch);
    OpRecorder::set_iteration(-1);
    m.run_iteration(batch);  // not recorded: outside the measured iterations
    OpRecorder::disable();
    OpRecorder::set_iteration(iteration);
    m.run_iteration(batch);  // not recorded: disabled
    OpRecorder::set_iteration(-1);
    return OpRecorder::take();
}

bool in_stack(const profile::OpCall& o, const std::string& name) {
    return std::find(o.stack.begin(), o.stack.end(), name) != o.stack.end();
}

models::ModelConfig two_layers(const std::string& name) {
    models::ModelConfig c = models::model_config(name);
    c.layers = 2;
    return c;
}

TEST(OpRecorder, Gpt2InferenceOpsCarryShapesStacksAndModules) {
    auto m = models::make_model(two_layers("gpt2"), cpu_options(models::Mode::Inference));
    const auto ops = record(*m, 4);
    ASSERT_FALSE(ops.empty());
    std::set<std::uint64_t> ids;
    bool addmm_in_attn = false, sdpa = false;
    for (const auto& o : ops) {
        EXPECT_TRUE(ids.insert(o.id).second) << "duplicate id " << o.id;
        EXPECT_EQ(o.iteration, 4);
        ASSERT_FALSE(o.stack.empty());
        EXPECT_EQ(o.stack.back(), o.name);
        if (o.name == "aten::addmm" && o.module_path == "blocks.1.attn" && in_stack(o, "aten::linear")) {
            addmm_in_attn = true;
            ASSERT_GE(o.inputs.size(), 3u);
            // addmm(bias [2304], x [16, 768], w^T [768, 2304]) for the fused QKV projection
            bool has_x = false;
            for (const auto& in : o.inputs) has_x = has_x || (in.sizes == std::vector<std::int64_t>{16, 768} && in.dtype == "fp32");
            EXPECT_TRUE(has_x);
        }
        if (o.name == "aten::scaled_dot_product_attention") {
            sdpa = true;
            EXPECT_EQ(o.module_path.rfind("blocks.", 0), 0u) << o.module_path;
            ASSERT_GE(o.inputs.size(), 6u);
            EXPECT_EQ(o.inputs[0].sizes, (std::vector<std::int64_t>{2, 12, 8, 64}));
            ASSERT_EQ(o.inputs[5].values.size(), 1u);  // is_causal
            EXPECT_EQ(o.inputs[5].values[0], 1.0);
        }
    }
    EXPECT_TRUE(addmm_in_attn);
    EXPECT_TRUE(sdpa);
    // Exactly one iteration was recorded: as many ops as a second recording of one iteration.
    EXPECT_EQ(record(*m, 0).size(), ops.size());
}

TEST(OpRecorder, LlamaPatternsAppearInTheStack) {
    auto m = models::make_model(two_layers("llama-160m"), cpu_options(models::Mode::Inference));
    const auto ops = record(*m, 0);
    bool silu_in_mlp = false, rotary_cat = false, norm = false;
    for (const auto& o : ops) {
        if (o.name == "aten::silu") {
            silu_in_mlp = in_stack(o, "autokernel::fused_mlp") && o.module_path.find(".mlp") != std::string::npos;
            EXPECT_EQ(o.stack.front(), "autokernel::fused_mlp");
        }
        if (o.name == "aten::cat" && in_stack(o, "autokernel::rotary_embedding")) rotary_cat = o.module_path.find(".attn") != std::string::npos;
        if (o.name == "aten::rms_norm") norm = true;
    }
    EXPECT_TRUE(silu_in_mlp);
    EXPECT_TRUE(rotary_cat);
    EXPECT_TRUE(norm);
}

TEST(OpRecorder, BackwardOpsInheritTheirForwardModuleAndPatterns) {
    auto m = models::make_model(two_layers("llama-160m"), cpu_options(models::Mode::Training));
    const auto ops = record(*m, 1);
    int backward = 0, backward_in_mlp = 0, backward_in_loss = 0, backward_without_module = 0;
    for (const auto& o : ops) {
        const bool is_backward = std::any_of(o.stack.begin(), o.stack.end(), [](const std::string& s) {
            return s.find("Backward") != std::string::npos;
        });
        if (!is_backward) continue;
        ++backward;
        if (o.module_path.empty()) {
            ++backward_without_module;
            if (backward_without_module <= 12) {
                std::string st;
                for (const auto& x : o.stack) st += x + " > ";
                std::cout << "[no module] " << st << "\n";
            }
        }
        if (o.module_path.find(".mlp") != std::string::npos && in_stack(o, "autokernel::fused_mlp")) ++backward_in_mlp;
        if (o.module_path == "loss") ++backward_in_loss;
    }
    EXPECT_GT(backward, 50);
    EXPECT_GT(backward_in_mlp, 0);
    EXPECT_GT(backward_in_loss, 0);
    EXPECT_LT(backward_without_module, backward / 50) << backward_without_module << " of " << backward << " backward ops have no module";
}

// InputCapture::Once: one iteration recorded with inputs is the template; iterations recorded without
// get the template's inputs position by position, and come out as if recorded with them (training:
// gradients cleared, forward, loss and backward; two iterations). An iteration of other ops gets none.
TEST(OpRecorder, TemplateInputsMatchInputsRecordedEveryIteration) {
    auto m = models::make_model(two_layers("llama-160m"), cpu_options(models::Mode::Training));
    const models::Batch batch = m->example_batch();
    m->run_iteration(batch);  // first-use work outside the comparison
    const auto every = record(*m, 0);
    OpRecorder::enable(true);
    OpRecorder::set_iteration(7);
    m->run_iteration(batch);
    OpRecorder::set_iteration(-1);
    const auto template_ops = OpRecorder::take();
    OpRecorder::enable(false);
    for (int i = 0; i < 2; ++i) {
        OpRecorder::set_iteration(i);
        m->run_iteration(batch);
    }
    OpRecorder::set_iteration(-1);
    OpRecorder::disable();
    auto plain = OpRecorder::take();
    ASSERT_EQ(plain.size(), 2 * every.size());
    size_t without_inputs = 0;
    for (const auto& o : plain) without_inputs += o.inputs.empty();
    EXPECT_EQ(without_inputs, plain.size()) << "recorded without inputs";
    EXPECT_EQ(copy_template_inputs(plain, template_ops), 0);
    size_t compared = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
        const auto& want = every[i % every.size()];
        ASSERT_EQ(plain[i].name, want.name) << i;
        ASSERT_EQ(plain[i].inputs.size(), want.inputs.size()) << want.name;
        for (size_t k = 0; k < want.inputs.size(); ++k) {
            EXPECT_EQ(plain[i].inputs[k].sizes, want.inputs[k].sizes) << want.name;
            EXPECT_EQ(plain[i].inputs[k].strides, want.inputs[k].strides) << want.name;
            EXPECT_EQ(plain[i].inputs[k].dtype, want.inputs[k].dtype) << want.name;
            EXPECT_EQ(plain[i].inputs[k].values, want.inputs[k].values) << want.name;
            ++compared;
        }
    }
    EXPECT_GT(compared, plain.size());

    // An iteration that ran other ops (one op less) keeps no inputs, and is counted.
    std::vector<profile::OpCall> other(template_ops.begin(), template_ops.end() - 1);
    for (auto& o : other) {
        o.iteration = 3;
        o.inputs.clear();
    }
    EXPECT_EQ(copy_template_inputs(other, template_ops), 1);
    for (const auto& o : other) EXPECT_TRUE(o.inputs.empty()) << o.name;
}

}  // namespace
}  // namespace ak::profiler
