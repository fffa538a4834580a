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

// Input capture is most of the recorder's cost (RecordFunction copies every op's inputs for it):
//  Every: each measured iteration records its ops' inputs;
//  Once:  one profiled iteration before the measured ones records them (the template) and the measured
//         iterations record none; copy_template_inputs() gives each measured op the inputs of the template
//         op at the same position, where the iteration ran the very same op sequence;
//  None:  no inputs at all (the ranking then has no shapes).
enum class InputCapture { Every, Once, None };

// $AK_PROFILER_RECORD_INPUTS: "1"/"every", "once" (the default) or "0"/"none"; else ak::Error(Usage).
InputCapture input_capture_from_environment();

class OpRecorder {
public:
    // Registers the global callbacks once (disabled until enable()). `torchscript_modules`: take the
    // module path from the TorchScript interpreter's module hierarchy as well (the --torchscript route).
    static void install(bool torchscript_modules);
    // `with_inputs`: record the ops' inputs (their sizes, strides, dtypes and scalar values).
    static void enable(bool with_inputs);
    static void disable();
    // The measured iteration ops now belong to; -1 records nothing (warm-up).
    static void set_iteration(int iteration);
    // The op calls recorded so far (moved out).
    static std::vector<profile::OpCall> take();
};

// InputCapture::Once: fills the inputs of `ops` (the measured iterations') from `template_ops` (one
// iteration recorded with inputs), position by position, in every iteration whose op names are the
// template's, in order. Returns how many iterations did not match (their ops keep no inputs).
int copy_template_inputs(std::vector<profile::OpCall>& ops, const std::vector<profile::OpCall>& template_ops);

}  // namespace ak::profiler
