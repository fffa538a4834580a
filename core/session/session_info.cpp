#include "session/session_info.h"

#include "util/error.h"

#include <nlohmann/json.hpp>

namespace ak {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& origin, const std::string& what) {
    throw Error(ErrorKind::BadFormat, origin + ": " + what);
}

const char* type_name(const json& value) { return value.type_name(); }

// Reads an optional string member; a member of another type is an error naming it.
void read_string(const json& object, const char* key, std::string& out, const std::string& origin,
                 const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return;
    if (!it->is_string())
        bad(origin, "field '" + where + key + "' must be a string, found " + type_name(*it));
    out = it->get<std::string>();
}

void read_number(const json& object, const char* key, double& out, const std::string& origin,
                 const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return;
    if (!it->is_number()) bad(origin, "field '" + where + key + "' must be a number, found " + type_name(*it));
    out = it->get<double>();
}

bool valid_kernel_name(const std::string& name) {
    if (name.empty() || name == "." || name == "..") return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

}  // namespace

SessionInfo parse_session_info(const std::string& json_text, const std::string& origin) {
    json root;
    try {
        root = json::parse(json_text);
    } catch (const json::parse_error& e) {
        bad(origin, std::string("not valid JSON (") + e.what() + ")");
    }
    if (!root.is_object()) bad(origin, std::string("expected a JSON object, found ") + type_name(root));

    SessionInfo info;
    if (const auto it = root.find("format_version"); it != root.end()) {
        if (!it->is_number_integer())
            bad(origin, std::string("field 'format_version' must be an integer, found ") + type_name(*it));
        info.format_version = it->get<int>();
        if (info.format_version != 1)
            bad(origin, "format_version " + std::to_string(info.format_version) +
                            " is not supported (this build reads version 1)");
    }
    read_string(root, "name", info.name, origin, "");
    read_string(root, "created_utc", info.created_utc, origin, "");
    read_string(root, "gpu", info.gpu, origin, "");
    read_string(root, "gpu_compute_capability", info.gpu_compute_capability, origin, "");
    read_string(root, "cuda_version", info.cuda_version, origin, "");
    read_string(root, "libtorch_version", info.libtorch_version, origin, "");
    read_string(root, "branch", info.branch, origin, "");
    if (info.branch.empty()) bad(origin, "field 'branch' must not be empty");

    if (const auto it = root.find("kernels"); it != root.end() && !it->is_null()) {
        if (!it->is_array()) bad(origin, std::string("field 'kernels' must be an array, found ") + type_name(*it));
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& item = (*it)[i];
            const std::string where = "kernels[" + std::to_string(i) + "].";
            if (!item.is_object())
                bad(origin, "field 'kernels[" + std::to_string(i) + "]' must be an object, found " + type_name(item));
            KernelEntry kernel;
            read_string(item, "name", kernel.name, origin, where);
            read_string(item, "type", kernel.type, origin, where);
            read_string(item, "shapes", kernel.shapes, origin, where);
            read_number(item, "model_fraction", kernel.model_fraction, origin, where);
            if (!valid_kernel_name(kernel.name))
                bad(origin, "field '" + where + "name' must be a file name of letters, digits, '_', '-' or '.', "
                                                "found '" + kernel.name + "'");
            info.kernels.push_back(std::move(kernel));
        }
    }
    if (const auto it = root.find("profile"); it != root.end() && !it->is_null()) {
        if (!it->is_object()) bad(origin, std::string("field 'profile' must be an object, found ") + type_name(*it));
        ProfileOrigin p;
        read_string(*it, "file", p.file, origin, "profile.");
        read_string(*it, "kind", p.kind, origin, "profile.");
        read_string(*it, "model", p.model, origin, "profile.");
        read_string(*it, "options", p.options, origin, "profile.");
        read_string(*it, "gpu", p.gpu, origin, "profile.");
        read_string(*it, "recorded_utc", p.recorded_utc, origin, "profile.");
        read_number(*it, "gpu_time_us_per_iteration", p.gpu_time_us_per_iteration, origin, "profile.");
        info.profile = std::move(p);
    }
    return info;
}

std::string format_session_info(const SessionInfo& info) {
    // ordered_json keeps the fields in this order, which reads better than alphabetical.
    nlohmann::ordered_json root;
    root["format_version"] = info.format_version;
    root["name"] = info.name;
    root["created_utc"] = info.created_utc;
    root["gpu"] = info.gpu;
    root["gpu_compute_capability"] = info.gpu_compute_capability;
    root["cuda_version"] = info.cuda_version;
    root["libtorch_version"] = info.libtorch_version;
    root["branch"] = info.branch;
    root["kernels"] = nlohmann::ordered_json::array();
    for (const KernelEntry& k : info.kernels) {
        nlohmann::ordered_json entry;
        entry["name"] = k.name;
        entry["type"] = k.type;
        entry["shapes"] = k.shapes;
        entry["model_fraction"] = k.model_fraction;
        root["kernels"].push_back(std::move(entry));
    }
    if (info.profile) {
        const ProfileOrigin& p = *info.profile;
        nlohmann::ordered_json profile;
        profile["file"] = p.file;
        profile["kind"] = p.kind;
        profile["model"] = p.model;
        profile["options"] = p.options;
        profile["gpu"] = p.gpu;
        profile["recorded_utc"] = p.recorded_utc;
        profile["gpu_time_us_per_iteration"] = p.gpu_time_us_per_iteration;
        root["profile"] = std::move(profile);
    }
    try {
        return root.dump(2) + "\n";
    } catch (const nlohmann::json::type_error& e) {
        throw Error(ErrorKind::BadEncoding, std::string("session.json: a text field is not valid UTF-8 (") + e.what() +
                                                ")");
    }
}

}  // namespace ak
