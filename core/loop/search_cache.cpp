#include "loop/search_cache.h"

#include "util/durable_file.h"
#include "util/error.h"
#include "util/text.h"

#include <system_error>

namespace ak {

namespace {

constexpr std::string_view kHeader =
    "# autokernel search cache v1: source_sha256\tgpu\tshapes\tdtype\tverdict\tlatency_us\tkernel\tconfig\tdescription";
constexpr std::size_t kColumns = 9;

bool is_hex_digest(std::string_view s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace

SearchCache::SearchCache(std::filesystem::path file) : file_(std::move(file)) {}

std::string SearchCache::map_key(const SearchKey& key) {
    // \x1f cannot occur in a hex digest and is escaped nowhere else: an unambiguous separator.
    return key.source_sha256 + '\x1f' + key.gpu + '\x1f' + key.shapes + '\x1f' + key.dtype;
}

std::string SearchCache::format_row(const SearchRecord& r) {
    std::string row;
    auto field = [&](std::string_view text) {
        if (!row.empty()) row += '\t';
        row += escape_field(text);
    };
    field(r.key.source_sha256);
    field(r.key.gpu);
    field(r.key.shapes);
    field(r.key.dtype);
    field(r.verdict);
    field(r.latency_us ? format_double(*r.latency_us) : std::string());
    field(r.kernel);
    field(r.config);
    field(r.description);
    return row;
}

std::optional<SearchRecord> SearchCache::parse_row(std::string_view line) {
    const auto fields = split(line, '\t');
    if (fields.size() != kColumns) return std::nullopt;
    SearchRecord r;
    r.key.source_sha256 = unescape_field(fields[0]);
    if (!is_hex_digest(r.key.source_sha256)) return std::nullopt;
    r.key.gpu = unescape_field(fields[1]);
    r.key.shapes = unescape_field(fields[2]);
    r.key.dtype = unescape_field(fields[3]);
    r.verdict = unescape_field(fields[4]);
    if (!fields[5].empty()) {
        r.latency_us = parse_double(fields[5]);
        if (!r.latency_us) return std::nullopt;
    }
    r.kernel = unescape_field(fields[6]);
    r.config = unescape_field(fields[7]);
    r.description = unescape_field(fields[8]);
    return r;
}

void SearchCache::load() {
    if (file_.empty()) return;
    std::error_code ec;
    if (!std::filesystem::exists(file_, ec)) return;
    const std::string text = read_file(file_);
    needs_newline_ = !text.empty() && text.back() != '\n';
    std::size_t start = 0;
    int line_no = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        const bool torn = end == std::string::npos;
        if (torn) end = text.size();
        ++line_no;
        const std::string_view line(text.data() + start, end - start);
        start = end + 1;
        if (line.empty() || line.front() == '#') continue;
        if (torn) {
            warnings_.push_back(file_.string() + ":" + std::to_string(line_no) +
                                ": the last line is incomplete (interrupted write); ignored");
            continue;
        }
        if (auto record = parse_row(line)) {
            add(*record, false);
        } else {
            warnings_.push_back(file_.string() + ":" + std::to_string(line_no) + ": malformed row (expected " +
                                std::to_string(kColumns) + " tab-separated fields with a SHA-256); ignored");
        }
    }
}

void SearchCache::add(const SearchRecord& record, bool persist) {
    const std::string key = map_key(record.key);
    auto it = records_.find(key);
    if (it == records_.end()) {
        records_.emplace(key, record);
        order_.push_back(key);
    } else if (!record.verdict.empty() || it->second.verdict.empty()) {
        SearchRecord merged = record;
        // Keep what the newer row does not know.
        if (merged.config.empty()) merged.config = it->second.config;
        if (merged.kernel.empty()) merged.kernel = it->second.kernel;
        if (merged.description.empty()) merged.description = it->second.description;
        it->second = std::move(merged);
    }
    if (persist && !file_.empty()) {
        std::error_code ec;
        const bool fresh = !std::filesystem::exists(file_, ec);
        if (fresh) std::filesystem::create_directories(file_.parent_path(), ec);
        std::string bytes;
        if (needs_newline_) bytes += '\n';
        if (fresh) bytes += std::string(kHeader) + '\n';
        bytes += format_row(record) + '\n';
        append_durably(file_, bytes);
        needs_newline_ = false;
    }
}

bool SearchCache::contains(const SearchKey& key) const { return records_.count(map_key(key)) != 0; }

const SearchRecord* SearchCache::find(const SearchKey& key) const {
    const auto it = records_.find(map_key(key));
    return it == records_.end() ? nullptr : &it->second;
}

std::vector<const SearchRecord*> SearchCache::records() const {
    std::vector<const SearchRecord*> out;
    out.reserve(order_.size());
    for (const auto& key : order_) out.push_back(&records_.at(key));
    return out;
}

}  // namespace ak
