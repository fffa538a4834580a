#include "session/bundled_session.h"

#include "util/error.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

namespace ak {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStoredGitDir = "dot-git";

// FNV-1a over the relative paths and sizes: a new bundle (another recording) gets a new cache folder.
std::string bundle_fingerprint(const fs::path& bundle) {
    std::vector<std::string> entries;
    for (const auto& e : fs::recursive_directory_iterator(bundle)) {
        if (!e.is_regular_file()) continue;
        entries.push_back(fs::relative(e.path(), bundle).generic_string() + ":" + std::to_string(e.file_size()));
    }
    std::sort(entries.begin(), entries.end());
    std::uint64_t h = 1469598103934665603ull;
    for (const std::string& s : entries)
        for (const unsigned char c : s + "\n") h = (h ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

// git does not track empty folders, so a bundle from a clone lacks the ones a repository needs (its refs
// are all in packed-refs). Recreates them in the copy `session`.
void add_untracked_git_folders(const fs::path& session) {
    for (const char* needed : {".git/refs/heads", ".git/refs/tags", ".git/objects/pack", ".git/objects/info"}) {
        std::error_code ec;
        fs::create_directories(session / needed, ec);
        if (ec) throw Error(ErrorKind::Io, "cannot create " + (session / needed).string() + ": " + ec.message());
    }
}

}  // namespace

bool is_bundled_session(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "session.json", ec) && fs::is_directory(dir / kStoredGitDir, ec);
}

fs::path materialize_bundled_session(const fs::path& bundle, const fs::path& cache_root) {
    if (!is_bundled_session(bundle))
        throw Error(ErrorKind::NotFound, "not a bundled session (no session.json and " + std::string(kStoredGitDir) +
                                             " folder): " + bundle.string());
    const fs::path target = cache_root / (bundle.filename().string() + "-" + bundle_fingerprint(bundle));
    std::error_code ec;
    if (fs::is_directory(target / ".git", ec) && fs::is_regular_file(target / "session.json", ec)) {
        add_untracked_git_folders(target);  // a copy made before this step existed may lack them
        return target;
    }

    // Copy beside the target and rename into place, so a copy cut short is never taken for a whole one.
    const fs::path staging = target.string() + ".partial";
    fs::remove_all(staging, ec);
    fs::create_directories(staging, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create " + staging.string() + ": " + ec.message());
    for (const auto& entry : fs::directory_iterator(bundle)) {
        const std::string name = entry.path().filename().string();
        const fs::path to = staging / (name == kStoredGitDir ? ".git" : name);
        fs::copy(entry.path(), to, fs::copy_options::recursive, ec);
        if (ec) throw Error(ErrorKind::Io, "cannot copy " + entry.path().string() + " to " + to.string() + ": " + ec.message());
    }
    add_untracked_git_folders(staging);
    fs::rename(staging, target, ec);
    if (ec) {
        fs::remove_all(staging, ec);
        if (!fs::is_directory(target / ".git")) throw Error(ErrorKind::Io, "cannot move the demo session into " + target.string());
    }
    return target;
}

}  // namespace ak
