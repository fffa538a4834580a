#pragma once
// The model `autokernel verify` runs when no --model / --torchscript is given: the one the session was
// made from (session.json's "profile": kind, model, options, as `autokernel new --from-profile` wrote
// them, e.g. "builtin", "gpt2", "batch 8, seq 1024, fp16, inference, 10 measured iterations").
#include "engine/verify_protocol.h"

#include <string>
#include <string_view>

namespace ak {

struct VerifyModelDefault {
    VerifyModelSpec model;
    std::string note;  // what was taken over, or why something was not ("profiled in training mode: ...")
};

// Throws Error(Usage) naming the field when the origin cannot be verified (a profiled command line, a
// built-in model whose options do not parse).
VerifyModelDefault verify_model_from_profile(std::string_view kind, std::string_view model, std::string_view options);

}  // namespace ak
