#include "session/verify_model_default.h"

#include "util/error.h"
#include "util/text.h"

namespace ak {

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw Error(ErrorKind::Usage, "session.json: profile.options: " + what + "; give --model or --torchscript");
}

}  // namespace

VerifyModelDefault verify_model_from_profile(std::string_view kind, std::string_view model, std::string_view options) {
    VerifyModelDefault d;
    if (kind == "command")
        throw Error(ErrorKind::Usage, "session.json: the session was profiled from a command line (" + std::string(model) +
                                          "), which verify cannot run; give --model or --torchscript");
    if (model.empty()) throw Error(ErrorKind::Usage, "session.json: profile.model is empty; give --model or --torchscript");
    std::string mode;
    if (kind == "builtin") {
        d.model.builtin = std::string(model);
        for (auto part : split(options, ',')) {
            const std::string p(trim(part));
            if (p.rfind("batch ", 0) == 0 || p.rfind("seq ", 0) == 0) {
                const bool is_batch = p[0] == 'b';
                const auto n = parse_int(trim(std::string_view(p).substr(is_batch ? 6 : 4)));
                if (!n || *n <= 0 || *n > (1 << 20)) bad("'" + p + "' is not a positive size");
                (is_batch ? d.model.batch : d.model.seq) = int(*n);
            } else if (const auto dt = parse_kernel_dtype(p)) {
                d.model.dtype = *dt;
            } else if (p == "inference" || p == "training") {
                mode = p;
            }
            // "N measured iterations" and anything else: not part of the model.
        }
        if (d.model.batch == 0 || d.model.seq == 0) bad("'" + std::string(options) + "' has no batch and seq");
        d.note = "model from the session's profile: " + d.model.label();
        if (mode == "training") d.note += " (profiled in training mode; verify runs inference)";
        return d;
    }
    if (kind == "torchscript") {
        d.model.torchscript = std::string(model);
        // "--input 8x1024:int64 --input 8x1024:int64, 10 measured iterations"
        const std::string inputs(trim(split(options, ',').empty() ? std::string_view() : split(options, ',')[0]));
        const auto words = split(inputs, ' ');
        for (std::size_t i = 0; i < words.size(); ++i) {
            const std::string w(trim(words[i]));
            if (w == "--input" && i + 1 < words.size()) d.model.inputs.emplace_back(trim(words[++i]));
        }
        if (d.model.inputs.empty()) bad("no --input specs for the TorchScript model");
        d.note = "model from the session's profile: " + d.model.label();
        return d;
    }
    throw Error(ErrorKind::Usage, "session.json: profile.kind '" + std::string(kind) + "' is not builtin, torchscript or command");
}

}  // namespace ak
