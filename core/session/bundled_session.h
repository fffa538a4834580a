#pragma once
// A session shipped inside this repository (resources/demo-session). A git repository cannot be
// committed inside another one, so the bundle stores its `.git` folder as `dot-git`. Before a bundle is
// opened it is copied once to a writable cache folder with `dot-git` renamed back to `.git`.
#include <filesystem>

namespace ak {

// True if `dir` is a bundled session (session.json and a dot-git folder).
bool is_bundled_session(const std::filesystem::path& dir);

// Copies the bundle to <cache_root>/<bundle folder name>-<hash of its files' sizes and times> unless that
// copy exists, and returns the copy (an ordinary session). Throws Error(NotFound) when `bundle` is not a
// bundled session, Error(Io) naming the path when copying fails.
std::filesystem::path materialize_bundled_session(const std::filesystem::path& bundle,
                                                  const std::filesystem::path& cache_root);

}  // namespace ak
