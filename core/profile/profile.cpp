#include "profile/profile.h"

#include <array>
#include <utility>

namespace ak::profile {

namespace {

constexpr std::array<std::pair<SourceKind, std::string_view>, 3> kSourceKinds{{
    {SourceKind::BuiltinModel, "builtin"},
    {SourceKind::TorchScript, "torchscript"},
    {SourceKind::Command, "command"},
}};

constexpr std::array<std::pair<MemoryKind, std::string_view>, 5> kMemoryKinds{{
    {MemoryKind::MemcpyHtoD, "memcpy_htod"},
    {MemoryKind::MemcpyDtoH, "memcpy_dtoh"},
    {MemoryKind::MemcpyDtoD, "memcpy_dtod"},
    {MemoryKind::MemcpyOther, "memcpy"},
    {MemoryKind::Memset, "memset"},
}};

template <class Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
    for (const auto& [v, name] : table)
        if (v == value) return name;
    return "?";
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& table, std::string_view s) {
    for (const auto& [v, name] : table)
        if (name == s) return v;
    return std::nullopt;
}

}  // namespace

std::string_view to_string(SourceKind k) { return name_of(kSourceKinds, k); }
std::optional<SourceKind> parse_source_kind(std::string_view s) { return value_of(kSourceKinds, s); }
std::string_view to_string(MemoryKind k) { return name_of(kMemoryKinds, k); }
std::optional<MemoryKind> parse_memory_kind(std::string_view s) { return value_of(kMemoryKinds, s); }

}  // namespace ak::profile
