#include "cli/command_line.h"

#include "util/error.h"

#include <algorithm>

namespace ak::cli {
namespace {

bool contains(std::initializer_list<std::string_view> list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Arguments::Arguments(std::span<const std::string> args, std::initializer_list<std::string_view> value_options,
                     std::initializer_list<std::string_view> flag_options, std::string usage)
    : usage_(std::move(usage)) {
    bool options_ended = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (options_ended || arg.size() < 2 || arg[0] != '-') {
            positional_.push_back(arg);
            continue;
        }
        if (arg == "--") {
            options_ended = true;
            continue;
        }
        if (arg == "--help" || arg == "-h") {
            help_ = true;
            continue;
        }
        std::string name = arg;
        std::optional<std::string> inline_value;
        if (arg.starts_with("--")) {
            if (const std::size_t eq = arg.find('='); eq != std::string::npos) {
                name = arg.substr(0, eq);
                inline_value = arg.substr(eq + 1);
            }
        } else if (arg.size() > 2 && contains(value_options, arg.substr(0, 2))) {
            name = arg.substr(0, 2);  // "-Idir"
            inline_value = arg.substr(2);
        }
        if (contains(flag_options, name) && !inline_value) {
            flags_.push_back(name);
        } else if (contains(value_options, name)) {
            if (inline_value) {
                values_.emplace_back(name, *inline_value);
            } else if (i + 1 < args.size()) {
                values_.emplace_back(name, args[++i]);
            } else {
                fail("option " + name + " needs a value");
            }
        } else {
            fail("unknown option '" + arg + "'");
        }
    }
}

std::optional<std::string> Arguments::value(std::string_view option) const {
    for (auto it = values_.rbegin(); it != values_.rend(); ++it)
        if (it->first == option) return it->second;
    return std::nullopt;
}

std::vector<std::string> Arguments::values(std::string_view option) const {
    std::vector<std::string> out;
    for (const auto& [name, value] : values_)
        if (name == option) out.push_back(value);
    return out;
}

bool Arguments::flag(std::string_view option) const {
    return std::find(flags_.begin(), flags_.end(), option) != flags_.end();
}

void Arguments::expect_positional(std::size_t min, std::size_t max, std::string_view what) const {
    if (positional_.size() < min) fail("missing " + std::string(what));
    if (positional_.size() > max) fail("unexpected argument '" + positional_[max] + "'");
}

void Arguments::fail(const std::string& message) const {
    throw Error(ErrorKind::Usage, message + "\n\n" + usage_);
}

}  // namespace ak::cli
