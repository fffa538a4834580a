#include "profiler/op_recorder.h"

#include "profiler/cupti_activity.h"
#include "util/error.h"

#include <ATen/record_function.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace ak::profiler {

namespace {

std::atomic<int> g_iteration{-1};
std::atomic<std::uint64_t> g_next_id{1};
std::atomic<bool> g_torchscript_modules{false};
std::mutex g_mutex;
std::vector<profile::OpCall> g_ops;
bool g_installed = false;
at::CallbackHandle g_handle_inputs = 0;  // needsInputs(true)
at::CallbackHandle g_handle_plain = 0;   // needsInputs(false): RecordFunction copies no inputs

// What a forward op hands on to the backward ops of its autograd node.
struct ForwardContext {
    std::string module_path;
    std::vector<std::string> patterns;  // enclosing "autokernel::" scopes, outermost first
};
std::mutex g_forward_mutex;
std::map<std::pair<std::uint64_t, std::int64_t>, ForwardContext> g_forward;  // (forward thread, seq nr)

struct Frame {
    enum Kind { Module, Pattern, Op, Inherited } kind;
    std::string name;            // Module: the path; Pattern: the scope; Op: the op name
    ForwardContext inherited;    // Inherited (or an Op with has_inherited): a backward function's forward context
    bool has_inherited = false;  // an engine's evaluate_function op that learnt its node's forward context
    size_t op_index = SIZE_MAX;  // Op: its OpCall in g_ops
};

constexpr std::string_view kEvaluateFunction = "autograd::engine::evaluate_function: ";

thread_local std::vector<Frame> t_frames;

bool is_pattern(const std::string& s) { return s.rfind("autokernel::", 0) == 0; }

struct Context final : at::ObserverContext {
    bool pushed_external = false;
    bool pushed_inherited = false;  // a backward function's forward context, below its own frame
};

std::string module_path_now() {
    for (auto it = t_frames.rbegin(); it != t_frames.rend(); ++it) {
        if (it->kind == Frame::Module) return it->name;
        if (it->kind == Frame::Inherited || it->has_inherited) return it->inherited.module_path;
    }
    if (g_torchscript_modules) {
        // Entries look like "top(MyModel)", "blocks.0(Block)": the instance names make the path.
        const auto hierarchy = torch::jit::currentModuleHierarchy();
        std::string path;
        for (size_t i = 1; i < hierarchy.size(); ++i) {
            std::string name = hierarchy[i].substr(0, hierarchy[i].find('('));
            if (name.empty()) continue;
            path += (path.empty() ? "" : ".") + name;
        }
        return path;
    }
    return {};
}

std::vector<std::string> patterns_now() {
    std::vector<std::string> out;
    for (const auto& f : t_frames) {
        if (f.kind == Frame::Pattern) out.push_back(f.name);
        if (f.kind == Frame::Inherited || f.has_inherited)
            for (const auto& p : f.inherited.patterns) out.push_back(p);
    }
    return out;
}

std::string dtype_name(c10::ScalarType t) {
    switch (t) {
        case c10::ScalarType::Half: return "fp16";
        case c10::ScalarType::BFloat16: return "bf16";
        case c10::ScalarType::Float: return "fp32";
        case c10::ScalarType::Double: return "fp64";
        case c10::ScalarType::Long: return "int64";
        case c10::ScalarType::Int: return "int32";
        case c10::ScalarType::Short: return "int16";
        case c10::ScalarType::Char: return "int8";
        case c10::ScalarType::Byte: return "uint8";
        case c10::ScalarType::Bool: return "bool";
        case c10::ScalarType::Float8_e4m3fn: return "fp8_e4m3";
        case c10::ScalarType::Float8_e5m2: return "fp8_e5m2";
        default: return std::string(c10::toString(t));
    }
}

profile::TensorArg tensor_arg(const at::Tensor& t) {
    profile::TensorArg a;
    a.dtype = dtype_name(t.scalar_type());
    a.sizes.assign(t.sizes().begin(), t.sizes().end());
    if (t.layout() == c10::kStrided) a.strides.assign(t.strides().begin(), t.strides().end());
    return a;
}

void add_inputs(const at::RecordFunction& fn, std::vector<profile::TensorArg>& out) {
    for (const c10::IValue& v : fn.inputs()) {
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            if (t.defined()) {
                out.push_back(tensor_arg(t));
                continue;
            }
            out.emplace_back();
        } else if (v.isTensorList()) {
            for (const at::Tensor& t : v.toTensorVector()) out.push_back(t.defined() ? tensor_arg(t) : profile::TensorArg{});
        } else {
            profile::TensorArg a;
            if (v.isDouble()) a.values.push_back(v.toDouble());
            else if (v.isInt()) a.values.push_back(double(v.toInt()));
            else if (v.isBool()) a.values.push_back(v.toBool() ? 1.0 : 0.0);
            else if (v.isIntList())
                for (auto x : v.toIntVector()) a.values.push_back(double(x));
            out.push_back(std::move(a));
        }
    }
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn, bool record_inputs) {
    const int iteration = g_iteration.load(std::memory_order_relaxed);
    if (iteration < 0) return nullptr;
    auto ctx = std::make_unique<Context>();
    const at::RecordScope scope = fn.scope();
    if (scope == at::RecordScope::USER_SCOPE) {
        std::string name = fn.name();
        t_frames.push_back({is_pattern(name) ? Frame::Pattern : Frame::Module, std::move(name), {}});
        return ctx;
    }
    // TorchScript function calls, static runtime and the like: not ops, not scopes.
    if (scope != at::RecordScope::FUNCTION && scope != at::RecordScope::BACKWARD_FUNCTION) return nullptr;
    const bool backward = scope == at::RecordScope::BACKWARD_FUNCTION;
    if (backward && fn.seqNr() >= 0) {
        // The autograd node's evaluation: carry its forward op's module path and patterns.
        std::lock_guard lock(g_forward_mutex);
        auto it = g_forward.find({fn.forwardThreadId(), fn.seqNr()});
        if (it != g_forward.end()) {
            Frame* outer = t_frames.empty() ? nullptr : &t_frames.back();
            if (outer && outer->kind == Frame::Op && !outer->has_inherited && outer->name.rfind(kEvaluateFunction, 0) == 0) {
                // The engine's evaluate_function around this node (a FUNCTION-scope record without a sequence
                // number): it and everything it runs after the node (reducing gradients to their inputs'
                // shapes, accumulating them) belong to the node's forward module too.
                outer->inherited = it->second;
                outer->has_inherited = true;
                std::lock_guard ops_lock(g_mutex);
                if (outer->op_index < g_ops.size()) {
                    profile::OpCall& evaluate = g_ops[outer->op_index];
                    evaluate.module_path = it->second.module_path;
                    evaluate.stack.insert(evaluate.stack.begin(), it->second.patterns.begin(), it->second.patterns.end());
                }
            } else {
                t_frames.push_back({Frame::Inherited, {}, it->second});
                ctx->pushed_inherited = true;
            }
        }
    }
    profile::OpCall op;
    op.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    op.name = fn.name();
    op.iteration = iteration;
    op.module_path = module_path_now();
    op.stack = patterns_now();
    for (const auto& f : t_frames)
        if (f.kind == Frame::Op) op.stack.push_back(f.name);
    op.stack.push_back(op.name);
    if (!backward && record_inputs) add_inputs(fn, op.inputs);
    if (!backward && fn.seqNr() >= 0) {
        std::lock_guard lock(g_forward_mutex);
        g_forward[{fn.threadId(), fn.seqNr()}] = ForwardContext{op.module_path, patterns_now()};
    }
    const std::uint64_t id = op.id;
    Frame frame{Frame::Op, op.name, {}};
    {
        std::lock_guard lock(g_mutex);
        frame.op_index = g_ops.size();
        g_ops.push_back(std::move(op));
    }
    t_frames.push_back(std::move(frame));
    CuptiActivity::push_external(ExternalKind::Op, id);
    ctx->pushed_external = true;
    return ctx;
}

void on_end(const at::RecordFunction&, at::ObserverContext* raw) {
    if (!raw) return;
    auto* ctx = static_cast<Context*>(raw);
    if (ctx->pushed_external) CuptiActivity::pop_external(ExternalKind::Op);
    if (!t_frames.empty()) t_frames.pop_back();
    if (ctx->pushed_inherited && !t_frames.empty()) t_frames.pop_back();
}

std::unique_ptr<at::ObserverContext> on_start_with_inputs(const at::RecordFunction& fn) { return on_start(fn, true); }
std::unique_ptr<at::ObserverContext> on_start_plain(const at::RecordFunction& fn) { return on_start(fn, false); }

}  // namespace

InputCapture input_capture_from_environment() {
    const char* env = std::getenv("AK_PROFILER_RECORD_INPUTS");
    const std::string v = env ? env : "";
    if (v.empty() || v == "once") return InputCapture::Once;
    if (v == "1" || v == "every") return InputCapture::Every;
    if (v == "0" || v == "none") return InputCapture::None;
    throw Error(ErrorKind::Usage, "AK_PROFILER_RECORD_INPUTS=" + v + ": expected once, every (1) or none (0)");
}

void OpRecorder::install(bool torchscript_modules) {
    g_torchscript_modules = torchscript_modules;
    if (g_installed) return;
    g_handle_inputs = at::addGlobalCallback(at::RecordFunctionCallback(on_start_with_inputs, on_end).needsInputs(true).needsIds(true));
    at::disableCallback(g_handle_inputs);
    g_handle_plain = at::addGlobalCallback(at::RecordFunctionCallback(on_start_plain, on_end).needsInputs(false).needsIds(true));
    at::disableCallback(g_handle_plain);
    g_installed = true;
}

void OpRecorder::enable(bool with_inputs) {
    if (!g_installed) return;
    at::disableCallback(with_inputs ? g_handle_plain : g_handle_inputs);
    at::reenableCallback(with_inputs ? g_handle_inputs : g_handle_plain);
}

void OpRecorder::disable() {
    if (!g_installed) return;
    at::disableCallback(g_handle_inputs);
    at::disableCallback(g_handle_plain);
}

int copy_template_inputs(std::vector<profile::OpCall>& ops, const std::vector<profile::OpCall>& template_ops) {
    std::map<int, std::vector<profile::OpCall*>> by_iteration;  // recording order within each iteration
    for (auto& op : ops) by_iteration[op.iteration].push_back(&op);
    int mismatched = 0;
    for (auto& [iteration, list] : by_iteration) {
        bool same = list.size() == template_ops.size();
        for (size_t i = 0; same && i < list.size(); ++i) same = list[i]->name == template_ops[i].name;
        if (!same) {
            ++mismatched;
            continue;
        }
        for (size_t i = 0; i < list.size(); ++i)
            if (list[i]->inputs.empty()) list[i]->inputs = template_ops[i].inputs;
    }
    return mismatched;
}

void OpRecorder::set_iteration(int iteration) { g_iteration = iteration; }

std::vector<profile::OpCall> OpRecorder::take() {
    std::vector<profile::OpCall> out;
    {
        std::lock_guard lock(g_mutex);
        out = std::move(g_ops);
        g_ops.clear();
    }
    std::lock_guard lock(g_forward_mutex);
    g_forward.clear();
    return out;
}

}  // namespace ak::profiler
