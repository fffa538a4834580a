#pragma once
// A workspace the stages keep zero themselves (AK_WORKSPACE_KEPT_ZERO, kernels/README.md): the launcher does
// not zero it inside the timed launch, so the harness does, outside the timed window, before every run (no
// state can carry from one launch to the next), and after every checked run it checks that the launch left
// every declared byte zero again, as the declaration promised.
#include "engine/evaluator/launcher.h"

#include <ATen/ATen.h>

#include <optional>
#include <string>

namespace ak::eval {

// The declared part of a case's workspace (`workspace` is the whole payload), as a byte tensor; undefined
// when the stages declare none.
at::Tensor declared_workspace(const at::Tensor& workspace, const WorkspaceLayout& layout);

// A description of what a run that should have left `declared` all zero left there ("left 12 of 32768
// workspace bytes non-zero, the first at byte 8: 0x01 ..."), or nullopt when every byte is zero.
// Synchronises with the device.
std::optional<std::string> workspace_not_left_zero(const at::Tensor& declared);

}  // namespace ak::eval
