// bench_gui: how the workbench copes with a 10,000-experiment session (the synthetic fixture).
//
//   bench_gui SESSION_DIR [--replots N] [--check]
//
// Measures, on the offscreen platform:
//   open      Session::open (read-only: results.tsv + git reconcile) and model population
//             (ExperimentTableModel + ExperimentFilterModel + TimelinePlot), and the whole
//             MainWindow::openSession path (worker thread, queued delivery, first selection)
//   replot    full TimelinePlot replots (QCustomPlot::replot, rpImmediateRefresh), N times per
//             metric: wall time (QElapsedTimer) and QCustomPlot's own replotTime()
//   scroll    QTableView::scrollTo page by page over the whole table, painting every page
// Prints a table; targets: open < 1 s, replot < 16 ms (one frame at 60 Hz). --check exits 1 when a
// median misses its target.
#include "app/main_window.h"
#include "session/session.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"
#include "widgets/timeline_plot.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

namespace {

struct Stats {
    double median = 0, p10 = 0, p90 = 0, min = 0, max = 0;
    int n = 0;
};

Stats statsOf(std::vector<double> v)
{
    Stats s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    auto at = [&v](double q) { return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))]; };
    s.median = at(0.5);
    s.p10 = at(0.1);
    s.p90 = at(0.9);
    s.min = v.front();
    s.max = v.back();
    s.n = int(v.size());
    return s;
}

double msSince(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }

void printRow(const char* what, const Stats& s, const char* target)
{
    std::printf("| %-44s | %8.2f | %8.2f | %8.2f | %8.2f | %8.2f | %4d | %-9s |\n", what, s.median, s.p10, s.p90, s.min,
                s.max, s.n, target);
}

}  // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString dir;
    int replots = 50;
    bool check = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--replots") && i + 1 < args.size())
            replots = args[++i].toInt();
        else if (args[i] == QLatin1String("--check"))
            check = true;
        else
            dir = args[i];
    }
    if (dir.isEmpty()) {
        std::fprintf(stderr, "usage: bench_gui SESSION_DIR [--replots N] [--check]\n");
        return 2;
    }
    const std::string path = dir.toStdString();

    // --- open: core only, then core + models, 5 times each ----------------------------------------
    std::vector<double> openCore, populate, openTotal;
    std::vector<ak::Experiment> experiments;
    std::string name;
    for (int round = 0; round < 5; ++round) {
        QElapsedTimer t;
        t.start();
        ak::OpenOptions options;
        options.read_only = true;
        ak::Session session = [&] {
            try {
                return ak::Session::open(path, options);
            } catch (const std::exception& error) {
                std::fprintf(stderr, "bench_gui: cannot open %s: %s\n", path.c_str(), error.what());
                std::exit(1);
            }
        }();
        const double opened = msSince(t);
        experiments = session.experiments();
        name = session.info().name;
        QElapsedTimer p;
        p.start();
        ak::ExperimentTableModel model;
        ak::ExperimentFilterModel filter;
        filter.setSourceModel(&model);
        filter.sort(ak::ExperimentTableModel::NumberColumn);
        model.setExperiments(experiments);
        ak::TimelinePlot plot;
        plot.setExperiments(experiments);
        const double populated = msSince(p);
        openCore.push_back(opened);
        populate.push_back(populated);
        openTotal.push_back(opened + populated);
    }

    // The whole window path: worker thread open, queued snapshot, models, first selection + diff.
    std::vector<double> windowOpen;
    {
        ak::MainWindow::Options options;
        options.useSettings = false;
        options.followLive = false;
        ak::MainWindow window(options);
        window.setMessageHandler([](const QString& title, const QString& message) {
            std::fprintf(stderr, "bench_gui: %s: %s\n", qPrintable(title), qPrintable(message));
            std::exit(1);
        });
        window.resize(1600, 1000);
        window.show();
        for (int round = 0; round < 5; ++round) {
            QElapsedTimer t;
            t.start();
            QSignalSpy loaded(&window, &ak::MainWindow::sessionLoaded);
            window.openSession(dir);
            if (!QTest::qWaitFor([&] { return !loaded.isEmpty() && window.isSettled(); }, 60000)) {
                std::fprintf(stderr, "bench_gui: the window did not finish loading within 60 s\n");
                return 1;
            }
            windowOpen.push_back(msSince(t));
        }
    }

    // --- replot: a timeline the size it has in a 1600x1000 window ---------------------------------
    ak::TimelinePlot plot;
    plot.resize(940, 420);
    plot.show();
    plot.setExperiments(experiments);
    QApplication::processEvents();
    struct MetricCase {
        const char* label;
        ak::TimelinePlot::Metric metric;
        const char* kernel;
    };
    const MetricCase cases[] = {
        {"replot: speed-up, all kernels (wall)", ak::TimelinePlot::Metric::Speedup, ""},
        {"replot: latency, rmsnorm only (wall)", ak::TimelinePlot::Metric::Latency, "rmsnorm"},
        {"replot: bandwidth, all kernels (wall)", ak::TimelinePlot::Metric::Bandwidth, ""},
    };
    std::vector<std::pair<const char*, Stats>> replotRows;
    Stats ownSpeedup;
    std::vector<double> allWall;
    for (const MetricCase& c : cases) {
        plot.setKernelFilter(QString::fromUtf8(c.kernel));
        plot.setMetric(c.metric);
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);  // warm-up
        std::vector<double> wall, own;
        for (int i = 0; i < replots; ++i) {
            QElapsedTimer t;
            t.start();
            plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
            wall.push_back(msSince(t));
            own.push_back(plot.plot()->replotTime());
        }
        allWall.insert(allWall.end(), wall.begin(), wall.end());
        replotRows.emplace_back(c.label, statsOf(wall));
        if (c.metric == ak::TimelinePlot::Metric::Speedup)
            ownSpeedup = statsOf(own);
    }
    // Rebuilding the series (what a metric or kernel switch costs), then replotting.
    std::vector<double> rebuild;
    for (int i = 0; i < std::max(10, replots / 5); ++i) {
        QElapsedTimer t;
        t.start();
        plot.setMetric(i % 2 ? ak::TimelinePlot::Metric::Latency : ak::TimelinePlot::Metric::Speedup);
        plot.setKernelFilter(i % 2 ? QStringLiteral("rmsnorm") : QString());
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
        rebuild.push_back(msSince(t));
    }

    // --- table scroll ------------------------------------------------------------------------------
    ak::ExperimentTableModel model;
    ak::ExperimentFilterModel filter;
    filter.setSourceModel(&model);
    model.setExperiments(experiments);
    QTableView table;
    table.setModel(&filter);
    table.setSortingEnabled(true);
    table.sortByColumn(ak::ExperimentTableModel::NumberColumn, Qt::AscendingOrder);
    table.verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table.resize(660, 900);
    table.show();
    QApplication::processEvents();
    const int rows = filter.rowCount();
    const int page = std::max(1, table.viewport()->height() / std::max(1, table.verticalHeader()->defaultSectionSize()));
    std::vector<double> pages;
    QElapsedTimer whole;
    whole.start();
    for (int row = 0; row < rows; row += page) {
        QElapsedTimer t;
        t.start();
        table.scrollTo(filter.index(row, 0), QAbstractItemView::PositionAtTop);
        table.viewport()->repaint();
        pages.push_back(msSince(t));
    }
    const double scrollTotal = msSince(whole);

    // --- report --------------------------------------------------------------------------------------
    std::printf("\nbench_gui: %s\n", name.c_str());
    std::printf("%d experiments, Qt %s, QCustomPlot %s, platform %s\n\n", int(experiments.size()), qVersion(),
                QCUSTOMPLOT_VERSION_STR, qPrintable(QApplication::platformName()));
    std::printf("| %-44s | %8s | %8s | %8s | %8s | %8s | %4s | %-9s |\n", "what (ms)", "median", "p10", "p90", "min",
                "max", "n", "target");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(46, '-').c_str(), std::string(10, '-').c_str(),
                std::string(10, '-').c_str(), std::string(10, '-').c_str(), std::string(10, '-').c_str(),
                std::string(10, '-').c_str(), std::string(6, '-').c_str(), std::string(11, '-').c_str());
    const Stats total = statsOf(openTotal);
    printRow("open: Session::open (read-only)", statsOf(openCore), "");
    printRow("open: table + filter model + timeline", statsOf(populate), "");
    printRow("open: both", total, "< 1000");
    const Stats window = statsOf(windowOpen);
    printRow("open: MainWindow end to end (worker, diff)", window, "< 1000");
    for (const auto& [label, stats] : replotRows)
        printRow(label, stats, "< 16");
    printRow("replot: speed-up, QCustomPlot::replotTime", ownSpeedup, "");
    printRow("switch metric/kernel: rebuild + replot", statsOf(rebuild), "");
    printRow("scroll: scrollTo + paint, per page", statsOf(pages), "< 16");
    std::printf("\nscroll: %d rows in %zu pages of %d rows, %.0f ms in total\n", rows, pages.size(), page, scrollTotal);

    const Stats replot = statsOf(allWall);
    const bool openOk = total.median < 1000.0 && window.median < 1000.0;
    const bool replotOk = replot.median < 16.0;
    std::printf("targets: open < 1 s %s, replot < 16 ms %s (median over all replots %.2f ms)\n",
                openOk ? "met" : "MISSED", replotOk ? "met" : "MISSED", replot.median);
    return check && !(openOk && replotOk) ? 1 : 0;
}
