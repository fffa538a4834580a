#include "engine/evaluator/poison.h"

namespace ak::eval {

namespace {

struct Layout {
    std::uint32_t exponent_mask;  // all exponent bits set: Inf or NaN
    std::uint32_t mantissa_mask;  // non-zero mantissa under that exponent: NaN
    std::uint32_t sign_bit;
};

Layout layout(PoisonFormat f) {
    switch (f) {
    case PoisonFormat::Half: return {0x7C00u, 0x03FFu, 0x8000u};
    case PoisonFormat::BFloat16: return {0x7F80u, 0x007Fu, 0x8000u};
    case PoisonFormat::Float: break;
    }
    return {0x7F800000u, 0x007FFFFFu, 0x80000000u};
}

}  // namespace

bool is_nan_bits(PoisonFormat format, std::uint32_t bits) {
    const Layout l = layout(format);
    return (bits & l.exponent_mask) == l.exponent_mask && (bits & l.mantissa_mask) != 0;
}

PoisonPattern PoisonSource::next(PoisonFormat format) {
    const Layout l = layout(format);
    const std::uint32_t all_ones = l.sign_bit | l.exponent_mask | l.mantissa_mask;
    PoisonPattern p;
    p.format = format;
    for (;;) {
        const std::uint64_t r = rng_();
        const std::uint32_t mantissa = std::uint32_t(r) & l.mantissa_mask;
        const std::uint32_t sign = (r >> 40) & 1 ? l.sign_bit : 0u;
        if (mantissa == 0) continue;  // that would be Inf
        p.bits = sign | l.exponent_mask | mantissa;
        if (p.bits == all_ones || p.bits == last_) continue;
        last_ = p.bits;
        return p;
    }
}

}  // namespace ak::eval
