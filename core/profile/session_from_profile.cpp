#include "profile/session_from_profile.h"

#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace ak::profile {
namespace {

bool same_family(KernelType type, const Shape& lead, const Shape& s) {
    if (lead.dims.size() != s.dims.size()) return false;
    const std::size_t sized = type == KernelType::FlashAttention ? 4 : s.dims.size();
    for (std::size_t i = 0; i < sized; ++i) {
        const double a = double(lead.dims[i]), b = double(s.dims[i]);
        if (std::max(a, b) > 2.0 * std::min(a, b)) return false;
    }
    return type != KernelType::FlashAttention || lead.dims[4] == s.dims[4];
}

// A kernel file name from a shape: "2048x50257x768", flash "2x32x1024x64_causal".
std::string shape_name(const Shape& s) {
    std::string out = to_string(s);
    std::replace(out.begin(), out.end(), ' ', '_');
    return out;
}

struct Family {
    std::vector<std::pair<Shape, std::uint64_t>> shapes;  // by time, largest first (after sorting)
    std::uint64_t total_ns = 0;
    std::string dtype;
};

}  // namespace

bool is_backward_op(std::string_view op) { return op.find("_backward") != std::string_view::npos; }

KernelEntry ProfileKernel::entry() const {
    KernelEntry e;
    e.name = name;
    e.type = std::string(to_string(type));
    for (const Shape& s : shapes) e.shapes += (e.shapes.empty() ? "" : ",") + to_string(s);
    e.model_fraction = share;
    return e;
}

std::vector<ProfileKernel> candidate_kernels(const Breakdown& b, std::size_t max_shapes) {
    const double denominator = double(b.timeline.activity_sum_ns);
    std::vector<ProfileKernel> out;
    if (denominator <= 0) return out;
    for (const KernelType type : all_kernel_types()) {
        // time per distinct mapped shape, and the time without a shape
        std::map<std::vector<std::int64_t>, std::pair<std::uint64_t, std::string>> by_shape;
        std::uint64_t shapeless_ns = 0, backward_ns = 0;
        for (const BreakdownGroup* g : groups_of(b, type)) {
            if (g->type_shape) {
                auto& [ns, dtype] = by_shape[g->type_shape->dims];
                ns += g->total_ns;
                if (dtype.empty()) dtype = g->dtype;
            } else if (is_backward_op(g->op)) {
                backward_ns += g->total_ns;
            } else {
                shapeless_ns += g->total_ns;
            }
        }
        if (by_shape.empty() && shapeless_ns == 0) continue;  // nothing a forward kernel replaces
        std::vector<std::tuple<std::uint64_t, Shape, std::string>> shapes;
        for (auto& [dims, v] : by_shape) shapes.emplace_back(v.first, Shape{dims}, v.second);
        std::sort(shapes.begin(), shapes.end(), [](const auto& x, const auto& y) {
            if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) > std::get<0>(y);
            return std::get<1>(x).dims < std::get<1>(y).dims;
        });
        std::vector<Family> families;
        for (auto& [ns, shape, dtype] : shapes) {
            Family* home = nullptr;
            for (Family& f : families)
                if (same_family(type, f.shapes.front().first, shape)) {
                    home = &f;
                    break;
                }
            if (!home) {
                families.emplace_back();
                home = &families.back();
                home->dtype = dtype;
            }
            home->shapes.emplace_back(shape, ns);
            home->total_ns += ns;
        }
        if (families.empty()) families.emplace_back();  // only shape-less time: the type's default sizes
        families.front().total_ns += shapeless_ns;

        for (const Family& f : families) {
            ProfileKernel k;
            k.type = type;
            k.share = std::clamp(double(f.total_ns) / denominator, 0.0, 1.0);
            if (&f == &families.front()) k.backward_share = double(backward_ns) / denominator;
            k.dtype = f.dtype;
            for (const auto& [shape, ns] : f.shapes) {
                if (k.shapes.size() == max_shapes) break;
                if (!k.shapes.empty() && double(ns) < 0.05 * double(f.total_ns)) break;
                k.shapes.push_back(shape);
                k.shape_shares.push_back(double(ns) / denominator);
            }
            k.name = std::string(to_string(type));
            if (families.size() > 1 && !k.shapes.empty()) k.name += "_" + shape_name(k.shapes.front());
            out.push_back(std::move(k));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const ProfileKernel& x, const ProfileKernel& y) { return x.share > y.share; });
    return out;
}

std::vector<ProfileKernel> choose_kernels(const Breakdown& b, const FromProfileOptions& options) {
    if (!(options.min_share >= 0 && options.min_share <= 1))
        throw Error(ErrorKind::Usage, "the minimum share " + format_double(options.min_share) +
                                          " is not between 0 and 1 (0.05 is 5 % of GPU time)");
    std::vector<ProfileKernel> chosen;
    for (ProfileKernel& k : candidate_kernels(b, std::max<std::size_t>(1, options.max_shapes))) {
        if (!options.types.empty() && std::find(options.types.begin(), options.types.end(), k.type) == options.types.end())
            continue;
        if (k.share < options.min_share) continue;
        if (options.top && chosen.size() == options.top) break;
        chosen.push_back(std::move(k));
    }
    return chosen;
}

ProfileOrigin profile_origin(const Profile& p, const Breakdown& b, const std::string& file) {
    ProfileOrigin o;
    o.file = file;
    o.kind = std::string(to_string(p.origin.kind));
    o.gpu = p.origin.gpu_name;
    o.recorded_utc = p.origin.recorded_utc;
    o.gpu_time_us_per_iteration = double(b.timeline.activity_sum_ns) / b.timeline.iterations / 1000.0;
    switch (p.origin.kind) {
    case SourceKind::BuiltinModel:
        o.model = p.origin.model;
        o.options = "batch " + std::to_string(p.origin.batch) + ", seq " + std::to_string(p.origin.seq) + ", " +
                    p.origin.dtype + ", " + p.origin.mode;
        break;
    case SourceKind::TorchScript:
        o.model = p.origin.model;
        for (const std::string& i : p.origin.inputs) o.options += (o.options.empty() ? "--input " : " --input ") + i;
        break;
    case SourceKind::Command:
        for (const std::string& c : p.origin.command) o.model += (o.model.empty() ? "" : " ") + c;
        break;
    }
    o.options += (o.options.empty() ? "" : ", ") + std::to_string(p.origin.measured_iterations) + " measured iterations";
    return o;
}

}  // namespace ak::profile
