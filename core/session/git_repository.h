#pragma once
// A small RAII wrapper over the parts of libgit2 a session needs. Objects are named by their
// 40-digit hex ids; every failure throws ak::Error (Git, or NotFound for a missing object, ref or
// path) whose message says what was being done and libgit2's own explanation.
//
// libgit2 is initialised once per process (thread-safe) with fsync of the git directory turned on,
// so objects and refs written here survive a crash or power loss.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ak {

class GitRepository {
public:
    // Creates a repository with a work tree in `dir`; HEAD is a symbolic ref to refs/heads/<initial_branch>
    // (which does not exist until its first commit).
    static GitRepository init(const std::filesystem::path& dir, const std::string& initial_branch);
    // Opens the repository whose work tree (or .git) is `dir`. Does not search parent folders.
    static GitRepository open(const std::filesystem::path& dir);

    ~GitRepository();
    GitRepository(GitRepository&&) noexcept;
    GitRepository& operator=(GitRepository&&) noexcept;

    std::filesystem::path work_dir() const;
    std::filesystem::path git_dir() const;

    // --- objects ---
    std::string write_blob(std::string_view bytes);
    // Id a blob with these bytes would have, without writing it.
    std::string hash_blob(std::string_view bytes) const;
    bool has_object(const std::string& id) const;
    bool has_commit(const std::string& id) const;
    // The tree of `base_commit` (empty: an empty tree) with each (path, content) written as a blob and
    // put at path ("kernels/x.cu"; folders are created as needed). Returns the new tree's id.
    std::string write_tree(const std::string& base_commit,
                           const std::vector<std::pair<std::string, std::string>>& files);
    // Writes a commit object without moving any ref. Author and committer are the workbench.
    std::string write_commit(const std::string& tree, const std::vector<std::string>& parents,
                             const std::string& message);

    // --- batches (bulk import) ---
    // From begin_batch() on, new objects are kept in memory; flush_batch() writes them as one pack
    // file (one fsync instead of one per object) and empties the memory. Objects written in a batch
    // are readable before the flush. Without a flush they are lost with the process.
    void begin_batch();
    void flush_batch();

    // --- reading commits ---
    std::string commit_message(const std::string& commit) const;  // NotFound naming the commit
    std::vector<std::string> commit_parents(const std::string& commit) const;
    std::int64_t commit_time(const std::string& commit) const;     // seconds since the epoch
    // Content of `path` in `commit`'s tree; nullopt if the commit has no such file. Throws
    // Error(NotFound) when the commit itself is missing.
    std::optional<std::string> file_at(const std::string& commit, const std::string& path) const;
    // Blob id of `path` in `commit`'s tree; nullopt if absent.
    std::optional<std::string> blob_id_at(const std::string& commit, const std::string& path) const;
    // What open() checks of an experiment's commit, in one lookup: its message, and the blob id of
    // `path` in its tree with whether that blob is in the object database. Throws Error(NotFound)
    // when the commit is missing, Error(Git) when it or its tree cannot be read.
    struct CommitCheck {
        std::string message;
        std::optional<std::string> blob;  // nullopt: the tree has no such file
        bool blob_present = false;
    };
    CommitCheck check_commit(const std::string& commit, const std::string& path) const;
    // Paths (files only) that differ between the commit and its first parent (all files for a root).
    std::vector<std::string> changed_files(const std::string& commit) const;
    // Every commit reachable from any ref or from HEAD's reflog, oldest first.
    std::vector<std::string> all_commits() const;

    // --- refs ---
    // Commit a ref points at (symbolic refs resolved); nullopt if the ref does not exist.
    std::optional<std::string> read_ref(const std::string& name) const;
    // Creates or (force) moves a ref. Without force, an existing ref is an Error(Git) naming it.
    void set_ref(const std::string& name, const std::string& commit, bool force, const std::string& log_message);
    // Calls `visit(name, commit)` for each ref whose name starts with `prefix` ("refs/autokernel/exp/").
    void for_each_ref(const std::string& prefix,
                      const std::function<void(const std::string& name, const std::string& commit)>& visit) const;
    // Packs loose refs into packed-refs (fewer files to read when listing thousands of refs).
    void pack_refs();

    // --- index ---
    // Makes the index match `commit`'s tree, so `git status` shows a clean work tree.
    void reset_index_to(const std::string& commit);

private:
    GitRepository();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak
