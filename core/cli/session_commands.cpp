// autokernel session summary | import-autokernel | repair
#include "cli/command_line.h"
#include "cli/commands.h"
#include "session/autokernel_import.h"
#include "session/session.h"
#include "session/session_summary.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <chrono>
#include <iostream>
#include <unistd.h>

namespace ak::cli {
namespace {

constexpr const char* kUsage = R"(usage: autokernel session summary DIR
       autokernel session import-autokernel RESULTS.tsv DIR [--repo AK_GIT_DIR]
       autokernel session repair DIR

  summary             experiment counts, the best experiment of every kernel and its speedup
                      (opens the session read-only; repairs it would need are reported, not made)
  import-autokernel   creates the session DIR from an AutoKernel results.tsv; with --repo, kernel
                      sources are taken from that AutoKernel git repository's history
  repair              rebuilds DIR/results.tsv from the experiments recorded in git, keeping the old
                      file as results.tsv.bak-<time>
Warnings go to stderr.
)";

void print_warnings(const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) std::cerr << "autokernel: warning: " << w << "\n";
}

int summary(std::span<const std::string> args) {
    const Arguments a(args, {}, {}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "the session folder DIR");
    const Session session = Session::open(a.positional()[0], OpenOptions{.read_only = true});
    print_warnings(session.warnings());
    std::cout << format_summary(summarize(session.experiments()), session.info());
    return kExitOk;
}

int import_autokernel_command(std::span<const std::string> args) {
    const Arguments a(args, {"--repo"}, {}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(2, 2, a.positional().empty() ? "RESULTS.tsv and DIR" : "the new session folder DIR");
    std::optional<std::filesystem::path> repo;
    if (auto r = a.value("--repo")) repo = *r;
    std::vector<std::string> warnings;
    const bool terminal = ::isatty(2) != 0;
    const auto started = std::chrono::steady_clock::now();
    const auto progress = [&](std::size_t done, std::size_t total) {
        if (!terminal && done % 100000 != 0 && done != total) return;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::cerr << (terminal ? "\r" : "") << "autokernel: imported " << done << " of " << total << " rows ("
                  << static_cast<long long>(seconds > 0 ? done / seconds : 0) << " rows/s)" << (terminal ? "" : "\n")
                  << std::flush;
    };
    const ImportResult result = import_autokernel(a.positional()[0], a.positional()[1], repo, &warnings, progress);
    if (terminal) std::cerr << "\n";
    print_warnings(warnings);
    std::cout << "imported " << result.experiments << " experiments from " << a.positional()[0]
              << " into the session " << result.dir.string()
              << (result.resumed_after ? " (continuing a stopped import after row " + std::to_string(result.resumed_after) + ")"
                                       : std::string())
              << "\n";
    return kExitOk;
}

int repair(std::span<const std::string> args) {
    const Arguments a(args, {}, {}, kUsage);
    if (a.help()) {
        std::cout << kUsage;
        return kExitOk;
    }
    a.expect_positional(1, 1, "the session folder DIR");
    const std::filesystem::path results = std::filesystem::path(a.positional()[0]) / "results.tsv";
    auto contents = [&]() -> std::optional<std::string> {
        try {
            return read_file(results);
        } catch (const Error&) {
            return std::nullopt;  // missing or unreadable: repair() decides what that means
        }
    };
    const std::optional<std::string> before = Session::is_session(a.positional()[0]) ? contents() : std::nullopt;
    std::vector<std::string> warnings;
    const std::size_t rows = Session::repair(a.positional()[0], &warnings);
    print_warnings(warnings);
    const std::string count = std::to_string(rows) + (rows == 1 ? " row" : " rows");
    if (before && before == contents())
        std::cout << results.string() << " already matches git: " << count << "\n";
    else
        std::cout << "rebuilt " << results.string() << " from git: " << count << "\n";
    return kExitOk;
}

}  // namespace

int run_session(std::span<const std::string> args) {
    if (args.empty()) throw Error(ErrorKind::Usage, std::string("session: missing subcommand\n\n") + kUsage);
    const std::string& sub = args[0];
    const std::span<const std::string> rest = args.subspan(1);
    if (sub == "--help" || sub == "-h") {
        std::cout << kUsage;
        return kExitOk;
    }
    if (sub == "summary") return summary(rest);
    if (sub == "import-autokernel") return import_autokernel_command(rest);
    if (sub == "repair") return repair(rest);
    throw Error(ErrorKind::Usage, "session: unknown subcommand '" + sub + "'\n\n" + kUsage);
}

}  // namespace ak::cli
