#pragma once
// The two LibTorch routes of autokernel-profiler: a built-in model (models/) and a TorchScript file, each
// run for warm-up and measured iterations with CUPTI and the op recorder attached.
// This header is Torch-free so that main.cpp compiles without LibTorch's headers.
#include "profile/profile.h"
#include "profiler/profiler_options.h"

namespace ak::profiler {

// Throws ak::Error: Gpu "no GPU: ..." without a usable GPU; Usage for options the model rejects.
profile::Profile profile_builtin_model(const ProfilerOptions& options);

// Loads the file first (on the CPU), so a missing file (NotFound) or one that is not TorchScript
// (BadFormat) is reported before the GPU is looked at; then Gpu "no GPU: ..."; then Usage "the model
// rejected the inputs ...: <the model's own error>".
profile::Profile profile_torchscript(const ProfilerOptions& options);

}  // namespace ak::profiler
