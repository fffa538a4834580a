#include "session/session.h"

#include "session/commit_trailers.h"
#include "session/git_repository.h"
#include "session/results_table.h"
#include "util/clock.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <csignal>
#include <sys/file.h>
#include <unistd.h>

namespace ak {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExperimentRefPrefix = "refs/autokernel/exp/";
constexpr const char* kResultsName = "results.tsv";
constexpr const char* kInfoName = "session.json";
constexpr const char* kWriterLockName = "autokernel-writer.lock";      // in .git
constexpr const char* kBranchResetName = "autokernel-branch-reset";    // in .git

// Test-only crash points: AK_TEST_CRASH_AFTER_STEP=1..4 makes record() exit abruptly (as kill -9
// would leave things) right after that step. See session.h for the steps.
void crash_point(int step) {
    const char* configured = std::getenv("AK_TEST_CRASH_AFTER_STEP");
    if (configured && std::atoi(configured) == step) ::_exit(9);
}

std::string short_id(const std::string& commit) { return commit.substr(0, 10); }

// A UTC time stamp usable in a file name, made unique among `dir`'s entries starting with `prefix`.
fs::path unique_backup_path(const fs::path& dir, const std::string& prefix) {
    std::string stamp = utc_now_iso8601();  // 2026-11-29T08:15:02Z
    stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
    stamp.erase(std::remove(stamp.begin(), stamp.end(), '-'), stamp.end());
    fs::path candidate = dir / (prefix + stamp);
    for (int n = 2; fs::exists(candidate); ++n) candidate = dir / (prefix + stamp + "-" + std::to_string(n));
    return candidate;
}

void fsync_directory(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorKind::Io, "cannot open folder " + dir.string() + ": " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error(ErrorKind::Io, "cannot fsync folder " + dir.string() + ": " + std::strerror(err));
}

// The advisory lock that makes a process the session's only writer. flock() locks die with the
// process, so a writer killed with SIGKILL never leaves the session locked.
class WriterLock {
public:
    WriterLock() = default;
    WriterLock(const WriterLock&) = delete;
    WriterLock& operator=(const WriterLock&) = delete;
    WriterLock(WriterLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    WriterLock& operator=(WriterLock&& other) noexcept {
        if (this != &other) {
            release();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    ~WriterLock() { release(); }

    void acquire(const fs::path& git_dir, const fs::path& session_dir) {
        const fs::path path = git_dir / kWriterLockName;
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            throw Error(ErrorKind::ReadOnly, "cannot write session " + session_dir.string() + ": cannot create " +
                                                 path.string() + " (" + std::strerror(errno) + ")");
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            ::close(fd);
            if (err == EWOULDBLOCK)
                throw Error(ErrorKind::ReadOnly, "session " + session_dir.string() +
                                                     " is being written by another process; open it read-only "
                                                     "to watch it");
            throw Error(ErrorKind::Io, "cannot lock " + path.string() + ": " + std::strerror(err));
        }
        fd_ = fd;
    }
    bool held() const { return fd_ >= 0; }

private:
    void release() {
        if (fd_ >= 0) ::close(fd_);  // closing drops the flock
        fd_ = -1;
    }
    int fd_ = -1;
};

// True while another process holds the writer lock (a read-only viewer asks this).
bool writer_active(const fs::path& git_dir) {
    const int fd = ::open((git_dir / kWriterLockName).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool busy = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return busy;
}

// Staging folders of Session::create() whose process is gone (killed mid-create).
void remove_abandoned_staging(const fs::path& parent, const std::string& name) {
    std::error_code ec;
    const std::string prefix = "." + name + ".creating-";
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        const std::string file = entry.path().filename().string();
        if (!starts_with(file, prefix)) continue;
        const auto pid = parse_int(std::string_view(file).substr(prefix.size(), file.find('-', prefix.size()) - prefix.size()));
        if (pid && *pid > 0 && ::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH)
            fs::remove_all(entry.path(), ec);
    }
}

// Experiment refs by number. Gaps are allowed here: the caller fills them from results.tsv or from
// the commits' trailers.
std::map<std::size_t, std::string> read_experiment_refs(const GitRepository& repo, std::vector<std::string>* warnings) {
    std::map<std::size_t, std::string> by_number;
    const std::string prefix(kExperimentRefPrefix);
    repo.for_each_ref(prefix, [&](const std::string& name, const std::string& commit) {
        const auto number = parse_int(std::string_view(name).substr(prefix.size()));
        if (!number || *number < 0 || *number > 0x7fffffff) {
            if (warnings) warnings->push_back("ignored ref " + name + ": not an experiment number");
            return;
        }
        by_number[static_cast<std::size_t>(*number)] = commit;
    });
    return by_number;
}

// Commits reachable from any ref or HEAD's reflog whose trailers name an experiment, by number
// (the first found for a number wins). Unreadable history yields what could be read.
std::map<std::size_t, std::string> experiments_in_history(const GitRepository& repo) {
    std::map<std::size_t, std::string> found;
    std::vector<std::string> commits;
    try {
        commits = repo.all_commits();
    } catch (const Error&) {
        return found;
    }
    for (const std::string& commit : commits) {
        try {
            const Experiment e = parse_experiment_message(repo.commit_message(commit), commit);
            if (e.number >= 0) found.emplace(static_cast<std::size_t>(e.number), commit);
        } catch (const Error&) {
            // not an experiment commit (the session's root commit), or unreadable
        }
    }
    return found;
}

Experiment experiment_from_git(const GitRepository& repo, const std::string& commit, std::size_t expected_number) {
    Experiment e;
    try {
        e = parse_experiment_message(repo.commit_message(commit), commit);
    } catch (const Error& error) {
        throw Error(error.kind(), std::string(kExperimentRefPrefix) + std::to_string(expected_number) + ": " +
                                      error.what());
    }
    if (e.number != static_cast<int>(expected_number))
        throw Error(ErrorKind::BadFormat, std::string(kExperimentRefPrefix) + std::to_string(expected_number) +
                                              " points at commit " + commit + ", whose trailers say experiment " +
                                              std::to_string(e.number));
    return e;
}

// "3", "3, 5", "3..9": the numbers, runs collapsed.
std::string numbers_text(const std::vector<std::size_t>& numbers) {
    std::string text;
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
        if (!text.empty()) text += ", ";
        text += std::to_string(numbers[i]) + (j > i ? ".." + std::to_string(numbers[j]) : "");
        i = j + 1;
    }
    return text;
}

// The first column where two formatted rows differ ("kernel_file"), or "" when equal.
std::string first_differing_column(const std::string& a, const std::string& b) {
    if (a == b) return "";
    const auto fa = split(a, '\t');
    const auto fb = split(b, '\t');
    const auto names = results_columns();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string_view x = i < fa.size() ? fa[i] : std::string_view();
        const std::string_view y = i < fb.size() ? fb[i] : std::string_view();
        if (x != y) return std::string(names[i]);
    }
    return "a field";
}

// session.json, parsed; at most 16 MiB are read.
SessionInfo read_session_info(const fs::path& dir) {
    const fs::path path = dir / kInfoName;
    return parse_session_info(read_file(path, std::uintmax_t(16) << 20), path.string());
}

std::string rows_text(const std::vector<Experiment>& rows, std::size_t from = 0) {
    std::string text;
    for (std::size_t i = from; i < rows.size(); ++i) text += format_results_row(rows[i]) + "\n";
    return text;
}

std::string range_text(std::size_t first, std::size_t last) {
    return first == last ? "experiment " + std::to_string(first)
                         : "experiments " + std::to_string(first) + ".." + std::to_string(last);
}

}  // namespace

struct Session::Impl {
    fs::path dir;
    SessionInfo info;
    std::vector<Experiment> experiments;
    std::vector<std::string> warnings;
    bool read_only = false;
    std::string read_only_reason;
    std::optional<GitRepository> repo;
    WriterLock lock;
    std::uintmax_t results_offset = 0;  // bytes of results.tsv already read
    std::size_t file_rows = 0;          // rows of results.tsv within those bytes
    std::string broken;                 // why record() must not continue (a failed results.tsv write)
    std::string branch_stand_in;        // read-only, branch ref missing: the commit it would be repaired to

    fs::path results_path() const { return dir / kResultsName; }
    std::string branch_ref() const { return "refs/heads/" + info.branch; }

    std::string tip() const {
        const auto commit = repo->read_ref(branch_ref());
        if (!commit && !branch_stand_in.empty()) return branch_stand_in;
        if (!commit)
            throw Error(ErrorKind::BadFormat, "session " + dir.string() + ": its branch " + branch_ref() +
                                                  " does not exist (run `autokernel session repair`)");
        return *commit;
    }

    // Checks the cheap invariants of every experiment against git and reports each mismatch as a
    // warning: the commit exists and carries the row's trailers (else git's version is shown), the
    // kernel file is one of session.json's kernels and the commit's tree holds it with its blob.
    void verify_against_git(std::size_t rows_in_file) {
        std::set<std::string> kernel_files;
        for (const KernelEntry& k : info.kernels) kernel_files.insert(kernel_file_of(k.name));
        constexpr std::size_t kShown = 20;
        std::size_t damaged = 0;
        const auto report = [&](std::string message) {
            if (++damaged <= kShown) warnings.push_back(std::move(message));
        };
        for (std::size_t i = 0; i < experiments.size(); ++i) {
            Experiment& e = experiments[i];
            const std::string what = (i < rows_in_file ? "results.tsv line " + std::to_string(i + 2) + ", " : "") +
                                     "experiment " + std::to_string(i);
            try {
                GitRepository::CommitCheck check;
                try {
                    check = repo->check_commit(e.commit, e.kernel_file);
                } catch (const Error& error) {
                    if (error.kind() != ErrorKind::NotFound) throw;
                    report(what + ": its commit " + e.commit + " is missing from git (objects deleted or a damaged "
                                  "pack); its source cannot be shown");
                    continue;
                }
                if (i < rows_in_file) {
                    const Experiment recorded = parse_experiment_message(check.message, e.commit);
                    const std::string column = first_differing_column(format_results_row(e), format_results_row(recorded));
                    if (!column.empty()) {
                        report(what + ": field " + column + " differs from the trailers of commit " +
                               short_id(e.commit) + "; showing git's version (`autokernel session repair` "
                               "rewrites the row)");
                        const bool same_file = recorded.kernel_file == e.kernel_file;
                        e = recorded;
                        if (!same_file) check = repo->check_commit(e.commit, e.kernel_file);
                    }
                }
                if (!kernel_files.count(e.kernel_file))
                    report(what + ": kernel file '" + e.kernel_file + "' is no kernel of session.json");
                if (!check.blob)
                    report(what + ": commit " + short_id(e.commit) + " does not hold " + e.kernel_file +
                           " (a damaged tree)");
                else if (!check.blob_present)
                    report(what + ": the source of " + e.kernel_file + " (blob " + short_id(*check.blob) +
                           ") is missing from git");
            } catch (const Error& error) {
                report(what + ": cannot read commit " + short_id(e.commit) + " (" + error.what() + ")");
            }
        }
        if (damaged > kShown)
            warnings.push_back("... and " + std::to_string(damaged - kShown) +
                               " more damaged experiments (git objects missing or unreadable)");
    }

    void require_writable() const {
        if (read_only)
            throw Error(ErrorKind::ReadOnly, "session " + dir.string() + " is open read-only" +
                                                 (read_only_reason.empty() ? "" : " (" + read_only_reason + ")"));
    }

    const KernelEntry& kernel(const std::string& name) const {
        for (const KernelEntry& k : info.kernels)
            if (k.name == name) return k;
        std::string known;
        for (const KernelEntry& k : info.kernels) known += (known.empty() ? "" : ", ") + k.name;
        throw Error(ErrorKind::NotFound, "session " + dir.string() + " has no kernel named '" + name +
                                             "' (its kernels: " + (known.empty() ? "none" : known) + ")");
    }

    // Writes every kernel file of `commit` that differs from the work tree copy.
    void sync_work_tree(const std::string& commit) {
        for (const KernelEntry& k : info.kernels) {
            const std::string relative = kernel_file_of(k.name);
            const auto source = repo->file_at(commit, relative);
            if (!source) continue;
            const fs::path path = dir / relative;
            std::error_code ec;
            if (fs::exists(path, ec)) {
                try {
                    if (read_file(path) == *source) continue;
                } catch (const Error&) {
                    // unreadable: rewrite it
                }
            }
            fs::create_directories(path.parent_path());
            replace_durably(path, *source);
        }
    }

    // Step 4: the branch moves, then the work tree and the index follow.
    void move_branch(const std::string& commit, const std::string& log_message, bool crash_hooks) {
        repo->set_ref(branch_ref(), commit, true, log_message);
        if (crash_hooks) crash_point(4);
        sync_work_tree(commit);
        repo->reset_index_to(commit);
    }

    Experiment record(const NewExperiment& request, bool crash_hooks) {
        require_writable();
        if (!broken.empty())
            throw Error(ErrorKind::Io, "session " + dir.string() + ": " + broken + "; open the session again to "
                                                                                 "repair it before recording more");
        const KernelEntry& entry = kernel(request.kernel_name);
        Experiment e = request.metrics;
        e.number = static_cast<int>(experiments.size());
        e.kernel_file = kernel_file_of(entry.name);
        if (e.kernel_type.empty()) e.kernel_type = entry.type;
        e.parent_commit = request.parent_commit.empty() ? tip() : request.parent_commit;
        if (!repo->has_commit(e.parent_commit))
            throw Error(ErrorKind::NotFound, "cannot record experiment " + std::to_string(e.number) +
                                                 ": parent commit " + e.parent_commit + " is not in " +
                                                 dir.string());
        e.commit = std::string(40, '0');
        (void)format_results_row(e);  // rejects non-UTF-8 text before anything is written

        // 1. objects
        const std::string tree = repo->write_tree(e.parent_commit, {{e.kernel_file, request.source}});
        std::string message = format_experiment_message(e);
        if (request.timings) message += format_timing_trailers(*request.timings);
        e.commit = repo->write_commit(tree, {e.parent_commit}, message);
        if (crash_hooks) crash_point(1);
        // 2. the experiment ref: from here on the experiment exists
        repo->set_ref(experiment_ref(e.number), e.commit, false,
                      "autokernel: experiment " + std::to_string(e.number));
        if (crash_hooks) crash_point(2);
        // 3. the results.tsv row
        const std::string row = format_results_row(e) + "\n";
        try {
            append_durably(results_path(), row);
        } catch (const Error& failure) {
            // A partial row must not stay in front of later rows: cut the file back, and refuse further
            // records until open() has rebuilt this experiment's row from its ref.
            ::truncate(results_path().c_str(), static_cast<off_t>(results_offset));
            broken = "writing experiment " + std::to_string(e.number) + "'s row failed (" + failure.what() +
                     "); it is in git as " + experiment_ref(e.number);
            throw Error(failure.kind(), "session " + dir.string() + ": " + broken +
                                            " and its row will be rebuilt when the session is opened again");
        }
        results_offset += row.size();
        ++file_rows;
        experiments.push_back(e);
        if (crash_hooks) crash_point(3);
        // 4. kept experiments become the branch's version
        if (e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline)
            move_branch(e.commit, "autokernel: experiment " + std::to_string(e.number) + " " +
                                      std::string(to_string(e.outcome)),
                        crash_hooks);
        // Thousands of loose refs make listing them slow: pack them now and then.
        if ((e.number + 1) % 1000 == 0) repo->pack_refs();
        return e;
    }

    // Removes lock files and temporaries that only a killed writer can have left (we hold the writer
    // lock, so no live writer of ours exists).
    void remove_leftovers() {
        const fs::path git_dir = repo->git_dir();
        std::vector<fs::path> leftovers;
        std::error_code ec;
        if (fs::exists(git_dir / "refs", ec)) {
            for (auto it = fs::recursive_directory_iterator(git_dir / "refs", ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (it->is_regular_file(ec) && it->path().extension() == ".lock") leftovers.push_back(it->path());
            }
        }
        for (const char* name : {"packed-refs.lock", "index.lock", "HEAD.lock", "config.lock"})
            if (fs::exists(git_dir / name, ec)) leftovers.push_back(git_dir / name);
        for (const fs::path& folder : {dir, dir / "kernels", git_dir}) {
            if (!fs::is_directory(folder, ec)) continue;
            for (const auto& item : fs::directory_iterator(folder, ec)) {
                const std::string name = item.path().filename().string();
                if (starts_with(name, ".") && name.find(".ak-tmp-") != std::string::npos)
                    leftovers.push_back(item.path());
            }
        }
        for (const fs::path& path : leftovers) {
            if (fs::remove(path, ec))
                warnings.push_back("removed " + fs::relative(path, dir, ec).string() +
                                   " (a writer was stopped while writing it)");
        }
    }

    // Experiments recorded at or after this number may move the branch; a reset_branch_to() sets it.
    std::size_t branch_reset_point() const {
        const fs::path path = repo->git_dir() / kBranchResetName;
        std::error_code ec;
        if (!fs::exists(path, ec)) return 0;
        const std::string text = read_file(path);
        for (std::string_view line : split(text, '\n')) {
            if (starts_with(line, "experiments "))
                if (const auto n = parse_int(line.substr(12)); n && *n >= 0) return static_cast<std::size_t>(*n);
        }
        return 0;
    }

    void reconcile() {
        const bool fix = !read_only;
        const std::string would = fix ? "" : "(read-only: not applied) ";
        if (fix) remove_leftovers();
        // A live writer may be between two steps of record(): the viewer sees the complete state
        // (rebuilt in memory), but what is merely in flight is not reported as damage.
        const bool live_writer = !fix && writer_active(repo->git_dir());
        const std::size_t warnings_before = warnings.size();

        // results.tsv as it is on disk
        const fs::path results = results_path();
        std::error_code ec;
        const bool missing = !fs::exists(results, ec) || fs::file_size(results, ec) == 0;
        ResultsFile file;
        if (!missing) file = read_results_file(results);
        std::vector<Experiment>& rows = file.rows;

        const std::map<std::size_t, std::string> refs = read_experiment_refs(*repo, &warnings);
        const std::size_t known = std::max(rows.size(), refs.empty() ? std::size_t(0) : refs.rbegin()->first + 1);

        // Rows that git knows under another commit, or not at all.
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::string line = "results.tsv line " + std::to_string(i + 2);
            if (const auto ref = refs.find(i); ref != refs.end()) {
                if (rows[i].commit != ref->second)
                    throw Error(ErrorKind::BadFormat, line + ": experiment " + std::to_string(i) + " has commit " +
                                                          rows[i].commit + " but " + experiment_ref(int(i)) +
                                                          " points at " + ref->second +
                                                          " (run `autokernel session repair` to rebuild results.tsv "
                                                          "from git)");
                continue;
            }
            if (!repo->has_commit(rows[i].commit))
                throw Error(ErrorKind::NotFound,
                            line + ": experiment " + std::to_string(i) + " refers to commit " + rows[i].commit +
                                ", which is not in the session's repository " + dir.string() +
                                " (git objects lost, or results.tsv copied from another session)");
            if (fix) repo->set_ref(experiment_ref(int(i)), rows[i].commit, false, "autokernel: repair");
            warnings.push_back(would + "experiment " + std::to_string(i) + " had no " + experiment_ref(int(i)) +
                               "; the ref was recreated from results.tsv");
        }

        // Experiments whose rows are missing: a crash came between steps 2 and 3. A ref missing among
        // them is looked for in the history (a commit whose trailers name the experiment).
        std::vector<Experiment> rebuilt;
        std::optional<std::map<std::size_t, std::string>> history;
        for (std::size_t n = rows.size(); n < known; ++n) {
            std::string commit;
            if (const auto ref = refs.find(n); ref != refs.end()) {
                commit = ref->second;
            } else {
                if (!history) history = experiments_in_history(*repo);
                const auto found = history->find(n);
                if (found == history->end())
                    throw Error(ErrorKind::BadFormat,
                                "session " + dir.string() + ": experiment " + std::to_string(n) + " has no " +
                                    experiment_ref(int(n)) + ", no results.tsv row and no commit in the history, "
                                    "but experiment " + std::to_string(known - 1) + " exists (was a ref deleted by "
                                    "hand?); restore the ref or results.tsv from a backup");
                commit = found->second;
                if (fix) repo->set_ref(experiment_ref(int(n)), commit, false, "autokernel: repair");
                warnings.push_back(would + "experiment " + std::to_string(n) + " had no " + experiment_ref(int(n)) +
                                   " and no results.tsv row; found its commit " + short_id(commit) +
                                   " in the history and recreated the ref");
            }
            rebuilt.push_back(experiment_from_git(*repo, commit, n));
        }
        const std::size_t ref_count = known;

        if (missing)
            warnings.push_back(would + "results.tsv was missing or empty: rebuilt it from " +
                               std::to_string(ref_count) + " experiment refs");
        std::optional<fs::path> torn_backup;
        if (file.torn_tail) {
            const std::string shown = "'" + escape_field(file.torn_tail->substr(0, 80)) +
                                      (file.torn_tail->size() > 80 ? "...'" : "'");
            if (!rebuilt.empty()) {
                warnings.push_back(would + "results.tsv ended in a torn line " + shown +
                                   " (a crash cut an append short); experiment " + std::to_string(rows.size()) +
                                   " was rebuilt from " + experiment_ref(int(rows.size())));
            } else {
                torn_backup = unique_backup_path(dir, std::string(kResultsName) + ".torn-");
                warnings.push_back(would + "results.tsv ended in a torn line " + shown +
                                   " that matches no experiment ref; the file was copied to " +
                                   torn_backup->filename().string() + " and the line removed");
            }
        }
        if (!rebuilt.empty() && !(file.torn_tail && rebuilt.size() == 1) && !missing)
            warnings.push_back(would + "results.tsv lacked " + range_text(rows.size(), ref_count - 1) +
                               " (recorded in git, row not yet written when the writer stopped); rebuilt from "
                               "the commit trailers");

        const std::size_t rows_in_file = rows.size();
        rows.insert(rows.end(), rebuilt.begin(), rebuilt.end());
        if (fix && (missing || file.torn_tail)) {
            std::string content = missing ? results_header_line() + "\n" : read_file(results).substr(0, file.bytes_read);
            if (torn_backup) replace_durably(*torn_backup, read_file(results));
            content += rows_text(rows, rows_in_file);
            replace_durably(results, content);
            results_offset = content.size();
            file_rows = rows.size();
        } else if (fix && !rebuilt.empty()) {
            const std::string text = rows_text(rows, rows_in_file);
            append_durably(results, text);
            results_offset = file.bytes_read + text.size();
            file_rows = rows.size();
        } else {
            results_offset = file.bytes_read;
            file_rows = rows_in_file;
        }
        experiments = std::move(rows);
        verify_against_git(rows_in_file);

        // The branch: missing (packed-refs lost) it is recreated at the newest kept experiment.
        if (!repo->read_ref(branch_ref())) {
            const auto newest = std::find_if(experiments.rbegin(), experiments.rend(), [&](const Experiment& e) {
                return (e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline) && repo->has_commit(e.commit);
            });
            if (newest == experiments.rend())
                throw Error(ErrorKind::BadFormat, "session " + dir.string() + ": its branch " + branch_ref() +
                                                      " does not exist and no kept experiment can replace it");
            warnings.push_back(would + "branch " + info.branch + " was missing; recreated at experiment " +
                               std::to_string(newest->number) + " (" + short_id(newest->commit) + ")");
            if (fix)
                repo->set_ref(branch_ref(), newest->commit, true, "autokernel: repair, branch recreated");
            else
                branch_stand_in = newest->commit;
        }
        // A crash between steps 3 and 4 leaves it behind the newest kept experiment.
        std::string branch_tip = tip();
        const std::size_t reset_point = branch_reset_point();
        for (std::size_t i = experiments.size(); i-- > reset_point;) {
            const Experiment& e = experiments[i];
            if (e.outcome != Outcome::Kept && e.outcome != Outcome::Baseline) continue;
            if (e.commit != branch_tip) {
                warnings.push_back(would + "branch " + info.branch + " was at " + short_id(branch_tip) +
                                   ", behind " + std::string(to_string(e.outcome)) + " experiment " +
                                   std::to_string(e.number) + " (the writer stopped before moving it); advanced to " +
                                   short_id(e.commit));
                if (fix) {
                    move_branch(e.commit, "autokernel: repair, advance to experiment " + std::to_string(e.number),
                                false);
                    branch_tip = e.commit;
                }
            }
            break;
        }

        if (live_writer) warnings.resize(warnings_before);

        // The work tree holds the branch's version of each kernel.
        for (const KernelEntry& k : info.kernels) {
            const std::string relative = kernel_file_of(k.name);
            const auto expected = repo->blob_id_at(branch_tip, relative);
            if (!expected) continue;
            const fs::path path = dir / relative;
            std::optional<std::string> content;
            if (fs::exists(path, ec)) content = read_file(path);
            if (content && repo->hash_blob(*content) == *expected) continue;
            if (live_writer) continue;  // probably being replaced right now
            if (!content || repo->has_object(repo->hash_blob(*content))) {
                warnings.push_back(would + relative + (content ? " was an older version" : " was missing") +
                                   "; restored the branch's version");
                if (fix) {
                    fs::create_directories(path.parent_path());
                    replace_durably(path, *repo->file_at(branch_tip, relative));
                }
            } else {
                warnings.push_back(relative + " has edits that are in no commit; left as is (the session uses the "
                                              "branch's version, commit " + short_id(branch_tip) + ")");
            }
        }
    }
};

Session::Session() : impl_(std::make_unique<Impl>()) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::string Session::experiment_ref(int number) { return std::string(kExperimentRefPrefix) + std::to_string(number); }
std::string Session::kernel_file_of(const std::string& kernel_name) { return "kernels/" + kernel_name + ".cu"; }

bool Session::is_session(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / kInfoName, ec) && fs::exists(dir / ".git", ec);
}

Session Session::create(const fs::path& dir, SessionInfo info,
                        const std::vector<std::pair<KernelEntry, std::string>>& kernels_with_source,
                        const std::vector<Experiment>& baseline_metrics) {
    std::error_code ec;
    if (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec)))
        throw Error(ErrorKind::Io, "cannot create a session in " + dir.string() +
                                       ": it exists and is not an empty folder");
    if (baseline_metrics.size() > kernels_with_source.size())
        throw Error(ErrorKind::Usage, "create: " + std::to_string(baseline_metrics.size()) +
                                          " baseline metrics given for " +
                                          std::to_string(kernels_with_source.size()) + " kernels");
    if (info.branch.empty()) info.branch = "main";
    if (info.name.empty()) info.name = fs::absolute(dir).lexically_normal().filename().string();
    if (info.created_utc.empty()) info.created_utc = utc_now_iso8601();
    for (const auto& [entry, source] : kernels_with_source) {
        (void)source;
        const auto same = [&](const KernelEntry& k) { return k.name == entry.name; };
        if (std::count_if(kernels_with_source.begin(), kernels_with_source.end(),
                          [&](const auto& other) { return other.first.name == entry.name; }) > 1)
            throw Error(ErrorKind::Usage, "create: kernel '" + entry.name + "' is given twice");
        if (std::none_of(info.kernels.begin(), info.kernels.end(), same)) info.kernels.push_back(entry);
    }
    for (const KernelEntry& k : info.kernels)
        if (!valid_kernel_name(k.name))
            throw Error(ErrorKind::Usage, "create: kernel name '" +
                                              (k.name.size() > 60 ? k.name.substr(0, 60) + "...' (" +
                                                                        std::to_string(k.name.size()) + " characters)"
                                                                  : k.name + "'") +
                                              " must be 1 to " + std::to_string(kMaxKernelNameLength) +
                                              " letters, digits, '_', '-' or '.' (it names kernels/<name>.cu)");
    const std::string info_json = format_session_info(info);

    // Built beside its final place and renamed into it at the end, so a crash during create leaves
    // either no session or a complete one.
    const fs::path final_dir = fs::absolute(dir).lexically_normal();
    const fs::path parent = final_dir.parent_path();
    fs::create_directories(parent);
    remove_abandoned_staging(parent, final_dir.filename().string());
    static std::atomic<unsigned> counter{0};
    const fs::path staging = parent / ("." + final_dir.filename().string() + ".creating-" +
                                       std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(staging, ec);
    try {
        {
            Session building;
            Impl& impl = *building.impl_;
            impl.dir = staging;
            impl.info = info;
            fs::create_directories(staging / "kernels");
            impl.repo = GitRepository::init(staging, info.branch);
            const fs::path exclude = impl.repo->git_dir() / "info" / "exclude";
            fs::create_directories(exclude.parent_path());
            append_durably(exclude, "# AutoKernel Workbench: results.tsv is derived from git (Session::repair)\n"
                                    "/results.tsv\n/results.tsv.*\n");
            replace_durably(staging / kInfoName, info_json);
            replace_durably(impl.results_path(), results_header_line() + "\n");
            impl.results_offset = results_header_line().size() + 1;

            const std::string tree = impl.repo->write_tree("", {{kInfoName, info_json}});
            const std::string root = impl.repo->write_commit(
                tree, {}, "session " + info.name + ": created\n\nAutoKernel Workbench session. Every experiment is "
                                                   "a commit under refs/autokernel/exp/.\n");
            impl.repo->set_ref(impl.branch_ref(), root, false, "autokernel: create session");

            for (std::size_t i = 0; i < kernels_with_source.size(); ++i) {
                const auto& [entry, source] = kernels_with_source[i];
                NewExperiment baseline;
                baseline.kernel_name = entry.name;
                baseline.source = source;
                if (i < baseline_metrics.size()) baseline.metrics = baseline_metrics[i];
                baseline.metrics.outcome = Outcome::Baseline;
                if (baseline.metrics.description.empty())
                    baseline.metrics.description = "starter kernel " + entry.name;
                impl.record(baseline, false);
            }
            impl.repo->reset_index_to(impl.tip());
            fsync_directory(staging / "kernels");
            fsync_directory(staging);
        }
        fs::rename(staging, final_dir);
        fsync_directory(parent);
    } catch (...) {
        fs::remove_all(staging, ec);
        throw;
    }
    return open(final_dir);
}

Session Session::open(const fs::path& dir, OpenOptions options) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error(ErrorKind::NotFound, "session folder " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec))
        throw Error(ErrorKind::NotASession, dir.string() + " is not a session: it is a file, not a folder");
    if (const auto odd = not_a_regular_file(dir / kInfoName))
        throw Error(ErrorKind::BadFormat, (dir / kInfoName).string() + " is " + *odd +
                                              ", not a regular file: a session's session.json is a JSON file");
    const bool has_info = fs::is_regular_file(dir / kInfoName, ec);
    const bool has_git = fs::exists(dir / ".git", ec);
    if (!has_info || !has_git)
        throw Error(ErrorKind::NotASession,
                    dir.string() + " is not a session: it has no " +
                        (!has_info && !has_git ? std::string("session.json and no .git folder")
                                               : !has_info ? std::string("session.json")
                                                           : std::string(".git folder")));

    Session session;
    Impl& impl = *session.impl_;
    impl.dir = dir;
    impl.read_only = options.read_only;
    try {
        impl.repo = GitRepository::open(dir);
    } catch (const Error& e) {
        throw Error(ErrorKind::NotASession, dir.string() + " is not a session: " + e.what());
    }
    impl.info = read_session_info(dir);
    if (!impl.read_only) {
        if (!directory_writable(dir) || !directory_writable(impl.repo->git_dir())) {
            impl.read_only = true;
            impl.read_only_reason = "the folder is not writable";
            impl.warnings.push_back("session folder " + dir.string() +
                                    " is not writable: opened read-only; repairs are reported, not made");
        } else {
            impl.lock.acquire(impl.repo->git_dir(), dir);
        }
    }
    impl.reconcile();
    return session;
}

const fs::path& Session::dir() const { return impl_->dir; }
const SessionInfo& Session::info() const { return impl_->info; }
const std::vector<Experiment>& Session::experiments() const { return impl_->experiments; }
const std::vector<std::string>& Session::warnings() const { return impl_->warnings; }
bool Session::read_only() const { return impl_->read_only; }

Experiment Session::record(const NewExperiment& experiment) { return impl_->record(experiment, true); }

std::string Session::source_at(const std::string& commit, const std::string& kernel_file) const {
    const auto source = impl_->repo->file_at(commit, kernel_file);
    if (!source)
        throw Error(ErrorKind::NotFound, "commit " + commit + " of session " + impl_->dir.string() + " has no " +
                                             kernel_file);
    return *source;
}

std::string Session::source_of(const Experiment& e) const { return source_at(e.commit, e.kernel_file); }

std::string Session::parent_source_of(const Experiment& e) const {
    if (e.parent_commit.empty()) return "";
    return impl_->repo->file_at(e.parent_commit, e.kernel_file).value_or("");
}

RecordedTimings Session::timings_of(const Experiment& e) const {
    return parse_timing_trailers(impl_->repo->commit_message(e.commit));
}

std::string Session::branch_tip() const { return impl_->tip(); }

std::optional<Experiment> Session::best_of(const std::string& kernel_file) const {
    const auto branch_version = impl_->repo->blob_id_at(impl_->tip(), kernel_file);
    if (!branch_version) return std::nullopt;
    const auto& all = impl_->experiments;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (it->kernel_file != kernel_file || !it->on_frontier()) continue;
        if (impl_->repo->blob_id_at(it->commit, kernel_file) == branch_version) return *it;
    }
    return std::nullopt;
}

void Session::reset_branch_to(const std::string& commit) {
    impl_->require_writable();
    if (!impl_->repo->has_commit(commit))
        throw Error(ErrorKind::NotFound, "cannot move branch " + impl_->info.branch + ": commit " + commit +
                                             " is not in session " + impl_->dir.string());
    // Written first: open() must not "repair" the branch back to the newest kept experiment.
    replace_durably(impl_->repo->git_dir() / kBranchResetName,
                    "experiments " + std::to_string(impl_->experiments.size()) + "\ncommit " + commit + "\n");
    impl_->move_branch(commit, "autokernel: reset to " + commit, false);
}

std::size_t Session::refresh() {
    Impl& impl = *impl_;
    const fs::path results = impl.results_path();
    std::error_code ec;
    const auto size = fs::file_size(results, ec);
    if (ec) return 0;  // missing (being repaired): nothing new to read
    const std::size_t before = impl.experiments.size();
    auto add = [&](const std::vector<Experiment>& rows) {
        for (const Experiment& row : rows)
            if (row.number == static_cast<int>(impl.experiments.size())) impl.experiments.push_back(row);
    };
    if (size < impl.results_offset) {  // replaced by a repair: read it whole
        ResultsFile file = read_results_file(results);
        add(file.rows);
        impl.results_offset = file.bytes_read;
        impl.file_rows = file.rows.size();
    } else {
        ResultsFile tail = read_results_tail(results, impl.results_offset, static_cast<int>(impl.file_rows) + 2);
        add(tail.rows);
        impl.results_offset = tail.bytes_read;
        impl.file_rows += tail.rows.size();
    }
    return impl.experiments.size() - before;
}

std::size_t Session::repair(const fs::path& dir, std::vector<std::string>* warnings) {
    std::error_code ec;
    if (const auto odd = not_a_regular_file(dir / kInfoName))
        throw Error(ErrorKind::BadFormat, "cannot repair " + dir.string() + ": " + (dir / kInfoName).string() +
                                              " is " + *odd + ", not a regular file");
    if (!is_session(dir))
        throw Error(ErrorKind::NotASession, dir.string() + " is not a session (no session.json or no .git)");
    const SessionInfo info = read_session_info(dir);  // what open() refuses, repair refuses too
    GitRepository repo = GitRepository::open(dir);
    if (!directory_writable(dir))
        throw Error(ErrorKind::ReadOnly, "cannot repair " + dir.string() + ": the folder is not writable");
    WriterLock lock;
    lock.acquire(repo.git_dir(), dir);
    std::vector<std::string> ignored;
    std::vector<std::string>& notes = warnings ? *warnings : ignored;

    // Everything that knows an experiment: its ref, its results.tsv row (read line by line, so a
    // damaged row loses only itself), and commits in the history whose trailers name it.
    const std::map<std::size_t, std::string> refs = read_experiment_refs(repo, &notes);
    const fs::path results = dir / kResultsName;
    std::optional<std::string> old;
    if (fs::exists(results, ec)) old = read_file(results);
    std::map<std::size_t, std::string> row_commits;
    if (old) {
        std::size_t line_start = 0;
        for (int line = 1; line_start < old->size(); ++line) {
            std::size_t end = old->find('\n', line_start);
            if (end == std::string::npos) end = old->size();
            const std::string_view text = std::string_view(*old).substr(line_start, end - line_start);
            line_start = end + 1;
            if (line == 1) continue;  // header
            const auto fields = split(text, '\t');
            if (fields.size() <= results_column::kCommit) continue;
            const auto number = parse_int(fields[results_column::kExperiment]);
            const std::string commit(fields[results_column::kCommit]);
            const bool hex = commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
                return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            });
            if (number && *number >= 0 && *number <= 0x7fffffff && hex)
                row_commits.emplace(static_cast<std::size_t>(*number), commit);
        }
    }
    const std::map<std::size_t, std::string> history = experiments_in_history(repo);
    std::size_t count = 0;
    using Known = const std::map<std::size_t, std::string>*;
    for (const Known known : std::initializer_list<Known>{&refs, &row_commits, &history})
        if (!known->empty()) count = std::max(count, known->rbegin()->first + 1);

    // For each number, the first source whose commit exists and carries that experiment's trailers.
    std::vector<Experiment> rows;
    rows.reserve(count);
    std::vector<std::size_t> lost;
    std::size_t refs_recreated = 0;
    for (std::size_t n = 0; n < count; ++n) {
        std::optional<Experiment> found;
        std::string source;
        const std::pair<const char*, const std::map<std::size_t, std::string>*> sources[] = {
            {"its ref", &refs}, {"its results.tsv row", &row_commits}, {"the history", &history}};
        for (const auto& [name, known] : sources) {
            const auto it = known->find(n);
            if (it == known->end() || !repo.has_commit(it->second)) continue;
            try {
                found = experiment_from_git(repo, it->second, n);
                source = name;
                break;
            } catch (const Error&) {
                // a commit that is not this experiment's: try the next source
            }
        }
        if (!found) {
            lost.push_back(n);
            continue;
        }
        const auto ref = refs.find(n);
        if (ref == refs.end() || ref->second != found->commit) {
            repo.set_ref(experiment_ref(int(n)), found->commit, true, "autokernel: repair, ref recreated");
            ++refs_recreated;
            notes.push_back("experiment " + std::to_string(n) + ": " +
                            (ref == refs.end() ? "no " + experiment_ref(int(n))
                                               : experiment_ref(int(n)) + " pointed at " + short_id(ref->second) +
                                                     ", which is not that experiment") +
                            "; recreated it from " + source + " (commit " + short_id(found->commit) + ")");
        }
        rows.push_back(std::move(*found));
    }
    if (!lost.empty())
        throw Error(ErrorKind::BadFormat,
                    "cannot repair " + dir.string() + ": experiment" + (lost.size() == 1 ? " " : "s ") +
                        numbers_text(lost) + " of 0.." + std::to_string(count - 1) +
                        " cannot be found (no ref, no results.tsv row and no commit in the history carries "
                        "them, or their commits are missing); results.tsv was not changed. Restore .git or "
                        "results.tsv from a backup");
    const std::size_t before = std::max(row_commits.size(), refs.size());
    if (rows.size() < before)  // cannot happen (count covers every source); checked so it never does
        throw Error(ErrorKind::Internal, "repair of " + dir.string() + " would write " + std::to_string(rows.size()) +
                                             " experiments where " + std::to_string(before) +
                                             " were known; results.tsv was not changed");

    // The branch, if its ref was lost with packed-refs: at the newest kept experiment.
    const std::string branch = "refs/heads/" + info.branch;
    if (!repo.read_ref(branch)) {
        const auto newest = std::find_if(rows.rbegin(), rows.rend(), [](const Experiment& e) {
            return e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline;
        });
        if (newest != rows.rend()) {
            repo.set_ref(branch, newest->commit, true, "autokernel: repair, branch recreated");
            notes.push_back("branch " + info.branch + " was missing; recreated at experiment " +
                            std::to_string(newest->number));
        }
    }

    const std::string content = results_header_line() + "\n" + rows_text(rows);
    if (old) {
        if (*old == content) {
            notes.push_back("results.tsv already matched git; left unchanged");
            return rows.size();
        }
        const fs::path backup = unique_backup_path(dir, std::string(kResultsName) + ".bak-");
        replace_durably(backup, *old);
        notes.push_back("kept the previous results.tsv as " + backup.filename().string());
    }
    replace_durably(results, content);
    notes.push_back("rebuilt results.tsv from " + std::to_string(rows.size()) + " experiments in git" +
                    (refs_recreated ? " (" + std::to_string(refs_recreated) + " refs recreated)" : ""));
    return rows.size();
}

}  // namespace ak
