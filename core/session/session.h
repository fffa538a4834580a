#pragma once
// A session: a directory that is an ordinary git repository.
//
//   <dir>/session.json        SessionInfo (committed)
//   <dir>/kernels/<name>.cu   one source per kernel (committed; the work tree holds the current best)
//   <dir>/results.tsv         append-only log, one row per experiment (not committed: it is derived
//                             from git and can be rebuilt by repair())
//   <dir>/.git                every experiment is a commit whose message carries its metrics as
//                             trailers; refs/autokernel/exp/<N> points at experiment N's commit;
//                             the session branch (info.branch) points at the current best.
//
// Recording order (crash-safe; see docs/ARCHITECTURE.md "Crash safety"):
//   1. blob, tree and commit objects (fsync'd);
//   2. refs/autokernel/exp/<N>  (lock file + rename, fsync'd)  <- the experiment now exists;
//   3. results.tsv row appended and fsync'd;
//   4. if kept/baseline: the session branch advances and the work tree file is replaced atomically.
// A kill -9 between any two steps leaves a state open() completes: rows missing from results.tsv
// (or torn) are rebuilt from the experiment refs' trailers, a branch that lags a kept experiment is
// advanced. Nothing is dropped without a warning.
#include "session/experiment.h"
#include "session/session_info.h"
#include "session/shape_timing.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ak {

// What the caller supplies to record one experiment. number, commit, parent_commit and
// kernel_file in `metrics` are filled in by record().
struct NewExperiment {
    std::string kernel_name;      // which kernel file (KernelEntry::name)
    std::string source;           // full candidate source
    Experiment metrics;           // everything else: outcome, correctness, metrics, description, ...
    // Parent commit; empty = the session branch tip. Branch-from-experiment passes an older commit.
    std::string parent_commit;
    // The evaluator's timing per shape (session/shape_timing.h), written as trailers of the commit.
    // nullopt: not known (an import, an override): no timing trailers at all; an empty vector: evaluated,
    // but no shape was timed (a failed candidate).
    std::optional<std::vector<ShapeTiming>> timings;
};

// Only one process writes a session at a time: a writable open() takes an advisory lock
// (.git/autokernel-writer.lock, released when the process exits, kill -9 included) and throws
// Error(ReadOnly) while another process holds it. Read-only opens take no lock.
struct OpenOptions {
    bool read_only = false;  // never write (the GUI viewer opens read-only; repairs are then reported,
                             // not applied)
};

class GitRepository;

class Session {
public:
    ~Session();
    Session(Session&&) noexcept;
    Session& operator=(Session&&) noexcept;

    // Creates a new session in `dir` (must not exist or be an empty directory). Records one Baseline
    // experiment per kernel source given (experiment 0 is the first). `baseline_metrics[i]` may carry
    // measured metrics of the starter; pass default Experiments when not measured yet.
    static Session create(const std::filesystem::path& dir, SessionInfo info,
                          const std::vector<std::pair<KernelEntry, std::string>>& kernels_with_source,
                          const std::vector<Experiment>& baseline_metrics = {});

    // Opens and reconciles an existing session. Throws Error(NotASession) for a folder that is not
    // one, Error(BadFormat)/Error(BadEncoding) for a corrupt results.tsv (naming line and column).
    // Torn last lines and rows missing from results.tsv are rebuilt from git, each with a warning.
    static Session open(const std::filesystem::path& dir, OpenOptions options = {});

    // True when `dir` looks like a session (session.json + .git), without opening it.
    static bool is_session(const std::filesystem::path& dir);

    // "refs/autokernel/exp/<number>": the ref that keeps experiment `number` reachable.
    static std::string experiment_ref(int number);
    // "kernels/<name>.cu": where a kernel's source lives in the session.
    static std::string kernel_file_of(const std::string& kernel_name);

    const std::filesystem::path& dir() const;
    const SessionInfo& info() const;
    const std::vector<Experiment>& experiments() const;
    // Messages about repairs made (or, read-only, needed) while opening.
    const std::vector<std::string>& warnings() const;
    bool read_only() const;

    // Records one experiment (steps 1-4 above) and returns it as written. Throws Error(ReadOnly)
    // when the session cannot be written.
    Experiment record(const NewExperiment& experiment);

    // Source of `kernel_file` at `commit`. Throws Error(NotFound) naming the commit if missing.
    std::string source_at(const std::string& commit, const std::string& kernel_file) const;
    // Source of the experiment's kernel file at its commit / at its parent ("" when the parent has
    // no such file).
    std::string source_of(const Experiment& e) const;
    std::string parent_source_of(const Experiment& e) const;
    // The per-shape timings recorded in the experiment's commit message (recorded == false for commits
    // written without them). Throws Error(NotFound) naming the commit if it is missing.
    RecordedTimings timings_of(const Experiment& e) const;

    // Commit the session branch points at.
    std::string branch_tip() const;
    // The current best experiment of a kernel file: the newest on-frontier experiment whose commit
    // is the branch's version of that file. nullopt if none.
    std::optional<Experiment> best_of(const std::string& kernel_file) const;

    // Moves the session branch to `commit` (branch from an earlier experiment / force keep) and
    // updates the work tree. Appends nothing.
    void reset_branch_to(const std::string& commit);

    // Re-reads rows appended by another process since the last read. Returns how many were added.
    std::size_t refresh();

    // Rebuilds results.tsv entirely from git (refs/autokernel/exp/*), keeping a backup of the old
    // file as results.tsv.bak-<utc>. Returns the number of rows written.
    static std::size_t repair(const std::filesystem::path& dir, std::vector<std::string>* warnings = nullptr);

private:
    Session();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak
