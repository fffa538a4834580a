#pragma once
// How close a candidate's output must be to the reference. Two gates, both must pass:
//   - elementwise: |out - ref| <= atol + rtol * |ref| for every element (NaN and Inf never pass);
//   - aggregate:   ||out - ref|| / ||ref|| <= norm_rtol (2-norms over the whole output).
// The elementwise test alone lets small outputs through on atol: softmax probabilities are mostly
// below atol, so writing 0 for every small one passed while rows summed to 0.4. The aggregate gate
// sees that: a correct kernel's norm-relative error is the output rounding (fp16 about 2.5e-4, bf16
// about 1.7e-3, fp32 about 1e-6 measured on the H200 for all nine starters), several times below the
// defaults here. Pure C++ (no LibTorch).
#include "analysis/dtype.h"

#include <optional>
#include <string>

namespace ak::eval {

struct Tolerance {
    double atol = 0;
    double rtol = 0;
    double norm_rtol = 0;  // 0: no aggregate gate
};

// The defaults per kernel dtype: fp16 atol = rtol = 1e-2, norm 2e-3; bf16 2e-2, norm 1e-2; fp32 1e-4,
// norm 2e-5. Throws Error(Usage) for tf32 / fp8.
Tolerance default_kernel_tolerance(DType dtype);

// nullopt when `norm_rel_err` passes the aggregate gate of `tol`; otherwise the failure
// ("norm-relative error 3.1e-02 > 2e-03 allowed for the whole output: ...").
std::optional<std::string> norm_gate_failure(double norm_rel_err, const Tolerance& tol);

}  // namespace ak::eval
