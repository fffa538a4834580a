#pragma once
// SHA-256 (FIPS 180-4), used to key the NVRTC cubin cache.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ak {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    // Finishes and returns the digest; the object must not be updated afterwards.
    std::array<std::uint8_t, 32> digest();
    // Lowercase hex of digest().
    std::string hex_digest();

private:
    void compress(const std::uint8_t* block);
    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

// Lowercase hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace ak
