#pragma once
// The poison written into every output before every launch (checked or timed): a NaN of the output's
// element type with a random payload and sign, drawn afresh for each launch. An element the candidate
// does not write stays exactly that pattern (and NaN never passes a comparison), and because checked and
// timed launches are poisoned alike, with values no reference produces, a candidate cannot tell from its
// output buffer whether this launch will be looked at. Pure C++ (no LibTorch): CPU-tested.
#include <cstdint>
#include <random>

namespace ak::eval {

// The element formats outputs come in.
enum class PoisonFormat { Half, BFloat16, Float };

struct PoisonPattern {
    PoisonFormat format = PoisonFormat::Float;
    std::uint32_t bits = 0;  // the element's bit pattern (low 16 bits for Half and BFloat16)
    int element_bytes() const { return format == PoisonFormat::Float ? 4 : 2; }
};

// True when `bits` (of `format`) encode a NaN.
bool is_nan_bits(PoisonFormat format, std::uint32_t bits);

// Draws poison patterns: NaN with a uniformly random non-zero payload and a random sign, never the same
// pattern twice in a row and never the all-ones pattern that a fixed 0xFF poison would leave.
class PoisonSource {
public:
    explicit PoisonSource(std::uint64_t seed) : rng_(seed) {}
    PoisonPattern next(PoisonFormat format);

private:
    std::mt19937_64 rng_;
    std::uint32_t last_ = 0;
};

}  // namespace ak::eval
