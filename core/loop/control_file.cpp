#include "loop/control_file.h"

#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ak {

namespace fs = std::filesystem;

fs::path control_file_path(const fs::path& session_dir) { return session_dir / ".autokernel-control"; }

std::optional<LoopCommand> parse_control_line(std::string_view line, std::string* error) {
    if (error) error->clear();
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') return std::nullopt;
    std::vector<std::string_view> words;
    for (std::string_view w : split(text, ' '))
        if (!trim(w).empty()) words.push_back(trim(w));
    const std::string_view verb = words.front();
    const auto fail = [&](const std::string& why) -> std::optional<LoopCommand> {
        if (error) *error = "'" + std::string(text) + "': " + why;
        return std::nullopt;
    };
    const bool has_argument = words.size() > 1;
    if (words.size() > 2) return fail("too many words");
    if (verb == "branch-from") {
        if (!has_argument) return fail("branch-from needs an experiment number");
        const auto n = parse_int(words[1]);
        if (!n || *n < 0 || *n > 1'000'000'000) return fail("'" + std::string(words[1]) + "' is not an experiment number");
        return command::BranchFrom{static_cast<int>(*n)};
    }
    if (verb == "threshold") {
        if (!has_argument) return fail("threshold needs a fraction, e.g. 0.02");
        const auto f = parse_double(words[1]);
        if (!f || *f < 0 || *f >= 1) return fail("the threshold is a fraction from 0 to below 1, e.g. 0.02 for 2%");
        command::Steer steer;
        steer.keep_threshold = *f;
        return steer;
    }
    if (has_argument) return fail(std::string(verb) + " takes no argument");
    if (verb == "pause") return command::Pause{};
    if (verb == "resume") return command::Resume{};
    if (verb == "step") return command::Step{};
    if (verb == "stop") return command::Stop{};
    if (verb == "force-keep") return command::ForceKeep{};
    if (verb == "force-revert") return command::ForceRevert{};
    return fail("unknown command (use pause, resume, step, stop, force-keep, force-revert, branch-from N or threshold F)");
}

void append_control_line(const fs::path& session_dir, std::string_view line) {
    std::string error;
    if (!parse_control_line(line, &error))
        throw Error(ErrorKind::Usage, error.empty() ? std::string("an empty control command") : error);
    append_durably(control_file_path(session_dir), std::string(trim(line)) + "\n");
}

std::vector<LoopCommand> take_control_commands(const fs::path& session_dir, std::vector<std::string>* errors) {
    const fs::path path = control_file_path(session_dir);
    const fs::path taken = session_dir / (".autokernel-control.taken-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::rename(path, taken, ec);
    if (ec) return {};  // no file: nothing was sent
    std::string text;
    try {
        text = read_file(taken);
    } catch (const Error& e) {
        if (errors) errors->push_back(e.what());
    }
    fs::remove(taken, ec);
    std::vector<LoopCommand> out;
    for (std::string_view line : split(text, '\n')) {
        std::string error;
        if (auto c = parse_control_line(line, &error)) out.push_back(std::move(*c));
        else if (!error.empty() && errors) errors->push_back("control file: " + error);
    }
    return out;
}

bool session_has_writer(const fs::path& session_dir) {
    // The lock Session::open takes (session/session.h): flock on .git/autokernel-writer.lock.
    const fs::path lock = session_dir / ".git" / "autokernel-writer.lock";
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;  // never opened for writing
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

}  // namespace ak
