#include "engine/kernel_contract.h"

#include "util/error.h"
#include "util/source_text.h"
#include "util/text.h"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#ifndef AK_KERNELS_INCLUDE_DIR
#error "AK_KERNELS_INCLUDE_DIR must be defined by the build (the source tree's kernels/include)"
#endif

namespace ak {

namespace {

constexpr std::string_view kMarker = "@autokernel";

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_value_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-';
    });
}

// Digits (with an optional sign) must be a value an int holds; other tokens pass.
bool fits_int32_if_integer(std::string_view v) {
    std::string_view digits = v;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return true;
    const std::size_t first = digits.find_first_not_of('0');
    if (first == std::string_view::npos) return true;  // zero
    if (digits.size() - first > 10) return false;
    const long long magnitude = std::stoll(std::string(digits.substr(first)));
    return v[0] == '-' ? magnitude <= 2147483648LL : magnitude <= 2147483647LL;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A cursor over one line that remembers absolute offsets into the source.
struct Cursor {
    std::string_view line;
    std::size_t base = 0;  // offset of line[0] in the source
    std::size_t pos = 0;

    void skip_space() {
        while (pos < line.size() && is_space(line[pos])) ++pos;
    }
    bool at_end() {
        skip_space();
        return pos >= line.size();
    }
    bool eat(char c) {
        skip_space();
        if (pos < line.size() && line[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    }
    bool eat_word(std::string_view w) {
        skip_space();
        if (line.substr(pos, w.size()) != w) return false;
        const std::size_t end = pos + w.size();
        if (end < line.size() && !is_space(line[end])) return false;
        pos = end;
        return true;
    }
    // Characters up to whitespace or one of `stops`.
    std::string_view token(std::string_view stops) {
        skip_space();
        const std::size_t start = pos;
        while (pos < line.size() && !is_space(line[pos]) && stops.find(line[pos]) == std::string_view::npos) ++pos;
        return line.substr(start, pos - start);
    }
    std::size_t absolute() const { return base + pos; }
};

// One tunable as parsed, with where its value sits in the source.
struct ParsedTunable {
    Tunable tunable;
    std::size_t value_begin = 0;
    std::size_t value_end = 0;
};

struct ParsedContract {
    KernelContract contract;
    std::vector<ParsedTunable> located;
};

std::string join_allowed(const std::vector<std::string>& allowed) {
    std::string out = "{";
    for (std::size_t i = 0; i < allowed.size(); ++i) out += (i ? ", " : "") + allowed[i];
    return out + "}";
}

// Parses the text after "tunable". Returns nullopt and appends to errors on a problem.
std::optional<ParsedTunable> parse_tunable(Cursor& c, int line_no, std::vector<ContractError>& errors) {
    auto fail = [&](std::string message) {
        errors.push_back({line_no, std::move(message)});
        return std::nullopt;
    };
    ParsedTunable p;
    Tunable& t = p.tunable;
    t.line = line_no;
    t.name = std::string(c.token("={"));
    if (t.name.empty()) return fail("tunable: expected a name after 'tunable'");
    if (!is_identifier(t.name)) return fail("tunable: '" + t.name + "' is not a valid C identifier");
    if (starts_with(t.name, "AK_"))
        return fail("tunable " + t.name + ": names starting with AK_ are reserved for the kernel contract");
    if (!c.eat('=')) return fail("tunable " + t.name + ": expected '=' and a value after the name");
    c.skip_space();
    p.value_begin = c.absolute();
    t.value = std::string(c.token("{"));
    p.value_end = c.absolute();
    if (t.value.empty()) return fail("tunable " + t.name + ": expected a value after '='");
    if (!is_value_token(t.value))
        return fail("tunable " + t.name + ": value '" + t.value + "' may only contain letters, digits, '_', '.', '+', '-'");
    if (!c.eat('{')) return fail("tunable " + t.name + ": expected '{' and the allowed values after the value");
    const std::size_t close = c.line.find('}', c.pos);
    if (close == std::string_view::npos) return fail("tunable " + t.name + ": missing '}' after the allowed values");
    const auto list = c.line.substr(c.pos, close - c.pos);
    c.pos = close + 1;
    if (!trim(list).empty()) {
        for (auto item : split(list, ',')) {
            const auto v = trim(item);
            if (!is_value_token(v))
                return fail("tunable " + t.name + ": allowed value '" + std::string(v) + "' is empty or malformed");
            if (std::find(t.allowed.begin(), t.allowed.end(), v) != t.allowed.end())
                return fail("tunable " + t.name + ": allowed value " + std::string(v) + " is listed twice");
            t.allowed.emplace_back(v);
        }
    }
    if (t.allowed.empty()) return fail("tunable " + t.name + ": the list of allowed values is empty");
    bool has_tier = false;
    while (true) {
        if (!has_tier && c.eat_word("tier")) {
            has_tier = true;
            const auto tier_text = c.token("-");
            const auto tier = parse_int(tier_text);
            if (!tier || *tier < 1 || *tier > 99)
                return fail("tunable " + t.name + ": tier must be a whole number from 1 to 99, got '" + std::string(tier_text) + "'");
            t.tier = static_cast<int>(*tier);
        } else if (t.when.empty() && c.eat_word("when")) {
            // when OTHER=V1|V2 (checked against OTHER's declaration once every tunable is read)
            const auto condition = c.token("-");
            const auto eq = condition.find('=');
            if (eq == std::string_view::npos || eq == 0 || eq + 1 == condition.size())
                return fail("tunable " + t.name + ": expected 'when NAME=VALUE' (or NAME=V1|V2), got '" +
                            std::string(condition) + "'");
            t.when = std::string(condition.substr(0, eq));
            if (!is_identifier(t.when))
                return fail("tunable " + t.name + ": 'when " + std::string(condition) + "': '" + t.when +
                            "' is not a tunable name");
            for (auto v : split(condition.substr(eq + 1), '|')) {
                if (!is_value_token(v))
                    return fail("tunable " + t.name + ": 'when " + std::string(condition) + "': value '" +
                                std::string(v) + "' is empty or malformed");
                t.when_values.emplace_back(v);
            }
        } else {
            break;
        }
    }
    c.skip_space();
    if (!c.at_end()) {
        if (c.line.substr(c.pos, 2) != "--")
            return fail("tunable " + t.name + ": unexpected '" + std::string(trim(c.line.substr(c.pos))) +
                        "' (expected 'tier N', 'when NAME=VALUE' or '-- help')");
        t.help = std::string(trim(c.line.substr(c.pos + 2)));
    }
    for (const std::string& v : t.allowed)
        if (!fits_int32_if_integer(v))
            return fail("tunable " + t.name + ": value " + v + " is outside the 32-bit range (" +
                        std::to_string(INT32_MIN) + " to " + std::to_string(INT32_MAX) +
                        "); a kernel's -D define becomes an int");
    if (std::find(t.allowed.begin(), t.allowed.end(), t.value) == t.allowed.end())
        return fail("tunable " + t.name + " = " + t.value + " is not in " + join_allowed(t.allowed));
    return p;
}

// Parses the text after "preset" (the settings are checked against the tunables once all are read).
std::optional<Preset> parse_preset(Cursor& c, int line_no, std::vector<ContractError>& errors) {
    auto fail = [&](std::string message) {
        errors.push_back({line_no, std::move(message)});
        return std::nullopt;
    };
    Preset p;
    p.line = line_no;
    p.name = std::string(c.token(""));
    if (p.name.empty()) return fail("preset: expected a name after 'preset'");
    if (!is_identifier(p.name)) return fail("preset: '" + p.name + "' is not a valid name (letters, digits, '_')");
    while (!c.at_end()) {
        if (c.line.substr(c.pos, 2) == "--") {
            p.help = std::string(trim(c.line.substr(c.pos + 2)));
            break;
        }
        const auto item = c.token("");
        if (p.values.empty() && p.sm == 0 && starts_with(item, "sm_")) {
            std::string_view digits = item.substr(3);
            if (!digits.empty() && digits.back() == '+') {
                p.sm_or_newer = true;
                digits.remove_suffix(1);
            }
            const auto sm = parse_int(digits);
            if (!sm || *sm < 10 || *sm > 999)
                return fail("preset " + p.name + ": GPU condition '" + std::string(item) +
                            "' is not sm_XY or sm_XY+ (a compute capability, e.g. sm_90 or sm_80+)");
            p.sm = static_cast<int>(*sm);
            continue;
        }
        const auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
            return fail("preset " + p.name + ": expected NAME=VALUE settings (and an optional sm_XY condition first), got '" +
                        std::string(item) + "'");
        const std::string name(item.substr(0, eq)), value(item.substr(eq + 1));
        for (const auto& [n, v] : p.values)
            if (n == name) return fail("preset " + p.name + ": " + name + " is set twice");
        p.values.emplace_back(name, value);
    }
    if (p.values.empty()) return fail("preset " + p.name + ": sets no tunable (expected NAME=VALUE settings)");
    return p;
}

ParsedContract parse(std::string_view source) {
    ParsedContract out;
    KernelContract& k = out.contract;
    std::size_t start = 0;
    int line_no = 0;
    while (start <= source.size()) {
        std::size_t end = source.find('\n', start);
        if (end == std::string_view::npos) end = source.size();
        ++line_no;
        Cursor c{source.substr(start, end - start), start, 0};
        c.skip_space();
        if (c.line.substr(c.pos, 2) == "//") {
            c.pos += 2;
            c.skip_space();
            if (c.line.substr(c.pos, kMarker.size()) == kMarker) {
                c.pos += kMarker.size();
                const auto keyword = c.token("");
                if (keyword == "type") {
                    const auto name = c.token("");
                    const auto type = parse_kernel_type(name);
                    if (name.empty()) {
                        k.errors.push_back({line_no, "type: expected a kernel type name after 'type'"});
                    } else if (!type) {
                        std::string known;
                        for (auto t : all_kernel_types()) known += (known.empty() ? "" : ", ") + std::string(to_string(t));
                        k.errors.push_back({line_no, "type: unknown kernel type '" + std::string(name) + "' (known: " + known + ")"});
                    } else if (!c.at_end()) {
                        k.errors.push_back({line_no, "type: unexpected text after '" + std::string(name) + "'"});
                    } else if (k.type) {
                        k.errors.push_back({line_no, "type: declared again (first on line " + std::to_string(k.type_line) + ")"});
                    } else {
                        k.type = type;
                        k.type_line = line_no;
                    }
                } else if (keyword == "tunable") {
                    if (auto p = parse_tunable(c, line_no, k.errors)) {
                        const auto dup = std::find_if(out.located.begin(), out.located.end(), [&](const ParsedTunable& q) {
                            return q.tunable.name == p->tunable.name;
                        });
                        if (dup != out.located.end()) {
                            k.errors.push_back({line_no, "tunable " + p->tunable.name + ": declared again (first on line " +
                                                             std::to_string(dup->tunable.line) + ")"});
                        } else {
                            out.located.push_back(*p);
                            k.tunables.push_back(p->tunable);
                        }
                    }
                } else if (keyword == "preset") {
                    if (auto p = parse_preset(c, line_no, k.errors)) {
                        const auto dup = std::find_if(k.presets.begin(), k.presets.end(),
                                                      [&](const Preset& q) { return q.name == p->name; });
                        if (dup != k.presets.end())
                            k.errors.push_back({line_no, "preset " + p->name + ": declared again (first on line " +
                                                             std::to_string(dup->line) + ")"});
                        else
                            k.presets.push_back(std::move(*p));
                    }
                } else if (keyword.empty()) {
                    k.errors.push_back({line_no, "@autokernel: expected 'type', 'tunable' or 'preset'"});
                } else {
                    k.errors.push_back({line_no, "@autokernel: unknown keyword '" + std::string(keyword) +
                                                     "' (expected 'type', 'tunable' or 'preset')"});
                }
            }
        }
        if (end == source.size()) break;
        start = end + 1;
    }
    // `when` names another declared tunable, with values it allows, and no chains.
    for (const Tunable& t : k.tunables) {
        if (t.when.empty()) continue;
        const auto other = std::find_if(k.tunables.begin(), k.tunables.end(), [&](const Tunable& o) { return o.name == t.when; });
        if (t.when == t.name) {
            k.errors.push_back({t.line, "tunable " + t.name + ": 'when' names the tunable itself"});
        } else if (other == k.tunables.end()) {
            k.errors.push_back({t.line, "tunable " + t.name + ": 'when " + t.when + "=...': no tunable " + t.when +
                                            " is declared"});
        } else if (!other->when.empty()) {
            k.errors.push_back({t.line, "tunable " + t.name + ": 'when " + t.when + "=...': " + t.when +
                                            " has a 'when' of its own (conditions do not chain)"});
        } else {
            for (const std::string& v : t.when_values)
                if (std::find(other->allowed.begin(), other->allowed.end(), v) == other->allowed.end())
                    k.errors.push_back({t.line, "tunable " + t.name + ": 'when " + t.when + "=" + v + "': " + v +
                                                    " is not in " + t.when + "'s " + join_allowed(other->allowed)});
        }
    }
    // A preset sets declared tunables to allowed values.
    for (const Preset& p : k.presets) {
        for (const auto& [name, value] : p.values) {
            const Tunable* t = k.find(name);
            if (!t)
                k.errors.push_back({p.line, "preset " + p.name + ": " + name + " is not a declared tunable"});
            else if (std::find(t->allowed.begin(), t->allowed.end(), value) == t->allowed.end())
                k.errors.push_back({p.line, "preset " + p.name + ": " + name + "=" + value + " is not in " +
                                                join_allowed(t->allowed)});
        }
    }
    return out;
}

std::string dtype_define(DType dtype) {
    switch (dtype) {
    case DType::fp16: return "-DAK_DTYPE_FP16";
    case DType::bf16: return "-DAK_DTYPE_BF16";
    case DType::fp32: return "-DAK_DTYPE_FP32";
    default: break;
    }
    throw Error(ErrorKind::Usage, "kernels are not compiled for " + std::string(to_string(dtype)) +
                                      " (use fp16, bf16 or fp32)");
}

}  // namespace

bool preset_applies(const Preset& preset, std::string_view compute_capability) {
    if (preset.sm == 0) return true;
    const auto dot = compute_capability.find('.');
    if (dot == std::string_view::npos) return false;
    const auto major = parse_int(compute_capability.substr(0, dot));
    const auto minor = parse_int(compute_capability.substr(dot + 1));
    if (!major || !minor || *major < 1 || *minor < 0 || *minor > 9) return false;
    const int sm = static_cast<int>(*major * 10 + *minor);
    return preset.sm_or_newer ? sm >= preset.sm : sm == preset.sm;
}

std::string preset_condition_text(const Preset& preset) {
    if (preset.sm == 0) return "every GPU";
    return "sm_" + std::to_string(preset.sm) + (preset.sm_or_newer ? "+" : "");
}

const Tunable* KernelContract::find(std::string_view name) const {
    for (const auto& t : tunables)
        if (t.name == name) return &t;
    return nullptr;
}

std::string KernelContract::error_text(std::string_view source_name) const {
    std::string out;
    for (const auto& e : errors)
        out += std::string(source_name) + ":" + std::to_string(e.line) + ": " + e.message + "\n";
    return out;
}

KernelContract parse_contract(std::string_view source) {
    KernelContract contract = parse(source).contract;
    int line = 0;
    if (const auto problem = source_text_problem(source, &line, true)) contract.errors.insert(contract.errors.begin(), {line, *problem});
    return contract;
}

std::string set_tunable(std::string_view source, std::string_view name, std::string_view value) {
    const ParsedContract p = parse(source);
    if (!p.contract.ok())
        throw Error(ErrorKind::Usage, "cannot set tunable " + std::string(name) + ": the contract has errors:\n" +
                                          p.contract.error_text("source"));
    const auto it = std::find_if(p.located.begin(), p.located.end(),
                                 [&](const ParsedTunable& t) { return t.tunable.name == name; });
    if (it == p.located.end()) {
        std::string known;
        for (const auto& t : p.located) known += (known.empty() ? "" : ", ") + t.tunable.name;
        throw Error(ErrorKind::Usage, "no tunable named " + std::string(name) +
                                          (known.empty() ? std::string(" (the source declares none)")
                                                         : " (declared: " + known + ")"));
    }
    const auto& allowed = it->tunable.allowed;
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
        throw Error(ErrorKind::Usage, "tunable " + std::string(name) + " = " + std::string(value) + " is not in " +
                                          join_allowed(allowed) + " (line " + std::to_string(it->tunable.line) + ")");
    std::string out;
    out.reserve(source.size() + value.size());
    out.append(source.substr(0, it->value_begin));
    out.append(value);
    out.append(source.substr(it->value_end));
    return out;
}

std::vector<std::string> contract_options(const KernelContract& contract, DType dtype) {
    if (!contract.ok())
        throw Error(ErrorKind::Usage, "cannot compile: the @autokernel contract has errors:\n" + contract.error_text("source"));
    std::vector<std::string> options;
    options.push_back(dtype_define(dtype));
    for (const auto& t : contract.tunables) options.push_back("-D" + t.name + "=" + t.value);
    options.push_back("--std=c++17");
    options.push_back("-default-device");
    return options;
}

std::vector<std::string> nvrtc_options(const KernelContract& contract, DType dtype, std::string_view arch,
                                       const std::vector<std::string>& include_dirs) {
    std::vector<std::string> options = contract_options(contract, dtype);
    for (const auto& dir : include_dirs) options.push_back("-I" + dir);
    options.push_back("--gpu-architecture=" + std::string(arch));
    return options;
}

std::string kernels_include_dir() {
    if (const char* env = std::getenv("AK_KERNELS_DIR"); env && *env) {
        const std::filesystem::path dir(env);
        // Accept both the kernels/ folder and kernels/include itself.
        if (std::filesystem::exists(dir / "include" / "autokernel" / "contract.cuh")) return (dir / "include").string();
        return dir.string();
    }
    return AK_KERNELS_INCLUDE_DIR;
}

}  // namespace ak
