#pragma once
// RecordFunction callbacks (LibTorch) that record every ATen op call of the measured iterations: its name,
// its inputs (sizes, strides, dtypes; scalar values), the enclosing ops, the module path of the
// innermost module scope and the fused-pattern scopes (models/model_ops.h), and that push the op's id as
// CUPTI's external correlation id while it runs, so each kernel it launches points at it.
//
// Backward ops run on autograd's threads, outside any module scope: they inherit the module path and
// pattern scopes of the forward op that created their autograd node (matched by sequence number and
// forward thread), so "blocks.3.mlp" also names the kernels of its backward pass.
#include "profile/profile.h"

#include <vector>

namespace ak::profiler {

class OpRecorder {
public:
    // Registers the global callback once (disabled until enable()). `torchscript_modules`: take the module
    // path from the TorchScript interpreter's module hierarchy as well (the --torchscript route).
    static void install(bool torchscript_modules);
    static void enable();
    static void disable();
    // The measured iteration ops now belong to; -1 records nothing (warm-up).
    static void set_iteration(int iteration);
    // The op calls recorded so far (moved out).
    static std::vector<profile::OpCall> take();
};

}  // namespace ak::profiler
