#pragma once
// Helpers shared by the session tests: temporary folders and small sessions.
#include "session/session.h"
#include "util/durable_file.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace ak::testing {

// A fresh folder under $TMPDIR, removed (with everything in it) at scope exit.
class TempDir {
public:
    TempDir() : TempDir(std::filesystem::temp_directory_path()) {}
    // In `base` instead of $TMPDIR (the performance test builds its large session in RAM).
    explicit TempDir(const std::filesystem::path& base) {
        std::string pattern = (base / "ak_session_test_XXXXXX").string();
        if (!::mkdtemp(pattern.data())) std::abort();
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        // Put back write permission that a read-only test may have removed.
        for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
            std::filesystem::permissions(it->path(), std::filesystem::perms::owner_write,
                                         std::filesystem::perm_options::add, ec);
        std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

inline SessionInfo test_info(const std::string& name = "test-session") {
    SessionInfo info;
    info.name = name;
    info.gpu = "none";
    info.cuda_version = "13.0";
    return info;
}

inline KernelEntry kernel_entry(const std::string& name, const std::string& type) {
    KernelEntry k;
    k.name = name;
    k.type = type;
    return k;
}

// Deterministic candidate source for experiment text `tag` of kernel `name`.
inline std::string source_for(const std::string& name, int n) {
    return "// " + name + " candidate " + std::to_string(n) + "\n__global__ void " + name + "_kernel() {}\n";
}

inline NewExperiment new_experiment(const std::string& kernel, const std::string& source, Outcome outcome,
                                    std::optional<double> latency_us, const std::string& description) {
    NewExperiment ne;
    ne.kernel_name = kernel;
    ne.source = source;
    ne.metrics.outcome = outcome;
    ne.metrics.correctness = outcome == Outcome::Failed ? Correctness::Fail : Correctness::Pass;
    ne.metrics.latency_us = latency_us;
    ne.metrics.description = description;
    ne.metrics.agent = "test";
    ne.metrics.tag = "t1";
    return ne;
}

inline std::string read_text(const std::filesystem::path& path) { return ak::read_file(path); }

inline bool running_as_root() { return ::geteuid() == 0; }

// /dev/shm when it is a writable folder (tmpfs: building thousands of git objects there takes
// seconds instead of minutes), else $TMPDIR.
inline std::filesystem::path fast_temp_base() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec) && directory_writable("/dev/shm")) return "/dev/shm";
    return std::filesystem::temp_directory_path();
}

}  // namespace ak::testing
