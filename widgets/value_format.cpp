#include "widgets/value_format.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace ak::format {
namespace {

QString fixed(std::optional<double> value, int decimals) {
    if (!value || !std::isfinite(*value)) return QString();
    return QLocale().toString(*value, 'f', decimals);
}

// Fewer decimals as the magnitude grows: 3 significant digits at least, never more than `max_decimals`.
QString adaptive(std::optional<double> value, int max_decimals) {
    if (!value || !std::isfinite(*value)) return QString();
    const double magnitude = std::fabs(*value);
    int decimals = max_decimals;
    if (magnitude >= 1000) decimals = 0;
    else if (magnitude >= 100) decimals = std::min(1, max_decimals);
    return fixed(value, decimals);
}

}  // namespace

QString latencyUs(std::optional<double> us) { return adaptive(us, 2); }

QString speedup(std::optional<double> factor) {
    const QString number = fixed(factor, 2);
    return number.isEmpty() ? number : number + QChar(0x00D7);  // ×
}

QString tflops(std::optional<double> value) { return adaptive(value, 2); }
QString bandwidth(std::optional<double> gb_s) { return fixed(gb_s, 0); }
QString percent(std::optional<double> pct) { return fixed(pct, 1); }
QString seconds(std::optional<double> s) { return fixed(s, 1); }
QString megabytes(std::optional<double> mb) { return fixed(mb, 0); }

QString utcTimestamp(const std::string& iso) {
    QString text = QString::fromStdString(iso);
    // Cheap and allocation-light: "YYYY-MM-DDTHH:MM:SSZ" -> "YYYY-MM-DD HH:MM:SS".
    if (text.size() >= 19 && text.at(10) == QLatin1Char('T')) {
        text[10] = QLatin1Char(' ');
        if (text.endsWith(QLatin1Char('Z'))) text.chop(1);
    }
    return text;
}

}  // namespace ak::format
