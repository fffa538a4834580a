#pragma once
// Ceilings measured on the machine itself (filled in by the GPU engine's calibration runs).
// A memory-bound kernel's fair ceiling is a plain device copy of the same number of bytes, and large
// copies reach more than small ones, so copy bandwidth is kept per size.
#include "analysis/dtype.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ak {

struct MeasuredCeilings {
    std::string device_name;     // cuDeviceGetName of the GPU they were measured on
    std::string measured_utc;    // ISO 8601
    // Device-to-device copy: bytes moved (read + write counted) -> GB/s (10^9 bytes/s).
    std::map<std::uint64_t, double> copy_gb_s;
    // Large GEMM throughput per element type, TFLOP/s.
    std::map<DType, double> gemm_tflops;
};

}  // namespace ak
