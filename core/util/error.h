#pragma once
// One exception type for every user-facing failure in core. The message names the problem
// (which file, which line, which column, which commit) so the CLI can print it as is and the
// GUI can show it in a dialog.
#include <stdexcept>
#include <string>

namespace ak {

enum class ErrorKind {
    NotASession,      // folder exists but is not a session (no session.json / not a git repo)
    NotFound,         // file, folder, commit or experiment does not exist
    BadFormat,        // results.tsv / session.json / trailers malformed
    BadEncoding,      // text is not valid UTF-8
    ReadOnly,         // session cannot be written
    Empty,            // session has no experiments
    Io,               // other I/O failure
    Git,              // libgit2 failure
    Gpu,              // no GPU, no driver, CUDA error
    Compile,          // NVRTC failure
    Usage,            // bad command-line usage
    Internal,
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

}  // namespace ak
