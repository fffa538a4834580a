// Benchmark of the workbench's pages (not a timed test; label "benchmark").
//
//   bench_gui_pages [--experiments 10000] [--launches 50000] [--runs 21]
//
// 1. Roofline: a RooflinePlot of 1600x1000 with N experiments (the synthetic generator of the widget
//    tests: two kernels, every outcome); the median of QCustomPlot's replot time over `runs`
//    replots, and the median of a filter change (points rebuilt + replot).
// 2. Profile: a SYNTHETIC profile.json with M kernel launches (24 op kinds x shapes, 3 kernels an
//    op, written once through write_profile_json), opened as the workbench opens it
//    (analyseProfile: read + parse + breakdown) and shown on the Profile page; the median over runs.
// Prints one line per measurement: "name median_ms (min .. max, runs)".
#include "app/pages/profile_page.h"
#include "app/profile_loader.h"
#include "experiment_fixtures.h"
#include "profile/profile_json.h"
#include "widgets/roofline_plot.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace ak;

namespace {

struct Summary {
    double median = 0, min = 0, max = 0;
};

// CPU time of this thread: what a redraw costs, without the waits of a loaded machine.
double threadCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

Summary summarize(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

void report(const char* name, const std::vector<double>& samples)
{
    const Summary s = summarize(samples);
    std::printf("%-40s %8.2f ms  (min %.2f .. max %.2f, %zu runs)\n", name, s.median, s.min, s.max, samples.size());
}

profile::Profile syntheticProfile(int launches)
{
    profile::Profile p;
    p.origin.model = "synthetic";
    p.origin.gpu_name = "NVIDIA H200";
    p.origin.measured_iterations = 10;
    p.origin.dtype = "bf16";
    const char* ops[] = {"aten::addmm", "aten::mm", "aten::_softmax", "aten::native_layer_norm", "aten::add",
                         "aten::mul", "aten::gelu", "aten::_scaled_dot_product_flash_attention"};
    const int opKinds = 24;
    std::uint64_t t = 1000;
    int op = 0;
    for (int i = 0; i < launches; i += 3, ++op) {
        profile::OpCall call;
        call.id = std::uint64_t(op + 1);
        call.name = ops[op % 8];
        call.inputs = {{{8, 1024, 768 + 64 * ((op % opKinds) / 8)}, {}, "bf16"}, {{768, 768}, {}, "bf16"}};
        call.stack = {call.name};
        call.module_path = "blocks." + std::to_string(op % 12) + ".mlp";
        call.iteration = (i * 10) / launches;
        p.ops.push_back(call);
        for (int k = 0; k < 3 && i + k < launches; ++k) {
            profile::KernelRecord r;
            r.name = std::string(call.name) + "_kernel_" + std::to_string(k);
            r.start_ns = t;
            r.end_ns = t + 2000 + std::uint64_t((op * 37 + k * 11) % 5000);
            t = r.end_ns + 300;
            r.grid = {132, 1, 1};
            r.block = {256, 1, 1};
            r.registers_per_thread = 64;
            r.correlation_id = std::uint64_t(i + k + 1);
            r.op_id = call.id;
            r.iteration = call.iteration;
            p.kernels.push_back(r);
        }
    }
    for (int it = 0; it < 10; ++it) {
        profile::IterationRecord rec;
        rec.index = it;
        rec.gpu_start_ns = 1000 + (t - 1000) * std::uint64_t(it) / 10;
        rec.gpu_end_ns = 1000 + (t - 1000) * std::uint64_t(it + 1) / 10;
        rec.wall_ms = double(rec.gpu_end_ns - rec.gpu_start_ns) / 1e6;
        p.iterations.push_back(rec);
    }
    return p;
}

}  // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    int experiments = 10000, launches = 50000, runs = 21;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--experiments")) experiments = args[i + 1].toInt();
        if (args[i] == QLatin1String("--launches")) launches = args[i + 1].toInt();
        if (args[i] == QLatin1String("--runs")) runs = std::max(1, args[i + 1].toInt());
    }

    // 1. Roofline.
    RooflinePlot plot;
    plot.resize(1600, 1000);
    plot.show();
    QApplication::processEvents();
    plot.setRoofs({{RooflinePlot::Roof::Kind::Memory, 4800, QStringLiteral("HBM"), false},
                   {RooflinePlot::Roof::Kind::Compute, 989.4, QStringLiteral("bf16"), false},
                   {RooflinePlot::Roof::Kind::Compute, 66.9, QStringLiteral("fp32"), false}},
                  206);
    QElapsedTimer timer;
    timer.start();
    plot.setExperiments(test::manyExperiments(experiments));
    std::printf("roofline: %d experiments set in %lld ms (%d shown)\n", experiments, timer.elapsed(), plot.shownCount());
    std::vector<double> replot, replotCpu, filter, filterCpu;
    for (int i = 0; i < runs; ++i) {
        const double cpu = threadCpuMs();
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
        replotCpu.push_back(threadCpuMs() - cpu);
        replot.push_back(plot.lastReplotMs());
    }
    for (int i = 0; i < runs; ++i) {
        timer.restart();
        const double cpu = threadCpuMs();
        plot.setOutcomeVisible(Outcome::Reverted, i % 2 == 1);  // rebuilds the point graphs, replots
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
        filterCpu.push_back(threadCpuMs() - cpu);
        filter.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    report("roofline replot (10k), wall", replot);
    report("roofline replot (10k), thread CPU", replotCpu);
    report("roofline filter change + replot, wall", filter);
    report("roofline filter change + replot, CPU", filterCpu);

    // 2. Profile.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("synthetic-profile.json"));
    timer.restart();
    profile::write_profile_json(syntheticProfile(launches), path.toStdString());
    std::printf("profile: %d launches written in %lld ms (%lld bytes)\n", launches, timer.elapsed(),
                qlonglong(QFileInfo(path).size()));
    ProfilePage page;
    page.resize(1600, 1000);
    page.show();
    QApplication::processEvents();
    std::vector<double> open, read, analyse, show;
    for (int i = 0; i < runs; ++i) {
        timer.restart();
        const ProfilePtr profile = analyseProfile(path);
        const double loaded = double(timer.nsecsElapsed()) / 1e6;
        page.setProfile(profile);
        QApplication::processEvents();
        const double total = double(timer.nsecsElapsed()) / 1e6;
        open.push_back(total);
        read.push_back(double(profile->readMs));
        analyse.push_back(double(profile->analysisMs));
        show.push_back(total - loaded);
    }
    report("profile open: read + breakdown + page (50k)", open);
    report("  read + parse", read);
    report("  breakdown", analyse);
    report("  page (model, charts)", show);
    return 0;
}
