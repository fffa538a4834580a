// autokernel new: creates a session from starter kernels or given files.
#include "cli/command_line.h"
#include "cli/commands.h"
#include "engine/kernel_contract.h"
#include "analysis/amdahl.h"
#include "engine/kernel_type.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_query.h"
#include "gpu/nvrtc_compiler.h"
#include "profile/breakdown.h"
#include "profile/profile_json.h"
#include "profile/create_session_from_profile.h"
#include "profile/session_from_profile.h"
#include "session/session.h"
#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <filesystem>
#include <iostream>
#include <map>

namespace ak::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage = R"(usage: autokernel new SESSION --kernel TYPE[=FILE] [--kernel ...] [--shapes KERNEL:SHAPES]
                      [--fraction KERNEL=F]
       autokernel new SESSION --from-profile PROFILE.json [--top N] [--min-share F] [--types T1,T2]

Creates the session folder SESSION (a git repository) with one kernel per --kernel, each recorded as a
baseline experiment that is not yet evaluated (`autokernel run` measures it first).

  --kernel TYPE[=FILE]  a kernel of type TYPE (matmul, softmax, layernorm, rmsnorm, flash_attention,
                        fused_mlp, cross_entropy, rotary_embedding, reduce), starting from FILE, or from
                        the shipped starter kernels/cuda/TYPE.cu (AK_KERNELS_DIR overrides where
                        kernels/ is). The kernel is named after its type, or after FILE's name when two
                        kernels have the same type. Repeat for several kernels.
  --shapes KERNEL:SHAPES
                        the shapes to time KERNEL (its name or type) at, e.g.
                        rmsnorm:4096x4096,4096x8192 (default: the type's large and larger sizes)
  --fraction KERNEL=F   KERNEL's share of the model's GPU time, 0 < F <= 1 (from a profile), used to
                        decide which kernel to work on first; unknown shares count equally

  --from-profile PROFILE.json
                        the kernels of a profile (`autokernel profile`): one per kernel type with time
                        in it, or one per shape family where a type's shapes differ a lot (QKV vs MLP
                        GEMMs), each from its starter, timed at the model's most time-weighted shapes
                        (up to 3), with its share of the profiled GPU time; the profile's origin is
                        recorded in session.json
  --top N               at most N kernels, by share
  --min-share F         leave out kernels below F of the GPU time (default 0.01)
  --types T1,T2         only these kernel types
)";

struct Requested {
    KernelType type;
    std::string file;    // given FILE, or empty for the starter
    std::string source;
    std::string origin;  // where the source came from
    KernelEntry entry;
};

fs::path starters_dir() { return profile::starter_kernels_dir(); }

#ifdef AK_LIBTORCH_VERSION
constexpr const char* kLibtorchVersion = AK_LIBTORCH_VERSION;
#else
constexpr const char* kLibtorchVersion = "";
#endif

void fill_versions(SessionInfo& info) { profile::fill_tool_versions(info, kLibtorchVersion); }

// autokernel new SESSION --from-profile PROFILE.json [--top N] [--min-share F] [--types ...]
int new_from_profile(const Arguments& a, const fs::path& dir, const std::string& profile_file) {
    for (const char* o : {"--kernel", "--shapes", "--fraction"})
        if (!a.values(o).empty())
            a.fail(std::string(o) + " does not go with --from-profile (the profile gives the kernels, shapes and shares)");
    profile::FromProfileOptions options;
    if (const auto top = a.value("--top")) {
        const auto n = parse_int(*top);
        if (!n || *n < 1) a.fail("--top " + *top + ": expected a whole number >= 1");
        options.top = static_cast<std::size_t>(*n);
    }
    if (const auto share = a.value("--min-share")) {
        const auto f = parse_double(*share);
        if (!f || *f < 0 || *f > 1) a.fail("--min-share " + *share + ": a share of GPU time, 0 <= F <= 1 (0.05 is 5%)");
        options.min_share = *f;
    }
    if (const auto types = a.value("--types")) {
        for (const auto part : split(*types, ',')) {
            const auto type = parse_kernel_type(trim(part));
            if (!type) a.fail("--types " + *types + ": unknown kernel type '" + std::string(trim(part)) + "'");
            options.types.push_back(*type);
        }
    }
    const profile::ProfileSession created = profile::create_session_from_profile(dir, profile_file, options, kLibtorchVersion);
    const SessionInfo& info = created.info;
    const std::vector<profile::ProfileKernel>& chosen = created.kernels;
    const Session& session = created.session;
    std::cout << "created session " << session.dir().string() << " from " << profile_file << " ("
              << info.profile->model << ", " << info.profile->options << ", recorded on "
              << (info.profile->gpu.empty() ? "an unknown GPU" : info.profile->gpu) << ")\n";
    std::vector<double> fractions;
    double total = 0;
    for (const profile::ProfileKernel& k : chosen) {
        const KernelEntry e = k.entry();
        std::cout << "  " << e.name << "  " << format_fixed(k.share * 100, 1) << "% of GPU time, shapes "
                  << (e.shapes.empty() ? "(the type's defaults: the profile gave none)" : e.shapes) << "\n";
        if (k.backward_share > 0)
            std::cout << "    not counted: " << format_fixed(k.backward_share * 100, 1) << "% of GPU time in "
                      << to_string(k.type) << "'s backward ops (the kernel replaces the forward op only)\n";
        fractions.push_back(k.share);
        total += k.share;
    }
    const double limit = amdahl_limit(fractions);
    std::cout << "together " << format_fixed(std::min(1.0, total) * 100, 1) << "% of the profiled GPU time; "
              << (limit > 1e12 ? std::string("no limit if they took no time")
                               : "the limit if they took no time: " + format_fixed(limit, 2) + "x end to end")
              << "\n";
    std::cout << "next: autokernel run " << dir.string() << "\n";
    return kExitOk;
}

}  // namespace

int run_new(std::span<const std::string> args) {
    const Arguments a(args, {"--kernel", "--shapes", "--fraction", "--from-profile", "--top", "--min-share", "--types"}, {},
                      kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "the new session folder SESSION");
    const fs::path dir = a.positional()[0];
    if (const auto profile_file = a.value("--from-profile")) return new_from_profile(a, dir, *profile_file);
    for (const char* o : {"--top", "--min-share", "--types"})
        if (a.value(o)) a.fail(std::string(o) + " is for --from-profile");
    const std::vector<std::string> kernel_args = a.values("--kernel");
    if (kernel_args.empty()) a.fail("give at least one --kernel TYPE[=FILE]");

    std::vector<Requested> kernels;
    std::map<KernelType, int> per_type;
    for (const std::string& arg : kernel_args) {
        const std::size_t eq = arg.find('=');
        const std::string type_text = arg.substr(0, eq);
        const auto type = parse_kernel_type(type_text);
        if (!type) a.fail("--kernel " + arg + ": unknown kernel type '" + type_text + "'");
        Requested r{*type, eq == std::string::npos ? "" : arg.substr(eq + 1), "", "", {}};
        if (eq != std::string::npos && r.file.empty()) a.fail("--kernel " + arg + ": FILE is empty");
        const fs::path path = r.file.empty() ? starters_dir() / (std::string(to_string(*type)) + ".cu") : fs::path(r.file);
        if (r.file.empty() && !fs::exists(path))
            throw Error(ErrorKind::NotFound, "no starter kernel for " + std::string(to_string(*type)) + ": " + path.string() +
                                                 " does not exist (set AK_KERNELS_DIR to the kernels/ folder)");
        r.source = read_file(path);
        r.origin = path.string();
        const KernelContract contract = parse_contract(r.source);
        if (!contract.ok())
            throw Error(ErrorKind::Usage, "the @autokernel contract of " + r.origin + " has errors:\n" +
                                              contract.error_text(r.origin));
        if (contract.type && *contract.type != *type)
            a.fail(r.origin + ":" + std::to_string(contract.type_line) + " declares type " +
                   std::string(to_string(*contract.type)) + ", not " + std::string(to_string(*type)));
        ++per_type[*type];
        kernels.push_back(std::move(r));
    }
    // Names: the type, or the file's stem when two kernels share a type.
    for (Requested& r : kernels) {
        r.entry.type = std::string(to_string(r.type));
        if (per_type[r.type] == 1) {
            r.entry.name = r.entry.type;
        } else if (!r.file.empty()) {
            r.entry.name = fs::path(r.file).stem().string();
        } else {
            a.fail("two kernels of type " + r.entry.type + ": give each its own FILE (--kernel " + r.entry.type +
                   "=FILE); they are named after their files");
        }
    }
    for (std::size_t i = 0; i < kernels.size(); ++i)
        for (std::size_t j = i + 1; j < kernels.size(); ++j)
            if (kernels[i].entry.name == kernels[j].entry.name)
                a.fail("two kernels would both be named '" + kernels[i].entry.name + "' (" + kernels[i].origin + " and " +
                       kernels[j].origin + "): rename one of the files");

    // A KERNEL in --shapes / --fraction is a kernel's name, or a type that only one kernel has.
    const auto find = [&](const std::string& key, const std::string& option) -> Requested& {
        for (Requested& r : kernels)
            if (r.entry.name == key) return r;
        if (const auto type = parse_kernel_type(key)) {
            if (per_type[*type] == 1)
                for (Requested& r : kernels)
                    if (r.type == *type) return r;
        }
        a.fail(option + ": no kernel named '" + key + "' in this session");
    };
    for (const std::string& arg : a.values("--shapes")) {
        const std::size_t colon = arg.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == arg.size())
            a.fail("--shapes " + arg + ": write KERNEL:SHAPES, e.g. rmsnorm:4096x4096,4096x8192");
        Requested& r = find(arg.substr(0, colon), "--shapes");
        std::string text;
        for (const Shape& s : parse_shape_list(r.type, arg.substr(colon + 1))) text += (text.empty() ? "" : ",") + to_string(s);
        r.entry.shapes = text;
    }
    double fraction_sum = 0;
    for (const std::string& arg : a.values("--fraction")) {
        const std::size_t eq = arg.find('=');
        if (eq == std::string::npos) a.fail("--fraction " + arg + ": write KERNEL=F, e.g. rmsnorm=0.12");
        Requested& r = find(arg.substr(0, eq), "--fraction");
        const auto f = parse_double(arg.substr(eq + 1));
        if (!f || *f <= 0 || *f > 1) a.fail("--fraction " + arg + ": F is a share of model time, 0 < F <= 1");
        r.entry.model_fraction = *f;
    }
    for (const Requested& r : kernels) fraction_sum += r.entry.model_fraction;
    if (fraction_sum > 1.0 + 1e-9) a.fail("the --fraction values add up to " + format_double(fraction_sum) + ", more than 1");

    SessionInfo info;
    fill_versions(info);
    std::vector<std::pair<KernelEntry, std::string>> sources;
    std::vector<Experiment> baselines;
    for (const Requested& r : kernels) {
        sources.emplace_back(r.entry, r.source);
        Experiment m;
        m.description = "starter (not yet evaluated)";
        m.agent = "new";
        m.detail = "from " + r.origin;
        baselines.push_back(m);
    }
    const Session session = Session::create(dir, info, sources, baselines);
    std::cout << "created session " << session.dir().string() << " (GPU: " << info.gpu << ")\n";
    for (const Requested& r : kernels) {
        std::cout << "  " << r.entry.name << "  " << Session::kernel_file_of(r.entry.name) << "  from " << r.origin;
        if (!r.entry.shapes.empty()) std::cout << ", shapes " << r.entry.shapes;
        if (r.entry.model_fraction > 0) std::cout << ", " << format_double(r.entry.model_fraction * 100) << "% of model time";
        std::cout << "\n";
    }
    std::cout << "next: autokernel run " << dir.string() << "\n";
    return kExitOk;
}

}  // namespace ak::cli
