#pragma once
// Checking driver-API results inside the evaluator worker.
//
// Some CUDA errors leave the context unusable ("sticky" errors: an illegal address, a launch failure,
// a trap, ...). After one of them nothing on the GPU works any more, in this process: the worker
// reports CRASH naming the error and the stage, and exits so that the client starts a fresh one.
// Every other error is an ordinary ak::Error(Gpu).
#include "util/error.h"

#include <string>
#include <string_view>

namespace ak::eval {

// A CUDA error after which the context cannot be used any more.
class StickyCudaError : public Error {
public:
    StickyCudaError(int code, std::string where);
    int code() const noexcept { return code_; }
    const std::string& where() const noexcept { return where_; }
    // "CUDA_ERROR_ILLEGAL_ADDRESS"
    std::string error_name() const;

private:
    int code_;
    std::string where_;
};

// True for the CUresult codes that corrupt the context (700 illegal address, 702 launch timeout,
// 709-710, 714-719 traps and launch failure, 721 tensor memory leak, 214 ECC, 999 unknown).
bool is_sticky_cuda_error(int code);

// Throws StickyCudaError for a sticky code, ak::Error(Gpu) "<what> failed: CUDA_ERROR_X (n): text"
// for any other failure; returns for CUDA_SUCCESS.
void check_cu(int result, std::string_view what);

// Whether the current context still works: cuCtxSynchronize() succeeds. When it does not, throws
// StickyCudaError naming `where` (used after an unexpected failure whose cause is unclear, e.g. an
// error reported by LibTorch).
void require_healthy_context(std::string_view where);

}  // namespace ak::eval
