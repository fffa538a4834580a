#include "profiler/profiler_options.h"

#include "engine/builtin_models.h"
#include "util/error.h"

#include <charconv>
#include <set>

namespace ak::profiler {

namespace {

[[noreturn]] void usage_error(const std::string& message) { throw Error(ErrorKind::Usage, message); }

int parse_count(const std::string& option, const std::string& value, int minimum) {
    int v = 0;
    const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || p != value.data() + value.size() || v < minimum)
        usage_error(option + " '" + value + "': expected an integer >= " + std::to_string(minimum));
    return v;
}

std::string join(const std::vector<std::string>& v, const std::string& separator) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : separator) + x;
    return s;
}

}  // namespace

std::string profiler_usage() {
    return "usage: autokernel-profiler --out FILE.json [--warmup N] [--iterations N]\n"
           "         ( --model " + join(builtin_model_names(), "|") + " [--batch B] [--seq S]\n"
           "                   [--dtype fp16|bf16|fp32] [--mode inference|training]\n"
           "         | --torchscript FILE.pt --input 8x1024:int64 [--input SPEC ...] [--dtype fp16|bf16|fp32]\n"
           "         | -- CMD ARGS... )\n"
           "Profiles the GPU work of a built-in model, a TorchScript file or any CUDA process with CUPTI and\n"
           "writes FILE.json (docs/profile-json.md). Only one CUPTI client can attach to a process: do not\n"
           "run it together with torch.profiler, nsys or ncu.\n";
}

ProfilerOptions parse_profiler_args(const std::vector<std::string>& args) {
    ProfilerOptions o;
    std::set<std::string> seen;
    bool batch_given = false, seq_given = false, mode_given = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            o.command.assign(args.begin() + long(i) + 1, args.end());
            if (o.command.empty()) usage_error("'--' must be followed by the command to profile");
            seen.insert("--");
            break;
        }
        if (a == "-h" || a == "--help") {
            o.show_help = true;
            return o;
        }
        static const std::set<std::string> with_value = {"--out", "--warmup", "--iterations", "--model", "--batch", "--seq",
                                                         "--dtype", "--mode", "--torchscript", "--input"};
        if (!with_value.count(a)) usage_error("unknown option '" + a + "'\n" + profiler_usage());
        if (i + 1 >= args.size()) usage_error(a + " needs a value");
        const std::string& v = args[++i];
        if (a != "--input" && !seen.insert(a).second) usage_error(a + " given twice");
        if (a == "--out") {
            if (v.empty()) usage_error("--out needs a file name");
            o.out = v;
        } else if (a == "--warmup") {
            o.warmup = parse_count(a, v, 0);
        } else if (a == "--iterations") {
            o.iterations = parse_count(a, v, 1);
        } else if (a == "--model") {
            if (!is_builtin_model(v)) usage_error("unknown model '" + v + "' (built-in models: " + builtin_model_list() + ")");
            o.model = v;
        } else if (a == "--batch") {
            o.batch = parse_count(a, v, 1);
            batch_given = true;
        } else if (a == "--seq") {
            o.seq = parse_count(a, v, 1);
            seq_given = true;
        } else if (a == "--dtype") {
            if (v != "fp16" && v != "bf16" && v != "fp32") usage_error("--dtype '" + v + "': expected fp16, bf16 or fp32");
            o.dtype = v;
            o.dtype_given = true;
        } else if (a == "--mode") {
            if (v != "inference" && v != "training") usage_error("--mode '" + v + "': expected inference or training");
            o.mode = v;
            mode_given = true;
        } else if (a == "--torchscript") {
            if (v.empty()) usage_error("--torchscript needs a file name");
            o.torchscript = v;
        } else if (a == "--input") {
            o.inputs.push_back(parse_input_spec(v));
        }
    }
    if (o.show_help) return o;
    const int routes = int(!o.model.empty()) + int(!o.torchscript.empty()) + int(!o.command.empty());
    if (routes == 0) usage_error("nothing to profile: give --model NAME, --torchscript FILE.pt or -- CMD ARGS...\n" + profiler_usage());
    if (routes > 1) usage_error("give only one of --model, --torchscript and -- CMD");
    if (o.out.empty()) usage_error("--out FILE.json is required");
    if (!o.model.empty()) {
        o.route = Route::Model;
        if (!o.inputs.empty()) usage_error("--input belongs to --torchscript, not to --model");
    } else if (!o.torchscript.empty()) {
        o.route = Route::TorchScript;
        if (o.inputs.empty()) usage_error("--torchscript needs at least one --input SPEC (e.g. --input 8x1024:int64)");
        if (batch_given || seq_given || mode_given)
            usage_error("--batch, --seq and --mode belong to --model; a TorchScript model's shapes come from --input");
    } else {
        o.route = Route::Command;
        if (!o.inputs.empty() || batch_given || seq_given || mode_given || o.dtype_given)
            usage_error("--input, --batch, --seq, --dtype and --mode do not apply to a command (-- CMD)");
    }
    return o;
}

}  // namespace ak::profiler
