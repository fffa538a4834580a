#pragma once
// The search agent's memory of every configuration it has seen, so it never evaluates one twice.
//
// A configuration is identified by what is actually evaluated: the SHA-256 of the candidate source
// (after its tunables were set), the GPU, the shapes and the timing dtype. The file
// <session>/.autokernel/search-cache.tsv is append-only, one row per observation, tab-separated with
// results.tsv's escaping:
//
//   source_sha256  gpu  shapes  dtype  verdict  latency_us  kernel  config  description
//
// Each row is written with one append + fsync, so a kill -9 loses at most the row being written; a
// torn or malformed line is skipped with a warning when the file is read (it is a cache: the session
// history re-seeds whatever is lost). Like Kernel Tuner's cache file, a restarted run resumes from it.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ak {

struct SearchKey {
    std::string source_sha256;  // lowercase hex
    std::string gpu;
    std::string shapes;         // KernelEntry::shapes ("" = the type's defaults)
    std::string dtype;          // timing dtype
    friend bool operator==(const SearchKey&, const SearchKey&) = default;
};

struct SearchRecord {
    SearchKey key;
    std::string verdict;                // PASS, FAIL, COMPILE_ERROR, TIMEOUT, CRASH; "" = not evaluated yet
    std::optional<double> latency_us;   // median at the kernel's primary shape (PASS only)
    std::string kernel;                 // kernel name (for people reading the file)
    std::string config;                 // "NAME=value;NAME=value" in contract order; "" when not known
    std::string description;
};

class SearchCache {
public:
    // `file` empty: memory only (nothing is persisted).
    explicit SearchCache(std::filesystem::path file = {});

    // Reads the file when it exists. Malformed lines are skipped and reported by warnings().
    // Throws Error(Io) when the file exists but cannot be read.
    void load();

    // Adds a record. `persist`: also appends it to the file (durably). A record with a verdict replaces
    // an earlier one without (or with an older verdict) for the same key.
    void add(const SearchRecord& record, bool persist);

    bool contains(const SearchKey& key) const;
    // The newest record of `key`, or nullptr.
    const SearchRecord* find(const SearchKey& key) const;
    // Every key's newest record, in the order keys were first seen.
    std::vector<const SearchRecord*> records() const;
    std::size_t size() const { return order_.size(); }

    const std::filesystem::path& file() const { return file_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

    // The row as written to the file (no trailing newline) and its inverse (nullopt when malformed).
    static std::string format_row(const SearchRecord& record);
    static std::optional<SearchRecord> parse_row(std::string_view line);

private:
    static std::string map_key(const SearchKey& key);
    std::filesystem::path file_;
    std::unordered_map<std::string, SearchRecord> records_;
    std::vector<std::string> order_;
    std::vector<std::string> warnings_;
    bool needs_newline_ = false;  // the file ends in a torn line: start the next append on a new line
};

}  // namespace ak
