// bench_import: rows/s and peak RSS of `autokernel session import-autokernel` (issue 13).
//
//   bench_import AUTOKERNEL_BINARY WORK_DIR [--rows 10000,100000,1000000] [--repeat 3]
//
// Writes a SYNTHETIC AutoKernel results.tsv of each size in WORK_DIR (two kernel types, the outcome
// mix of a search, no --repo: every row gets a placeholder source), runs the import as a child process
// `--repeat` times per size into a fresh folder, and prints one line per run and a median line per
// size: wall seconds, rows/s, peak RSS of the child (getrusage). Any binary can be measured, so the
// same program times the code before and after a change.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

void write_results(const fs::path& path, long rows) {
    std::ofstream out(path, std::ios::binary);
    out << "experiment\ttag\tkernel_type\tthroughput_tflops\tlatency_us\tpct_peak\tspeedup_vs_pytorch\tcorrectness\t"
           "peak_vram_mb\tdescription\n";
    for (long n = 0; n < rows; ++n) {
        const bool fail = n % 4 == 3;
        out << n << "\tsynthetic-bench\t" << (n % 3 ? "rmsnorm" : "softmax") << "\t" << 1.0 + (n % 97) * 0.01 << "\t"
            << 40.0 - (n % 1000) * 0.01 << "\t" << 60 + n % 30 << "\t" << 1.05 << "\t" << (fail ? "FAIL" : "PASS")
            << "\t" << 128 << "\tsynthetic candidate " << n << ": BLOCK_SIZE " << (64 << (n % 5)) << ", num_warps "
            << (1 << (n % 4)) << "\n";
    }
}

struct Run {
    double seconds = 0;
    long max_rss_kib = 0;
    int status = -1;
};

Run run_import(const std::string& binary, const fs::path& tsv, const fs::path& dir) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 2);  // one placeholder warning a row (or a count) is not what is measured
        ::execl(binary.c_str(), binary.c_str(), "session", "import-autokernel", tsv.c_str(), dir.c_str(), nullptr);
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.max_rss_kib = usage.ru_maxrss;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

template <typename T>
T median(std::vector<T> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_import AUTOKERNEL_BINARY WORK_DIR [--rows N,N,...] [--repeat R]\n");
        return 64;
    }
    const std::string binary = argv[1];
    const fs::path work = argv[2];
    std::vector<long> sizes{10000, 100000, 1000000};
    int repeat = 3;
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--rows") {
            sizes.clear();
            std::string list = argv[i + 1];
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                sizes.push_back(std::atol(list.substr(at, comma - at).c_str()));
                at = comma + 1;
            }
        } else if (option == "--repeat") {
            repeat = std::max(1, std::atoi(argv[i + 1]));
        }
    }
    fs::create_directories(work);
    std::printf("binary %s\n", binary.c_str());
    for (const long rows : sizes) {
        const fs::path tsv = work / ("autokernel-" + std::to_string(rows) + ".tsv");
        if (!fs::exists(tsv)) write_results(tsv, rows);
        std::vector<double> rates;
        std::vector<long> rss;
        for (int r = 0; r < repeat; ++r) {
            const fs::path dir = work / ("session-" + std::to_string(rows));
            fs::remove_all(dir);
            const Run run = run_import(binary, tsv, dir);
            fs::remove_all(dir);
            std::printf("rows %ld run %d: exit %d, %.2f s, %.0f rows/s, peak RSS %.1f MiB\n", rows, r + 1, run.status,
                        run.seconds, rows / run.seconds, run.max_rss_kib / 1024.0);
            std::fflush(stdout);
            if (run.status != 0) return 1;
            rates.push_back(rows / run.seconds);
            rss.push_back(run.max_rss_kib);
        }
        std::printf("rows %ld median: %.0f rows/s (min %.0f, max %.0f), peak RSS %.1f MiB (min %.1f, max %.1f)\n", rows,
                    median(rates), *std::min_element(rates.begin(), rates.end()),
                    *std::max_element(rates.begin(), rates.end()), median(rss) / 1024.0,
                    *std::min_element(rss.begin(), rss.end()) / 1024.0, *std::max_element(rss.begin(), rss.end()) / 1024.0);
        std::fflush(stdout);
    }
    return 0;
}
