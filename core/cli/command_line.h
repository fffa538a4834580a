#pragma once
// Hand-written argument parsing for the `autokernel` commands, and their exit codes.
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ak::cli {

enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,
    kExitNoGpu = 2,    // no GPU or no driver
    kExitUsage = 64,   // EX_USAGE of sysexits.h
};

// The arguments of one command (after its name). Accepts "--name VALUE", "--name=VALUE", and for
// one-letter options "-I DIR" and "-IDIR". "--" ends options. "--help" / "-h" anywhere asks for help.
class Arguments {
public:
    // Throws Error(Usage) for an unknown option or a value option without a value; the message ends
    // with `usage`.
    Arguments(std::span<const std::string> args, std::initializer_list<std::string_view> value_options,
              std::initializer_list<std::string_view> flag_options, std::string usage);

    bool help() const { return help_; }
    const std::string& usage() const { return usage_; }
    const std::vector<std::string>& positional() const { return positional_; }
    // The last value given for `option` ("--arch"), or nullopt.
    std::optional<std::string> value(std::string_view option) const;
    // Every value given for a repeatable option ("-I"), in order.
    std::vector<std::string> values(std::string_view option) const;
    bool flag(std::string_view option) const;

    // Throws Error(Usage) unless there are between `min` and `max` positional arguments, naming
    // `what` (e.g. "FILE.cu") when one is missing.
    void expect_positional(std::size_t min, std::size_t max, std::string_view what) const;

    // Error(Usage) with `message` followed by the usage text.
    [[noreturn]] void fail(const std::string& message) const;

private:
    std::string usage_;
    bool help_ = false;
    std::vector<std::string> positional_;
    std::vector<std::pair<std::string, std::string>> values_;
    std::vector<std::string> flags_;
};

}  // namespace ak::cli
