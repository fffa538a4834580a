#include "session/session_builder.h"

#include "session/commit_trailers.h"
#include "session/git_repository.h"
#include "session/results_table.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <optional>
#include <unistd.h>

namespace ak {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOriginName = "autokernel-build-origin";  // in .git while building
constexpr std::size_t kChunkExperiments = 20000;

// Test-only: AK_TEST_IMPORT_CHUNK=N flushes every N experiments, AK_TEST_IMPORT_KILL_AFTER_CHUNKS=K
// exits abruptly (as kill -9 would) right after the K-th durable chunk.
std::size_t chunk_experiments() {
    const char* configured = std::getenv("AK_TEST_IMPORT_CHUNK");
    const long n = configured ? std::atol(configured) : 0;
    return n > 0 ? static_cast<std::size_t>(n) : kChunkExperiments;
}

void kill_point(std::size_t chunks) {
    const char* configured = std::getenv("AK_TEST_IMPORT_KILL_AFTER_CHUNKS");
    if (configured && std::atol(configured) == static_cast<long>(chunks)) ::_exit(9);
}
constexpr std::size_t kChunkBytes = 64u << 20;  // rows and sources held before a flush

void fsync_path(const fs::path& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorKind::Io, "cannot open " + path.string() + ": " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error(ErrorKind::Io, "cannot fsync " + path.string() + ": " + std::strerror(err));
}

// Reads `path` line by line (complete lines only), a block at a time.
template <typename F>
std::uintmax_t for_each_line(const fs::path& path, F&& visit) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    std::string pending;
    std::uintmax_t complete = 0;  // bytes up to the last newline
    std::uintmax_t offset = 0;
    char buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(err));
        }
        if (n == 0) break;
        pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
            visit(std::string_view(pending).substr(start, nl - start));
            complete = offset + nl + 1;
        }
        offset += start;
        pending.erase(0, start);
    }
    ::close(fd);
    return complete;
}

}  // namespace

struct SessionBuilder::Impl {
    fs::path final_dir;
    fs::path staging;
    SessionInfo info;
    std::optional<GitRepository> repo;
    std::string tip;             // the branch: newest kept/baseline commit (or the root commit)
    std::size_t count = 0;       // experiments added (durable or pending)
    std::size_t durable = 0;     // experiments whose rows are on disk
    std::string pending_rows;    // rows added since the last flush
    std::size_t pending_bytes = 0;
    std::size_t chunk = chunk_experiments();
    std::size_t chunks_written = 0;

    fs::path results() const { return staging / "results.tsv"; }
};

fs::path SessionBuilder::staging_for(const fs::path& final_dir) {
    const fs::path absolute = fs::absolute(final_dir).lexically_normal();
    return absolute.parent_path() / ("." + absolute.filename().string() + ".importing");
}

SessionBuilder::SessionBuilder(const fs::path& final_dir, SessionInfo info, const std::string& origin)
    : impl_(std::make_unique<Impl>()) {
    Impl& b = *impl_;
    b.final_dir = fs::absolute(final_dir).lexically_normal();
    b.staging = staging_for(final_dir);
    std::error_code ec;
    if (fs::exists(b.final_dir, ec) && (!fs::is_directory(b.final_dir, ec) || !fs::is_empty(b.final_dir, ec)))
        throw Error(ErrorKind::Io, "cannot create a session in " + b.final_dir.string() +
                                       ": it exists and is not an empty folder");
    if (info.name.empty()) info.name = b.final_dir.filename().string();
    const std::string discard = " (to start over instead, remove it: rm -r '" + b.staging.string() + "')";

    if (fs::exists(b.staging, ec)) {
        // A stopped build: continue it when it builds the same thing.
        const fs::path marker = b.staging / ".git" / kOriginName;
        std::string recorded;
        try {
            recorded = read_file(marker, 1 << 20);
        } catch (const Error&) {
            throw Error(ErrorKind::Io, b.staging.string() + " is left from an import that was stopped before it "
                                                            "began writing experiments" + discard);
        }
        if (recorded != origin)
            throw Error(ErrorKind::Io, b.staging.string() + " holds an unfinished import of something else:\n" +
                                           recorded + "it is kept" + discard);
        b.info = info;
        b.repo = GitRepository::open(b.staging);
        b.tip = *b.repo->read_ref("refs/heads/" + info.branch);
        // Rows on disk are the durable experiments; a torn last line (killed mid-append) is cut off.
        std::size_t rows = 0;
        const std::uintmax_t complete = for_each_line(b.results(), [&](std::string_view line) {
            if (rows++ == 0) return;  // header
            const auto fields = split(line, '\t');
            if (fields.size() != results_columns().size())
                throw Error(ErrorKind::BadFormat, b.results().string() + ": a damaged row in an unfinished import" +
                                                      discard);
            const auto outcome = parse_outcome(fields[results_column::kOutcome]);
            if (outcome == Outcome::Kept || outcome == Outcome::Baseline)
                b.tip = std::string(fields[results_column::kCommit]);
        });
        if (rows == 0) throw Error(ErrorKind::BadFormat, b.results().string() + " has no header" + discard);
        if (fs::file_size(b.results()) != complete && ::truncate(b.results().c_str(), static_cast<off_t>(complete)) != 0)
            throw Error(ErrorKind::Io, "cannot cut the torn last line of " + b.results().string());
        if (!b.repo->has_commit(b.tip))
            throw Error(ErrorKind::BadFormat, b.staging.string() + ": commit " + b.tip + " of the last chunk is "
                                                                  "missing" + discard);
        b.count = b.durable = rows - 1;
    } else {
        // Session::create writes the empty session (session.json, root commit, branch) durably.
        { Session created = Session::create(b.staging, info, {}); }
        b.info = info;
        b.repo = GitRepository::open(b.staging);
        replace_durably(b.repo->git_dir() / kOriginName, origin);
        b.tip = *b.repo->read_ref("refs/heads/" + info.branch);
    }
    b.repo->begin_batch();
}

SessionBuilder::~SessionBuilder() = default;

std::size_t SessionBuilder::done() const { return impl_->durable; }

void SessionBuilder::add(const NewExperiment& request) {
    Impl& b = *impl_;
    const auto kernel = std::find_if(b.info.kernels.begin(), b.info.kernels.end(),
                                     [&](const KernelEntry& k) { return k.name == request.kernel_name; });
    if (kernel == b.info.kernels.end())
        throw Error(ErrorKind::NotFound, "no kernel named '" + request.kernel_name + "' in the session being built");
    Experiment e = request.metrics;
    e.number = static_cast<int>(b.count);
    e.kernel_file = Session::kernel_file_of(kernel->name);
    if (e.kernel_type.empty()) e.kernel_type = kernel->type;
    e.parent_commit = b.tip;
    e.commit = std::string(40, '0');
    (void)format_results_row(e);  // rejects text that is not UTF-8 before anything is written
    const std::string tree = b.repo->write_tree(e.parent_commit, {{e.kernel_file, request.source}});
    std::string message = format_experiment_message(e);
    if (request.timings) message += format_timing_trailers(*request.timings);
    e.commit = b.repo->write_commit(tree, {e.parent_commit}, message);
    b.pending_rows += format_results_row(e) + "\n";
    b.pending_bytes += request.source.size() + 1024;
    if (e.outcome == Outcome::Kept || e.outcome == Outcome::Baseline) b.tip = e.commit;
    ++b.count;
    if (b.count - b.durable >= b.chunk || b.pending_bytes >= kChunkBytes) flush();
}

void SessionBuilder::flush() {
    Impl& b = *impl_;
    if (b.count == b.durable) return;
    b.repo->flush_batch();                       // 1. the chunk's objects: one pack, fsync'd
    append_durably(b.results(), b.pending_rows);  // 2. its rows: one append, fsync'd
    b.pending_rows.clear();
    b.pending_bytes = 0;
    b.durable = b.count;
    kill_point(++b.chunks_written);
}

std::size_t SessionBuilder::finish() {
    Impl& b = *impl_;
    flush();
    const fs::path git_dir = b.repo->git_dir();
    // The branch first: once packed-refs holds every experiment, libgit2 loads all of them into memory
    // to write any ref (about 120 MiB at 1,000,000 experiments, measured).
    b.repo->set_ref("refs/heads/" + b.info.branch, b.tip, true, "autokernel: import");
    // Every experiment ref, packed, from the rows (streamed: no list of them in memory).
    const fs::path packed = git_dir / "packed-refs";
    const fs::path temporary = git_dir / ".packed-refs.ak-tmp";
    {
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) throw Error(ErrorKind::Io, "cannot create " + temporary.string() + ": " + std::strerror(errno));
        std::string block = "# pack-refs with: peeled fully-peeled \n";
        bool failed = false;
        const auto drain = [&] {
            std::size_t at = 0;
            while (at < block.size() && !failed) {
                const ssize_t n = ::write(fd, block.data() + at, block.size() - at);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) failed = true;
                else at += static_cast<std::size_t>(n);
            }
            block.clear();
        };
        std::size_t line = 0;
        for_each_line(b.results(), [&](std::string_view row) {
            if (line++ == 0) return;
            const auto fields = split(row, '\t');
            block += std::string(fields[results_column::kCommit]) + " " + Session::experiment_ref(int(line - 2)) + "\n";
            if (block.size() >= (1u << 20)) drain();
        });
        drain();
        failed = failed || ::fsync(fd) != 0;
        ::close(fd);
        if (failed || ::rename(temporary.c_str(), packed.c_str()) != 0)
            throw Error(ErrorKind::Io, "cannot write " + packed.string() + ": " + std::strerror(errno));
        fsync_path(git_dir, O_RDONLY | O_DIRECTORY);
    }
    // The work tree holds the branch's version of every kernel; the index matches it.
    for (const KernelEntry& k : b.info.kernels) {
        const std::string relative = Session::kernel_file_of(k.name);
        if (const auto source = b.repo->file_at(b.tip, relative)) replace_durably(b.staging / relative, *source);
    }
    b.repo->reset_index_to(b.tip);
    fs::remove(git_dir / kOriginName);
    fsync_path(b.staging / "kernels", O_RDONLY | O_DIRECTORY);
    fsync_path(b.staging, O_RDONLY | O_DIRECTORY);
    b.repo.reset();
    std::error_code ec;
    if (fs::exists(b.final_dir, ec)) fs::remove(b.final_dir, ec);  // an empty folder (checked at the start)
    fs::rename(b.staging, b.final_dir);
    fsync_path(b.final_dir.parent_path(), O_RDONLY | O_DIRECTORY);
    return b.count;
}

}  // namespace ak
