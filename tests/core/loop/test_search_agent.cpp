// The search agent: tier order, restart after a keep, steering (frozen, focus, ranges), never twice
// (also across instances through the cache file and from the session's history), the evolutionary
// strategy on a synthetic landscape, determinism with a seed.
#include "loop/agent_factory.h"
#include "loop/search_agent.h"
#include "loop/search_cache.h"

#include "engine/kernel_contract.h"
#include "engine/kernel_type.h"
#include "gpu/sha256.h"
#include "session/session.h"
#include "util/error.h"
#include "util/text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ak {
namespace {

namespace fs = std::filesystem;
using Config = std::map<std::string, std::string>;

// Tiers 1, 1, 2, 2, 3 and 4 (no tier given).
const std::string kSource =
    "// A synthetic kernel for the search agent's tests.\n"
    "// @autokernel type rmsnorm\n"
    "// @autokernel tunable BLOCK_THREADS = 256 {64, 128, 256, 512} tier 1 -- threads per block\n"
    "// @autokernel tunable ROWS_PER_BLOCK = 1 {1, 2, 4} tier 1 -- rows per block\n"
    "// @autokernel tunable VEC = 1 {1, 2, 4, 8} tier 2 -- elements per load\n"
    "// @autokernel tunable UNROLL = 1 {1, 2, 4} tier 2 -- unroll\n"
    "// @autokernel tunable USE_FAST = 0 {0, 1} tier 3 -- a variant switch\n"
    "// @autokernel tunable PAD = 0 {0, 1} -- everything else\n"
    "extern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args args) {}\n";

Config config_of(const std::string& source) {
    const KernelContract c = parse_contract(source);
    Config out;
    for (const auto& t : c.tunables) out[t.name] = t.value;
    return out;
}

// The tunables that differ between two sources.
std::vector<std::string> changed(const std::string& a, const std::string& b) {
    const Config ca = config_of(a), cb = config_of(b);
    std::vector<std::string> names;
    for (const auto& [name, value] : ca)
        if (cb.at(name) != value) names.push_back(name);
    return names;
}

int tier_of(const std::string& name) {
    static const std::map<std::string, int> tiers = {{"BLOCK_THREADS", 1}, {"ROWS_PER_BLOCK", 1}, {"VEC", 2},
                                                     {"UNROLL", 2},        {"USE_FAST", 3},       {"PAD", 4}};
    return tiers.at(name);
}

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "ak-search-test-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

// A stand-in for the loop: evaluates proposals with a latency function of the configuration (nullopt:
// the candidate fails), keeps on a 1 % gain, records history and feeds results back.
struct SimulatedLoop {
    using Landscape = std::function<std::optional<double>(const Config&)>;

    AgentContext context;
    Landscape landscape;
    std::map<int, std::string> sources;  // experiment number -> source
    double best_latency = 0;
    std::vector<Proposal> proposals;
    std::vector<Outcome> outcomes;
    // Configurations reverted even when faster (as if they lost at the other timing shape).
    std::function<bool(const Config&)> reverted_anyway;

    SimulatedLoop(std::string source, Landscape l) : landscape(std::move(l)) {
        context.kernel = KernelEntry{"rmsnorm", "rmsnorm", "", 0.0};
        context.kernel_file = "kernels/rmsnorm.cu";
        context.gpu = "NVIDIA H200";
        context.dtype = "fp16";
        context.best_source = std::move(source);
        Experiment baseline;
        baseline.number = 0;
        baseline.outcome = Outcome::Baseline;
        baseline.correctness = Correctness::Pass;
        best_latency = *landscape(config_of(context.best_source));
        baseline.latency_us = best_latency;
        baseline.description = "starter";
        context.history.push_back(baseline);
        context.best = baseline;
        sources[0] = context.best_source;
    }

    std::function<std::optional<std::string>(const Experiment&)> history_source() {
        return [this](const Experiment& e) -> std::optional<std::string> {
            auto it = sources.find(e.number);
            if (it == sources.end()) return std::nullopt;
            return it->second;
        };
    }

    // One iteration; false when the agent could not propose.
    bool step(Agent& agent) {
        Proposal p = agent.propose(context);
        if (!p.ok) {
            last_failure = p.failure;
            return false;
        }
        proposals.push_back(p);
        const auto latency = landscape(config_of(p.source));
        EvaluationResult result;
        Experiment e;
        e.number = static_cast<int>(context.history.size());
        e.description = p.description;
        Outcome outcome;
        if (!latency) {
            result.verdict = Verdict::Fail;
            result.failed_stage = CheckStage::Smoke;
            e.correctness = Correctness::Fail;
            outcome = Outcome::Failed;
        } else {
            result.verdict = Verdict::Pass;
            TimingRecord large;
            large.shape = kernel_type_info(KernelType::RmsNorm).large;
            large.median_us = *latency;
            TimingRecord larger;
            larger.shape = kernel_type_info(KernelType::RmsNorm).larger;
            larger.median_us = *latency * 3;  // must not be mistaken for the primary shape
            result.timing = {larger, large};
            e.correctness = Correctness::Pass;
            e.latency_us = *latency;
            outcome = *latency < best_latency * 0.99 ? Outcome::Kept : Outcome::Reverted;
            if (reverted_anyway && reverted_anyway(config_of(p.source))) outcome = Outcome::Reverted;
        }
        e.outcome = outcome;
        agent.observe(p, result, outcome);
        context.history.push_back(e);
        sources[e.number] = p.source;
        if (outcome == Outcome::Kept) {
            best_latency = *latency;
            context.best_source = p.source;
            context.best = e;
        }
        outcomes.push_back(outcome);
        return true;
    }

    int run(Agent& agent, int max_steps) {
        int n = 0;
        while (n < max_steps && step(agent)) ++n;
        return n;
    }

    std::string last_failure;
};

std::optional<double> flat(const Config&) { return 100.0; }

SearchSettings sweep_settings(SimulatedLoop& loop) {
    SearchSettings s;
    s.strategy = SearchStrategy::Sweep;
    s.history_source = loop.history_source();
    return s;
}

TEST(SearchAgentSweep, GoesThroughTheTiersInOrderOneChangeAtATime) {
    SimulatedLoop loop(kSource, flat);
    std::vector<std::string> logs;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { logs.push_back(l); };
    SearchAgent agent(settings);
    EXPECT_EQ(agent.name(), "search");
    // Single changes: tier 1: 3 + 2, tier 2: 3 + 2, tier 3: 1, tier 4: 1.
    EXPECT_EQ(loop.run(agent, 100), 12);
    int last_tier = 0;
    for (const auto& p : loop.proposals) {
        const auto names = changed(kSource, p.source);
        ASSERT_EQ(names.size(), 1u) << p.description;
        const int tier = tier_of(names[0]);
        EXPECT_GE(tier, last_tier) << p.description;
        last_tier = tier;
        EXPECT_NE(p.description.find("(tier " + std::to_string(tier) + ")"), std::string::npos) << p.description;
    }
    EXPECT_EQ(loop.proposals[0].description, "search: BLOCK_THREADS 256->64 (tier 1)");
    EXPECT_EQ(loop.proposals[0].config_key, "BLOCK_THREADS=64;ROWS_PER_BLOCK=1;VEC=1;UNROLL=1;USE_FAST=0;PAD=0");
    EXPECT_EQ(loop.proposals[5].description, "search: VEC 1->2 (tier 2)");
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_NE(loop.last_failure.find("exhausted"), std::string::npos) << loop.last_failure;
    bool logged_tier_change = false;
    for (const auto& l : logs)
        if (l.find("tier 1 exhausted without a keep; moving on to tier 2") != std::string::npos) logged_tier_change = true;
    EXPECT_TRUE(logged_tier_change);
}

TEST(SearchAgentSweep, FollowsUpAKeptChangeThenRestartsFromTierOne) {
    // Only VEC matters: 2 is faster than 1, 4 and 8 are slower than 2.
    SimulatedLoop loop(kSource, [](const Config& c) -> std::optional<double> {
        return c.at("VEC") == "2" ? 80.0 : c.at("VEC") == "4" ? 90.0 : 100.0;
    });
    std::vector<std::string> logs;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { logs.push_back(l); };
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 9), 9);
    // Five tier-1 reverts, then VEC 1->2 is kept ...
    for (int i = 0; i < 5; ++i) EXPECT_EQ(loop.outcomes[i], Outcome::Reverted);
    EXPECT_EQ(loop.proposals[5].description, "search: VEC 1->2 (tier 2)");
    EXPECT_EQ(loop.outcomes[5], Outcome::Kept);
    // ... momentum: the other values of VEC from the new best (1 is the old best, already seen) ...
    EXPECT_EQ(loop.proposals[6].description, "search: VEC 2->4 (tier 2)");
    EXPECT_EQ(loop.proposals[7].description, "search: VEC 2->8 (tier 2)");
    EXPECT_EQ(loop.outcomes[6], Outcome::Reverted);
    EXPECT_EQ(loop.outcomes[7], Outcome::Reverted);
    // ... then tier 1 again, from the new best.
    EXPECT_EQ(loop.proposals[8].description, "search: BLOCK_THREADS 256->64 (tier 1)");
    EXPECT_EQ(config_of(loop.proposals[8].source).at("VEC"), "2");
    EXPECT_EQ(std::count(logs.begin(), logs.end(), "search: kept a change of VEC; trying its other values first"), 1);
}

TEST(SearchAgentSweep, MomentumClimbsATunableStepByStep) {
    // Each wider vector is faster: 1 -> 2 -> 4 -> 8 in consecutive proposals once VEC starts paying.
    SimulatedLoop loop(kSource, [](const Config& c) -> std::optional<double> {
        return 100.0 / std::stod(c.at("VEC"));
    });
    SearchAgent agent(sweep_settings(loop));
    ASSERT_EQ(loop.run(agent, 8), 8);
    EXPECT_EQ(loop.proposals[5].description, "search: VEC 1->2 (tier 2)");
    EXPECT_EQ(loop.proposals[6].description, "search: VEC 2->4 (tier 2)");
    EXPECT_EQ(loop.proposals[7].description, "search: VEC 4->8 (tier 2)");
    for (int i = 5; i < 8; ++i) EXPECT_EQ(loop.outcomes[i], Outcome::Kept) << i;
}

TEST(SearchAgentSweep, AfterTheSingleChangesItPairsTheRevertedChangeThatWasFasterAtThePrimaryShape) {
    // USE_FAST=1 is faster at the primary shape but reverted (it loses at the other size) unless
    // BLOCK_THREADS is 512 too; together they win. Everything else changes nothing.
    SimulatedLoop loop(kSource, [](const Config& c) -> std::optional<double> {
        if (c.at("USE_FAST") == "1") return c.at("BLOCK_THREADS") == "512" ? 80.0 : 90.0;
        return 100.0;
    });
    loop.reverted_anyway = [](const Config& c) { return c.at("USE_FAST") == "1" && c.at("BLOCK_THREADS") != "512"; };
    std::vector<std::string> logs;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { logs.push_back(l); };
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 15), 15);
    for (int i = 0; i < 14; ++i) EXPECT_EQ(loop.outcomes[i], Outcome::Reverted) << loop.proposals[i].description;
    // 12 single changes, then pairs built on USE_FAST 0->1, in tier order.
    EXPECT_EQ(loop.proposals[11].description, "search: PAD 0->1 (tier 4)");
    EXPECT_EQ(loop.proposals[12].description, "search: BLOCK_THREADS 256->64, USE_FAST 0->1 (pair)");
    EXPECT_EQ(loop.proposals[13].description, "search: BLOCK_THREADS 256->128, USE_FAST 0->1 (pair)");
    EXPECT_EQ(loop.proposals[14].description, "search: BLOCK_THREADS 256->512, USE_FAST 0->1 (pair)");
    EXPECT_EQ(loop.outcomes[14], Outcome::Kept);
    EXPECT_EQ(std::count(logs.begin(), logs.end(),
                         "search: every single change of the best was evaluated without a keep; trying pairs with the "
                         "reverted changes that were faster at the primary shape"),
              1);
}

TEST(SearchAgentSweep, PairsOnlyBuildOnNeighboursFasterThanTheBest) {
    // UNROLL=2 is slower than the best and PAD=1 no faster: no pair is worth trying, the sweep ends.
    SimulatedLoop loop(kSource, [](const Config& c) -> std::optional<double> {
        return c.at("UNROLL") == "2" ? 120.0 : 100.0;
    });
    SearchAgent agent(sweep_settings(loop));
    EXPECT_EQ(loop.run(agent, 100), 12);
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_NE(loop.last_failure.find("lookahead pairs"), std::string::npos) << loop.last_failure;
}

// ---- tunables that matter in one variant only (`when`) --------------------------------------------------

// PATH switches the structure; THREADS matters only on path 0, STAGES and SPLIT only on path 1.
const std::string kVariantSource =
    "// @autokernel type rmsnorm\n"
    "// @autokernel tunable PATH = 0 {0, 1} tier 1 -- structure\n"
    "// @autokernel tunable THREADS = 256 {128, 256, 512} tier 1 when PATH=0 -- threads\n"
    "// @autokernel tunable STAGES = 2 {2, 3, 4} tier 2 when PATH=1 -- ring depth\n"
    "// @autokernel tunable SPLIT = 1 {1, 2} tier 3 when PATH=1 -- split\n"
    "// @autokernel tunable PAD = 0 {0, 1} -- anywhere\n"
    "extern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args args) {}\n";

TEST(SearchAgentSweep, LeavesATunableAloneWhileItsWhenDoesNotHold) {
    // Path 1 is twice as fast and STAGES 3 faster still; everything else changes nothing.
    SimulatedLoop loop(kVariantSource, [](const Config& c) -> std::optional<double> {
        if (c.at("PATH") == "0") return 100.0;
        return c.at("STAGES") == "3" ? 40.0 : 50.0;
    });
    SearchAgent agent(sweep_settings(loop));
    loop.run(agent, 100);
    // From the starter (path 0): PATH first, then STAGES (active now), never THREADS on path 1, never
    // STAGES or SPLIT on path 0, and no return to path 0 carrying STAGES 3 (the starter's kernel again).
    ASSERT_GE(loop.proposals.size(), 3u);
    EXPECT_EQ(loop.proposals[0].description, "search: PATH 0->1 (tier 1)");
    EXPECT_EQ(loop.outcomes[0], Outcome::Kept);
    EXPECT_EQ(loop.proposals[1].description, "search: STAGES 2->3 (tier 2)");
    EXPECT_EQ(loop.outcomes[1], Outcome::Kept);
    EXPECT_EQ(loop.proposals[2].description, "search: STAGES 3->4 (tier 2)");
    for (const auto& p : loop.proposals) {
        const Config c = config_of(p.source);
        if (c.at("PATH") == "1") {
            EXPECT_EQ(c.at("THREADS"), "256") << p.description;
        } else {
            EXPECT_EQ(c.at("STAGES"), "2") << p.description;
            EXPECT_EQ(c.at("SPLIT"), "1") << p.description;
        }
    }
    // From the best (path 1, STAGES 3): STAGES 2 and 4, SPLIT 2 and PAD 1; path 0 is the starter again.
    EXPECT_EQ(loop.proposals.size(), 5u);
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_EQ(config_of(loop.context.best_source).at("STAGES"), "3");
}

TEST(SearchAgentSweep, APairCombinesAVariantSwitchWithTheKnobsOfTheNewVariant) {
    // Path 1 alone is faster at the primary shape but reverted (it loses elsewhere) unless STAGES is 4:
    // the pair must combine it with STAGES, a tunable that does nothing on the best's path 0.
    SimulatedLoop loop(kVariantSource, [](const Config& c) -> std::optional<double> {
        if (c.at("PATH") == "0") return 100.0;
        return c.at("STAGES") == "4" ? 60.0 : 90.0;
    });
    loop.reverted_anyway = [](const Config& c) { return c.at("PATH") == "1" && c.at("STAGES") != "4"; };
    SearchAgent agent(sweep_settings(loop));
    loop.run(agent, 100);
    bool kept_pair = false;
    for (std::size_t i = 0; i < loop.proposals.size(); ++i)
        if (loop.outcomes[i] == Outcome::Kept)
            kept_pair = loop.proposals[i].description == "search: PATH 0->1, STAGES 2->4 (pair)";
    EXPECT_TRUE(kept_pair);
    EXPECT_EQ(config_of(loop.context.best_source).at("PATH"), "1");
}

TEST(SearchAgentEvolve, NeverProposesAConfigurationThatOnlyDiffersInTunablesWithoutEffect) {
    // Path 0: THREADS x PAD = 6 kernels; path 1: STAGES x SPLIT x PAD = 12: 18 in all, the starter one.
    SimulatedLoop loop(kVariantSource, [](const Config& c) -> std::optional<double> {
        return c.at("PATH") == "1" ? 50.0 + std::stod(c.at("STAGES")) : 100.0 - std::stod(c.at("THREADS")) / 100;
    });
    SearchSettings s;
    s.strategy = SearchStrategy::Evolve;
    s.history_source = loop.history_source();
    SearchAgent agent(s);
    loop.run(agent, 200);
    std::set<std::string> kernels;  // the values that matter
    for (const auto& p : loop.proposals) {
        const Config c = config_of(p.source);
        const std::string key = c.at("PATH") == "0" ? "0/" + c.at("THREADS") + "/" + c.at("PAD")
                                                    : "1/" + c.at("STAGES") + "/" + c.at("SPLIT") + "/" + c.at("PAD");
        EXPECT_TRUE(kernels.insert(key).second) << "the same kernel twice: " << p.config_key;
    }
    EXPECT_EQ(kernels.size(), 17u);
}

TEST(SearchAgentSweep, TheMatmulStarterClimbsToTheWgmmaVariantWithoutIdleKnobs) {
    // The matmul starter against a latency model of 4096^3 fp16 on an H200 (cuBLAS ~200 us): FMA and
    // WMMA far behind, wgmma + TMA by the operand traffic of its tile, the TMA-store epilogue's gain with
    // N = 256 (measured in the kern-matmul runs of 2026-12-02), ring depth, clusters. The search must
    // switch the structure first (MMA before any tile), reach MMA=3 with 128 x 256 tiles and the
    // TMA-store epilogue within 12 proposals (with BLOCK_M swept first it stops at 256 x 128: 256 rows
    // rule out N = 256), and never spend an evaluation on a knob of another variant.
    std::ifstream in(fs::path(AK_SOURCE_KERNELS_DIR) / "cuda" / "matmul.cu");
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const KernelContract contract = parse_contract(source);
    ASSERT_TRUE(contract.ok()) << contract.error_text("matmul.cu");
    const auto model = [](const Config& c) -> std::optional<double> {
        const double bm = std::stod(c.at("BLOCK_M")), bn = std::stod(c.at("BLOCK_N"));
        const double reuse = 1.0 + 30.0 * (bm + bn) / (bm * bn);  // operand traffic per FLOP of a tile
        if (c.at("MMA") == "0") {
            if (bm * bn / (std::stod(c.at("THREAD_M")) * std::stod(c.at("THREAD_N"))) > 1024) return std::nullopt;
            return 6000.0 * reuse;
        }
        if (c.at("MMA") == "1") return 3000.0 * reuse;
        if (bm < 64 || bn < 64 || (bm == 256 && bn > 128)) return std::nullopt;  // the kernel's static_asserts
        double t = 200.0 * reuse;
        // m64n256 with the TMA-store epilogue: 28.6 us at 2048^3 against 34.8 with direct stores and
        // 36 us for 256 x 128 (H200, fp16).
        if (bn == 256) t *= c.at("TMA_STORE") == "1" ? 0.82 : 1.0;
        static const std::map<std::string, double> stages = {{"2", 1.4}, {"3", 1.05}, {"4", 1.0}, {"5", 1.01}};
        t *= stages.at(c.at("STAGES"));
        if (c.at("CLUSTER") == "2") t *= 1.8;
        if (c.at("GROUP_M") != "8") t *= 1.02;
        return t;
    };
    SimulatedLoop loop(source, model);
    loop.context.kernel = KernelEntry{"matmul", "matmul", "", 0.0};
    loop.context.kernel_file = "kernels/matmul.cu";
    SearchAgent agent(sweep_settings(loop));
    loop.run(agent, 12);
    ASSERT_GE(loop.proposals.size(), 2u);
    EXPECT_EQ(loop.proposals[0].description, "search: MMA 0->1 (tier 1)");
    EXPECT_EQ(loop.proposals[1].description, "search: MMA 1->3 (tier 1)");
    const Config best = config_of(loop.context.best_source);
    EXPECT_EQ(best.at("MMA"), "3");
    EXPECT_EQ(best.at("BLOCK_M"), "128");
    EXPECT_EQ(best.at("BLOCK_N"), "256");
    EXPECT_EQ(best.at("TMA_STORE"), "1");
    EXPECT_NEAR(loop.best_latency, 200.0 * (1.0 + 30.0 * 384.0 / 32768.0) * 0.82, 1e-9);
    // Then on to the end of the sweep: no proposal carries a changed value of a knob its own variant
    // ignores (each would be an evaluation of a kernel already measured).
    loop.run(agent, 200);
    for (const auto& p : loop.proposals) {
        const Config c = config_of(p.source);
        const KernelContract pc = parse_contract(p.source);
        for (const auto& t : pc.tunables) {
            if (!t.when.empty() && !std::count(t.when_values.begin(), t.when_values.end(), c.at(t.when))) {
                EXPECT_EQ(t.value, contract.find(t.name)->value)
                    << p.description << ": " << t.name << " does nothing under " << t.when << "=" << c.at(t.when);
            }
        }
    }
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_LT(loop.proposals.size(), 40u) << "the whole sweep of the MMA=3 variant";
}

TEST(SearchAgent, OnlyTheSweepIsABoundedSearch) {
    SimulatedLoop loop(kSource, flat);
    SearchAgent sweep(sweep_settings(loop));
    EXPECT_TRUE(sweep.bounded_search());
    auto settings = sweep_settings(loop);
    settings.strategy = SearchStrategy::Evolve;
    SearchAgent evolve(settings);
    EXPECT_FALSE(evolve.bounded_search());
}

TEST(SearchAgentSweep, NeverChangesFrozenTunables) {
    SimulatedLoop loop(kSource, flat);
    loop.context.steering.frozen_tunables = {"BLOCK_THREADS", "VEC", "NOT_DECLARED"};
    std::vector<std::string> logs;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { logs.push_back(l); };
    SearchAgent agent(settings);
    EXPECT_EQ(loop.run(agent, 100), 12 - 3 - 3);
    for (const auto& p : loop.proposals) {
        EXPECT_EQ(config_of(p.source).at("BLOCK_THREADS"), "256");
        EXPECT_EQ(config_of(p.source).at("VEC"), "1");
    }
    ASSERT_FALSE(logs.empty());
    EXPECT_NE(logs[0].find("frozen tunable NOT_DECLARED is not declared"), std::string::npos) << logs[0];
}

TEST(SearchAgentSweep, FocusTierRestrictsTheSweepToThatTier) {
    SimulatedLoop loop(kSource, flat);
    loop.context.steering.focus_tier = 2;
    SearchAgent agent(sweep_settings(loop));
    EXPECT_EQ(loop.run(agent, 100), 5);
    for (const auto& p : loop.proposals) EXPECT_EQ(tier_of(changed(kSource, p.source).at(0)), 2);
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_NE(loop.last_failure.find("tier 2"), std::string::npos) << loop.last_failure;
}

TEST(SearchAgentSweep, RangesNarrowTheValuesAndUndeclaredValuesAreRejectedWithALogLine) {
    SimulatedLoop loop(kSource, flat);
    loop.context.steering.focus_tier = 2;
    loop.context.steering.tunable_ranges = {{"VEC", {"4", "16"}}, {"UNROLL", {"3"}}};
    std::vector<std::string> logs;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { logs.push_back(l); };
    SearchAgent agent(settings);
    EXPECT_EQ(loop.run(agent, 100), 1);
    EXPECT_EQ(loop.proposals.at(0).description, "search: VEC 1->4 (tier 2)");
    auto logged = [&](const std::string& text) {
        for (const auto& l : logs)
            if (l.find(text) != std::string::npos) return true;
        return false;
    };
    EXPECT_TRUE(logged("VEC = 16 is outside its declaration {1, 2, 4, 8}; ignored"));
    EXPECT_TRUE(logged("no declared value of UNROLL is left in its range; UNROLL stays at 1"));
}

TEST(SearchAgentSweep, TheHistorySeedsTheSeenSet) {
    SimulatedLoop loop(kSource, flat);
    // Experiment 1 (say, by another agent) already tried BLOCK_THREADS = 64.
    const std::string tried = set_tunable(kSource, "BLOCK_THREADS", "64");
    Experiment e;
    e.number = 1;
    e.outcome = Outcome::Reverted;
    e.correctness = Correctness::Pass;
    e.latency_us = 100;
    loop.context.history.push_back(e);
    loop.sources[1] = tried;
    SearchAgent agent(sweep_settings(loop));
    const Proposal p = agent.propose(loop.context);
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.description, "search: BLOCK_THREADS 256->128 (tier 1)");
}

TEST(SearchAgentSweep, ReportsContractProblemsInsteadOfSearching) {
    SimulatedLoop loop(kSource, flat);
    SearchAgent agent(sweep_settings(loop));
    loop.context.best_source = "// @autokernel type rmsnorm\n// @autokernel tunable VEC = 3 {1, 2}\n";
    Proposal p = agent.propose(loop.context);
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("kernels/rmsnorm.cu:2: tunable VEC = 3 is not in {1, 2}"), std::string::npos) << p.failure;
    loop.context.best_source = "// @autokernel type rmsnorm\nextern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args a) {}\n";
    p = agent.propose(loop.context);
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("declares no tunables"), std::string::npos) << p.failure;
    EXPECT_TRUE(agent.exhausted(loop.context));
}

// A landscape with interactions and invalid corners, on 4 x 3 x 4 x 3 x 2 x 2 = 576 configurations.
std::optional<double> landscape(const Config& c) {
    const int bt = std::stoi(c.at("BLOCK_THREADS")), rows = std::stoi(c.at("ROWS_PER_BLOCK"));
    const int vec = std::stoi(c.at("VEC")), unroll = std::stoi(c.at("UNROLL"));
    const bool fast = c.at("USE_FAST") == "1", pad = c.at("PAD") == "1";
    if (bt / rows < 32) return std::nullopt;  // fewer than a warp per row: "compile error"
    double t = 100;
    t *= 1 + 0.3 * std::abs(std::log2(bt / 128.0));        // best at 128 threads
    t *= 1 + 0.2 * std::abs(std::log2(rows / 2.0));        // best at 2 rows per block
    t *= 8.0 / (7.0 + vec);                                 // wider is better
    t *= unroll == 2 ? 0.95 : unroll == 4 ? 1.02 : 1.0;
    if (fast) t *= vec == 8 ? 0.9 : 1.1;                    // only pays with 16-byte loads
    if (pad) t *= (rows == 2 && bt == 128) ? 0.97 : 1.04;   // only pays at the optimum's shape
    return t;
}

double optimum() {
    double best = 1e9;
    for (const char* bt : {"64", "128", "256", "512"})
        for (const char* rows : {"1", "2", "4"})
            for (const char* vec : {"1", "2", "4", "8"})
                for (const char* unroll : {"1", "2", "4"})
                    for (const char* fast : {"0", "1"})
                        for (const char* pad : {"0", "1"}) {
                            const auto t = landscape({{"BLOCK_THREADS", bt}, {"ROWS_PER_BLOCK", rows}, {"VEC", vec},
                                                      {"UNROLL", unroll}, {"USE_FAST", fast}, {"PAD", pad}});
                            if (t) best = std::min(best, *t);
                        }
    return best;
}

TEST(SearchAgentEvolve, FindsTheOptimumOfASyntheticLandscapeWithinAFifthOfTheSpace) {
    const double target = optimum();
    for (std::uint64_t seed : {1, 2, 3, 4, 5, 6}) {
        SimulatedLoop loop(kSource, landscape);
        SearchSettings s;
        s.strategy = SearchStrategy::Evolve;
        s.seed = seed;
        s.history_source = loop.history_source();
        SearchAgent agent(s);
        int steps = 0;
        while (steps < 115 && loop.best_latency > target * 1.0000001 && loop.step(agent)) ++steps;
        EXPECT_NEAR(loop.best_latency, target, 1e-9) << "seed " << seed << " after " << steps << " proposals";
    }
}

TEST(SearchAgentEvolve, IsDeterministicForASeed) {
    auto run = [](std::uint64_t seed) {
        SimulatedLoop loop(kSource, landscape);
        SearchSettings s;
        s.strategy = SearchStrategy::Evolve;
        s.seed = seed;
        s.history_source = loop.history_source();
        SearchAgent agent(s);
        loop.run(agent, 40);
        std::vector<std::string> keys;
        for (const auto& p : loop.proposals) keys.push_back(p.config_key);
        return keys;
    };
    const auto a = run(7), b = run(7), c = run(8);
    EXPECT_EQ(a.size(), 40u);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(SearchAgentEvolve, VisitsEveryConfigurationOnceThenIsExhausted) {
    SimulatedLoop loop(kSource, landscape);
    loop.context.steering.frozen_tunables = {"ROWS_PER_BLOCK", "UNROLL", "PAD"};
    loop.context.steering.tunable_ranges = {{"BLOCK_THREADS", {"128", "256", "512"}}};
    SearchSettings s;
    s.strategy = SearchStrategy::Evolve;
    s.history_source = loop.history_source();
    SearchAgent agent(s);
    EXPECT_EQ(agent.name(), "search:evolve");
    // 3 x 4 x 2 = 24 configurations, one of which (the starter) is in the history.
    EXPECT_EQ(loop.run(agent, 100), 23);
    std::set<std::string> distinct;
    for (const auto& p : loop.proposals) {
        EXPECT_TRUE(distinct.insert(p.source).second) << "proposed twice: " << p.config_key;
        const Config c = config_of(p.source);
        EXPECT_EQ(c.at("ROWS_PER_BLOCK"), "1");
        EXPECT_EQ(c.at("UNROLL"), "1");
        EXPECT_EQ(c.at("PAD"), "0");
        EXPECT_NE(c.at("BLOCK_THREADS"), "64");
    }
    EXPECT_TRUE(agent.exhausted(loop.context));
    EXPECT_NE(loop.last_failure.find("exhausted"), std::string::npos);
}

TEST(SearchAgentEvolve, FocusTierLeavesTheOtherTiersAlone) {
    SimulatedLoop loop(kSource, landscape);
    loop.context.steering.focus_tier = 1;
    SearchSettings s;
    s.strategy = SearchStrategy::Evolve;
    s.history_source = loop.history_source();
    SearchAgent agent(s);
    loop.run(agent, 100);
    for (const auto& p : loop.proposals)
        for (const auto& name : changed(kSource, p.source))
            EXPECT_EQ(tier_of(name), 1) << p.config_key;
    EXPECT_EQ(loop.proposals.size(), 4u * 3u - 1u);
}

TEST(SearchAgent, NeverRepeatsAcrossInstancesThroughTheCacheFile) {
    TempDir session;
    std::set<std::string> first_run;
    SimulatedLoop loop(kSource, landscape);
    {
        SearchSettings s;
        s.strategy = SearchStrategy::Evolve;
        s.session_dir = session.path();
        s.history_source = [](const Experiment&) { return std::nullopt; };  // only the cache remembers
        SearchAgent agent(s);
        EXPECT_EQ(agent.cache_file(), search_cache_path(session.path()));
        ASSERT_EQ(loop.run(agent, 10), 10);
        for (const auto& p : loop.proposals) first_run.insert(sha256_hex(p.source));
    }
    // The file has a header and one row per observation, with verdict and latency.
    SearchCache cache(search_cache_path(session.path()));
    cache.load();
    EXPECT_TRUE(cache.warnings().empty());
    EXPECT_EQ(cache.size(), 10u);
    for (const SearchRecord* r : cache.records()) {
        EXPECT_EQ(r->key.gpu, "NVIDIA H200");
        EXPECT_EQ(r->key.dtype, "fp16");
        EXPECT_EQ(r->kernel, "rmsnorm");
        EXPECT_FALSE(r->config.empty());
        Config c;
        for (const auto& item : split(r->config, ';')) {
            const auto eq = item.find('=');
            c[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
        }
        const auto expected = landscape(c);
        if (r->verdict == "PASS") {
            ASSERT_TRUE(r->latency_us.has_value());
            ASSERT_TRUE(expected.has_value());
            EXPECT_DOUBLE_EQ(*r->latency_us, *expected);  // the primary shape's median, not the larger one's
        } else {
            EXPECT_FALSE(expected.has_value());
            EXPECT_EQ(r->verdict, "FAIL");
            EXPECT_FALSE(r->latency_us.has_value());
        }
    }
    // A new instance with the same seed would breed the same children: the cache must stop it.
    for (auto strategy : {SearchStrategy::Evolve, SearchStrategy::Sweep}) {
        SimulatedLoop again(kSource, landscape);
        again.context = loop.context;  // same best and history (history without sources)
        SearchSettings s;
        s.strategy = strategy;
        s.session_dir = session.path();
        s.history_source = [](const Experiment&) { return std::nullopt; };
        SearchAgent agent(s);
        int proposed = 0;
        for (; proposed < 15; ++proposed) {
            const Proposal p = agent.propose(again.context);
            if (!p.ok) break;  // the sweep has only 12 single changes around the best, some seen
            EXPECT_EQ(first_run.count(sha256_hex(p.source)), 0u) << "re-proposed " << p.config_key;
            EXPECT_NE(p.source, again.context.best_source);
        }
        if (strategy == SearchStrategy::Evolve) EXPECT_EQ(proposed, 15);
        else EXPECT_GE(proposed, 1);
    }
}

TEST(SearchAgent, EvolveUsesLatenciesFromTheCacheAsFitness) {
    // A first agent measures random configurations; a second one, reading the cache, breeds from the
    // best of them at once (no random start of its own).
    TempDir session;
    SimulatedLoop loop(kSource, landscape);
    SearchSettings s;
    s.strategy = SearchStrategy::Evolve;
    s.session_dir = session.path();
    s.history_source = loop.history_source();
    {
        SearchAgent first(s);
        ASSERT_EQ(loop.run(first, 6), 6);
    }
    SearchAgent second(s);
    const Proposal p = second.propose(loop.context);
    ASSERT_TRUE(p.ok);
    EXPECT_NE(p.description.find("(evolve)"), std::string::npos) << p.description;
}

TEST(SearchAgent, KeysIncludeTheGpuShapesAndDtype) {
    TempDir session;
    SimulatedLoop loop(kSource, flat);
    SearchSettings s;
    s.session_dir = session.path();
    s.history_source = [](const Experiment&) { return std::nullopt; };
    std::string first;
    {
        SearchAgent agent(s);
        ASSERT_TRUE(loop.step(agent));
        first = loop.proposals[0].description;
    }
    for (auto change : std::vector<std::function<void(AgentContext&)>>{
             [](AgentContext& c) { c.gpu = "NVIDIA H100"; }, [](AgentContext& c) { c.kernel.shapes = "1024x1024"; },
             [](AgentContext& c) { c.dtype = "bf16"; }}) {
        AgentContext other = loop.context;
        change(other);
        SearchAgent agent(s);
        EXPECT_EQ(agent.propose(other).description, first);  // not seen there
        AgentContext same = loop.context;
        SearchAgent agent2(s);
        EXPECT_NE(agent2.propose(same).description, first);   // seen here
    }
}

TEST(SearchAgent, SeedsFromARealSessionsHistory) {
    TempDir parent;
    const fs::path dir = parent.path() / "session";
    SessionInfo info;
    info.name = "search-history";
    info.gpu = "NVIDIA H200";
    KernelEntry kernel{"rmsnorm", "rmsnorm", "", 0.0};
    Session session = Session::create(dir, info, {{kernel, kSource}});
    // Another agent already tried BLOCK_THREADS 64 and 128.
    for (const char* bt : {"64", "128"}) {
        NewExperiment n;
        n.kernel_name = "rmsnorm";
        n.source = set_tunable(kSource, "BLOCK_THREADS", bt);
        n.metrics.outcome = Outcome::Reverted;
        n.metrics.correctness = Correctness::Pass;
        n.metrics.latency_us = 120;
        n.metrics.kernel_type = "rmsnorm";
        n.metrics.description = std::string("llm: BLOCK_THREADS ") + bt;
        session.record(n);
    }
    AgentContext c;
    c.kernel = kernel;
    c.kernel_file = Session::kernel_file_of("rmsnorm");
    c.best_source = kSource;
    c.gpu = "NVIDIA H200";
    for (const auto& e : session.experiments())
        if (e.kernel_file == c.kernel_file) c.history.push_back(e);
    ASSERT_EQ(c.history.size(), 3u);

    AgentSettings settings;  // through the factory, as the CLI makes it
    settings.kind = "search";
    settings.session_dir = dir;
    auto agent = make_agent(settings);
    const Proposal p = agent->propose(c);
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_EQ(p.description, "search: BLOCK_THREADS 256->512 (tier 1)");

    // Recorded after the agent opened its read-only view of the session: still seen.
    NewExperiment n;
    n.kernel_name = "rmsnorm";
    n.source = set_tunable(kSource, "ROWS_PER_BLOCK", "2");
    n.metrics.outcome = Outcome::Failed;
    n.metrics.correctness = Correctness::Fail;
    n.metrics.kernel_type = "rmsnorm";
    n.metrics.description = "user: two rows";
    c.history.push_back(session.record(n));
    const Proposal next = agent->propose(c);
    ASSERT_TRUE(next.ok) << next.failure;
    EXPECT_EQ(next.description, "search: ROWS_PER_BLOCK 1->4 (tier 1)");
}

TEST(SearchAgentSweep, SweepsEveryStarterKernelThroughAllItsSingleChanges) {
    int starters = 0;
    for (const auto& entry : fs::directory_iterator(AK_SOURCE_KERNELS_DIR "/cuda")) {
        if (entry.path().extension() != ".cu") continue;
        ++starters;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::string source = text.str();
        const KernelContract contract = parse_contract(source);
        ASSERT_TRUE(contract.ok()) << entry.path() << "\n" << contract.error_text(entry.path().string());
        // Every value of every tunable that matters in the starter's own variant (its `when` holds there).
        std::size_t expected = 0;
        for (const auto& t : contract.tunables)
            if (t.when.empty() || std::count(t.when_values.begin(), t.when_values.end(), contract.find(t.when)->value))
                expected += t.allowed.size() - 1;
        // No compute capability recorded: of the presets only those for every GPU come first; one that
        // changes a single tunable is one of the sweep's single changes (not proposed twice).
        std::size_t any_gpu = 0;
        for (const Preset& p : contract.presets) {
            if (p.sm != 0) continue;
            ++any_gpu;
            std::size_t changes = 0;
            for (const auto& [name, value] : p.values) changes += contract.find(name)->value != value;
            if (changes > 1) ++expected;
        }
        SimulatedLoop loop(source, flat);
        loop.context.kernel.name = entry.path().stem().string();
        loop.context.kernel.type = std::string(to_string(*contract.type));
        SearchAgent agent(sweep_settings(loop));
        EXPECT_EQ(static_cast<std::size_t>(loop.run(agent, 1000)), expected) << entry.path();
        int last_tier = 0;
        for (std::size_t i = 0; i < loop.proposals.size(); ++i) {
            const auto& p = loop.proposals[i];
            if (i < any_gpu) {
                EXPECT_TRUE(starts_with(p.description, "search: preset ")) << p.description;
                continue;
            }
            const auto names = changed(source, p.source);
            ASSERT_EQ(names.size(), 1u) << p.description;
            const int tier = contract.find(names[0])->tier;
            EXPECT_GE(tier, last_tier) << entry.path() << ": " << p.description;
            last_tier = tier;
            EXPECT_TRUE(parse_contract(p.source).ok());
        }
    }
    EXPECT_EQ(starters, 9);
}

// ---- presets ----------------------------------------------------------------------------------------

// kSource with presets: one for sm_90 only, one for sm_80 and newer, one for every GPU.
std::string with_presets(const std::string& presets) {
    std::string source = kSource;
    const std::string anchor = "extern \"C\"";
    source.insert(source.find(anchor), presets);
    return source;
}

const std::string kPresets =
    "// @autokernel preset hopper sm_90 BLOCK_THREADS=512 VEC=8 -- a Hopper configuration\n"
    "// @autokernel preset ampere sm_80+ BLOCK_THREADS=128 VEC=4\n"
    "// @autokernel preset anywhere ROWS_PER_BLOCK=4\n";

TEST(SearchAgentPresets, ProposesThePresetsForTheGpuFirstInOrderThenSweepsFromTheBest) {
    // VEC=8 with 512 threads is the valley: the Hopper preset is kept, the others are reverted.
    SimulatedLoop loop(with_presets(kPresets), [](const Config& c) -> std::optional<double> {
        double t = 100;
        if (c.at("VEC") == "8") t -= 40;
        if (c.at("BLOCK_THREADS") == "512") t -= 10;
        return t;
    });
    loop.context.gpu_compute_capability = "9.0";
    std::vector<std::string> lines;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { lines.push_back(l); };
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 4), 4);
    EXPECT_EQ(loop.proposals[0].description, "search: preset hopper (sm_90): BLOCK_THREADS 256->512, VEC 1->8");
    EXPECT_EQ(loop.outcomes[0], Outcome::Kept);
    // Applied to the new best: 512 -> 128 and 8 -> 4 (ROWS_PER_BLOCK keeps the best's value).
    EXPECT_EQ(loop.proposals[1].description, "search: preset ampere (sm_80+): BLOCK_THREADS 512->128, VEC 8->4");
    EXPECT_EQ(loop.outcomes[1], Outcome::Reverted);
    EXPECT_EQ(loop.proposals[2].description, "search: preset anywhere (every GPU): ROWS_PER_BLOCK 1->4");
    // Then the sweep, from the kept preset, one change at a time: first the tunables the preset did not
    // set (tier 1 ROWS_PER_BLOCK, tier 2 UNROLL, ...), then the preset's own (BLOCK_THREADS, VEC).
    EXPECT_EQ(loop.proposals[3].description, "search: ROWS_PER_BLOCK 1->2 (tier 1)");
    EXPECT_EQ(changed(loop.context.best_source, loop.proposals[3].source).size(), 1u);
    loop.run(agent, 1000);
    std::vector<std::string> order;
    for (std::size_t i = 3; i < loop.proposals.size(); ++i) {
        const auto names = changed(loop.context.best_source, loop.proposals[i].source);
        if (names.size() == 1 && (order.empty() || order.back() != names[0])) order.push_back(names[0]);
    }
    EXPECT_EQ(order, (std::vector<std::string>{"ROWS_PER_BLOCK", "UNROLL", "USE_FAST", "PAD", "BLOCK_THREADS", "VEC"}));
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("now the preset's own settings, from tier 1") != std::string::npos;
    }));
}

TEST(SearchAgentPresets, PassesOverPresetsForAnotherGpuWithALogLine) {
    SimulatedLoop loop(with_presets(kPresets), flat);
    loop.context.gpu_compute_capability = "8.6";
    std::vector<std::string> lines;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { lines.push_back(l); };
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 2), 2);
    EXPECT_TRUE(starts_with(loop.proposals[0].description, "search: preset ampere (sm_80+)"));
    EXPECT_TRUE(starts_with(loop.proposals[1].description, "search: preset anywhere (every GPU)"));
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("preset hopper (sm_90) of rmsnorm is not for this GPU (compute capability 8.6)") != std::string::npos;
    }));
    // No recorded compute capability: only the preset without a condition.
    SimulatedLoop unknown(with_presets(kPresets), flat);
    SearchAgent agent2(sweep_settings(unknown));
    ASSERT_EQ(unknown.run(agent2, 2), 2);
    EXPECT_TRUE(starts_with(unknown.proposals[0].description, "search: preset anywhere"));
    EXPECT_TRUE(starts_with(unknown.proposals[1].description, "search: BLOCK_THREADS"));
}

TEST(SearchAgentPresets, APresetIsTriedOncePerKernelAlsoByANewInstance) {
    SimulatedLoop loop(with_presets(kPresets), flat);
    loop.context.gpu_compute_capability = "9.0";
    {
        SearchAgent agent(sweep_settings(loop));
        ASSERT_EQ(loop.run(agent, 3), 3);
    }
    SearchAgent again(sweep_settings(loop));  // a new run: the history says which presets were tried
    EXPECT_FALSE(again.exhausted(loop.context));
    ASSERT_TRUE(loop.step(again));
    EXPECT_TRUE(starts_with(loop.proposals.back().description, "search: BLOCK_THREADS")) << loop.proposals.back().description;
}

TEST(SearchAgentPresets, KeepsPresetsAwayFromFrozenTunablesAndFromTheBestsOwnValues) {
    const std::string source = with_presets(
        "// @autokernel preset same ROWS_PER_BLOCK=1 VEC=1\n"
        "// @autokernel preset wide sm_90 VEC=8\n"
        "// @autokernel preset threads sm_90 BLOCK_THREADS=64\n");
    SimulatedLoop loop(source, flat);
    loop.context.gpu_compute_capability = "9.0";
    loop.context.steering.frozen_tunables = {"VEC"};
    std::vector<std::string> lines;
    auto settings = sweep_settings(loop);
    settings.log = [&](const std::string& l) { lines.push_back(l); };
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 1), 1);
    EXPECT_EQ(loop.proposals[0].description, "search: preset threads (sm_90): BLOCK_THREADS 256->64");
    auto logged = [&](const std::string& text) {
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
    };
    EXPECT_TRUE(logged("preset same (every GPU) of rmsnorm: the current best already has its values"));
    EXPECT_TRUE(logged("preset wide (sm_90) of rmsnorm sets a tunable the steering holds"));
}

TEST(SearchAgentPresets, TheEvolveStrategyStartsFromThePresetsToo) {
    SimulatedLoop loop(with_presets(kPresets), flat);
    loop.context.gpu_compute_capability = "9.0";
    auto settings = sweep_settings(loop);
    settings.strategy = SearchStrategy::Evolve;
    SearchAgent agent(settings);
    ASSERT_EQ(loop.run(agent, 4), 4);
    EXPECT_TRUE(starts_with(loop.proposals[0].description, "search: preset hopper"));
    EXPECT_TRUE(starts_with(loop.proposals[1].description, "search: preset ampere"));
    EXPECT_TRUE(starts_with(loop.proposals[2].description, "search: preset anywhere"));
    EXPECT_FALSE(starts_with(loop.proposals[3].description, "search: preset"));
}

TEST(SearchAgentPresets, EveryShippedPresetParsesAndChangesItsStarter) {
    // The starters' presets name declared tunables with allowed values (the contract checks that) and
    // each gives a configuration other than the starter's on the GPU it is for.
    int presets = 0;
    for (const KernelType type : all_kernel_types()) {
        const fs::path file = fs::path(AK_SOURCE_KERNELS_DIR) / "cuda" / (std::string(to_string(type)) + ".cu");
        std::ifstream in(file);
        ASSERT_TRUE(in) << file;
        std::stringstream text;
        text << in.rdbuf();
        const KernelContract contract = parse_contract(text.str());
        ASSERT_TRUE(contract.ok()) << contract.error_text(file.string());
        for (const Preset& p : contract.presets) {
            ++presets;
            bool changes = false;
            for (const auto& [name, value] : p.values) changes = changes || contract.find(name)->value != value;
            EXPECT_TRUE(changes) << file << ": preset " << p.name << " is the starter's own configuration";
        }
    }
    EXPECT_GE(presets, 9) << "a preset for every starter";
}

TEST(AgentFactory, MakesSearchAgentsAndRefusesUnknownStrategies) {
    AgentSettings settings;
    settings.kind = "search";
    EXPECT_EQ(make_agent(settings)->name(), "search");
    settings.search_strategy = "evolve";
    EXPECT_EQ(make_agent(settings)->name(), "search:evolve");
    settings.search_strategy = "annealing";
    try {
        make_agent(settings);
        FAIL() << "expected Error(Usage)";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("annealing"), std::string::npos);
    }
}

TEST(SearchCacheFile, RoundTripsRowsAndSkipsATornLastLine) {
    TempDir dir;
    const fs::path file = dir.path() / "cache.tsv";
    SearchRecord r;
    r.key = SearchKey{sha256_hex("a"), "GPU\twith tab", "4096x8192", "bf16"};
    r.verdict = "PASS";
    r.latency_us = 40.125;
    r.kernel = "rmsnorm";
    r.config = "VEC=8;UNROLL=2";
    r.description = "search: VEC 1->8 (tier 2)\nsecond line";
    {
        SearchCache cache(file);
        cache.load();
        cache.add(r, true);
    }
    // A torn row (kill -9 in the middle of a write) after it.
    {
        std::ofstream out(file, std::ios::app);
        out << sha256_hex("b") << "\tGPU\t";
    }
    SearchCache cache(file);
    cache.load();
    ASSERT_EQ(cache.size(), 1u);
    ASSERT_EQ(cache.warnings().size(), 1u);
    EXPECT_NE(cache.warnings()[0].find("incomplete"), std::string::npos);
    const SearchRecord* back = cache.find(r.key);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(back->key, r.key);
    EXPECT_EQ(back->latency_us, r.latency_us);
    EXPECT_EQ(back->description, r.description);
    EXPECT_EQ(back->config, r.config);
    // The next append starts on a new line, so both rows read back.
    SearchRecord r2 = r;
    r2.key.source_sha256 = sha256_hex("c");
    cache.add(r2, true);
    SearchCache reread(file);
    reread.load();
    EXPECT_EQ(reread.size(), 2u);
    EXPECT_EQ(reread.warnings().size(), 1u);  // the torn line, now in the middle, is still skipped
    EXPECT_FALSE(SearchCache::parse_row("not\ta\trow").has_value());
}

TEST(SearchCacheFile, AnObservedVerdictReplacesAProposalRecord) {
    SearchCache cache;  // memory only
    SearchRecord proposed;
    proposed.key = SearchKey{sha256_hex("x"), "g", "", "fp16"};
    proposed.config = "VEC=2";
    cache.add(proposed, true);
    EXPECT_TRUE(cache.contains(proposed.key));
    SearchRecord observed = proposed;
    observed.config.clear();
    observed.verdict = "COMPILE_ERROR";
    cache.add(observed, true);
    EXPECT_EQ(cache.find(proposed.key)->verdict, "COMPILE_ERROR");
    EXPECT_EQ(cache.find(proposed.key)->config, "VEC=2");
    EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
}  // namespace ak
