#include "session/session_ceilings.h"

#include "engine/evaluation_protocol.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <exception>

namespace ak {

std::filesystem::path session_ceilings_path(const std::filesystem::path& session_dir) {
    return session_dir / "ceilings.json";
}

std::optional<MeasuredCeilings> read_session_ceilings(const std::filesystem::path& session_dir) {
    const auto path = session_ceilings_path(session_dir);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    const std::string text = read_file(path);
    try {
        return decode_ceilings(text);
    } catch (const Error& e) {
        throw Error(e.kind(), path.string() + ": " + e.what());
    } catch (const std::exception& e) {
        throw Error(ErrorKind::BadFormat, path.string() + ": " + e.what());
    }
}

}  // namespace ak
