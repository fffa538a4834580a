#include "loop/search_agent.h"

#include "loop/agent_factory.h"

#include "engine/kernel_contract.h"
#include "engine/kernel_type.h"
#include "gpu/sha256.h"
#include "loop/search_cache.h"
#include "session/session.h"
#include "util/error.h"
#include "util/text.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ak {

namespace {

// SplitMix64: small, fast, and the same sequence on every platform and standard library (the
// distributions of <random> are not), so a seed reproduces a search anywhere.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return n <= 1 ? 0 : static_cast<std::size_t>(next() % n); }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    std::uint64_t state_;
};

// One tunable as the search sees it under the current steering.
struct Dimension {
    std::string name;
    int tier = 4;
    std::vector<std::string> values;  // allowed values after tunable_ranges, in declaration order
    bool free = true;                 // false: frozen, outside the focus tier, or no value left
    // `when`: the index of the tunable this one depends on (-1: always active) and the values of it
    // under which this one has an effect.
    int when = -1;
    std::vector<std::string> when_values;
};

using Config = std::vector<std::string>;  // one value per tunable, in contract order

struct Space {
    std::vector<Dimension> dims;
    std::vector<Preset> presets;     // the contract's, in the order written
    Config base;                     // the current best's values
    std::vector<std::string> notes;  // steering problems, for the log
};

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? std::string(separator) : std::string()) + items[i];
    return out;
}

Space build_space(const KernelContract& contract, const Steering& steering) {
    Space space;
    space.presets = contract.presets;
    std::vector<std::string> declared;
    for (const auto& t : contract.tunables) declared.push_back(t.name);
    for (const auto& t : contract.tunables) {
        Dimension d;
        d.name = t.name;
        d.tier = t.tier;
        d.values = t.allowed;
        space.base.push_back(t.value);
        if (std::find(steering.frozen_tunables.begin(), steering.frozen_tunables.end(), t.name) !=
            steering.frozen_tunables.end())
            d.free = false;
        if (steering.focus_tier != 0 && t.tier != steering.focus_tier) d.free = false;
        if (const auto range = steering.tunable_ranges.find(t.name); range != steering.tunable_ranges.end()) {
            std::vector<std::string> narrowed;
            for (const auto& v : range->second) {
                if (std::find(t.allowed.begin(), t.allowed.end(), v) == t.allowed.end()) {
                    space.notes.push_back("steering: " + t.name + " = " + v + " is outside its declaration {" +
                                          join(t.allowed, ", ") + "}; ignored");
                }
            }
            for (const auto& v : t.allowed)
                if (std::find(range->second.begin(), range->second.end(), v) != range->second.end())
                    narrowed.push_back(v);
            if (narrowed.empty()) {
                space.notes.push_back("steering: no declared value of " + t.name + " is left in its range; " +
                                      t.name + " stays at " + t.value);
                d.free = false;
            }
            d.values = std::move(narrowed);
        }
        space.dims.push_back(std::move(d));
    }
    for (std::size_t i = 0; i < contract.tunables.size(); ++i) {
        const Tunable& t = contract.tunables[i];
        if (t.when.empty()) continue;
        const auto at = std::find(declared.begin(), declared.end(), t.when);
        if (at == declared.end()) continue;  // the contract reports it; parse_contract() fails then
        space.dims[i].when = static_cast<int>(at - declared.begin());
        space.dims[i].when_values = t.when_values;
    }
    for (const auto& name : steering.frozen_tunables)
        if (std::find(declared.begin(), declared.end(), name) == declared.end())
            space.notes.push_back("steering: frozen tunable " + name + " is not declared by this kernel (declared: " +
                                  join(declared, ", ") + ")");
    for (const auto& [name, values] : steering.tunable_ranges)
        if (std::find(declared.begin(), declared.end(), name) == declared.end())
            space.notes.push_back("steering: range for " + name + " ignored: this kernel declares no such tunable (declared: " +
                                  join(declared, ", ") + ")");
    if (steering.focus_tier != 0 &&
        std::none_of(contract.tunables.begin(), contract.tunables.end(),
                     [&](const Tunable& t) { return t.tier == steering.focus_tier; })) {
        std::set<int> tiers;
        for (const auto& t : contract.tunables) tiers.insert(t.tier);
        std::vector<std::string> names;
        for (int t : tiers) names.push_back(std::to_string(t));
        space.notes.push_back("steering: focus tier " + std::to_string(steering.focus_tier) +
                              " has no tunables in this kernel (its tiers: " + join(names, ", ") + ")");
    }
    return space;
}

// Whether tunable i has an effect in configuration c (its `when`, if any, holds there).
bool active(const Space& space, std::size_t i, const Config& c) {
    const Dimension& d = space.dims[i];
    if (d.when < 0) return true;
    const auto& v = d.when_values;
    return std::find(v.begin(), v.end(), c[static_cast<std::size_t>(d.when)]) != v.end();
}

// `c` with every tunable that has no effect in it set back to the best's value, so configurations that
// compile to the same kernel are one configuration.
Config canonical(const Space& space, Config c) {
    for (std::size_t i = 0; i < space.dims.size(); ++i)
        if (!active(space, i, c)) c[i] = space.base[i];
    return c;
}

bool in_space(const Space& space, const Config& c) {
    for (std::size_t i = 0; i < space.dims.size(); ++i) {
        const auto& d = space.dims[i];
        if (!d.free) {
            if (c[i] != space.base[i]) return false;
        } else if (std::find(d.values.begin(), d.values.end(), c[i]) == d.values.end()) {
            return false;
        }
    }
    return true;
}

// Number of configurations in the space, saturating.
std::uint64_t space_size(const Space& space) {
    std::uint64_t n = 1;
    for (const auto& d : space.dims) {
        if (!d.free) continue;
        const std::uint64_t k = d.values.size();
        if (k == 0) return 0;
        if (n > std::numeric_limits<std::uint64_t>::max() / k) return std::numeric_limits<std::uint64_t>::max();
        n *= k;
    }
    return n;
}

std::string config_key(const Space& space, const Config& c) {
    std::string key;
    for (std::size_t i = 0; i < space.dims.size(); ++i)
        key += (i ? ";" : "") + space.dims[i].name + "=" + c[i];
    return key;
}

// The inverse of config_key, aligned with the space's tunables; nullopt when a tunable is missing.
std::optional<Config> parse_config_key(const Space& space, std::string_view key) {
    std::map<std::string, std::string, std::less<>> values;
    for (auto item : split(key, ';')) {
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) return std::nullopt;
        values.emplace(std::string(trim(item.substr(0, eq))), std::string(trim(item.substr(eq + 1))));
    }
    Config c;
    for (const auto& d : space.dims) {
        const auto it = values.find(d.name);
        if (it == values.end()) return std::nullopt;
        c.push_back(it->second);
    }
    if (values.size() != c.size()) return std::nullopt;
    return c;
}

std::string changes_text(const Space& space, const Config& c) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < space.dims.size(); ++i)
        if (c[i] != space.base[i]) parts.push_back(space.dims[i].name + " " + space.base[i] + "->" + c[i]);
    return parts.empty() ? std::string("no change") : join(parts, ", ");
}

int hamming(const Config& a, const Config& b) {
    int d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
}

struct Candidate {
    Config config;
    std::string source;
    std::string sha;
    std::string description;
};

struct Member {
    Config config;
    std::optional<double> latency;  // nullopt: did not pass
    double fitness = 0;             // lower is better
};

}  // namespace

std::string_view to_string(SearchStrategy s) { return s == SearchStrategy::Evolve ? "evolve" : "sweep"; }

std::optional<SearchStrategy> parse_search_strategy(std::string_view s) {
    if (s == "sweep") return SearchStrategy::Sweep;
    if (s == "evolve") return SearchStrategy::Evolve;
    return std::nullopt;
}

std::filesystem::path search_cache_path(const std::filesystem::path& session_dir) {
    return session_dir / ".autokernel" / "search-cache.tsv";
}

struct SearchAgent::Impl {
    SearchSettings settings;
    SearchCache cache;
    bool loaded = false;
    std::set<int> seeded;                   // experiment numbers taken from the history
    std::optional<Session> session;         // read-only, for history sources
    bool session_unavailable = false;
    Rng rng;
    std::set<std::string> logged;           // messages logged once
    // Context of the last proposal, for observe().
    std::string gpu, shapes, dtype = "fp16", kernel;
    std::optional<Shape> primary_shape;
    // Sweep progress, for log lines.
    std::string last_base_sha;
    int last_tier = 0;
    // The sweep's last proposal: its source hash and the tunable it changed. When that source has become
    // the best (it was kept), the sweep tries the other values of the same tunable first, for as long as
    // that best stays the best (momentum_base).
    std::string last_step_sha;
    std::string last_step_dim;
    std::string momentum_base;
    std::string momentum;
    bool last_step_pair = false;
    bool last_step_held = false;
    // Presets proposed by this instance ("<kernel>/<preset>"); the history covers earlier runs.
    std::set<std::string> presets_proposed;
    // (base sha, config key) -> candidate sha.
    std::unordered_map<std::string, std::string> sha_memo;

    explicit Impl(SearchSettings s)
        : settings(std::move(s)),
          cache(settings.session_dir.empty() ? std::filesystem::path() : search_cache_path(settings.session_dir)),
          rng(settings.seed) {}

    void log(const std::string& line) const {
        if (settings.log) settings.log(line);
    }
    void log_once(const std::string& line) {
        if (logged.insert(line).second) log(line);
    }

    SearchKey key(const AgentContext& ctx, const std::string& sha) const {
        return SearchKey{sha, ctx.gpu, ctx.kernel.shapes, ctx.dtype};
    }

    std::optional<std::string> history_source(const Experiment& e) {
        if (settings.history_source) return settings.history_source(e);
        if (settings.session_dir.empty() || session_unavailable) return std::nullopt;
        if (!session) {
            try {
                session = Session::open(settings.session_dir, OpenOptions{.read_only = true});
            } catch (const std::exception& ex) {
                session_unavailable = true;
                log("search: cannot read the session's history (" + std::string(ex.what()) +
                    "); only the cache file prevents repeats");
                return std::nullopt;
            }
        }
        return session->source_of(e);
    }

    // Loads the cache once and adds the history's experiments not seen yet.
    void prepare(const AgentContext& ctx) {
        if (!loaded) {
            loaded = true;
            try {
                cache.load();
            } catch (const std::exception& ex) {
                log("search: cannot read the search cache (" + std::string(ex.what()) + "); starting without it");
            }
            for (const auto& w : cache.warnings()) log("search: " + w);
        }
        for (const auto& e : ctx.history) {
            if (seeded.count(e.number)) continue;
            std::optional<std::string> source;
            try {
                source = history_source(e);
            } catch (const std::exception& ex) {
                log_once("search: no source for experiment " + std::to_string(e.number) + ": " + ex.what());
            }
            seeded.insert(e.number);
            if (!source) continue;
            SearchRecord r;
            r.key = key(ctx, sha256_hex(*source));
            r.verdict = std::string(to_string(e.correctness));
            if (e.passed()) r.latency_us = e.latency_us;
            r.kernel = ctx.kernel.name;
            const auto contract = parse_contract(*source);
            if (contract.ok() && !contract.tunables.empty()) {
                Space s = build_space(contract, Steering{});
                r.config = config_key(s, s.base);
            }
            r.description = e.description;
            // Only fill gaps: what this agent observed itself (with its config) stays.
            if (!cache.contains(r.key) || cache.find(r.key)->verdict.empty()) cache.add(r, false);
        }
        gpu = ctx.gpu;
        shapes = ctx.kernel.shapes;
        dtype = ctx.dtype;
        kernel = ctx.kernel.name;
        primary_shape.reset();
        if (const auto type = parse_kernel_type(ctx.kernel.type)) {
            try {
                primary_shape = ctx.kernel.shapes.empty() ? kernel_type_info(*type).large
                                                          : parse_shape_list(*type, ctx.kernel.shapes).front();
            } catch (const std::exception&) {
                primary_shape = kernel_type_info(*type).large;
            }
        }
    }

    // The best source's contract and the steered space, or a failure text.
    std::optional<Space> space_for(const AgentContext& ctx, std::string& failure) {
        const KernelContract contract = parse_contract(ctx.best_source);
        if (!contract.ok()) {
            failure = "search: the current best of " + ctx.kernel.name + " has @autokernel errors:\n" +
                      contract.error_text(ctx.kernel_file.empty() ? ctx.kernel.name : ctx.kernel_file);
            return std::nullopt;
        }
        if (contract.tunables.empty()) {
            failure = "search: " + (ctx.kernel_file.empty() ? ctx.kernel.name : ctx.kernel_file) +
                      " declares no tunables (// @autokernel tunable NAME = V {...}); nothing to search";
            return std::nullopt;
        }
        Space space = build_space(contract, ctx.steering);
        for (const auto& note : space.notes) log_once(note);
        return space;
    }

    std::string apply(const AgentContext& ctx, const Space& space, const Config& c) const {
        std::string source = ctx.best_source;
        for (std::size_t i = 0; i < space.dims.size(); ++i)
            if (c[i] != space.base[i]) source = set_tunable(source, space.dims[i].name, c[i]);
        return source;
    }

    std::string sha_of(const AgentContext& ctx, const std::string& base_sha, const Space& space, const Config& c) {
        const std::string memo_key = base_sha + "|" + config_key(space, c);
        if (auto it = sha_memo.find(memo_key); it != sha_memo.end()) return it->second;
        if (sha_memo.size() > 200000) sha_memo.clear();
        std::string sha = sha256_hex(apply(ctx, space, c));
        sha_memo.emplace(memo_key, sha);
        return sha;
    }

    bool seen(const AgentContext& ctx, const std::string& sha) const { return cache.contains(key(ctx, sha)); }

    // Seen, or the same kernel as a seen configuration of this family: one that differs only in tunables
    // without effect in `c` (their `when` does not hold), e.g. MMA=0 with the STAGES of an MMA=3 best.
    bool covered(const AgentContext& ctx, const Space& space, const Config& c) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        if (seen(ctx, sha_of(ctx, base_sha, space, c))) return true;
        bool conditional = false;
        for (std::size_t i = 0; i < space.dims.size() && !conditional; ++i) conditional = !active(space, i, c);
        if (!conditional) return false;
        for (const SearchRecord* r : cache.records()) {
            if (r->config.empty()) continue;
            if (r->key.gpu != ctx.gpu || r->key.shapes != ctx.kernel.shapes || r->key.dtype != ctx.dtype) continue;
            const auto other = parse_config_key(space, r->config);
            if (!other) continue;
            bool same = true;
            for (std::size_t i = 0; i < space.dims.size() && same; ++i)
                same = !active(space, i, c) || (*other)[i] == c[i];
            if (same && sha_of(ctx, base_sha, space, *other) == r->key.source_sha256) return true;  // this family
        }
        return false;
    }

    Candidate make_candidate(const AgentContext& ctx, const Space& space, const Config& c, std::string description) const {
        Candidate cand;
        cand.config = c;
        cand.source = apply(ctx, space, c);
        cand.sha = sha256_hex(cand.source);
        cand.description = std::move(description);
        return cand;
    }

    // ---- presets ----------------------------------------------------------------------------------

    struct PresetStep {
        Config config;
        std::string id;           // "<kernel>/<preset>"
        std::string description;  // "search: preset NAME (sm_90): A 0->3, B 64->256"
    };

    // The first preset of the contract not yet tried on this kernel (neither by this instance nor in the
    // kernel's history, whose description starts "search: preset NAME "), meant for the session's GPU,
    // allowed by the steering and giving a configuration that is neither the best nor evaluated before.
    // Presets passed over are logged once with the reason.
    std::optional<PresetStep> next_preset(const AgentContext& ctx, const Space& space) {
        for (const Preset& p : space.presets) {
            const std::string id = ctx.kernel.name + "/" + p.name;
            if (presets_proposed.count(id)) continue;
            const std::string prefix = "search: preset " + p.name + " ";
            if (std::any_of(ctx.history.begin(), ctx.history.end(),
                            [&](const Experiment& e) { return starts_with(e.description, prefix); }))
                continue;
            const std::string what = "search: preset " + p.name + " (" + preset_condition_text(p) + ") of " + ctx.kernel.name;
            if (!preset_applies(p, ctx.gpu_compute_capability)) {
                log_once(what + " is not for this GPU (" +
                         (ctx.gpu_compute_capability.empty() ? std::string("the session records no compute capability")
                                                             : "compute capability " + ctx.gpu_compute_capability) +
                         "); passed over");
                continue;
            }
            Config c = space.base;
            for (const auto& [name, value] : p.values)
                for (std::size_t i = 0; i < space.dims.size(); ++i)
                    if (space.dims[i].name == name) c[i] = value;
            c = canonical(space, c);
            if (!in_space(space, c)) {
                log_once(what + " sets a tunable the steering holds (frozen, outside the focus tier or its range); passed over");
                continue;
            }
            if (c == space.base) {
                log_once(what + ": the current best already has its values");
                continue;
            }
            if (covered(ctx, space, c)) {
                log_once(what + ": its configuration was evaluated before");
                continue;
            }
            return PresetStep{c, id, "search: preset " + p.name + " (" + preset_condition_text(p) + "): " + changes_text(space, c)};
        }
        return std::nullopt;
    }

    // The next preset as a candidate (remembered as proposed), or nullopt when none is left.
    std::optional<Candidate> propose_preset(const AgentContext& ctx, const Space& space) {
        auto step = next_preset(ctx, space);
        if (!step) return std::nullopt;
        presets_proposed.insert(step->id);
        auto candidate = make_candidate(ctx, space, step->config, step->description);
        // Not a sweep step: no momentum on any tunable after a kept preset, and the sweep's "the best
        // changed" line refers to it.
        last_step_sha = candidate.sha;
        last_step_dim.clear();
        last_base_sha = sha256_hex(ctx.best_source);
        return candidate;
    }

    // ---- sweep ------------------------------------------------------------------------------------

    struct SweepStep {
        Config config;
        int tier = 0;
        std::size_t dim = 0;
        bool pair = false;  // a lookahead step: two tunables differ from the best
        bool held = false;  // a tunable the kept preset set (swept after the others)
    };

    // The tunables whose values in the best come from the newest kept preset of this kernel (the
    // history's "search: preset NAME ..." experiments): a preset is a measured point for exactly those,
    // so the sweep tunes the other tunables first and comes back to these after.
    std::vector<bool> held_by_preset(const AgentContext& ctx, const Space& space) const {
        std::vector<bool> held(space.dims.size(), false);
        const std::string prefix = "search: preset ";
        for (auto it = ctx.history.rbegin(); it != ctx.history.rend(); ++it) {
            if (it->outcome != Outcome::Kept || !starts_with(it->description, prefix)) continue;
            const std::string rest = it->description.substr(prefix.size());
            const std::string name = rest.substr(0, rest.find(' '));
            for (const Preset& p : space.presets) {
                if (p.name != name) continue;
                for (const auto& [tunable, value] : p.values)
                    for (std::size_t i = 0; i < space.dims.size(); ++i)
                        if (space.dims[i].name == tunable && space.base[i] == value) held[i] = true;
            }
            break;
        }
        return held;
    }

    // How many of the most promising reverted single changes the lookahead builds on.
    static constexpr std::size_t kLookaheadNeighbours = 2;

    // Lookahead, once every single change of the best has been evaluated without a keep: the reverted
    // neighbours that were faster than the best at the primary shape (they lost at another shape, or to
    // the noise rule) are combined with one more single change, fastest neighbour first. Tunables
    // interact: ROW_CACHE may pay at one size only until BLOCK_THREADS changes with it.
    std::optional<SweepStep> next_pair(const AgentContext& ctx, const Space& space, const std::set<int>& tiers) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        const std::vector<Member> evaluated = members(ctx, space);
        std::optional<double> base_latency;
        for (const Member& m : evaluated)
            if (m.config == space.base) base_latency = m.latency;
        if (!base_latency) return std::nullopt;
        std::vector<const Member*> promising;
        for (const Member& m : evaluated)
            if (hamming(m.config, space.base) == 1 && m.latency && *m.latency < *base_latency) promising.push_back(&m);
        std::sort(promising.begin(), promising.end(),
                  [](const Member* a, const Member* b) { return *a->latency < *b->latency; });
        if (promising.size() > kLookaheadNeighbours) promising.resize(kLookaheadNeighbours);
        for (const Member* n : promising) {
            for (int tier : tiers)
                for (std::size_t i = 0; i < space.dims.size(); ++i) {
                    const auto& d = space.dims[i];
                    if (!d.free || d.tier != tier || n->config[i] != space.base[i]) continue;  // the neighbour's own tunable
                    if (!active(space, i, n->config)) continue;  // no effect in the neighbour's variant
                    for (const auto& v : d.values) {
                        if (v == space.base[i]) continue;
                        Config c = n->config;
                        c[i] = v;
                        if (!covered(ctx, space, c)) return SweepStep{c, d.tier, i, true};
                    }
                }
        }
        return std::nullopt;
    }

    // The tunable whose change made the current best, when the sweep proposed it (empty otherwise).
    std::string momentum_dim(const std::string& base_sha) {
        if (!last_step_sha.empty() && base_sha == last_step_sha) {
            momentum_base = base_sha;
            momentum = last_step_dim;
        }
        return base_sha == momentum_base ? momentum : std::string();
    }

    std::optional<SweepStep> next_sweep(const AgentContext& ctx, const Space& space) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        auto try_dim = [&](std::size_t i) -> std::optional<SweepStep> {
            const auto& d = space.dims[i];
            if (!active(space, i, space.base)) return std::nullopt;  // no effect in this variant
            for (const auto& v : d.values) {
                if (v == space.base[i]) continue;
                Config c = space.base;
                c[i] = v;
                if (!covered(ctx, space, c)) return SweepStep{c, d.tier, i};
            }
            return std::nullopt;
        };
        // Momentum: a change that just paid off is followed up along the same tunable (VEC 2 -> 4 after
        // a kept 1 -> 2) before the sweep starts again from the lowest tier.
        if (const std::string dim = momentum_dim(base_sha); !dim.empty())
            for (std::size_t i = 0; i < space.dims.size(); ++i)
                if (space.dims[i].free && space.dims[i].name == dim)
                    if (auto step = try_dim(i)) return step;
        std::set<int> tiers;
        for (const auto& d : space.dims)
            if (d.free) tiers.insert(d.tier);
        const std::vector<bool> held = held_by_preset(ctx, space);
        for (const bool held_pass : {false, true})
            for (int tier : tiers)
                for (std::size_t i = 0; i < space.dims.size(); ++i)
                    if (space.dims[i].free && space.dims[i].tier == tier && held[i] == held_pass)
                        if (auto step = try_dim(i)) {
                            step->held = held_pass;
                            return step;
                        }
        return next_pair(ctx, space, tiers);
    }

    std::optional<Candidate> propose_sweep(const AgentContext& ctx, const Space& space, std::string& failure) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        const auto step = next_sweep(ctx, space);
        if (!step) {
            failure = "search: exhausted: every single change (and the lookahead pairs) of " +
                      std::string(ctx.steering.focus_tier ? "tier " + std::to_string(ctx.steering.focus_tier)
                                                          : std::string("every tier")) +
                      " from the current best of " + ctx.kernel.name + " has been evaluated";
            return std::nullopt;
        }
        const auto& d = space.dims[step->dim];
        if (base_sha != last_base_sha) {
            if (!last_base_sha.empty()) {
                if (momentum_dim(base_sha) == d.name)
                    log("search: kept a change of " + d.name + "; trying its other values first");
                else
                    log("search: the best changed; sweeping again from tier " + std::to_string(step->tier));
            }
            last_base_sha = base_sha;
        } else if (step->held && !last_step_held) {
            log("search: every single change of the tunables the kept preset did not set was evaluated; now the "
                "preset's own settings, from tier " + std::to_string(step->tier));
        } else if (step->pair && !last_step_pair) {
            log("search: every single change of the best was evaluated without a keep; trying pairs with the "
                "reverted changes that were faster at the primary shape");
        } else if (!step->pair && step->held == last_step_held && step->tier != last_tier) {
            log("search: tier " + std::to_string(last_tier) + " exhausted without a keep; moving on to tier " +
                std::to_string(step->tier));
        }
        last_tier = step->tier;
        last_step_pair = step->pair;
        last_step_held = step->held;
        auto candidate = make_candidate(ctx, space, step->config,
                                        step->pair ? "search: " + changes_text(space, step->config) + " (pair)"
                                                   : "search: " + d.name + " " + space.base[step->dim] + "->" +
                                                         step->config[step->dim] + " (tier " +
                                                         std::to_string(step->tier) + ")");
        last_step_sha = candidate.sha;
        last_step_dim = d.name;
        return candidate;
    }

    // ---- evolve -----------------------------------------------------------------------------------

    // Evaluated configurations of this source family (the best with other tunable values) in the space.
    std::vector<Member> members(const AgentContext& ctx, const Space& space) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        std::vector<Member> out;
        double worst = 0;
        for (const SearchRecord* r : cache.records()) {
            if (r->verdict.empty() || r->config.empty()) continue;
            if (r->key.gpu != ctx.gpu || r->key.shapes != ctx.kernel.shapes || r->key.dtype != ctx.dtype) continue;
            auto c = parse_config_key(space, r->config);
            if (!c || !in_space(space, *c)) continue;
            if (sha_of(ctx, base_sha, space, *c) != r->key.source_sha256) continue;  // another family
            Member m;
            m.config = std::move(*c);
            if (r->verdict == "PASS" && r->latency_us) {
                m.latency = r->latency_us;
                worst = std::max(worst, *r->latency_us);
            } else if (r->verdict == "PASS") {
                continue;  // passed but never timed: no fitness to learn from
            }
            out.push_back(std::move(m));
        }
        const double penalty = worst > 0 ? 2 * worst : 1.0;  // did not pass: worse than anything that did
        for (auto& m : out) m.fitness = m.latency ? *m.latency : penalty;
        return out;
    }

    // How many seen configurations of this family lie in the space (evaluated or only proposed).
    std::uint64_t seen_in_space(const AgentContext& ctx, const Space& space) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        std::set<std::string> distinct;
        for (const SearchRecord* r : cache.records()) {
            if (r->config.empty()) continue;
            if (r->key.gpu != ctx.gpu || r->key.shapes != ctx.kernel.shapes || r->key.dtype != ctx.dtype) continue;
            auto c = parse_config_key(space, r->config);
            if (!c || !in_space(space, *c)) continue;
            if (sha_of(ctx, base_sha, space, *c) == r->key.source_sha256) distinct.insert(r->key.source_sha256);
        }
        return distinct.size();
    }

    Config random_config(const Space& space) {
        Config c = space.base;
        for (std::size_t i = 0; i < space.dims.size(); ++i)
            if (space.dims[i].free) c[i] = space.dims[i].values[rng.below(space.dims[i].values.size())];
        return c;
    }

    // Mutates one free tunable (with more than one value) to a different value.
    void mutate(const Space& space, Config& c) {
        std::vector<std::size_t> choices;
        for (std::size_t i = 0; i < space.dims.size(); ++i)
            if (space.dims[i].free && space.dims[i].values.size() > 1) choices.push_back(i);
        if (choices.empty()) return;
        const std::size_t i = choices[rng.below(choices.size())];
        const auto& values = space.dims[i].values;
        std::string v;
        do v = values[rng.below(values.size())];
        while (v == c[i]);
        c[i] = v;
    }

    const Member& tournament(const std::vector<Member>& population) {
        const Member* winner = nullptr;
        const int rounds = std::max(1, settings.tournament);
        for (int k = 0; k < rounds; ++k) {
            const Member& m = population[rng.below(population.size())];
            if (!winner || m.fitness < winner->fitness) winner = &m;
        }
        return *winner;
    }

    // Mean fitness of the evaluated configurations nearest to `c`.
    static double predicted(const std::vector<Member>& evaluated, const Config& c) {
        int best_distance = std::numeric_limits<int>::max();
        double sum = 0;
        int count = 0;
        for (const auto& m : evaluated) {
            const int d = hamming(m.config, c);
            if (d < best_distance) {
                best_distance = d;
                sum = 0;
                count = 0;
            }
            if (d == best_distance) {
                sum += m.fitness;
                ++count;
            }
        }
        return count ? sum / count : 0;
    }

    std::optional<Candidate> propose_evolve(const AgentContext& ctx, const Space& space, std::string& failure) {
        const std::string base_sha = sha256_hex(ctx.best_source);
        const std::uint64_t size = space_size(space);
        auto exhausted_failure = [&] {
            failure = "search: exhausted: all " + std::to_string(size) + " configurations of " + ctx.kernel.name +
                      "'s free tunables have been evaluated";
            return std::nullopt;
        };
        if (size == 0) return exhausted_failure();
        auto unseen = [&](const Config& c) { return !covered(ctx, space, c); };
        auto random_unseen = [&]() -> std::optional<Config> {
            for (int attempt = 0; attempt < 256; ++attempt) {
                Config c = canonical(space, random_config(space));
                if (unseen(c)) return c;
            }
            return std::nullopt;
        };

        std::vector<Member> evaluated = members(ctx, space);
        std::optional<Config> choice;
        std::string how;
        if (static_cast<int>(evaluated.size()) < std::max(2, settings.random_start)) {
            choice = random_unseen();
            how = "random start";
        } else {
            std::vector<Member> population = evaluated;
            std::stable_sort(population.begin(), population.end(),
                             [](const Member& a, const Member& b) { return a.fitness < b.fitness; });
            if (static_cast<int>(population.size()) > std::max(2, settings.population))
                population.resize(std::max(2, settings.population));  // elitism: the best always breed
            double best_prediction = std::numeric_limits<double>::infinity();
            std::set<Config> bred;
            for (int k = 0; k < std::max(1, settings.children_per_proposal); ++k) {
                const Member& a = tournament(population);
                const Member& b = tournament(population);
                Config child = a.config;
                for (std::size_t i = 0; i < child.size(); ++i)
                    if (space.dims[i].free && rng.below(2)) child[i] = b.config[i];
                if (rng.unit() < settings.mutation_rate || child == a.config || child == b.config) mutate(space, child);
                child = canonical(space, child);
                if (!bred.insert(child).second || !unseen(child)) continue;
                const double p = predicted(evaluated, child);
                if (p < best_prediction) {
                    best_prediction = p;
                    choice = child;
                }
            }
            how = "evolve";
            if (!choice) {
                choice = random_unseen();
                how = "evolve, random";
            }
        }
        if (!choice && size <= 200000) {
            // Few unseen configurations left: walk the whole space in order.
            Config c = space.base;
            std::vector<std::size_t> index(space.dims.size(), 0);
            for (std::size_t i = 0; i < space.dims.size(); ++i)
                if (space.dims[i].free) c[i] = space.dims[i].values[0];
            while (true) {
                if (unseen(canonical(space, c))) {
                    choice = canonical(space, c);
                    how = "evolve, enumeration";
                    break;
                }
                std::size_t i = 0;
                for (; i < space.dims.size(); ++i) {
                    if (!space.dims[i].free) continue;
                    if (++index[i] < space.dims[i].values.size()) {
                        c[i] = space.dims[i].values[index[i]];
                        break;
                    }
                    index[i] = 0;
                    c[i] = space.dims[i].values[0];
                }
                if (i == space.dims.size()) break;
            }
        }
        if (!choice) return exhausted_failure();
        return make_candidate(ctx, space, *choice, "search: " + changes_text(space, *choice) + " (" + how + ")");
    }
};

SearchAgent::SearchAgent(SearchSettings settings) : impl_(std::make_unique<Impl>(std::move(settings))) {}
SearchAgent::~SearchAgent() = default;

std::string SearchAgent::name() const {
    return impl_->settings.strategy == SearchStrategy::Evolve ? "search:evolve" : "search";
}

std::filesystem::path SearchAgent::cache_file() const { return impl_->cache.file(); }

Proposal SearchAgent::propose(const AgentContext& context) {
    Impl& d = *impl_;
    d.prepare(context);
    Proposal p;
    auto space = d.space_for(context, p.failure);
    if (!space) return p;
    // The contract's presets for this GPU first, then the strategy.
    std::optional<Candidate> c = d.propose_preset(context, *space);
    if (!c)
        c = d.settings.strategy == SearchStrategy::Evolve ? d.propose_evolve(context, *space, p.failure)
                                                          : d.propose_sweep(context, *space, p.failure);
    if (!c) return p;
    // Seen from now on, in this instance; observe() persists it with its result.
    SearchRecord r;
    r.key = d.key(context, c->sha);
    r.kernel = context.kernel.name;
    r.config = config_key(*space, c->config);
    r.description = c->description;
    d.cache.add(r, false);
    p.ok = true;
    p.source = std::move(c->source);
    p.description = std::move(c->description);
    p.config_key = std::move(r.config);
    return p;
}

void SearchAgent::observe(const Proposal& proposal, const EvaluationResult& result, Outcome outcome) {
    (void)outcome;
    Impl& d = *impl_;
    if (!proposal.ok || proposal.source.empty()) return;
    SearchRecord r;
    r.key = SearchKey{sha256_hex(proposal.source), d.gpu, d.shapes, d.dtype};
    r.verdict = std::string(verdict_to_string(result.verdict));
    if (result.verdict == Verdict::Pass && !result.timing.empty()) {
        const TimingRecord* chosen = nullptr;
        for (const auto& t : result.timing) {
            if (d.primary_shape && t.shape == *d.primary_shape) {
                if (!chosen || to_string(t.dtype) == d.dtype) chosen = &t;
            }
        }
        if (!chosen) chosen = &result.timing.front();
        r.latency_us = chosen->median_us;
    }
    r.kernel = d.kernel;
    r.config = proposal.config_key;
    if (r.config.empty()) {  // a user's or another agent's source: its own tunable values
        const auto contract = parse_contract(proposal.source);
        if (contract.ok() && !contract.tunables.empty()) {
            Space s = build_space(contract, Steering{});
            r.config = config_key(s, s.base);
        }
    }
    r.description = proposal.description;
    try {
        d.cache.add(r, true);
    } catch (const std::exception& ex) {
        d.log_once("search: cannot write the search cache " + d.cache.file().string() + " (" + ex.what() +
                   "); repeats are still avoided in this run");
        d.cache.add(r, false);
    }
}

bool SearchAgent::exhausted(const AgentContext& context) const {
    Impl& d = *impl_;
    d.prepare(context);
    std::string failure;
    auto space = d.space_for(context, failure);
    if (!space) {  // no tunables or a broken contract: nothing this agent can try
        d.log_once(failure);
        return true;
    }
    if (d.next_preset(context, *space)) return false;
    if (d.settings.strategy == SearchStrategy::Sweep) return !d.next_sweep(context, *space).has_value();
    const std::uint64_t size = space_size(*space);
    return size == 0 || d.seen_in_space(context, *space) >= size;
}

bool SearchAgent::bounded_search() const { return impl_->settings.strategy == SearchStrategy::Sweep; }

std::unique_ptr<Agent> make_search_agent(const AgentSettings& settings) {
    SearchSettings s;
    if (!settings.search_strategy.empty()) {
        const auto strategy = parse_search_strategy(settings.search_strategy);
        if (!strategy)
            throw Error(ErrorKind::Usage, "unknown search strategy '" + settings.search_strategy + "' (use sweep or evolve)");
        s.strategy = *strategy;
    }
    s.seed = settings.seed != 0 ? settings.seed : 1;  // a fixed default: runs are reproducible
    s.session_dir = settings.session_dir;
    s.log = settings.log;
    return std::make_unique<SearchAgent>(std::move(s));
}

}  // namespace ak
