#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak {
std::vector<std::string_view> split(std::string_view text, char separator);  // keeps empty fields
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
// Locale-independent number parsing/formatting (std::from_chars / to_chars). parse_* reject
// trailing garbage, empty strings, inf and nan.
std::optional<double> parse_double(std::string_view text);
std::optional<long long> parse_int(std::string_view text);
std::string format_double(double value);  // shortest round-trip form, C locale
std::string format_fixed(double value, int decimals);  // "%.*f", C locale: format_fixed(2.345, 1) == "2.3"
// Backslash escaping used by results.tsv: \ -> \\, tab -> \t, CR -> \r, LF -> \n.
std::string escape_field(std::string_view text);
std::string unescape_field(std::string_view text);
}  // namespace ak
