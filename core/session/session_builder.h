#pragma once
// Builds a new session from many experiments at once (an AutoKernel import of millions of rows).
//
// Session::record() makes every experiment durable on its own (objects, ref and row each fsync'd),
// about 5 ms an experiment. A builder writes the same session in chunks instead: a chunk's objects
// become one pack file (one fsync), its rows one append (one fsync); the experiment refs (packed)
// and the branch are written by finish(). It builds in a hidden folder beside the final one
// (".<name>.importing") and renames it into place when complete, so a killed build leaves no
// half-session under the final name, and the next builder with the same `origin` continues where
// the last durable chunk ended. Memory does not grow with the number of experiments.
#include "session/session.h"

#include <filesystem>
#include <memory>
#include <string>

namespace ak {

class SessionBuilder {
public:
    // `final_dir` must not exist or be an empty folder. `origin` says what is being built (the
    // import's input); a stopped build is continued only for the same origin, else Error(Io) says
    // how to discard it.
    SessionBuilder(const std::filesystem::path& final_dir, SessionInfo info, const std::string& origin);
    ~SessionBuilder();
    SessionBuilder(const SessionBuilder&) = delete;
    SessionBuilder& operator=(const SessionBuilder&) = delete;

    // Where the build happens until finish().
    static std::filesystem::path staging_for(const std::filesystem::path& final_dir);

    // Experiments already durable (a continued build starts past 0): the caller skips that many.
    std::size_t done() const;

    // Adds the next experiment (as Session::record() would, parent = the branch tip).
    void add(const NewExperiment& experiment);
    // Makes every added experiment durable (called every chunk by add(), and by finish()).
    void flush();
    // Writes refs, branch, work tree and index, and renames the folder into place. Returns the number
    // of experiments.
    std::size_t finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ak
