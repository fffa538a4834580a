#include "loop/prompt_builder.h"

#include "engine/kernel_type.h"

#include <charconv>

namespace ak {

namespace {

// Fixed-point text, independent of the C locale (the GUI may run under a decimal-comma locale).
std::string fixed(double value, int precision) {
    char buffer[64];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, precision);
    return r.ec == std::errc() ? std::string(buffer, r.ptr) : std::string("?");
}

std::string cut(std::string_view text, std::size_t max_chars) {
    if (text.size() <= max_chars) return std::string(text);
    std::size_t end = max_chars;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // whole UTF-8 sequences
    return std::string(text.substr(0, end)) + "\n... (" + std::to_string(text.size() - end) + " more characters cut)";
}

std::string indent(std::string_view text, std::string_view prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        out += std::string(prefix) + std::string(text.substr(start, end - start)) + "\n";
        start = end + 1;
    }
    return out;
}

std::string kernel_file_of(const AgentContext& c) {
    return c.kernel_file.empty() ? "kernels/" + c.kernel.name + ".cu" : c.kernel_file;
}

std::string shapes_text(const AgentContext& c) {
    if (!c.kernel.shapes.empty()) return c.kernel.shapes;
    if (const auto type = parse_kernel_type(c.kernel.type)) {
        const auto& info = kernel_type_info(*type);
        return to_string(info.large) + " (primary) and " + to_string(info.larger) + " (the type's defaults; dims: " +
               [&] {
                   std::string dims;
                   for (auto d : info.shape_dims) dims += (dims.empty() ? "" : " x ") + std::string(d);
                   return dims;
               }() + ")";
    }
    return "the type's defaults";
}

}  // namespace

std::string kernel_section(const AgentContext& c) {
    std::string s;
    s += "Kernel: " + c.kernel.name + " (type " + c.kernel.type + ", file " + kernel_file_of(c) + ")\n";
    s += "Shapes timed: " + shapes_text(c) + "\n";
    s += "Timing dtype: " + c.dtype + "; correctness is checked in fp16, bf16 and fp32 at many shapes, edge sizes included\n";
    s += "GPU: " + (c.gpu.empty() ? std::string("unknown") : c.gpu) + "\n";
    s += "Roofline: " + (c.roofline.empty() ? std::string("not measured yet") : c.roofline) + "\n";
    return s;
}

std::string recent_experiments_section(const AgentContext& c, const PromptOptions& options) {
    if (c.history.empty()) return "No experiments of this kernel yet.\n";
    const std::size_t first = c.history.size() > options.max_experiments ? c.history.size() - options.max_experiments : 0;
    std::string s;
    s += "Newest last; " + std::to_string(c.history.size() - first) + " of " + std::to_string(c.history.size()) +
         " experiments of this kernel.\n";
    for (std::size_t i = first; i < c.history.size(); ++i) {
        const Experiment& e = c.history[i];
        s += "- #" + std::to_string(e.number) + " " + std::string(to_string(e.outcome)) + ", " +
             std::string(to_string(e.correctness));
        if (e.latency_us) s += ", " + fixed(*e.latency_us, 2) + " us";
        if (e.speedup_vs_pytorch) s += ", " + fixed(*e.speedup_vs_pytorch, 3) + "x vs PyTorch";
        if (e.bandwidth_gb_s) s += ", " + fixed(*e.bandwidth_gb_s, 0) + " GB/s";
        if (e.throughput_tflops && *e.throughput_tflops > 0) s += ", " + fixed(*e.throughput_tflops, 1) + " TFLOP/s";
        if (e.pct_peak) s += ", " + fixed(*e.pct_peak, 1) + "% of peak";
        if (!e.agent.empty()) s += ", by " + e.agent;
        s += ": " + (e.description.empty() ? std::string("(no description)") : e.description) + "\n";
        std::string failure;
        if (const auto it = c.failure_details.find(e.number); it != c.failure_details.end()) failure = it->second;
        else if (!e.passed()) failure = e.detail;
        if (!failure.empty()) s += "  failure detail:\n" + indent(cut(failure, options.max_failure_chars), "    ");
    }
    return s;
}

std::string reply_format_section() {
    return "Reply with ONE complete kernel source file (not a diff, not a fragment) in a single ```cuda fenced\n"
           "block. It must keep the @autokernel type line, declare its tunables as // @autokernel tunable\n"
           "annotations, include <autokernel/contract.cuh>, publish its launch stages with AK_LAUNCH(i) and\n"
           "define extern \"C\" __global__ void ak_kernel0(...) (and ak_kernel1..3 for further stages).\n"
           "After the block, write one line starting with DESCRIPTION: that says what you changed, for example\n"
           "DESCRIPTION: keep the row in registers between the two passes, 16-byte loads\n";
}

Prompt build_prompt(const AgentContext& c, const PromptOptions& options) {
    Prompt p;
    p.system =
        "You are an expert CUDA C++ kernel engineer. You improve one GPU kernel at a time for the AutoKernel "
        "Workbench, which compiles your source with NVRTC, checks it in five correctness stages and times it "
        "against the strongest PyTorch baseline. A candidate that fails any check is reverted, so correctness "
        "comes first: stay within the tolerances, keep results bitwise deterministic (no floating-point "
        "atomics), write every output element and nothing past the end, and handle edge sizes.\n\n"
        "Make one focused change per reply, guided by the playbook's tiers and by what earlier experiments "
        "showed.\n\n"
        "# Playbook\n\n" +
        (c.playbook.empty() ? std::string("(not available)\n") : c.playbook) +
        "\n\n# Kernel contract\n\n" + (c.contract.empty() ? std::string("(not available)\n") : c.contract) + "\n";

    std::string& u = p.user;
    u += "# The kernel\n\n" + kernel_section(c) + "\n";
    u += "# Current best source";
    if (c.best) {
        u += " (experiment " + std::to_string(c.best->number);
        if (c.best->latency_us) u += ", " + fixed(*c.best->latency_us, 2) + " us";
        u += ")";
    }
    u += "\n\n```cuda\n" + c.best_source + (c.best_source.empty() || c.best_source.back() == '\n' ? "" : "\n") + "```\n\n";
    u += "# Recent experiments\n\n" + recent_experiments_section(c, options) + "\n";
    if (!c.steering.hint.empty()) u += "# Hint from the engineer steering this run\n\n" + c.steering.hint + "\n\n";
    if (c.steering.focus_tier != 0)
        u += "# Focus\n\nThe engineer asked to focus on playbook tier " + std::to_string(c.steering.focus_tier) + ".\n\n";
    u += "# Reply format\n\n" + reply_format_section();
    return p;
}

std::string context_document(const AgentContext& c, const PromptOptions& options) {
    std::string d;
    d += "# AutoKernel Workbench: improve this kernel\n\n";
    d += "Edit the kernel file in place; whatever it holds when you exit is evaluated (compile, five "
         "correctness stages, timing) and kept only if it passes and is faster than the current best. Print "
         "one line starting with DESCRIPTION: to stdout that says what you changed.\n\n";
    d += "## The kernel\n\n" + kernel_section(c) + "\n";
    d += "## Recent experiments\n\n" + recent_experiments_section(c, options) + "\n";
    if (!c.steering.hint.empty()) d += "## Hint from the engineer\n\n" + c.steering.hint + "\n\n";
    if (c.steering.focus_tier != 0)
        d += "## Focus\n\nThe engineer asked to focus on playbook tier " + std::to_string(c.steering.focus_tier) + ".\n\n";
    d += "## Playbook\n\n" + (c.playbook.empty() ? std::string("(not available)\n") : c.playbook) + "\n\n";
    d += "## Kernel contract\n\n" + (c.contract.empty() ? std::string("(not available)\n") : c.contract) + "\n";
    return d;
}

}  // namespace ak
