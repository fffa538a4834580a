#include "engine/evaluator/cuda_check.h"

#include "gpu/cuda_driver.h"

namespace ak::eval {

namespace {

std::string sticky_message(int code, const std::string& where) {
    return describe_cu_result(code) + ", during " + where +
           " (a sticky error: the CUDA context is unusable; the evaluator worker exits and is restarted)";
}

}  // namespace

StickyCudaError::StickyCudaError(int code, std::string where)
    : Error(ErrorKind::Gpu, sticky_message(code, where)), code_(code), where_(std::move(where)) {}

std::string StickyCudaError::error_name() const {
    const auto name = cu_result_name(code_);
    return name.empty() ? "CUresult " + std::to_string(code_) : std::string(name);
}

bool is_sticky_cuda_error(int code) {
    switch (code) {
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_UNKNOWN:
        return true;
    default:
        return false;
    }
}

void check_cu(int result, std::string_view what) {
    if (result == CUDA_SUCCESS) return;
    if (is_sticky_cuda_error(result)) throw StickyCudaError(result, std::string(what));
    throw Error(ErrorKind::Gpu, std::string(what) + " failed: " + describe_cu_result(result));
}

void require_healthy_context(std::string_view where) {
    const auto& cu = cuda_driver();
    if (!cu.loaded()) return;
    CUcontext current = nullptr;
    if (cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || current == nullptr) return;  // nothing to check
    const CUresult r = cu.cuCtxSynchronize();
    if (r == CUDA_SUCCESS) return;
    // Any error reported by a whole-context synchronize is an asynchronous fault of earlier work.
    throw StickyCudaError(r, std::string(where));
}

}  // namespace ak::eval
