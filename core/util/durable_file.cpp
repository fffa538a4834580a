#include "util/durable_file.h"

#include "util/error.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ak {
namespace {

namespace fs = std::filesystem;

bool is_permission_error(int err) { return err == EACCES || err == EPERM || err == EROFS; }

[[noreturn]] void throw_errno(int err, const std::string& what, const fs::path& path) {
    const std::string message = what + " " + path.string() + ": " + std::strerror(err);
    if (is_permission_error(err)) throw Error(ErrorKind::ReadOnly, message);
    if (err == ENOENT) throw Error(ErrorKind::NotFound, message);
    throw Error(ErrorKind::Io, message);
}

// Closes the descriptor when leaving scope (error paths included).
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }
    // Closes now and reports the error (close can report a deferred write error).
    int close_checked() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc == 0 ? 0 : errno;
    }

private:
    int fd_;
};

void write_all(int fd, std::string_view bytes, const fs::path& path) {
    const char* data = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t written = ::write(fd, data, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            throw_errno(errno, "cannot write", path);
        }
        data += written;
        left -= static_cast<std::size_t>(written);
    }
}

void fsync_or_throw(int fd, const fs::path& path) {
    while (::fsync(fd) != 0) {
        if (errno != EINTR) throw_errno(errno, "cannot fsync", path);
    }
}

fs::path directory_of(const fs::path& path) {
    const fs::path parent = path.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

void fsync_directory(const fs::path& dir) {
    FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) throw_errno(errno, "cannot open directory", dir);
    fsync_or_throw(fd.get(), dir);
}

}  // namespace

void append_durably(const fs::path& path, std::string_view bytes) {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    bool created = false;
    if (fd < 0 && errno == ENOENT) {
        fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        created = fd >= 0;
        if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    }
    if (fd < 0) {
        if (errno == ENOENT)
            throw Error(ErrorKind::Io, "cannot append to " + path.string() + ": its folder does not exist");
        throw_errno(errno, "cannot open for appending", path);
    }
    FileDescriptor file(fd);
    write_all(file.get(), bytes, path);
    fsync_or_throw(file.get(), path);
    if (const int err = file.close_checked()) throw_errno(err, "cannot close", path);
    if (created) fsync_directory(directory_of(path));
}

void replace_durably(const fs::path& path, std::string_view bytes) {
    static std::atomic<unsigned> counter{0};
    const fs::path dir = directory_of(path);
    // Hidden and named after its target, so a leftover from a crash is easy to recognise.
    const fs::path temporary = dir / ("." + path.filename().string() + ".ak-tmp-" + std::to_string(::getpid()) +
                                      "-" + std::to_string(counter++));
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno(errno, "cannot create", temporary);
    try {
        FileDescriptor file(fd);
        write_all(file.get(), bytes, temporary);
        fsync_or_throw(file.get(), temporary);
        if (const int err = file.close_checked()) throw_errno(err, "cannot close", temporary);
        if (::rename(temporary.c_str(), path.c_str()) != 0) throw_errno(errno, "cannot rename a file over", path);
    } catch (...) {
        ::unlink(temporary.c_str());
        throw;
    }
    fsync_directory(dir);
}

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a regular file";
}

}  // namespace

std::optional<std::string> not_a_regular_file(const fs::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return std::nullopt;
    return std::string(kind_of(info.st_mode));
}

std::string read_file_from(const fs::path& path, std::uintmax_t offset, std::uintmax_t max_bytes) {
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
    FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (file.get() < 0) {
        const int err = errno;
        if (err == ENOENT) throw Error(ErrorKind::NotFound, "file not found: " + path.string());
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(err));
    }
    struct stat info {};
    if (::fstat(file.get(), &info) != 0)
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    if (!S_ISREG(info.st_mode))
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": it is " + kind_of(info.st_mode) +
                                       ", not a regular file");
    const auto size = static_cast<std::uintmax_t>(info.st_size);
    if (size > offset && size - offset > max_bytes)
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": it is " + std::to_string(size) +
                                       " bytes, more than the " + std::to_string(max_bytes) + " this reads");
    if (offset > 0 && ::lseek(file.get(), static_cast<off_t>(offset), SEEK_SET) < 0)
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    std::string content;
    if (size > offset) content.reserve(static_cast<std::size_t>(size - offset));
    char buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(file.get(), buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
        }
        if (n == 0) break;
        if (content.size() + static_cast<std::size_t>(n) > max_bytes)  // it grew while being read
            throw Error(ErrorKind::Io, "cannot read " + path.string() + ": it is more than the " +
                                           std::to_string(max_bytes) + " bytes this reads");
        content.append(buffer, static_cast<std::size_t>(n));
    }
    return content;
}

std::string read_file(const fs::path& path, std::uintmax_t max_bytes) { return read_file_from(path, 0, max_bytes); }

bool directory_writable(const fs::path& dir) {
    static std::atomic<unsigned> counter{0};
    const fs::path probe =
        dir / (".ak-write-probe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    ::close(fd);
    ::unlink(probe.c_str());
    return true;
}

}  // namespace ak
