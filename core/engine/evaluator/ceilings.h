#pragma once
// This GPU's measured ceilings: a device-to-device copy of the same byte count (bytes moved = read +
// write) for memory-bound kernels, a cuBLAS GEMM (at::matmul, 8192^3, TF32 off for fp32) at the same
// dtype for compute-bound ones. Both are timed exactly like candidates (timing.h) and cached per GPU
// and driver (ceilings_cache.h), so each is measured once.
#include "analysis/measured_ceilings.h"
#include "engine/evaluator/timing.h"

#include <cuda.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace ak::eval {

class CeilingsMeter {
public:
    // `timer` runs on the torch stream `stream`. The cache file is read at once (a missing or broken one
    // is logged to stderr and ignored).
    CeilingsMeter(Timer& timer, CUstream stream, std::string device_name, std::string driver_version);

    // GB/s of a copy moving the bucket of `bytes_moved` (copy_bucket); measured and cached when missing.
    double copy_gb_s(std::uint64_t bytes_moved);
    // TFLOP/s of an 8192^3 GEMM in `dtype` (fp16, bf16, fp32 without TF32); measured and cached when missing.
    double gemm_tflops(DType dtype);

    // Measures everything again: copies of standard_copy_sizes() and GEMMs in fp16, bf16 and fp32.
    // `progress` is told what is being measured.
    const MeasuredCeilings& measure_all(const std::function<void(const std::string&)>& progress);

    const MeasuredCeilings& ceilings() const { return ceilings_; }
    const std::filesystem::path& cache_path() const { return path_; }

private:
    double measure_copy(std::uint64_t bytes_moved);
    double measure_gemm(DType dtype);
    void save();

    Timer& timer_;
    CUstream stream_;
    std::filesystem::path path_;
    MeasuredCeilings ceilings_;
};

}  // namespace ak::eval
