#include "engine/evaluator/loaded_libraries.h"

#include <link.h>

#include <array>
#include <string_view>

namespace ak::eval {

namespace {

constexpr std::array<const char*, 7> kRoles = {"libcuda",   "libnvrtc", "libcudart",    "libcublasLt",
                                               "libcublas", "libcudnn", "libtorch_cuda"};

int collect(struct dl_phdr_info* info, size_t, void* data) {
    auto* out = static_cast<std::vector<LoadedLibrary>*>(data);
    if (!info->dlpi_name || !*info->dlpi_name) return 0;
    const std::string path = info->dlpi_name;
    const auto slash = path.rfind('/');
    const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    for (const char* role : kRoles) {
        if (library_has_role(file, role)) {
            out->push_back({role, path});
            break;
        }
    }
    return 0;
}

}  // namespace

bool library_has_role(const std::string& file, const std::string& role) {
    if (file.rfind(role, 0) != 0) return false;
    // The role must be followed by ".so" or a '-' / '.' version part, not by more name ("libcublasLt",
    // "libcudart_static", "libnvrtc-builtins").
    const std::string_view rest = std::string_view(file).substr(role.size());
    if (rest.rfind(".so", 0) == 0) return true;
    return false;
}

std::vector<LoadedLibrary> loaded_cuda_libraries() {
    std::vector<LoadedLibrary> out;
    dl_iterate_phdr(collect, &out);
    return out;
}

std::string describe_loaded_libraries(const std::vector<LoadedLibrary>& libraries) {
    if (libraries.empty()) return "none";
    std::string out;
    for (const auto& l : libraries) {
        if (!out.empty()) out += "; ";
        out += l.role + "=" + l.path;
    }
    return out;
}

}  // namespace ak::eval
