#pragma once
// Where the measured ceilings of a GPU are cached, and how copy sizes are bucketed. Pure C++.
//
// File: $XDG_CACHE_HOME/autokernel/ceilings-<gpu name>-<driver>.json (else ~/.cache/autokernel/...),
// the JSON of encode_ceilings() (engine/evaluation_protocol.h). Copy bandwidth is keyed by the bytes
// moved (read + write), rounded to a bucket, so kernels of similar size share one measurement.
#include "analysis/measured_ceilings.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ak::eval {

// "NVIDIA H200" -> "NVIDIA-H200": letters, digits, '.', '_' and '-' kept, runs of anything else -> '-'.
std::string sanitize_file_component(const std::string& text);

// The cache directory: $XDG_CACHE_HOME/autokernel, else $HOME/.cache/autokernel, else /tmp/autokernel.
std::filesystem::path autokernel_cache_dir();

// <cache dir>/ceilings-<sanitized device name>-<sanitized driver version>.json
std::filesystem::path ceilings_cache_path(const std::string& device_name, const std::string& driver_version);

// The bucket of a copy moving `bytes`: the nearest 2^(k/2) (buckets a factor of sqrt(2) apart), at
// least 1 MiB, rounded to whole KiB. Bucket of a bucket is itself.
std::uint64_t copy_bucket(std::uint64_t bytes);

// The copy sizes op "ceilings" measures: 16 MiB, 64 MiB, 256 MiB, 1 GiB, 4 GiB moved.
std::vector<std::uint64_t> standard_copy_sizes();

// Reads a cache file; nullopt when missing, unreadable or malformed (the reason goes to *why).
std::optional<MeasuredCeilings> load_ceilings(const std::filesystem::path& path, std::string* why = nullptr);

// Writes the cache file (creating the directory), atomically. Throws Error(Io) naming the path.
void save_ceilings(const std::filesystem::path& path, const MeasuredCeilings& ceilings);

}  // namespace ak::eval
