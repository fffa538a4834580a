#include "engine/evaluator/kernel_adapter.h"

#include "util/error.h"

namespace ak::eval {

void KernelAdapter::library_stage(int library_op, const Problem&, const CaseTensors&) const {
    throw Error(ErrorKind::Usage, "library operation " + std::to_string(library_op) + " is not offered by kernel type " +
                                      std::string(to_string(type())) + " (only fused_mlp has library stages)");
}

std::vector<BaselineRoute> KernelAdapter::baseline_routes(const Problem& p, const std::vector<at::Tensor>&) const {
    return {{baseline_name(), [this, p](const std::vector<at::Tensor>& in) { return baseline(p, in); }}};
}

Tolerance KernelAdapter::tolerance(const Problem& p) const {
    DType d;
    switch (p.dtype) {
    case at::kHalf: d = DType::fp16; break;
    case at::kBFloat16: d = DType::bf16; break;
    case at::kFloat: d = DType::fp32; break;
    default:
        throw Error(ErrorKind::Usage, std::string("no default tolerance for element type ") + c10::toString(p.dtype));
    }
    return default_kernel_tolerance(d);
}

}  // namespace ak::eval
