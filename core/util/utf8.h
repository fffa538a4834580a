#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ak {
// Byte offset of the first invalid UTF-8 sequence, or nullopt if `text` is valid UTF-8
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::optional<std::size_t> first_invalid_utf8(std::string_view text);
inline bool is_valid_utf8(std::string_view text) { return !first_invalid_utf8(text).has_value(); }
}  // namespace ak
