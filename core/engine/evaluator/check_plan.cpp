#include "engine/evaluator/check_plan.h"

#include "util/error.h"

#include <algorithm>
#include <random>

namespace ak::eval {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Size of a shape for picking "the largest": the product of its dims, ignoring attention's causal flag.
double shape_size(KernelType type, const Shape& s) {
    double n = 1;
    const std::size_t dims = type == KernelType::FlashAttention && s.dims.size() == 5 ? 4 : s.dims.size();
    for (std::size_t i = 0; i < dims; ++i) n *= double(s.dims[i]);
    return n;
}

void add(std::vector<CheckCase>& out, CheckStage stage, const Shape& shape, DType dtype, bool adversarial, int runs,
         int& index, std::uint64_t base) {
    CheckCase c;
    c.stage = stage;
    c.shape = shape;
    c.dtype = dtype;
    c.adversarial = adversarial;
    c.runs = runs;
    c.index = index++;
    c.seed = case_seed(base, stage, c.index);
    out.push_back(std::move(c));
}

}  // namespace

std::uint64_t case_seed(std::uint64_t base, CheckStage stage, int index) {
    const std::uint64_t s = splitmix64(splitmix64(base) ^ (std::uint64_t(stage) + 1) * 0x100000001B3ull ^
                                       (std::uint64_t(std::uint32_t(index)) << 20));
    return s == 0 ? 1 : s;
}

std::uint64_t random_seed() {
    std::random_device rd;
    std::uint64_t s = (std::uint64_t(rd()) << 32) ^ rd();
    s = splitmix64(s);
    return s == 0 ? 1 : s;
}

std::vector<CheckCase> plan_checks(const CheckPlanInput& in) {
    if (in.dtypes.empty()) throw Error(ErrorKind::Usage, "no correctness dtype requested");
    for (DType d : in.dtypes)
        if (!is_kernel_dtype(d))
            throw Error(ErrorKind::Usage, "kernels are checked in fp16, bf16 and fp32, not " + std::string(to_string(d)));
    const KernelTypeInfo& info = kernel_type_info(in.type);
    const std::vector<Shape>& shapes = in.correctness_shapes.empty() ? info.sweep : in.correctness_shapes;
    std::vector<CheckCase> out;

    int index = 0;
    for (DType d : in.dtypes) add(out, CheckStage::Smoke, info.smoke, d, false, 1, index, in.seed);

    index = 0;
    for (const Shape& s : shapes)
        for (DType d : in.dtypes) add(out, CheckStage::Sweep, s, d, false, 1, index, in.seed);
    for (const Shape& s : in.timing_shapes) {
        const bool already = std::any_of(out.begin(), out.end(), [&](const CheckCase& c) {
            return c.stage == CheckStage::Sweep && c.shape == s && c.dtype == in.timing_dtype;
        });
        if (!already) add(out, CheckStage::Sweep, s, in.timing_dtype, false, 1, index, in.seed);
    }

    index = 0;
    for (std::size_t i = 0; i < shapes.size() && i < 2; ++i)
        for (DType d : in.dtypes) add(out, CheckStage::Adversarial, shapes[i], d, true, 1, index, in.seed);

    auto larger = [&](const Shape& a, const Shape& b) { return shape_size(in.type, a) < shape_size(in.type, b); };
    index = 0;
    auto add_determinism = [&](const Shape& s, DType d) {
        const bool already = std::any_of(out.begin(), out.end(), [&](const CheckCase& c) {
            return c.stage == CheckStage::Determinism && c.shape == s && c.dtype == d;
        });
        if (!already) add(out, CheckStage::Determinism, s, d, false, 3, index, in.seed);
    };
    if (!shapes.empty()) {
        const auto largest = std::max_element(shapes.begin(), shapes.end(), larger);
        for (DType d : in.dtypes) add_determinism(*largest, d);
    }
    add_determinism(info.smoke, in.timing_dtype);
    if (!in.timing_shapes.empty())
        add_determinism(*std::max_element(in.timing_shapes.begin(), in.timing_shapes.end(), larger), in.timing_dtype);

    index = 0;
    for (const Shape& s : info.edge)
        for (DType d : in.dtypes) add(out, CheckStage::Edge, s, d, false, 1, index, in.seed);
    return out;
}

std::vector<CheckCase> plan_reference_checks(const CheckPlanInput& in) {
    if (!is_kernel_dtype(in.timing_dtype))
        throw Error(ErrorKind::Usage, "kernels are checked in fp16, bf16 and fp32, not " + std::string(to_string(in.timing_dtype)));
    const KernelTypeInfo& info = kernel_type_info(in.type);
    std::vector<CheckCase> out;
    int index = 0;
    add(out, CheckStage::Smoke, info.smoke, in.timing_dtype, false, 1, index, in.seed);
    index = 0;
    for (const Shape& s : in.timing_shapes) {
        const bool already = std::any_of(out.begin(), out.end(), [&](const CheckCase& c) { return c.shape == s; });
        if (!already) add(out, CheckStage::Sweep, s, in.timing_dtype, false, 1, index, in.seed);
    }
    return out;
}

std::string index_text(std::int64_t flat, const std::vector<std::int64_t>& shape) {
    if (shape.empty()) return "[" + std::to_string(flat) + "]";
    std::vector<std::int64_t> idx(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        const std::int64_t extent = std::max<std::int64_t>(shape[k], 1);
        idx[k] = flat % extent;
        flat /= extent;
    }
    std::string out = "[";
    for (std::size_t k = 0; k < idx.size(); ++k) {
        if (k) out += ", ";
        out += std::to_string(idx[k]);
    }
    return out + "]";
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

}  // namespace ak::eval
