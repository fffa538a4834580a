#pragma once
// verify.json: the result of `autokernel verify` (a whole model run unmodified and with the session's
// kernels substituted), stored in the session folder beside results.tsv, and what is computed from it:
// the Amdahl prediction next to the measured speedup, coverage per type, and why the two differ.
// Documented in docs/verify.md. Qt-free, LibTorch-free (the GUI reads it).
#include "engine/verify_protocol.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

inline constexpr int kVerifyReportFormat = 1;

// One substituted session kernel and what the session knows about it.
struct VerifyKernelRow {
    std::string name;
    KernelType type = KernelType::Matmul;
    double model_fraction = 0;            // session.json: its share of the profiled model GPU time (0: unknown)
    std::optional<double> kernel_speedup; // the best experiment's speedup over PyTorch at the session's shapes
    std::optional<int> best_experiment;   // its number in results.tsv
    std::string commit;                   // the branch tip the source was read from
    bool substituted = true;              // false: left out of the run, for `skipped`
    std::string skipped;                  // why ("not evaluated in this session yet", "slower than PyTorch (0.14x)")
};

// Calls and GPU time of one type's ops in one forward pass, routed to our kernels or fallen back.
struct TypeCoverage {
    KernelType type = KernelType::Matmul;
    std::int64_t routed_calls = 0;
    std::int64_t fallback_calls = 0;
    std::int64_t copied_calls = 0;        // routed calls whose inputs were made contiguous first
    double routed_us = 0;
    double fallback_us = 0;
    std::int64_t aten_calls = 0;          // the same ops in the unmodified model
    double aten_us = 0;
    std::vector<std::pair<std::string, std::int64_t>> fallback_reasons;  // merged over kernels

    double call_coverage() const;         // routed / all calls, 0..1 (1 when there are no calls)
    double time_coverage() const;         // routed_us / (routed_us + fallback_us), 0..1
    // aten_us / (routed_us + fallback_us): how much faster the type's ops got inside the model.
    std::optional<double> in_model_speedup() const;
};

// Per type, over every kernel of that type and the type's fallbacks, in kernel-type order.
std::vector<TypeCoverage> aggregate_coverage(const VerifyMeasurement& m);

// `verify --faster-only`: why a kernel with this best speedup over PyTorch (at the session's shapes) is
// not substituted, or nullopt when it is: it must beat PyTorch by more than `min_speedup` (1.05 by
// default: a kernel within a few percent of PyTorch at its own shapes may lose in the model, where its
// calls can need layout copies or meet a warm L2 that the session's timing does not see).
std::optional<std::string> faster_only_skip_reason(std::optional<double> kernel_speedup, double min_speedup);

// Amdahl's law over the substituted kernels with a known share: 1 / (1 - sum f_i (1 - 1/s_i)), kernels
// without a measured speedup counting as 1x. nullopt when no kernel has a share. Throws Error(Usage) when the
// shares add up to more than 1 or a speedup is not positive.
std::optional<double> predict_speedup(const std::vector<VerifyKernelRow>& kernels);

// The same law with this run's own numbers: the unmodified forward pass took forward_us of GPU time,
// of which each type's ops took aten_us, and routed_us + fallback_us with our kernels in. nullopt
// without a forward time.
std::optional<double> in_model_prediction(const std::vector<TypeCoverage>& coverage, double forward_us);

struct VerifyReport {
    int format_version = kVerifyReportFormat;
    std::string created_utc;
    std::string session;                  // the session's name
    std::string device;
    std::string tool_version;
    VerifyModelSpec model;
    std::string verdict = "FAIL";         // PASS, FAIL, CRASH, TIMEOUT
    std::string detail;                   // one paragraph: why it failed, or what passed
    std::vector<VerifyKernelRow> kernels;
    std::optional<VerifyMeasurement> measurement;  // absent when the model never ran
    std::optional<double> predicted_speedup;       // predict_speedup(kernels)
    std::optional<double> in_model_predicted;      // in_model_prediction(...)
    std::vector<std::string> explanations;         // why measured and predicted differ (explain())

    std::optional<double> measured_speedup() const;
};

// Fills predicted_speedup, in_model_predicted and explanations from kernels and measurement. The
// explanations name, when the measured speedup is more than `threshold` (relative) away from the
// prediction: fallbacks (share of each type's time, with reasons), kernels that are slower or faster
// inside the model than at the session's shapes, layout copies, and host overhead (the GPU time of the
// substituted ops explains a different speedup than the wall time shows). A kernel that failed is
// always named.
void complete_report(VerifyReport& report, double threshold = 0.10);

std::string verify_report_to_json(const VerifyReport& report);  // pretty, newline at the end
// Throws Error(BadFormat) naming `origin` and the field.
VerifyReport verify_report_from_json(std::string_view text, std::string_view origin);

// <session>/verify.json
std::filesystem::path verify_report_path(const std::filesystem::path& session_dir);
void write_verify_report(const std::filesystem::path& session_dir, const VerifyReport& report);  // atomic
// Throws Error(NotFound) when the session has none.
VerifyReport read_verify_report(const std::filesystem::path& session_dir);

// The CLI's text: verdict, output agreement, latencies, prediction vs measurement, per-kernel rows,
// coverage per type, failures and explanations.
std::string format_verify_report(const VerifyReport& report);

}  // namespace ak
