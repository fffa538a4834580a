#pragma once
// The built-in search agent: offline, no LLM, the default. It only changes the values of the tunables
// a kernel declares (// @autokernel tunable ..., engine/kernel_contract.h) through set_tunable(), so it
// never has to understand C++.
//
// Two strategies:
//   Sweep  - tier-ordered greedy coordinate sweep (the playbook's order). From the current best, try
//            every allowed value of every tunable of the lowest tier, one change at a time; when a tier
//            is exhausted without a keep, go on to the next tier (1 block shape/threads/rows per block,
//            2 vector width/unrolling, 3 variant switches, then the rest); after a keep the best has
//            changed: the sweep first tries the other values of the tunable that just paid off
//            (momentum: VEC 2 -> 4 after a kept 1 -> 2), then starts again from tier 1, because tunables
//            interact. When every single change of the best has been evaluated without a keep, a
//            lookahead tries pairs: the (at most two) reverted single changes that were faster than the
//            best at the primary shape, each combined with one more single change, in tier order.
//            It ends when no single change or pair is left (exhausted()), so the
//            "reverts in a row" move-on rule does not apply to it (bounded_search()).
//   Evolve - a global evolutionary search over all free tunables at once: a population of the best
//            evaluated configurations (elitism), tournament selection, uniform crossover and a mutation
//            of one tunable, with a seeded RNG. Of the unseen children it proposes the one whose nearest
//            evaluated configurations (Hamming distance) were fastest. Fitness is the median latency at
//            the kernel's primary shape; anything that did not pass counts as the worst.
//
// Presets: before either strategy, the agent proposes the contract's presets (// @autokernel preset,
// engine/kernel_contract.h) whose GPU condition holds for the session's compute capability, in the order
// written, each applied to the current best (tunables a preset does not name keep the best's values).
// Each is one experiment, described "search: preset NAME (sm_90): A 0->3, ...", and kept like any other
// candidate only when it is faster; the sweep then climbs from whatever is best. When the best holds a
// kept preset's values, the sweep tries the tunables that preset did not set first (the preset is a
// measured point for the ones it sets) and the preset's own after them. A preset is tried once
// per kernel (the history's descriptions say which were), and passed over, with a log line, when it is
// for another GPU, sets a tunable the steering holds, or gives the best or an evaluated configuration.
//
// Variants: a tunable declared with `when OTHER=V` (kernel_contract.h) is left alone while the
// configuration's OTHER has another value (the sweep does not try it, a pair does not combine it, evolve
// sets it back to the best's value), so a switch to another structure is not followed by evaluations of
// knobs that structure ignores.
//
// Steering: focus_tier restricts the search to that tier; frozen tunables keep the best's value;
// tunable_ranges narrow the allowed values (values outside the declaration are ignored with a log line).
//
// Never twice: every configuration is keyed by SHA-256 of the candidate source + GPU + shapes + dtype
// (loop/search_cache.h). The keys persist in <session>/.autokernel/search-cache.tsv with the measured
// latency and verdict, and are also seeded from the session's history (the sources of recorded
// experiments), so a restarted run, a new agent instance and the evolve strategy's fitness reuse them.
#include "loop/agent.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ak {

enum class SearchStrategy { Sweep, Evolve };
std::string_view to_string(SearchStrategy s);                      // "sweep", "evolve"
std::optional<SearchStrategy> parse_search_strategy(std::string_view s);

struct SearchSettings {
    SearchStrategy strategy = SearchStrategy::Sweep;
    std::uint64_t seed = 1;                 // evolve's RNG
    // The cache lives in <session_dir>/.autokernel/search-cache.tsv; empty: memory only.
    std::filesystem::path session_dir;
    // Evolve.
    int population = 12;                    // best evaluated configurations kept as parents
    int tournament = 3;                     // contestants per parent selection
    double mutation_rate = 0.5;             // chance a child also gets one tunable mutated
    int children_per_proposal = 48;         // children bred to choose one unseen from
    int random_start = 4;                   // random configurations evaluated before breeding starts
    // The source of a recorded experiment, to seed the seen-set from the session's history. Unset: read
    // from the session in session_dir (opened read-only); nullopt: not available.
    std::function<std::optional<std::string>(const Experiment&)> history_source;
    // Log lines (steering problems, tier changes, cache warnings). Unset: dropped.
    std::function<void(const std::string&)> log;
};

class SearchAgent : public Agent {
public:
    explicit SearchAgent(SearchSettings settings);
    ~SearchAgent() override;
    SearchAgent(const SearchAgent&) = delete;
    SearchAgent& operator=(const SearchAgent&) = delete;

    std::string name() const override;  // "search" (sweep) or "search:evolve"
    Proposal propose(const AgentContext& context) override;
    void observe(const Proposal& proposal, const EvaluationResult& result, Outcome outcome) override;
    bool exhausted(const AgentContext& context) const override;
    bool bounded_search() const override;  // true for the sweep

    // Where the cache is written ("" when memory only).
    std::filesystem::path cache_file() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// "<session_dir>/.autokernel/search-cache.tsv".
std::filesystem::path search_cache_path(const std::filesystem::path& session_dir);

}  // namespace ak
