#include "engine/evaluator/ceilings.h"

#include "engine/evaluator/ceilings_cache.h"
#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/launcher.h"
#include "gpu/cuda_driver.h"
#include "util/clock.h"

#include <ATen/ATen.h>

#include <iostream>

namespace ak::eval {

namespace {

constexpr std::int64_t kGemmSize = 8192;

TimingOptions ceiling_options() {
    TimingOptions o;
    o.warmup = 3;
    o.min_iterations = 30;
    o.max_iterations = 200;
    o.target_ms = 100;
    return o;
}

}  // namespace

CeilingsMeter::CeilingsMeter(Timer& timer, CUstream stream, std::string device_name, std::string driver_version)
    : timer_(timer), stream_(stream), path_(ceilings_cache_path(device_name, driver_version)) {
    std::string why;
    if (auto cached = load_ceilings(path_, &why)) {
        ceilings_ = *cached;
        std::cerr << "autokernel-evaluator: ceilings cache " << path_.string() << " (" << ceilings_.copy_gb_s.size()
                  << " copy sizes, " << ceilings_.gemm_tflops.size() << " GEMM dtypes)\n";
    } else {
        std::cerr << "autokernel-evaluator: no ceilings cache yet (" << why << ")\n";
    }
    ceilings_.device_name = std::move(device_name);
}

void CeilingsMeter::save() {
    ceilings_.measured_utc = utc_now_iso8601();
    try {
        save_ceilings(path_, ceilings_);
    } catch (const std::exception& e) {
        std::cerr << "autokernel-evaluator: could not write the ceilings cache: " << e.what() << "\n";
    }
}

double CeilingsMeter::measure_copy(std::uint64_t bytes_moved) {
    const std::uint64_t half = bytes_moved / 2;
    const auto options = at::TensorOptions().dtype(at::kByte).device(at::kCUDA);
    at::Tensor src = at::empty({std::int64_t(half)}, options);
    at::Tensor dst = at::empty({std::int64_t(half)}, options);
    src.fill_(0x5A);
    const auto s = reinterpret_cast<CUdeviceptr>(src.data_ptr());
    const auto d = reinterpret_cast<CUdeviceptr>(dst.data_ptr());
    const auto stats = timer_.time_interleaved(
        1,
        [&](int, int) { check_cu(cuda_driver().cuMemcpyDtoDAsync(d, s, half, stream_), "cuMemcpyDtoDAsync (copy ceiling)"); },
        ceiling_options(), "copy ceiling of " + std::to_string(bytes_moved) + " bytes");
    return double(2 * half) / (stats[0].median_us * 1e-6) / 1e9;
}

double CeilingsMeter::measure_gemm(DType dtype) {
    const auto options = at::TensorOptions().dtype(scalar_type(dtype)).device(at::kCUDA);
    at::Tensor a = at::randn({kGemmSize, kGemmSize}, options);
    at::Tensor b = at::randn({kGemmSize, kGemmSize}, options);
    at::Tensor c = at::empty({kGemmSize, kGemmSize}, options);
    const auto stats = timer_.time_interleaved(
        1, [&](int, int) { at::mm_out(c, a, b); }, ceiling_options(),
        "GEMM ceiling " + std::string(to_string(dtype)));
    const double flops = 2.0 * double(kGemmSize) * double(kGemmSize) * double(kGemmSize);
    return flops / (stats[0].median_us * 1e-6) / 1e12;
}

double CeilingsMeter::copy_gb_s(std::uint64_t bytes_moved) {
    const std::uint64_t bucket = copy_bucket(bytes_moved);
    if (auto it = ceilings_.copy_gb_s.find(bucket); it != ceilings_.copy_gb_s.end()) return it->second;
    const double v = measure_copy(bucket);
    ceilings_.copy_gb_s[bucket] = v;
    save();
    return v;
}

double CeilingsMeter::gemm_tflops(DType dtype) {
    if (auto it = ceilings_.gemm_tflops.find(dtype); it != ceilings_.gemm_tflops.end()) return it->second;
    const double v = measure_gemm(dtype);
    ceilings_.gemm_tflops[dtype] = v;
    save();
    return v;
}

const MeasuredCeilings& CeilingsMeter::measure_all(const std::function<void(const std::string&)>& progress) {
    for (std::uint64_t bytes : standard_copy_sizes()) {
        if (progress) progress("copy of " + std::to_string(bytes >> 20) + " MiB");
        ceilings_.copy_gb_s[copy_bucket(bytes)] = measure_copy(copy_bucket(bytes));
    }
    for (DType d : {DType::fp16, DType::bf16, DType::fp32}) {
        if (progress) progress("GEMM " + std::to_string(kGemmSize) + "^3 " + std::string(to_string(d)));
        ceilings_.gemm_tflops[d] = measure_gemm(d);
    }
    save();
    return ceilings_;
}

}  // namespace ak::eval
