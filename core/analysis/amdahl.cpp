#include "analysis/amdahl.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ak {
namespace {

// Fractions may carry rounding error from profiles (0.30000000000000004 + ...), so the sum check
// allows a tiny excess.
constexpr double kSumTolerance = 1e-9;

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void check_fraction(double f, const std::string& what) {
    if (!std::isfinite(f) || f < 0.0 || f > 1.0)
        throw Error(ErrorKind::Usage, what + " is " + number(f) + ": a fraction of the time must be between 0 and 1");
}

void check_speedup(double s, const std::string& what) {
    if (!std::isfinite(s) || s <= 0.0)
        throw Error(ErrorKind::Usage, what + " is " + number(s) + ": a speedup must be a finite number above 0");
}

void check_sum(double sum) {
    if (sum > 1.0 + kSumTolerance)
        throw Error(ErrorKind::Usage, "the kernel fractions add up to " + number(sum) +
                                          ": together they cannot take more than all of the time (1.0)");
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string times(double v) {
    if (std::isinf(v)) return "inf";
    return fixed(v, 3) + "x";
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

}  // namespace

double amdahl_speedup(double fraction, double speedup) {
    check_fraction(fraction, "fraction");
    check_speedup(speedup, "speedup");
    return 1.0 / ((1.0 - fraction) + fraction / speedup);
}

double amdahl_speedup(const std::vector<double>& fractions, const std::vector<double>& speedups) {
    if (fractions.size() != speedups.size())
        throw Error(ErrorKind::Usage, "Amdahl: " + std::to_string(fractions.size()) + " fractions but " +
                                          std::to_string(speedups.size()) + " speedups");
    double sum = 0.0;
    double saved = 0.0;
    for (std::size_t i = 0; i < fractions.size(); ++i) {
        check_fraction(fractions[i], "fraction " + std::to_string(i + 1));
        check_speedup(speedups[i], "speedup " + std::to_string(i + 1));
        sum += fractions[i];
        saved += fractions[i] * (1.0 - 1.0 / speedups[i]);
    }
    check_sum(sum);
    return 1.0 / (1.0 - saved);
}

double amdahl_limit(const std::vector<double>& fractions) {
    double sum = 0.0;
    for (std::size_t i = 0; i < fractions.size(); ++i) {
        check_fraction(fractions[i], "fraction " + std::to_string(i + 1));
        sum += fractions[i];
    }
    check_sum(sum);
    if (sum >= 1.0) return std::numeric_limits<double>::infinity();
    return 1.0 / (1.0 - sum);
}

const std::vector<double>& what_if_speedups() {
    static const std::vector<double> speedups{1.5, 2.0, 3.0, 5.0};
    return speedups;
}

WhatIfTable what_if_table(const std::vector<KernelShare>& kernels) {
    WhatIfTable table;
    double sum = 0.0;
    std::vector<double> fractions, measured;
    for (const KernelShare& k : kernels) {
        const std::string who = "kernel '" + k.name + "'";
        check_fraction(k.fraction, "the fraction of " + who);
        if (k.measured_speedup) check_speedup(*k.measured_speedup, "the measured speedup of " + who);
        sum += k.fraction;
    }
    check_sum(sum);

    for (const KernelShare& k : kernels) {
        WhatIfKernel row{k.name, k.fraction, {}, amdahl_limit({k.fraction})};
        for (double s : what_if_speedups()) row.rows.push_back({s, amdahl_speedup(k.fraction, s), false});
        if (k.measured_speedup)
            row.rows.push_back({*k.measured_speedup, amdahl_speedup(k.fraction, *k.measured_speedup), true});
        table.kernels.push_back(std::move(row));
        fractions.push_back(k.fraction);
        measured.push_back(k.measured_speedup.value_or(1.0));
    }
    bool any_measured = false;
    for (const KernelShare& k : kernels) any_measured = any_measured || k.measured_speedup.has_value();
    if (any_measured) table.aggregate_measured = amdahl_speedup(fractions, measured);
    return table;
}

std::string format_what_if_table(const WhatIfTable& table) {
    std::size_t name_width = 6;
    for (const WhatIfKernel& k : table.kernels) name_width = std::max(name_width, k.name.size());
    name_width += 2;
    constexpr std::size_t col = 9;

    std::string out = pad("kernel", name_width) + pad("share", col);
    for (double s : what_if_speedups()) out += pad(number(s) + "x", col);
    out += pad("measured", 18) + "limit\n";
    for (const WhatIfKernel& k : table.kernels) {
        out += pad(k.name, name_width) + pad(fixed(k.fraction * 100.0, 1) + "%", col);
        std::string measured = "-";
        for (const WhatIfRow& r : k.rows) {
            if (r.measured)
                measured = fixed(r.kernel_speedup, 2) + "x -> " + times(r.end_to_end);
            else
                out += pad(times(r.end_to_end), col);
        }
        out += pad(measured, 18) + times(k.limit) + "\n";
    }
    if (table.aggregate_measured)
        out += "all measured speedups together: " + times(*table.aggregate_measured) + " end to end\n";
    else
        out += "no kernel has a measured speedup yet\n";
    return out;
}

}  // namespace ak
