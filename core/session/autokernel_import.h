#pragma once
// Import of an AutoKernel run (its results.tsv, and optionally its git repository) into a new
// session.
//
// AutoKernel's results.tsv has exactly ten columns (autokernel_columns()) and a header line. What
// its tools really write is tolerated: empty latency/pct_peak/vram fields, TIMEOUT and CRASH rows,
// descriptions with spaces and Unicode, Windows line endings, a UTF-8 byte-order mark, a missing
// final newline. A description that is not UTF-8 is Error(BadEncoding) naming the line and byte.
//
// AutoKernel records no keep/revert decision, so outcomes are inferred per kernel_type: the first
// row is the Baseline; a PASS row that beats the best PASS latency so far (throughput when the row
// has no latency) is Kept; other PASS rows are Reverted; FAIL/TIMEOUT/CRASH rows are Failed.
//
// Sources: AutoKernel commits each kept experiment and `git reset`s the others away. With its
// repository given, a not-yet-used commit whose message contains the row's description (HEAD's
// reflog included, which still holds reset commits; preferring messages that also name the kernel
// type or "exp N", then the oldest) supplies kernel.py, or else the one file the commit changed; its commit time becomes started_utc. (AutoKernel's sources are Triton Python;
// they are stored as kernels/<kernel_type>.cu like every session kernel.) Rows without such a commit get a placeholder source saying AutoKernel did not record it,
// and a warning each. Every experiment's agent is "autokernel-import".
#include "session/session.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ak {

// One row of AutoKernel's results.tsv as written (before outcomes are inferred).
struct AutoKernelRow {
    int line = 0;                 // 1-based line in the file
    Experiment metrics;           // the ten columns; `number` is AutoKernel's experiment column
};

// Parses and validates the whole file. Throws Error(BadFormat) naming line and column,
// Error(BadEncoding) naming line and byte, Error(NotFound) when the file is missing.
std::vector<AutoKernelRow> read_autokernel_results(const std::filesystem::path& results_tsv);

// Calls `visit` for each row in file order, reading the file a line at a time (the same checks).
void for_each_autokernel_row(const std::filesystem::path& results_tsv,
                             const std::function<void(AutoKernelRow&&)>& visit);

struct ImportResult {
    std::filesystem::path dir;       // the new session
    std::size_t experiments = 0;
    std::size_t resumed_after = 0;   // rows a stopped import had already written (0: a fresh import)
};
// Called now and then with the rows imported so far and the total.
using ImportProgress = std::function<void(std::size_t done, std::size_t total)>;

// Creates `new_dir` (must not exist, or be empty) as a session holding every row as an experiment,
// in file order, through a SessionBuilder: the session appears under `new_dir` only when complete,
// and an import that was stopped (killed, power loss) is continued by running it again with the
// same file (or discarded by removing the hidden folder the error names). Memory does not grow with
// the number of rows. `warnings` (optional) receives tolerated oddities and the first rows whose
// source was not found (then a count).
ImportResult import_autokernel(const std::filesystem::path& results_tsv, const std::filesystem::path& new_dir,
                               const std::optional<std::filesystem::path>& ak_repo,
                               std::vector<std::string>* warnings, const ImportProgress& progress = {});

}  // namespace ak
