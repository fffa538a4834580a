#include "util/utf8.h"

namespace ak {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t size = text.size();
    std::size_t i = 0;
    while (i < size) {
        const unsigned char lead = bytes[i];
        if (lead < 0x80) {
            ++i;
            continue;
        }
        // Number of continuation bytes and the smallest code point that needs this length
        // (anything smaller is an overlong form).
        std::size_t continuation = 0;
        char32_t code_point = 0;
        char32_t minimum = 0;
        if ((lead & 0xE0) == 0xC0) {
            continuation = 1;
            code_point = lead & 0x1F;
            minimum = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            continuation = 2;
            code_point = lead & 0x0F;
            minimum = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            continuation = 3;
            code_point = lead & 0x07;
            minimum = 0x10000;
        } else {
            return i;  // a continuation byte without a lead byte, or 0xF8..0xFF
        }
        if (size - i <= continuation) return i;  // truncated sequence
        for (std::size_t k = 1; k <= continuation; ++k) {
            const unsigned char next = bytes[i + k];
            if ((next & 0xC0) != 0x80) return i;
            code_point = (code_point << 6) | (next & 0x3F);
        }
        if (code_point < minimum) return i;                             // overlong
        if (code_point >= 0xD800 && code_point <= 0xDFFF) return i;     // UTF-16 surrogate
        if (code_point > 0x10FFFF) return i;                            // beyond Unicode
        i += continuation + 1;
    }
    return std::nullopt;
}

}  // namespace ak
