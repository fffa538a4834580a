#pragma once
// Looks into a session's repository with libgit2 (and the git command when installed) directly,
// so the tests do not only trust the code under test.
#include <git2.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace ak::testing {

class RawRepository {
public:
    explicit RawRepository(const std::filesystem::path& dir) {
        git_libgit2_init();
        if (git_repository_open(&repo_, dir.c_str()) != 0) repo_ = nullptr;
    }
    ~RawRepository() {
        if (repo_) git_repository_free(repo_);
        git_libgit2_shutdown();
    }
    RawRepository(const RawRepository&) = delete;
    RawRepository& operator=(const RawRepository&) = delete;
    bool ok() const { return repo_ != nullptr; }

    // Every commit reachable from any ref: what `git log --all` lists.
    std::set<std::string> log_all() const {
        std::set<std::string> commits;
        git_revwalk* walk = nullptr;
        if (git_revwalk_new(&walk, repo_) != 0) return commits;
        git_revwalk_push_glob(walk, "refs/*");
        git_oid oid;
        while (git_revwalk_next(&oid, walk) == 0) commits.insert(hex(oid));
        git_revwalk_free(walk);
        return commits;
    }

    std::optional<std::string> ref(const std::string& name) const {
        git_oid oid;
        if (git_reference_name_to_id(&oid, repo_, name.c_str()) != 0) return std::nullopt;
        return hex(oid);
    }

    // refs/autokernel/exp/<N> by N.
    std::map<long, std::string> experiment_refs() const {
        std::map<long, std::string> refs;
        git_reference_iterator* it = nullptr;
        if (git_reference_iterator_glob_new(&it, repo_, "refs/autokernel/exp/*") != 0) return refs;
        git_reference* r = nullptr;
        while (git_reference_next(&r, it) == 0) {
            const std::string name = git_reference_name(r);
            if (const git_oid* target = git_reference_target(r))
                refs[std::stol(name.substr(std::string("refs/autokernel/exp/").size()))] = hex(*target);
            git_reference_free(r);
        }
        git_reference_iterator_free(it);
        return refs;
    }

    bool set_ref(const std::string& name, const std::string& commit) {
        git_oid oid;
        git_reference* r = nullptr;
        if (git_oid_fromstr(&oid, commit.c_str()) != 0) return false;
        if (git_reference_create(&r, repo_, name.c_str(), &oid, 1, "test") != 0) return false;
        git_reference_free(r);
        return true;
    }

    bool delete_ref(const std::string& name) {
        git_reference* r = nullptr;
        if (git_reference_lookup(&r, repo_, name.c_str()) != 0) return false;
        const bool ok = git_reference_delete(r) == 0;
        git_reference_free(r);
        return ok;
    }

    bool commit_exists(const std::string& commit) const {
        git_oid oid;
        git_commit* c = nullptr;
        if (git_oid_fromstr(&oid, commit.c_str()) != 0) return false;
        if (git_commit_lookup(&c, repo_, &oid) != 0) return false;
        git_commit_free(c);
        return true;
    }

    std::string message(const std::string& commit) const {
        git_oid oid;
        git_commit* c = nullptr;
        if (git_oid_fromstr(&oid, commit.c_str()) != 0 || git_commit_lookup(&c, repo_, &oid) != 0) return "";
        std::string m = git_commit_message(c);
        git_commit_free(c);
        return m;
    }

private:
    static std::string hex(const git_oid& oid) {
        char buffer[GIT_OID_HEXSZ + 1];
        git_oid_tostr(buffer, sizeof buffer, &oid);
        return buffer;
    }
    git_repository* repo_ = nullptr;
};

// Output of `git -C <dir> <args>`, or nullopt when the git command is not installed or fails.
inline std::optional<std::string> git_cli(const std::filesystem::path& dir, const std::string& args) {
    const std::string command = "git -C '" + dir.string() + "' " + args + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string out;
    std::array<char, 4096> buffer;
    while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    if (status != 0) return std::nullopt;
    return out;
}

inline bool have_git_cli() { return std::system("git --version >/dev/null 2>&1") == 0; }

}  // namespace ak::testing
