#include "engine/evaluator_preflight.h"

#include "engine/evaluator_client.h"
#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <unistd.h>

namespace ak {

Preflight evaluator_preflight() {
    Preflight p;
    const CudaDriver& driver = cuda_driver();
    if (!driver.loaded()) {
        p.problem = PreflightProblem::NoGpu;
        p.message = "no GPU available: " + driver.status().error;
        return p;
    }
    try {
        p.device = query_device(0);
    } catch (const Error& e) {
        p.problem = PreflightProblem::NoGpu;
        p.message = std::string("no GPU available: ") + e.what();
        return p;
    }
    const auto path = find_evaluator_executable();
    if (!path) {
        p.problem = PreflightProblem::NoEvaluator;
        p.message = "the evaluator (autokernel-evaluator) was not built: LibTorch was not found when this build was "
                    "configured. Configure with -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch;print(torch.utils."
                    "cmake_prefix_path)'), or set AK_EVALUATOR to an autokernel-evaluator built elsewhere";
        return p;
    }
    if (::access(path->c_str(), X_OK) != 0) {
        p.problem = PreflightProblem::EvaluatorMissing;
        p.message = "the evaluator " + *path + " (AK_EVALUATOR) does not exist or is not executable";
        return p;
    }
    p.evaluator_path = *path;
    return p;
}

}  // namespace ak
