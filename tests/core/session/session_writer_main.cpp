// ak_session_writer: records experiments into a session in a loop, for the crash tests.
//
//   ak_session_writer <session-dir> <total-experiments>
//
// Creates the session if the folder is not one yet (experiment 0 is the baseline), then records
// experiments until the session holds <total-experiments>. Everything about experiment N is a
// function of N (crash_writer_protocol.h), so a test can check any experiment it finds after
// killing this process at a random moment. Exit codes: 0 done, 1 error (9 from a test crash point).
#include "crash_writer_protocol.h"
#include "session/session.h"
#include "util/error.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using ak::testing::writer_metrics;
using ak::testing::writer_source;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <session-dir> <total-experiments>\n", argv[0]);
        return 1;
    }
    const std::string dir = argv[1];
    const int total = std::atoi(argv[2]);
    try {
        if (!ak::Session::is_session(dir)) {
            ak::SessionInfo info;
            info.name = "crash-test";
            ak::KernelEntry kernel;
            kernel.name = "k";
            kernel.type = "rmsnorm";
            ak::Session::create(dir, info, {{kernel, writer_source(0)}}, {writer_metrics(0)});
        }
        ak::Session session = ak::Session::open(dir);
        for (const std::string& w : session.warnings()) std::printf("warning: %s\n", w.c_str());
        std::printf("recording\n");  // the crash test times its kill from this line
        std::fflush(stdout);
        while (static_cast<int>(session.experiments().size()) < total) {
            const int n = static_cast<int>(session.experiments().size());
            ak::NewExperiment ne;
            ne.kernel_name = "k";
            ne.source = writer_source(n);
            ne.metrics = writer_metrics(n);
            session.record(ne);
        }
        return 0;
    } catch (const ak::Error& e) {
        std::fprintf(stderr, "ak_session_writer: %s\n", e.what());
        return 1;
    }
}
