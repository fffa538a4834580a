#include "engine/evaluator/kept_zero_workspace.h"

#include <cstdio>

namespace ak::eval {

at::Tensor declared_workspace(const at::Tensor& workspace, const WorkspaceLayout& layout) {
    if (!workspace.defined() || layout.declared <= 0) return {};
    return workspace.narrow(0, layout.declared_offset, layout.declared);
}

std::optional<std::string> workspace_not_left_zero(const at::Tensor& declared) {
    if (!declared.defined()) return std::nullopt;
    const at::Tensor nonzero = declared.ne(0);
    const std::int64_t count = nonzero.sum().item<std::int64_t>();
    if (count == 0) return std::nullopt;
    const std::int64_t first = nonzero.nonzero().select(1, 0).min().item<std::int64_t>();
    const int value = declared[first].item<std::uint8_t>();
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", value);
    return "the stages declare AK_WORKSPACE_KEPT_ZERO (they leave their workspace zero) but the launch left " +
           std::to_string(count) + " of " + std::to_string(declared.numel()) + " workspace bytes non-zero, the first at byte " +
           std::to_string(first) + ": " + hex;
}

}  // namespace ak::eval
