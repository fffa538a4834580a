#pragma once
// Display text of metric values, shared by the table and the details panel. Uses the default QLocale
// (the application sets it), so German shows "12,5". Missing values format as an empty string.
#include <QString>

#include <optional>
#include <string>

namespace ak::format {

QString latencyUs(std::optional<double> us);        // "12.34" (< 100), "123.4", "1234"
QString speedup(std::optional<double> factor);      // "1.23×"
QString tflops(std::optional<double> tflops);       // "0.73", "349.2"
QString bandwidth(std::optional<double> gb_s);      // "3397"
QString percent(std::optional<double> pct);         // "83.1"
QString seconds(std::optional<double> s);           // "6.5"
QString megabytes(std::optional<double> mb);        // "1024"
// ISO 8601 UTC ("2026-11-29T08:15:02Z") as "2026-11-29 08:15:02"; other text is returned as is.
QString utcTimestamp(const std::string& iso);
// Text of a UTF-8 std::string.
inline QString text(const std::string& utf8) { return QString::fromStdString(utf8); }

}  // namespace ak::format
