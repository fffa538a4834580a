#include "engine/evaluator/tolerance.h"

#include "engine/kernel_type.h"
#include "util/error.h"

#include <cmath>
#include <cstdio>

namespace ak::eval {

Tolerance default_kernel_tolerance(DType dtype) {
    const double elementwise = default_tolerance(dtype);  // kernel_type.h: fp16 1e-2, bf16 2e-2, fp32 1e-4
    double norm = 0;
    switch (dtype) {
    case DType::fp16: norm = 2e-3; break;
    case DType::bf16: norm = 1e-2; break;
    case DType::fp32: norm = 2e-5; break;
    case DType::tf32:
    case DType::fp8: break;
    }
    return {elementwise, elementwise, norm};
}

std::optional<std::string> norm_gate_failure(double norm_rel_err, const Tolerance& tol) {
    if (!(tol.norm_rtol > 0)) return std::nullopt;
    if (norm_rel_err <= tol.norm_rtol) return std::nullopt;  // NaN compares false: it fails below
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "norm-relative error ||out - ref|| / ||ref|| = %.3g > %.3g allowed for the whole output: "
                  "every element may be within atol %.3g + rtol %.3g * |ref|, but the output as a whole is wrong",
                  norm_rel_err, tol.norm_rtol, tol.atol, tol.rtol);
    return std::string(buf);
}

}  // namespace ak::eval
