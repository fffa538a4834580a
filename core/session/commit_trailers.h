#pragma once
// The commit message of an experiment: enough to rebuild its results.tsv row from git alone.
//
//   exp 12 (rmsnorm): 16-byte loads, one row per warp
//
//   Autokernel-Experiment: 12
//   Autokernel-Tag: h200-run
//   Autokernel-Kernel-Type: rmsnorm
//   Autokernel-Throughput-Tflops:
//   Autokernel-Latency-Us: 40.2
//   ...                                (one trailer per results.tsv column except commit)
//
// Trailer values are the results.tsv fields as written there (same number format and escapes), so a
// row rebuilt from the trailers is byte-identical to the row recorded. Empty fields are written as a
// key with nothing after the colon.
#include "session/experiment.h"

#include <string>
#include <string_view>

namespace ak {

// "throughput_tflops" -> "Autokernel-Throughput-Tflops"
std::string trailer_key(std::string_view column);

// Subject line, blank line, trailers. `e.commit` is ignored (a commit cannot name itself).
// Throws Error(BadEncoding) like format_results_row.
std::string format_experiment_message(const Experiment& e);

// Parses a message written by format_experiment_message; `commit` (the commit carrying the message)
// becomes Experiment::commit. Throws Error(BadFormat) naming the commit and the missing or malformed
// trailer.
Experiment parse_experiment_message(std::string_view message, const std::string& commit);

}  // namespace ak
