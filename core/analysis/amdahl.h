#pragma once
// Amdahl's law: what a kernel speedup buys end to end.
//
// A kernel that takes fraction f of the model's GPU time and gets s times faster makes the whole
// model 1 / ((1 - f) + f / s) times faster. Several kernels with disjoint fractions f_i and speedups
// s_i give 1 / (1 - sum_i f_i * (1 - 1/s_i)).
#include <optional>
#include <string>
#include <vector>

namespace ak {

// End-to-end speedup when a part taking `fraction` (0..1) of the time becomes `speedup` (>0) times
// faster. Throws Error(Usage) naming the bad value.
double amdahl_speedup(double fraction, double speedup);

struct KernelShare {
    std::string name;
    double fraction = 0.0;                  // share of the model's GPU time, 0..1
    std::optional<double> measured_speedup; // speedup reached so far, if any
};

// End-to-end speedup of several kernels each sped up by its own factor. `speedups[i]` applies to
// `fractions[i]`. Throws Error(Usage) when sizes differ, a fraction is outside [0,1], the fractions
// add up to more than 1, or a speedup is not > 0.
double amdahl_speedup(const std::vector<double>& fractions, const std::vector<double>& speedups);

// The upper bound when the kernels become infinitely fast: 1 / (1 - sum f_i); +infinity when sum f == 1.
double amdahl_limit(const std::vector<double>& fractions);

struct WhatIfRow {
    double kernel_speedup = 0.0;      // the assumed speedup of this kernel
    double end_to_end = 0.0;          // model speedup when only this kernel changes
    bool measured = false;            // this row is the kernel's measured speedup
};

struct WhatIfKernel {
    std::string name;
    double fraction = 0.0;
    std::vector<WhatIfRow> rows;      // 1.5x, 2x, 3x, 5x, then the measured speedup (if any)
    double limit = 0.0;               // end-to-end speedup if this kernel took no time at all
};

struct WhatIfTable {
    std::vector<WhatIfKernel> kernels;
    // All measured speedups applied together (kernels without one count as 1x); nullopt when no
    // kernel has a measured speedup.
    std::optional<double> aggregate_measured;
};

// The assumed speedups every kernel gets a row for.
const std::vector<double>& what_if_speedups();

// Validates like amdahl_speedup (fractions in [0,1], sum <= 1, measured speedups > 0).
WhatIfTable what_if_table(const std::vector<KernelShare>& kernels);

// Plain-text table of end-to-end speedups, e.g.
//   kernel   share    1.5x     2x       3x       5x       measured          limit
//   rmsnorm  12.0%    1.042x   1.064x   1.087x   1.106x   2.10x -> 1.067x   1.136x
//   all measured speedups together: 1.067x end to end
std::string format_what_if_table(const WhatIfTable& table);

}  // namespace ak
